// Package goagent is a small operations assistant built on the official Go
// SDKs: Anthropic Messages (anthropic-sdk-go), OpenAI Chat Completions and
// OpenAI Responses (openai-go), and Gemini generateContent (genai). It
// offers five tools, implemented deterministically in Go, and runs the
// usual agent loop: send the conversation, run the tools the model called,
// send their results back, until the model answers with text.
//
// It exists to be pinned by headergold. [Run] is an [harness.AgentFunc]:
// the examples module's TestGolden hands it to [goldentest.Test], which runs
// it in-process against the fake provider for every scenario without an
// agent.exec. The command in cmd/goagent runs the very same code as a
// subprocess, configured from its environment, for the scenarios with an
// exec.
//
// The agent is configured by environment variables, read through
// [ConfigFromEnv] (in-process, from the session's Env; as a command, from
// the process environment):
//
//	AGENT        anthropic | openai-chat | openai-responses | gemini
//	STREAM       1 to stream the replies (default: one JSON response)
//	TOOLS        sorted (default) | map
//	PROMPT       the user's request (required)
//	TAG_SESSION  1 to tag every request with a fresh per-run session id
//
// TOOLS=map registers the tools by ranging over a Go map, so the tool list
// follows map iteration order and changes from run to run: the bug
// headergold's repeat pass exists to catch. TAG_SESSION=1 sends a random
// id (metadata.user_id for Anthropic, safety_identifier for OpenAI), the
// kind of volatile value a scenario's redact rule replaces.
package goagent
