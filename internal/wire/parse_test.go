package wire

import (
	"bytes"
	"net/http/httptest"
	"testing"
)

// ParseResponse reads back every reply WriteResponse renders, in every
// format, streamed and not.
func TestParseResponseReadsWhatIsRendered(t *testing.T) {
	replies := map[string]Reply{
		"text":     {Text: "Hello <there> & \"you\"."},
		"one call": {ToolCalls: []ToolCall{{ID: "c1", Name: "read_file", Arguments: []byte(`{"path":"a b.go"}`)}}},
		"both":     {Text: "Looking.", ToolCalls: []ToolCall{{ID: "c1", Name: "grep", Arguments: []byte(`{"q":"é","n":1.50}`)}}},
		"several": {ToolCalls: []ToolCall{{ID: "c1", Name: "a", Arguments: []byte(`{}`)},
			{ID: "c2", Name: "b", Arguments: []byte(`{"x":[1,2]}`)}, {ID: "c3", Name: "c", Arguments: []byte(`{"y":null}`)}}},
	}
	for _, f := range Formats {
		for name, r := range replies {
			for _, stream := range []bool{false, true} {
				for _, array := range []bool{false, true} {
					// A Gemini stream without alt=sse is a JSON array.
					if array && (f != Gemini || !stream) {
						continue
					}
					e := Endpoint{Format: f, Model: "m", Stream: f == Gemini && stream, Array: array}
					w := httptest.NewRecorder()
					if err := WriteResponse(w, e, Ask{Stream: stream, Model: "m"}, 3, r); err != nil {
						t.Fatal(err)
					}
					got, err := ParseResponse(f, w.Header().Get("Content-Type"), w.Body.Bytes())
					if err != nil {
						t.Fatalf("%s %s stream=%v array=%v: %v\n%s", f, name, stream, array, err, w.Body.Bytes())
					}
					if got.Text != r.Text || len(got.ToolCalls) != len(r.ToolCalls) {
						t.Fatalf("%s %s stream=%v array=%v: parsed %+v, want %+v", f, name, stream, array, got, r)
					}
					for i, c := range r.ToolCalls {
						g := got.ToolCalls[i]
						if g.ID != c.ID || g.Name != c.Name || !bytes.Equal(g.Args(), c.Args()) {
							t.Errorf("%s %s stream=%v array=%v call %d: %s %s %s, want %s %s %s", f, name, stream, array, i, g.ID, g.Name, g.Args(), c.ID, c.Name, c.Args())
						}
					}
				}
			}
		}
	}
}

func TestParseResponseErrors(t *testing.T) {
	if _, err := ParseResponse(Anthropic, "application/json", []byte(`{"content":`)); err == nil {
		t.Error("truncated JSON accepted")
	}
	if _, err := ParseResponse(OpenAIResponses, "text/event-stream", []byte("data: {\"type\":\"response.created\"}\n\n")); err == nil {
		t.Error("a Responses stream without response.completed accepted")
	}
	if _, err := ParseResponse(Anthropic, "text/event-stream; charset=utf-8", []byte("event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"overloaded\"}}\n\n")); err == nil {
		t.Error("an Anthropic error event accepted")
	}
	// OpenAI arguments that are not JSON stay as a JSON string.
	r, err := ParseResponse(OpenAIChat, "application/json", []byte(`{"choices":[{"message":{"tool_calls":[{"id":"x","function":{"name":"f","arguments":"not json"}}]}}]}`))
	if err != nil || string(r.ToolCalls[0].Arguments) != `"not json"` {
		t.Errorf("got %+v, %v", r, err)
	}
}
