// Package frameworks pins the request headers of agents built on two
// TypeScript agent frameworks, each with its own tool loop: the OpenAI
// Agents SDK (@openai/agents, OpenAI Responses and Chat Completions) and
// LangChain.js (langchain's createAgent over @langchain/anthropic,
// @langchain/openai and @langchain/google-genai, all four wire formats),
// streaming and not, exact versions in agent/package-lock.json, each run
// as a subprocess against headergold's fake provider. A test shows that
// the OpenAI Agents SDK, which uploads a trace of every run to
// api.openai.com whatever its base URL, sends nothing off the machine
// under the environment headergold gives a captured agent.
//
// The tests need node on PATH and the agents' packages installed:
//
//	npm ci --prefix examples/frameworks/agent
//
// Record the golden files again with GOLDIE_UPDATE=1 go test
// ./frameworks/... from examples/.
//
// The package has no code besides its tests.
package frameworks
