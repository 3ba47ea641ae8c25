package wire

import (
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	for body, want := range map[string]Format{
		`{"model":"m","max_tokens":5,"messages":[],"system":"s"}`:                           Anthropic,
		`{"model":"m","messages":[],"anthropic_version":"bedrock-2023-05-31"}`:              Anthropic,
		`{"model":"m","messages":[],"tools":[{"name":"a","input_schema":{}}]}`:              Anthropic,
		`{"model":"m","messages":[{"role":"system","content":"s"}]}`:                        OpenAIChat,
		`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"a"}}]}`: OpenAIChat,
		`{"model":"m","input":"hi"}`:                                                        OpenAIResponses,
		`{"model":"m","instructions":"s","previous_response_id":"r"}`:                       OpenAIResponses,
		`{"model":"m","max_output_tokens":5}`:                                               OpenAIResponses,
		// A Responses member beside messages does not make it Responses.
		`{"model":"m","messages":[],"input":"x","max_output_tokens":5}`: OpenAIChat,
		`{"contents":[]}`:                                        Gemini,
		`{"system_instruction":{"parts":[]}}`:                    Gemini,
		`{"generation_config":{}}`:                               Gemini,
		`{"tools":[{"function_declarations":[]}],"messages":[]}`: Gemini,
		` {"tools":[1,{"googleSearch":{}},{"functionDeclarations":[]}],"input":"x"} ` + "\n": Gemini,
	} {
		got, err := Detect([]byte(body))
		if err != nil || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", body, got, err, want)
		}
	}
	for body, want := range map[string]string{
		`{"model":"m"}`: "cannot tell the wire format",
		`[1]`:           "not a JSON object",
		``:              "not a JSON object",
		`"messages"`:    "not a JSON object",
	} {
		if _, err := Detect([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Detect(%q) = %v, want an error with %q", body, err, want)
		}
	}
}

// TestDetectDeep: Detect reads only the top level, so a body nested ten
// million deep is detected without overflowing the stack.
func TestDetectDeep(t *testing.T) {
	body := `{"messages":[],"metadata":` + strings.Repeat("[", 10_000_000) + strings.Repeat("]", 10_000_000) + `}`
	if got, err := Detect([]byte(body)); err != nil || got != OpenAIChat {
		t.Fatalf("Detect = %q, %v", got, err)
	}
}

// TestDetectCorpus: every body of the shared corpus is detected as the
// format of its file.
func TestDetectCorpus(t *testing.T) {
	bodies, formats := corpusBodies(t)
	for i, body := range bodies {
		if got, err := Detect(body); err != nil || got != formats[i] {
			t.Errorf("body %d: Detect = %q, %v; want %q", i, got, err, formats[i])
		}
	}
}
