package wire

import (
	"bytes"
	"net/http/httptest"
	"strings"
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

// A stream that stops before the event that ends it is one that broke
// off, though its connection closed cleanly: every prefix of a rendered
// stream that ends at an event boundary, short of the whole, is refused,
// in every streamed format.
func TestParseResponseRefusesACutStream(t *testing.T) {
	r := Reply{Text: "Looking.", ToolCalls: []ToolCall{{ID: "c1", Name: "grep", Arguments: []byte(`{"q":"x"}`)}, {ID: "c2", Name: "ls", Arguments: []byte(`{}`)}}}
	for _, f := range Formats {
		e := Endpoint{Format: f, Model: "m", Stream: f == Gemini}
		w := httptest.NewRecorder()
		if err := WriteResponse(w, e, Ask{Stream: true, Model: "m"}, 3, r); err != nil {
			t.Fatal(err)
		}
		ct, body := w.Header().Get("Content-Type"), w.Body.Bytes()
		if _, err := ParseResponse(f, ct, body); err != nil {
			t.Fatalf("%s: the whole stream: %v", f, err)
		}
		cuts := 0
		for i := 0; i+2 < len(body); i++ {
			if body[i] != '\n' || body[i+1] != '\n' {
				continue
			}
			cuts++
			got, err := ParseResponse(f, ct, body[:i+2])
			// A compatible server may end an OpenAI Chat stream at
			// its finish reason, without [DONE].
			if finished := f == OpenAIChat && bytes.Contains(body[:i+2], []byte(`"finish_reason":"`)); err == nil && !finished {
				t.Errorf("%s: the stream cut after %d bytes (of %d) read as %+v", f, i+2, len(body), got)
			} else if err != nil && finished {
				t.Errorf("%s: the stream ended at its finish reason: %v", f, err)
			}
		}
		if cuts < 2 {
			t.Errorf("%s: %d event boundaries in\n%s", f, cuts, body)
		}
	}
}

// A stream that ends as the API ends one but carries a tool call whose
// input is not JSON, or an error event, is refused by name.
func TestParseResponseStreamErrors(t *testing.T) {
	cases := []struct {
		f    Format
		body string
		want string
	}{
		{OpenAIChat, "data: {\"error\":{\"message\":\"overloaded\"}}\n\n", "openai-chat stream error: overloaded"},
		{Gemini, "data: {\"error\":{\"message\":\"quota\"}}\n\n", "gemini stream error: quota"},
		{Gemini, `[{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]},{"error":{"message":"internal"}}]`, "gemini stream error: internal"},
		{Gemini, `[{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}]`, "gemini stream ended without a chunk giving a finishReason"},
		{Gemini, "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"}}\n\n", ""},
		// A null error member is no error.
		{OpenAIChat, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":\"stop\"}],\"error\":null}\n\ndata: [DONE]\n\n", ""},
		{Gemini, "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"hi\"}]},\"finishReason\":\"STOP\"}],\"error\":null}\n\n", ""},
		// A compatible server that ends at the finish reason, no [DONE].
		{OpenAIChat, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n", ""},
		{OpenAIChat, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},\"finish_reason\":null}]}\n\n", "openai-chat stream ended with neither a finish_reason nor data: [DONE]"},
	}
	for _, c := range cases {
		ct := "text/event-stream"
		if c.body[0] == '[' {
			ct = "application/json" // a Gemini stream without alt=sse
		}
		_, err := ParseResponse(c.f, ct, []byte(c.body))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %q: %v, want %q", c.f, c.body, err, c.want)
		}
	}
}

// A tool input that max_tokens cut short, in an Anthropic stream that
// ended as the API ends one, is the model's reply: kept as a JSON string,
// as OpenAI Chat's arguments that are not JSON are.
func TestParseResponseAnthropicInputCutByMaxTokens(t *testing.T) {
	body := "data: {\"type\":\"message_start\",\"message\":{}}\n\n" +
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"f\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"ping\"}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"a\\\": \\\"lo\"}}\n\n" +
		"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\"}}\n\n" +
		"data: {\"type\":\"message_stop\"}\n\n"
	got, err := ParseResponse(Anthropic, "text/event-stream", []byte(body))
	if err != nil || len(got.ToolCalls) != 1 || string(got.ToolCalls[0].Arguments) != `"{\"a\": \"lo"` {
		t.Errorf("got %+v, %v", got, err)
	}
}
