// Package wire is the one definition of the provider wire formats: which
// endpoint a request path names, how a request body splits into the
// header (config, system, tools) and the conversation, how the body is
// rebuilt from those parts, and how a scripted reply is written as that
// format's response, as JSON or as a server-sent event stream.
//
// # The header of a request body
//
// Each part is the body's own member, verbatim: the bytes as sent, no key
// reordered, no string or number re-encoded.
//
//	format            system                          conversation
//	anthropic         system                          messages
//	openai-chat       leading system/developer        messages (the others)
//	                  messages, as an array
//	openai-responses  instructions                    input, previous_response_id, conversation
//	gemini            systemInstruction (or           contents
//	                  system_instruction)
//
// tools is the body's tools member in every format. config holds every
// other top-level member, in body order, except the transport flags
// stream and stream_options. A body that was pretty-printed (it has a line
// break) is read without the whitespace between its tokens, and the
// whitespace is kept aside so that [Rebuild] still gives the body byte for
// byte.
//
// # The body rule
//
// What a provider of each format refuses at the top level of a request
// body is stated once, here: a body without its format's conversation
// member, with a member the provider reads of a JSON type it does not
// take, or without a member the provider requires (model, max_tokens).
// [CheckShape] holds a body to the first two, as replay diff does with
// its inputs; [CheckRequest] and [Parts.Refused] to all three, as the
// fake provider does with every request (a *[BodyError] says what and
// why).
package wire
