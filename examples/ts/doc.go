// Package ts pins the request headers of a Node agent on the official
// TypeScript SDKs (@anthropic-ai/sdk and openai), and of the same agent on
// the AI SDK (ai with @ai-sdk/anthropic, @ai-sdk/openai and
// @ai-sdk/google, its own tool loop), exact versions in
// agent/package-lock.json, run as a subprocess against headergold's fake
// provider: every fixture in fixtures/ is replayed against golden/, each
// agent is shown to print the scripted answer, and the repeat pass is
// shown to catch plugins that register asynchronously.
//
// The tests need node on PATH and the agent's packages installed:
//
//	npm ci --prefix examples/ts/agent
//
// Record the golden files again with GOLDIE_UPDATE=1 go test ./ts/...
// from examples/.
//
// The package has no code besides its tests.
package ts
