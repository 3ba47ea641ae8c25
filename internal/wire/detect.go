package wire

import (
	"errors"

	"github.com/tidwall/gjson"
)

// Detect tells the wire format of a request body from its top-level
// members, for inputs that do not say which format they are in (a file of
// captured bodies, say):
//
//	gemini            contents, systemInstruction, generationConfig (either
//	                  case), or a tools entry with functionDeclarations
//	openai-responses  no messages, and input, instructions,
//	                  max_output_tokens or previous_response_id
//	anthropic         messages, and system, anthropic_version or a tool
//	                  with input_schema
//	openai-chat       messages otherwise
//
// Detect reads only the top level and the tools entries, without
// recursion, so it is safe on any input; it does not validate the body
// ([Split] does).
func Detect(body []byte) (Format, error) {
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return "", errors.New("the body is not a JSON object")
	}
	has := map[string]bool{}
	var tools []gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		has[k.Str] = true
		if k.Str == "tools" {
			tools = append(tools, v)
		}
		return true
	})
	toolHas := func(key string) bool {
		found := false
		for _, list := range tools {
			list.ForEach(func(_, t gjson.Result) bool {
				found = t.IsObject() && t.Get(gjson.Escape(key)).Exists()
				return !found
			})
			if found {
				return true
			}
		}
		return false
	}
	switch {
	case has["contents"] || has["systemInstruction"] || has["system_instruction"] ||
		has["generationConfig"] || has["generation_config"] ||
		toolHas("functionDeclarations") || toolHas("function_declarations"):
		return Gemini, nil
	case !has["messages"] && (has["input"] || has["instructions"] || has["max_output_tokens"] || has["previous_response_id"]):
		return OpenAIResponses, nil
	case has["messages"]:
		if has["system"] || has["anthropic_version"] || toolHas("input_schema") {
			return Anthropic, nil
		}
		return OpenAIChat, nil
	}
	return "", errors.New("cannot tell the wire format of this request body (no messages, input or contents member)")
}
