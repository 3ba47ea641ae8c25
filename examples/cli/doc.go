// Package cli pins the request headers of two coding-agent CLIs, Codex
// CLI (@openai/codex, OpenAI Responses) and Gemini CLI
// (@google/gemini-cli, Gemini), exact versions in
// agent/package-lock.json, each run as a subprocess against headergold's
// fake provider through a wrapper script (agent/codex.sh,
// agent/gemini.sh) that points it there, turns off what it would reach
// over the network, and gives it a fresh HOME and a working directory
// that is a git repository of its own (and, for Gemini CLI, turns off
// one of its two built-in skills, which it lists in the order a file
// glob finds them, an order that varies). The fixtures' redact rules
// normalise what the CLIs take from the clock and the machine (ids,
// dates, temporary paths, the login shell), so that the repeat pass and
// the golden files hold across runs and hosts. Tests show the repeat pass
// catching Codex CLI's hash-ordered client_metadata when it is not
// redacted, and, where strace runs, that neither CLI looks up a name or
// connects anywhere but loopback.
//
// The tests need node on PATH and the CLIs installed:
//
//	npm ci --prefix examples/cli/agent
//
// Record the golden files again with GOLDIE_UPDATE=1 go test ./cli/...
// from examples/.
//
// The golden files hold what the CLIs send, their prompts and tool
// descriptions among it: text of Codex CLI (Copyright OpenAI) and Gemini
// CLI (Copyright Google LLC), both under the Apache License 2.0.
//
// The package has no code besides its tests.
package cli
