// Package sdkaccept proves that the official Go SDKs accept every reply the
// fake provider writes. Its tests point the Anthropic, OpenAI (Chat
// Completions and Responses) and genai clients at a loopback server that
// answers with the renderer of package wire, streaming and not, for each
// reply shape (text, one tool call, text and a tool call, two tool calls),
// and check that each SDK read back the scripted text, tool-call ids,
// names and argument bytes, and that a provider-style error surfaces as
// the SDK's error with its message.
//
// It lives in the examples module so that the root module needs none of
// the SDKs; the package has no code besides its tests.
package sdkaccept
