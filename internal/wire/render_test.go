package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// replyShapes are the reply shapes every format must render. The texts and
// arguments hold bytes an encoder likes to change: <, > and &, quotes, a
// line break, non-ASCII, spaces between tokens and a number written 1.50.
var replyShapes = []struct {
	name string
	r    Reply
}{
	{"text", Reply{Text: "It is 12 °C <b>&</b> \"clear\".\nBye."}},
	{"one tool call", Reply{ToolCalls: []ToolCall{
		{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Oslo <&>", "n":1.50}`)},
	}}},
	{"text and a tool call", Reply{Text: "Let me look.", ToolCalls: []ToolCall{
		{ID: "toolu_x9", Name: "read_file", Arguments: json.RawMessage(`{"path":"a/b.go"}`)},
	}}},
	{"several tool calls", Reply{ToolCalls: []ToolCall{
		{ID: "call_A", Name: "ls", Arguments: json.RawMessage(`{"dir":"."}`)},
		{ID: "call_B", Name: "now"},
		{ID: "call_C", Name: "grep", Arguments: json.RawMessage("{\n  \"q\": [1, \"é\"]\n}")},
	}}},
}

// call is a tool call as read back from a rendered response.
type call struct {
	id, name string
	args     []byte
}

// parsed is what a client reads from a rendered response.
type parsed struct {
	id    string // the message, completion or response id
	model string
	text  string
	calls []call
	stop  string // stop_reason, finish_reason, status or finishReason
	// events are the SSE events' names (their event: line, else the data's
	// type member), in order.
	events []string
}

// sseEvent is one server-sent event.
type sseEvent struct {
	name string
	data []byte
}

// readSSE splits an event stream into its events, checking the framing
// every client relies on: events end with a blank line and carry one data:
// line each (a payload is one line).
func readSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	if !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("the stream does not end with a blank line: %q", body[max(0, len(body)-40):])
	}
	var events []sseEvent
	for block := range strings.SplitSeq(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		var ev sseEvent
		datas := 0
		for line := range strings.SplitSeq(block, "\n") {
			switch {
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = []byte(strings.TrimPrefix(line, "data: "))
				datas++
			default:
				t.Fatalf("unexpected stream line %q", line)
			}
		}
		if datas != 1 {
			t.Fatalf("event %q has %d data lines, want 1", block, datas)
		}
		events = append(events, ev)
	}
	return events
}

// decode unmarshals JSON, failing the test with context.
func decode(t *testing.T, what string, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, data)
	}
}

// render writes reply r as endpoint e's response to request n.
func render(t *testing.T, e Endpoint, stream bool, n int, r Reply) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	if err := WriteResponse(rec, e, Ask{Stream: stream, Model: "model-x"}, n, r); err != nil {
		t.Fatalf("WriteResponse: %v", err)
	}
	want := "application/json"
	if stream || e.Stream {
		want = "text/event-stream"
	}
	if ct := rec.Header().Get("Content-Type"); ct != want {
		t.Fatalf("Content-Type = %q, want %q", ct, want)
	}
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d", rec.Code)
	}
	return rec
}

// endpointOf is the generation endpoint of a format.
func endpointOf(f Format, stream bool) Endpoint {
	if f == Gemini {
		return Endpoint{Format: Gemini, Model: "model-x", Stream: stream}
	}
	return Endpoint{Format: f}
}

// parse reads a rendered response as format f's clients do.
func parse(t *testing.T, f Format, stream bool, body []byte) parsed {
	t.Helper()
	switch f {
	case Anthropic:
		if stream {
			return parseAnthropicStream(t, readSSE(t, body))
		}
		return parseAnthropic(t, body)
	case OpenAIChat:
		if stream {
			return parseChatStream(t, readSSE(t, body))
		}
		return parseChat(t, body)
	case OpenAIResponses:
		if stream {
			return parseResponsesStream(t, readSSE(t, body))
		}
		return parseResponse(t, body)
	case Gemini:
		if stream {
			return parseGeminiStream(t, readSSE(t, body))
		}
		return parseGemini(t, body)
	}
	t.Fatalf("unknown format %q", f)
	return parsed{}
}

// anthropicBlock is an Anthropic content block.
type anthropicBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// anthropicMessage is an Anthropic message.
type anthropicMessage struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []anthropicBlock `json:"content"`
	StopReason   *string          `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
}

func parseAnthropic(t *testing.T, body []byte) parsed {
	var m anthropicMessage
	decode(t, "anthropic message", body, &m)
	if m.Type != "message" || m.Role != "assistant" || m.StopReason == nil || m.Usage.InputTokens == 0 || m.Usage.OutputTokens == 0 {
		t.Errorf("anthropic message lacks type, role, stop_reason or usage: %s", body)
	}
	p := parsed{id: m.ID, model: m.Model, stop: *m.StopReason}
	for _, b := range m.Content {
		switch b.Type {
		case "text":
			p.text += b.Text
		case "tool_use":
			p.calls = append(p.calls, call{b.ID, b.Name, b.Input})
		default:
			t.Errorf("unexpected content block type %q", b.Type)
		}
	}
	return p
}

func parseAnthropicStream(t *testing.T, events []sseEvent) parsed {
	var p parsed
	var blocks []anthropicBlock
	var partial [][]byte
	for _, ev := range events {
		var e struct {
			Type         string            `json:"type"`
			Index        int               `json:"index"`
			Message      *anthropicMessage `json:"message"`
			ContentBlock *anthropicBlock   `json:"content_block"`
			Delta        struct {
				Type        string  `json:"type"`
				Text        string  `json:"text"`
				PartialJSON string  `json:"partial_json"`
				StopReason  *string `json:"stop_reason"`
			} `json:"delta"`
			Usage *struct {
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		}
		decode(t, "anthropic event "+ev.name, ev.data, &e)
		if ev.name != e.Type {
			t.Errorf("event: line %q, data type %q", ev.name, e.Type)
		}
		p.events = append(p.events, ev.name)
		switch e.Type {
		case "message_start":
			if e.Message == nil || len(e.Message.Content) != 0 || e.Message.StopReason != nil {
				t.Fatalf("message_start without an empty message: %s", ev.data)
			}
			p.id, p.model = e.Message.ID, e.Message.Model
		case "content_block_start":
			if e.Index != len(blocks) || e.ContentBlock == nil {
				t.Fatalf("content_block_start index %d, want %d: %s", e.Index, len(blocks), ev.data)
			}
			if e.ContentBlock.Type == "tool_use" && string(e.ContentBlock.Input) != "{}" {
				t.Errorf("tool_use starts with input %s, want {} (the SDKs replace exactly {})", e.ContentBlock.Input)
			}
			blocks = append(blocks, *e.ContentBlock)
			partial = append(partial, nil)
		case "content_block_delta":
			if e.Index != len(blocks)-1 {
				t.Fatalf("delta for block %d while block %d is open", e.Index, len(blocks)-1)
			}
			switch b := &blocks[e.Index]; {
			case b.Type == "text" && e.Delta.Type == "text_delta":
				b.Text += e.Delta.Text
			case b.Type == "tool_use" && e.Delta.Type == "input_json_delta":
				partial[e.Index] = append(partial[e.Index], e.Delta.PartialJSON...)
			default:
				t.Fatalf("delta %q for a %q block", e.Delta.Type, b.Type)
			}
		case "message_delta":
			if e.Delta.StopReason == nil || e.Usage == nil || e.Usage.OutputTokens == 0 {
				t.Fatalf("message_delta without stop_reason or usage: %s", ev.data)
			}
			p.stop = *e.Delta.StopReason
		}
	}
	for i, b := range blocks {
		if b.Type == "text" {
			p.text += b.Text
		} else {
			p.calls = append(p.calls, call{b.ID, b.Name, partial[i]})
		}
	}
	return p
}

// chatToolCall is an OpenAI Chat tool call or its delta.
type chatToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func parseChat(t *testing.T, body []byte) parsed {
	var c struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created *int   `json:"created"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role      string         `json:"role"`
				Content   *string        `json:"content"`
				ToolCalls []chatToolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	decode(t, "chat completion", body, &c)
	if c.Object != "chat.completion" || c.Created == nil || *c.Created != 0 || len(c.Choices) != 1 || c.Usage.TotalTokens == 0 {
		t.Fatalf("not a chat.completion with created 0, one choice and usage: %s", body)
	}
	ch := c.Choices[0]
	p := parsed{id: c.ID, model: c.Model, stop: ch.FinishReason}
	if ch.Message.Role != "assistant" {
		t.Errorf("role %q", ch.Message.Role)
	}
	if ch.Message.Content != nil {
		p.text = *ch.Message.Content
	} else if len(ch.Message.ToolCalls) == 0 {
		t.Errorf("content null without tool calls")
	}
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "function" {
			t.Errorf("tool call type %q", tc.Type)
		}
		p.calls = append(p.calls, call{tc.ID, tc.Function.Name, []byte(tc.Function.Arguments)})
	}
	return p
}

func parseChatStream(t *testing.T, events []sseEvent) parsed {
	var p parsed
	last := events[len(events)-1]
	if string(last.data) != "[DONE]" || last.name != "" {
		t.Fatalf("the stream ends with %q, want data: [DONE]", last.data)
	}
	for i, ev := range events[:len(events)-1] {
		if ev.name != "" {
			t.Errorf("chat event with an event: line %q", ev.name)
		}
		var c struct {
			ID      string `json:"id"`
			Object  string `json:"object"`
			Model   string `json:"model"`
			Choices []struct {
				Index int `json:"index"`
				Delta struct {
					Role      string         `json:"role"`
					Content   *string        `json:"content"`
					ToolCalls []chatToolCall `json:"tool_calls"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct {
				TotalTokens int `json:"total_tokens"`
			} `json:"usage"`
		}
		decode(t, "chat chunk", ev.data, &c)
		if c.Object != "chat.completion.chunk" || len(c.Choices) != 1 {
			t.Fatalf("not a chat.completion.chunk with one choice: %s", ev.data)
		}
		if i == 0 {
			p.id, p.model = c.ID, c.Model
			if c.Choices[0].Delta.Role != "assistant" {
				t.Errorf("the first chunk has role %q", c.Choices[0].Delta.Role)
			}
		} else if c.ID != p.id {
			t.Errorf("chunk %d has id %q, the first %q", i, c.ID, p.id)
		}
		d := c.Choices[0].Delta
		if d.Content != nil {
			p.text += *d.Content
		}
		for _, tc := range d.ToolCalls {
			if tc.Index == nil {
				t.Fatalf("tool call delta without index: %s", ev.data)
			}
			if *tc.Index == len(p.calls) {
				if tc.ID == "" || tc.Type != "function" {
					t.Errorf("the first delta of tool call %d lacks id or type: %s", *tc.Index, ev.data)
				}
				p.calls = append(p.calls, call{id: tc.ID})
			}
			pc := &p.calls[*tc.Index]
			pc.name += tc.Function.Name
			pc.args = append(pc.args, tc.Function.Arguments...)
		}
		fin := c.Choices[0].FinishReason
		if (fin != nil) != (i == len(events)-2) {
			t.Errorf("chunk %d has finish_reason %v; only the last may", i, fin)
		}
		if fin != nil {
			p.stop = *fin
		}
		// Usage comes only when stream_options.include_usage asks.
		if c.Usage != nil {
			t.Errorf("chunk %d has usage nobody asked for: %s", i, ev.data)
		}
	}
	return p
}

// responseItem is a Responses output item.
type responseItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// responseObject is a Responses response object.
type responseObject struct {
	ID        string         `json:"id"`
	Object    string         `json:"object"`
	CreatedAt *int           `json:"created_at"`
	Status    string         `json:"status"`
	Model     string         `json:"model"`
	Output    []responseItem `json:"output"`
	Usage     *struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

// itemsOf reads a response's output items into p.
func itemsOf(t *testing.T, r responseObject, p *parsed) {
	t.Helper()
	if r.Object != "response" || r.CreatedAt == nil || *r.CreatedAt != 0 || r.Usage == nil || r.Usage.TotalTokens == 0 {
		t.Errorf("not a response with created_at 0 and usage: %+v", r)
	}
	p.id, p.model, p.stop = r.ID, r.Model, r.Status
	for _, it := range r.Output {
		if it.Status != "completed" {
			t.Errorf("item %s has status %q", it.ID, it.Status)
		}
		switch it.Type {
		case "message":
			if it.ID != "msg_"+strings.TrimPrefix(p.id, "resp_") {
				t.Errorf("message item id %q does not match response %q", it.ID, p.id)
			}
			for _, c := range it.Content {
				if c.Type != "output_text" {
					t.Errorf("content type %q", c.Type)
				}
				p.text += c.Text
			}
		case "function_call":
			p.calls = append(p.calls, call{it.CallID, it.Name, []byte(it.Arguments)})
		default:
			t.Errorf("item type %q", it.Type)
		}
	}
}

func parseResponse(t *testing.T, body []byte) parsed {
	var r responseObject
	decode(t, "response", body, &r)
	var p parsed
	itemsOf(t, r, &p)
	return p
}

func parseResponsesStream(t *testing.T, events []sseEvent) parsed {
	var p parsed
	var added []responseItem
	deltas := map[string]string{}
	for i, ev := range events {
		var e struct {
			Type           string          `json:"type"`
			SequenceNumber *int            `json:"sequence_number"`
			Response       *responseObject `json:"response"`
			OutputIndex    *int            `json:"output_index"`
			ItemID         string          `json:"item_id"`
			Item           *responseItem   `json:"item"`
			Delta          string          `json:"delta"`
			Text           string          `json:"text"`
			Arguments      string          `json:"arguments"`
		}
		decode(t, "responses event "+ev.name, ev.data, &e)
		if ev.name != e.Type {
			t.Errorf("event: line %q, data type %q", ev.name, e.Type)
		}
		if e.SequenceNumber == nil || *e.SequenceNumber != i {
			t.Errorf("event %d (%s) has sequence_number %v", i, e.Type, e.SequenceNumber)
		}
		p.events = append(p.events, e.Type)
		switch e.Type {
		case "response.created", "response.in_progress":
			if e.Response == nil || e.Response.Status != "in_progress" || len(e.Response.Output) != 0 {
				t.Errorf("%s without an empty in-progress response: %s", e.Type, ev.data)
			}
		case "response.output_item.added":
			if e.Item == nil || *e.OutputIndex != len(added) || e.Item.Status != "in_progress" {
				t.Fatalf("output_item.added out of order: %s", ev.data)
			}
			added = append(added, *e.Item)
		case "response.output_text.delta", "response.function_call_arguments.delta":
			if e.ItemID != added[len(added)-1].ID {
				t.Errorf("%s for item %q while %q is open", e.Type, e.ItemID, added[len(added)-1].ID)
			}
			deltas[e.ItemID] += e.Delta
		case "response.output_text.done":
			if e.Text != deltas[e.ItemID] {
				t.Errorf("output_text.done text %q, deltas %q", e.Text, deltas[e.ItemID])
			}
		case "response.function_call_arguments.done":
			if e.Arguments != deltas[e.ItemID] {
				t.Errorf("arguments.done %q, deltas %q", e.Arguments, deltas[e.ItemID])
			}
		case "response.output_item.done":
			if e.Item == nil || e.Item.ID != added[*e.OutputIndex].ID {
				t.Errorf("output_item.done does not match its added item: %s", ev.data)
			}
		case "response.completed":
			if i != len(events)-1 || e.Response == nil {
				t.Fatalf("response.completed is not the last event or has no response")
			}
			itemsOf(t, *e.Response, &p)
			// What the deltas said must be what the completed response says.
			var fromDeltas string
			for _, it := range added {
				if it.Type == "message" {
					fromDeltas += deltas[it.ID]
				}
			}
			if fromDeltas != p.text {
				t.Errorf("text from deltas %q, completed %q", fromDeltas, p.text)
			}
			for j, c := range p.calls {
				if got := deltas[fmt.Sprintf("fc_%s_%d", strings.TrimPrefix(p.id, "resp_"), j+1)]; got != string(c.args) {
					t.Errorf("call %d: arguments from deltas %q, completed %q", j, got, c.args)
				}
			}
		}
	}
	return p
}

// geminiResponse is a GenerateContentResponse.
type geminiResponse struct {
	Candidates []struct {
		Content struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         *string `json:"text"`
				FunctionCall *struct {
					ID   string          `json:"id"`
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		TotalTokenCount int `json:"totalTokenCount"`
	} `json:"usageMetadata"`
	ModelVersion string `json:"modelVersion"`
	ResponseID   string `json:"responseId"`
}

// geminiInto adds one response's parts to p.
func geminiInto(t *testing.T, data []byte, p *parsed) geminiResponse {
	t.Helper()
	var g geminiResponse
	decode(t, "gemini response", data, &g)
	if len(g.Candidates) != 1 || g.Candidates[0].Content.Role != "model" {
		t.Fatalf("not one candidate with role model: %s", data)
	}
	p.id, p.model = g.ResponseID, g.ModelVersion
	for _, part := range g.Candidates[0].Content.Parts {
		switch {
		case part.Text != nil:
			p.text += *part.Text
		case part.FunctionCall != nil:
			p.calls = append(p.calls, call{part.FunctionCall.ID, part.FunctionCall.Name, part.FunctionCall.Args})
		default:
			t.Errorf("a part with neither text nor functionCall: %s", data)
		}
	}
	if fr := g.Candidates[0].FinishReason; fr != "" {
		p.stop = fr
	}
	return g
}

func parseGemini(t *testing.T, body []byte) parsed {
	var p parsed
	g := geminiInto(t, body, &p)
	if g.UsageMetadata == nil || g.UsageMetadata.TotalTokenCount == 0 {
		t.Errorf("no usageMetadata: %s", body)
	}
	return p
}

func parseGeminiStream(t *testing.T, events []sseEvent) parsed {
	var p parsed
	for i, ev := range events {
		if ev.name != "" {
			t.Errorf("gemini event with an event: line %q", ev.name)
		}
		g := geminiInto(t, ev.data, &p)
		last := i == len(events)-1
		if (g.Candidates[0].FinishReason != "") != last || (g.UsageMetadata != nil) != last {
			t.Errorf("chunk %d of %d: finishReason %q, usage %v; only the last has them", i, len(events), g.Candidates[0].FinishReason, g.UsageMetadata != nil)
		}
	}
	return p
}

func TestWriteResponseEveryFormatAndShape(t *testing.T) {
	const n = 7
	for _, f := range Formats {
		for _, stream := range []bool{false, true} {
			for _, shape := range replyShapes {
				t.Run(fmt.Sprintf("%s/stream=%v/%s", f, stream, shape.name), func(t *testing.T) {
					r := shape.r
					e := endpointOf(f, stream)
					rec := render(t, e, stream && f != Gemini, n, r)
					body := rec.Body.Bytes()
					if stream && !rec.Flushed {
						t.Errorf("the stream was never flushed")
					}
					// No HTML escaping: the scripted bytes are on the wire.
					if bytes.Contains(body, []byte(`\u003c`)) || bytes.Contains(body, []byte(`\u0026`)) {
						t.Errorf("HTML-escaped output: %s", body)
					}
					again := render(t, e, stream && f != Gemini, n, r)
					if !bytes.Equal(again.Body.Bytes(), body) {
						t.Errorf("two renderings differ")
					}
					p := parse(t, f, stream, body)
					checkParsed(t, f, stream, n, r, p)
				})
			}
		}
	}
}

// checkParsed compares what a client read with the scripted reply.
func checkParsed(t *testing.T, f Format, stream bool, n int, r Reply, p parsed) {
	t.Helper()
	wantID := map[Format]string{Anthropic: "msg_0007", OpenAIChat: "chatcmpl-0007", OpenAIResponses: "resp_0007", Gemini: "resp_0007"}[f]
	if p.id != wantID || p.model != "model-x" {
		t.Errorf("id %q, model %q; want %q, model-x", p.id, p.model, wantID)
	}
	if p.text != r.Text {
		t.Errorf("text %q, want %q", p.text, r.Text)
	}
	if len(p.calls) != len(r.ToolCalls) {
		t.Fatalf("%d tool calls, want %d: %+v", len(p.calls), len(r.ToolCalls), p.calls)
	}
	for i, c := range r.ToolCalls {
		got := p.calls[i]
		wantArgs := c.Args()
		if f == Gemini && stream && bytes.ContainsAny(wantArgs, "\n") {
			// An event's data is one line, so the stream compacts
			// multi-line arguments (token bytes unchanged).
			var b bytes.Buffer
			if err := json.Compact(&b, wantArgs); err != nil {
				t.Fatal(err)
			}
			wantArgs = b.Bytes()
		}
		if got.id != c.ID || got.name != c.Name || !bytes.Equal(got.args, wantArgs) {
			t.Errorf("tool call %d = {%q %q %s}, want {%q %q %s}", i, got.id, got.name, got.args, c.ID, c.Name, wantArgs)
		}
	}
	tools := len(r.ToolCalls) > 0
	wantStop := map[Format][2]string{
		Anthropic:       {"end_turn", "tool_use"},
		OpenAIChat:      {"stop", "tool_calls"},
		OpenAIResponses: {"completed", "completed"},
		Gemini:          {"STOP", "STOP"},
	}[f][map[bool]int{false: 0, true: 1}[tools]]
	if p.stop != wantStop {
		t.Errorf("stop %q, want %q", p.stop, wantStop)
	}
	if !stream {
		return
	}
	var want []string
	switch f {
	case Anthropic:
		want = []string{"message_start", "ping"}
		blocks := len(r.ToolCalls)
		if r.Text != "" {
			blocks++
		}
		for range blocks {
			want = append(want, "content_block_start", "content_block_delta", "content_block_stop")
		}
		want = append(want, "message_delta", "message_stop")
	case OpenAIResponses:
		want = []string{"response.created", "response.in_progress"}
		if r.Text != "" || !tools {
			want = append(want, "response.output_item.added", "response.content_part.added",
				"response.output_text.delta", "response.output_text.done", "response.content_part.done",
				"response.output_item.done")
		}
		for range r.ToolCalls {
			want = append(want, "response.output_item.added", "response.function_call_arguments.delta",
				"response.function_call_arguments.done", "response.output_item.done")
		}
		want = append(want, "response.completed")
	default:
		return
	}
	if !slices.Equal(p.events, want) {
		t.Errorf("events\n got %v\nwant %v", p.events, want)
	}
}

func TestWriteResponseIDs(t *testing.T) {
	r := Reply{Text: "t", ToolCalls: []ToolCall{{ID: "c1", Name: "a"}, {ID: "c2", Name: "b"}}}
	rec := render(t, Endpoint{Format: OpenAIResponses}, false, 42, r)
	var resp responseObject
	decode(t, "response", rec.Body.Bytes(), &resp)
	var ids []string
	for _, it := range resp.Output {
		ids = append(ids, it.ID)
	}
	if want := []string{"msg_0042", "fc_0042_1", "fc_0042_2"}; resp.ID != "resp_0042" || !slices.Equal(ids, want) {
		t.Errorf("response %q items %v, want resp_0042 %v", resp.ID, ids, want)
	}
	// A call scripted without an id gets one derived from n and its place.
	r = Reply{ToolCalls: []ToolCall{{Name: "a"}, {ID: "kept", Name: "b"}}}
	for f, want := range map[Format][]string{
		Anthropic:       {"toolu_0003_1", "kept"},
		OpenAIChat:      {"call_0003_1", "kept"},
		OpenAIResponses: {"call_0003_1", "kept"},
		Gemini:          {"", "kept"},
	} {
		for _, stream := range []bool{false, true} {
			p := parse(t, f, stream, render(t, endpointOf(f, stream), stream, 3, r).Body.Bytes())
			got := []string{p.calls[0].id, p.calls[1].id}
			if !slices.Equal(got, want) {
				t.Errorf("%s stream=%v: ids %v, want %v", f, stream, got, want)
			}
		}
	}
}

func TestWriteResponseEmptyReply(t *testing.T) {
	for _, f := range Formats {
		for _, stream := range []bool{false, true} {
			p := parse(t, f, stream, render(t, endpointOf(f, stream), stream, 1, Reply{}).Body.Bytes())
			if p.text != "" || len(p.calls) != 0 || p.stop == "" {
				t.Errorf("%s stream=%v: empty reply read as %+v", f, stream, p)
			}
		}
	}
}

func TestWriteResponseGeminiEndpointStreams(t *testing.T) {
	// streamGenerateContent streams whatever the caller read from the body.
	rec := render(t, Endpoint{Format: Gemini, Stream: true, Model: "m"}, false, 1, Reply{Text: "hi"})
	if p := parseGeminiStream(t, readSSE(t, rec.Body.Bytes())); p.text != "hi" {
		t.Errorf("text %q", p.text)
	}
}

func TestWriteResponseRefusesBeforeWriting(t *testing.T) {
	cases := []struct {
		f    Format
		e    Endpoint
		r    Reply
		want string
	}{
		{Anthropic, Endpoint{Format: Anthropic}, Reply{ToolCalls: []ToolCall{{ID: "c", Name: "x", Arguments: json.RawMessage(`[1]`)}}}, "as an object"},
		{Gemini, Endpoint{Format: Gemini}, Reply{ToolCalls: []ToolCall{{ID: "c", Name: "x", Arguments: json.RawMessage(`"s"`)}}}, "as an object"},
		{OpenAIChat, Endpoint{Format: OpenAIChat}, Reply{ToolCalls: []ToolCall{{ID: "c", Name: "x", Arguments: json.RawMessage(`{"a":`)}}}, "not valid JSON"},
		{Anthropic, Endpoint{Format: Anthropic, CountTokens: true}, Reply{Text: "x"}, "count_tokens"},
		{"", Endpoint{Format: "nope"}, Reply{Text: "x"}, "format"},
	}
	for _, c := range cases {
		for _, stream := range []bool{false, true} {
			rec := httptest.NewRecorder()
			err := WriteResponse(rec, c.e, Ask{Stream: stream, Model: "m"}, 1, c.r)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: err = %v, want one with %q", c.e.Format, err, c.want)
			}
			if rec.Body.Len() != 0 || len(rec.Header()) != 0 {
				t.Errorf("%s: wrote %d bytes and headers %v before refusing", c.e.Format, rec.Body.Len(), rec.Header())
			}
		}
	}
	// Arguments that are any JSON are fine for OpenAI: they are a string there.
	rec := render(t, Endpoint{Format: OpenAIChat}, false, 1, Reply{ToolCalls: []ToolCall{{ID: "c", Name: "x", Arguments: json.RawMessage(`[1, 2]`)}}})
	if p := parseChat(t, rec.Body.Bytes()); string(p.calls[0].args) != `[1, 2]` {
		t.Errorf("arguments %q", p.calls[0].args)
	}
}

func TestWriteError(t *testing.T) {
	msg := `request 3: POST /v1/nope is not served; want <one of> "these" & more`
	for _, c := range []struct {
		f      Format
		status int
		check  func(t *testing.T, body []byte)
	}{
		{Anthropic, 404, func(t *testing.T, body []byte) {
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			decode(t, "anthropic error", body, &e)
			if e.Type != "error" || e.Error.Type != "not_found_error" || e.Error.Message != msg {
				t.Errorf("anthropic error %s", body)
			}
		}},
		{Anthropic, 400, func(t *testing.T, body []byte) {
			if !bytes.Contains(body, []byte(`"type":"invalid_request_error"`)) {
				t.Errorf("anthropic 400 error %s", body)
			}
		}},
		{OpenAIChat, 400, func(t *testing.T, body []byte) {
			var e struct {
				Error struct {
					Message string          `json:"message"`
					Type    string          `json:"type"`
					Param   json.RawMessage `json:"param"`
					Code    json.RawMessage `json:"code"`
				} `json:"error"`
			}
			decode(t, "openai error", body, &e)
			if e.Error.Message != msg || e.Error.Type != "invalid_request_error" || string(e.Error.Param) != "null" || string(e.Error.Code) != "null" {
				t.Errorf("openai error %s", body)
			}
		}},
		{OpenAIResponses, 500, func(t *testing.T, body []byte) {
			if !bytes.Contains(body, []byte(`"type":"server_error"`)) {
				t.Errorf("responses 500 error %s", body)
			}
		}},
		{Gemini, 400, func(t *testing.T, body []byte) {
			var e struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
					Status  string `json:"status"`
				} `json:"error"`
			}
			decode(t, "gemini error", body, &e)
			if e.Error.Code != 400 || e.Error.Message != msg || e.Error.Status != "INVALID_ARGUMENT" {
				t.Errorf("gemini error %s", body)
			}
		}},
		{Gemini, 404, func(t *testing.T, body []byte) {
			if !bytes.Contains(body, []byte(`"status":"NOT_FOUND"`)) {
				t.Errorf("gemini 404 error %s", body)
			}
		}},
		{"", 404, func(t *testing.T, body []byte) {
			// No format known (an unknown path): the OpenAI shape.
			if !bytes.HasPrefix(body, []byte(`{"error":{"message":`)) {
				t.Errorf("unknown-format error %s", body)
			}
		}},
	} {
		rec := httptest.NewRecorder()
		WriteError(rec, c.f, c.status, msg)
		if rec.Code != c.status || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: status %d, Content-Type %q", c.f, rec.Code, rec.Header().Get("Content-Type"))
		}
		if !bytes.Contains(rec.Body.Bytes(), []byte(`want <one of> \"these\" & more"`)) {
			t.Errorf("%s: the message is HTML-escaped: %s", c.f, rec.Body.Bytes())
		}
		c.check(t, rec.Body.Bytes())
	}
}

func TestWriteCountTokens(t *testing.T) {
	for body, want := range map[string]string{
		"":                      `{"input_tokens":1}`,
		"abc":                   `{"input_tokens":1}`,
		strings.Repeat("x", 41): `{"input_tokens":10}`,
	} {
		rec := httptest.NewRecorder()
		WriteCountTokens(rec, []byte(body))
		if rec.Code != 200 || rec.Body.String() != want || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("count_tokens(%d bytes) = %d %s", len(body), rec.Code, rec.Body.String())
		}
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{
		"", "plain", `"quoted" \back\slash`, "<a href=\"x\">&amp;</a>", "line\nbreak\r\ttab",
		"\x00\x01\b\f\x1f\x7f", "é ü 中文 🎉", "bad \xff utf-8 \xc3", "sep \u2028 \u2029 end",
	} {
		got := appendString(nil, s)
		// encoding/json writes the same bytes, but for escaping <, > and &.
		std, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		want := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(std))
		if string(got) != want {
			t.Errorf("appendString(%q) = %s, want %s", s, got, want)
		}
		if bytes.ContainsAny(got, "\n\r\u2028\u2029") {
			t.Errorf("appendString(%q) = %s holds a line end", s, got)
		}
	}
}

// Without alt=sse, streamGenerateContent streams one JSON array whose
// elements are the chunks the event stream carries, byte for byte, each
// flushed as it is written.
func TestWriteResponseGeminiArrayStream(t *testing.T) {
	for _, shape := range append(replyShapes, struct {
		name string
		r    Reply
	}{"empty", Reply{}}) {
		t.Run(shape.name, func(t *testing.T) {
			sse := render(t, Endpoint{Format: Gemini, Model: "model-x", Stream: true}, false, 7, shape.r)
			rec := httptest.NewRecorder()
			if err := WriteResponse(rec, Endpoint{Format: Gemini, Model: "model-x", Stream: true, Array: true}, Ask{Model: "model-x"}, 7, shape.r); err != nil {
				t.Fatal(err)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=UTF-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if !rec.Flushed {
				t.Error("the stream was never flushed")
			}
			body := rec.Body.Bytes()
			var elems []json.RawMessage
			if err := json.Unmarshal(body, &elems); err != nil {
				t.Fatalf("not a JSON array: %v\n%s", err, body)
			}
			events := readSSE(t, sse.Body.Bytes())
			if len(elems) != len(events) {
				t.Fatalf("%d elements, the event stream has %d events", len(elems), len(events))
			}
			for i, ev := range events {
				if !bytes.Equal(elems[i], ev.data) {
					t.Errorf("element %d\n%s\nevent %d\n%s", i, elems[i], i, ev.data)
				}
			}
			// What a client reads from it is what it reads from the events.
			var p parsed
			for _, el := range elems {
				geminiInto(t, el, &p)
			}
			checkParsed(t, Gemini, true, 7, shape.r, p)
			got, err := ParseResponse(Gemini, rec.Header().Get("Content-Type"), body)
			if err != nil || got.Text != shape.r.Text || len(got.ToolCalls) != len(shape.r.ToolCalls) {
				t.Errorf("ParseResponse: %+v, %v", got, err)
			}
		})
	}
}

func TestRouteURL(t *testing.T) {
	cases := []struct {
		url   string
		array bool
	}{
		{"/v1beta/models/g:streamGenerateContent", true},
		{"/v1beta/models/g:streamGenerateContent?alt=json", true},
		{"/v1beta/models/g:streamGenerateContent?alt=sse", false},
		{"/v1beta/models/g:streamGenerateContent?key=k&alt=sse", false},
		{"/v1beta/models/g:generateContent", false},
		{"/v1/messages?beta=true", false},
	}
	for _, c := range cases {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := RouteURL(u)
		want, _ := Route(u.Path)
		want.Array = c.array
		if !ok || e != want {
			t.Errorf("RouteURL(%s) = %+v, %v; want %+v", c.url, e, ok, want)
		}
	}
	if _, ok := RouteURL(&url.URL{Path: "/v2/nothing"}); ok {
		t.Error("an unknown path routed")
	}
}

// An OpenAI Chat stream carries usage only when
// stream_options.include_usage asks, as the API does: then every chunk
// has "usage": null and one last chunk without choices has the usage.
func TestChatStreamUsage(t *testing.T) {
	e := Endpoint{Format: OpenAIChat}
	r := Reply{Text: "hi", ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: []byte(`{}`)}}}
	ask := func(e Endpoint, body string) Ask {
		t.Helper()
		p, err := Split([]byte(body), e.Format)
		if err != nil {
			t.Fatal(err)
		}
		return AskOf(e, p)
	}
	for _, body := range []string{`{"model":"model-x","stream":true}`, `{"model":"model-x","stream":true,"stream_options":{"include_usage":false}}`} {
		a := ask(e, body)
		if a.Usage || !a.Stream || a.Model != "model-x" {
			t.Fatalf("AskOf(%s) = %+v", body, a)
		}
		rec := httptest.NewRecorder()
		if err := WriteResponse(rec, e, a, 7, r); err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(rec.Body.Bytes(), []byte(`"usage"`)) {
			t.Errorf("%s: usage not asked for, but sent:\n%s", body, rec.Body.Bytes())
		}
		checkParsed(t, OpenAIChat, true, 7, r, parseChatStream(t, readSSE(t, rec.Body.Bytes())))
	}
	a := ask(e, `{"model":"model-x","stream":true,"stream_options":{"include_usage":true}}`)
	if !a.Usage {
		t.Fatalf("include_usage not read: %+v", a)
	}
	rec := httptest.NewRecorder()
	if err := WriteResponse(rec, e, a, 7, r); err != nil {
		t.Fatal(err)
	}
	events := readSSE(t, rec.Body.Bytes())
	if len(events) < 3 || string(events[len(events)-1].data) != "[DONE]" {
		t.Fatalf("events %q", events)
	}
	for i, ev := range events[:len(events)-2] {
		var c struct {
			Choices []json.RawMessage `json:"choices"`
			Usage   json.RawMessage   `json:"usage"`
		}
		decode(t, "chunk", ev.data, &c)
		if len(c.Choices) != 1 || string(c.Usage) != "null" {
			t.Errorf("chunk %d: %d choices, usage %s; want 1 and null", i, len(c.Choices), c.Usage)
		}
	}
	var last struct {
		ID      string            `json:"id"`
		Choices []json.RawMessage `json:"choices"`
		Usage   *struct {
			Prompt     int `json:"prompt_tokens"`
			Completion int `json:"completion_tokens"`
			Total      int `json:"total_tokens"`
		} `json:"usage"`
	}
	decode(t, "usage chunk", events[len(events)-2].data, &last)
	if last.ID != "chatcmpl-0007" || last.Choices == nil || len(last.Choices) != 0 || last.Usage == nil ||
		last.Usage.Total != last.Usage.Prompt+last.Usage.Completion || last.Usage.Total == 0 {
		t.Errorf("the usage chunk is %s", events[len(events)-2].data)
	}
	// Only OpenAI Chat has the option; a Gemini model is in its path.
	if a := ask(Endpoint{Format: Anthropic}, `{"model":"c","stream_options":{"include_usage":true}}`); a.Usage || a.Stream || a.Model != "c" {
		t.Errorf("anthropic: %+v", a)
	}
	if a := ask(Endpoint{Format: Gemini, Model: "p", Stream: true}, `{"model":"b"}`); !a.Stream || a.Model != "p" {
		t.Errorf("gemini: %+v", a)
	}
}

// Without alt=sse the chunks are separated as the API separates them: a
// comma and a CRLF between elements, nothing before the first or after
// the last.
func TestWriteResponseGeminiArrayBytes(t *testing.T) {
	r := Reply{Text: "hi", ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: json.RawMessage(`{"dir":"."}`)}}}
	events := readSSE(t, render(t, Endpoint{Format: Gemini, Model: "model-x", Stream: true}, false, 3, r).Body.Bytes())
	if len(events) != 2 {
		t.Fatalf("%d events, want 2 (the text, then the call)", len(events))
	}
	rec := httptest.NewRecorder()
	if err := WriteResponse(rec, Endpoint{Format: Gemini, Model: "model-x", Stream: true, Array: true}, Ask{Model: "model-x"}, 3, r); err != nil {
		t.Fatal(err)
	}
	want := "[" + string(events[0].data) + ",\r\n" + string(events[1].data) + "]"
	if got := rec.Body.String(); got != want {
		t.Errorf("array stream\n%q\nwant\n%q", got, want)
	}
}

// A Responses reply with neither text nor tool calls still has its one
// message item (with empty text) in the response object, as the stream's
// output_item events announce it: a client reading output[0] finds it in
// the JSON response and in response.completed alike.
func TestWriteResponseResponsesEmptyReplyItem(t *testing.T) {
	check := func(what string, r responseObject) {
		t.Helper()
		if len(r.Output) != 1 || r.Output[0].Type != "message" || len(r.Output[0].Content) != 1 || r.Output[0].Content[0].Text != "" {
			t.Errorf("%s: output %+v, want one message item with one empty output_text", what, r.Output)
		}
	}
	var r responseObject
	decode(t, "response", render(t, Endpoint{Format: OpenAIResponses}, false, 1, Reply{}).Body.Bytes(), &r)
	check("JSON response", r)
	var completed bool
	for _, ev := range readSSE(t, render(t, Endpoint{Format: OpenAIResponses}, true, 1, Reply{}).Body.Bytes()) {
		if ev.name == "response.completed" {
			var e struct {
				Response responseObject `json:"response"`
			}
			decode(t, ev.name, ev.data, &e)
			check("response.completed", e.Response)
			completed = true
		}
	}
	if !completed {
		t.Error("the stream has no response.completed event")
	}
}

// A Gemini body's "stream" member asks for nothing: Gemini streams by its
// endpoint alone, as the real API does, while the other formats stream by
// the member.
func TestGeminiStreamsByEndpoint(t *testing.T) {
	for _, c := range []struct {
		url, body string
		stream    bool
	}{
		{"/v1beta/models/g:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"stream":true}`, false},
		{"/v1beta/models/g:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, true},
		{"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`, true},
	} {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := RouteURL(u)
		if !ok {
			t.Fatalf("%s: not routed", c.url)
		}
		p, err := Split([]byte(c.body), e.Format)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if got := AskOf(e, p).Stream; got != c.stream {
			t.Errorf("%s %s: stream %v, want %v", c.url, c.body, got, c.stream)
		}
	}
}

// A streamed OpenAI Chat reply of tool calls alone adds up to a message
// whose content is null, as the API's does (and as the fake's JSON reply
// says); with text, to that text. An SDK folds the deltas: a string is
// appended, a null leaves the content as it is.
func TestChatStreamContentOfToolCallsIsNull(t *testing.T) {
	for _, c := range []struct {
		r    Reply
		want string
	}{
		{Reply{ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: []byte(`{}`)}}}, "null"},
		{Reply{Text: "Looking.", ToolCalls: []ToolCall{{ID: "c1", Name: "ls", Arguments: []byte(`{}`)}}}, `"Looking."`},
		{Reply{Text: "Hi."}, `"Hi."`},
	} {
		w := httptest.NewRecorder()
		if err := WriteResponse(w, Endpoint{Format: OpenAIChat}, Ask{Stream: true, Model: "m"}, 1, c.r); err != nil {
			t.Fatal(err)
		}
		events, _, err := sseData(w.Body.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		var content *string
		for _, e := range events {
			if d := gjson.Get(e, "choices.0.delta.content"); d.Type == gjson.String {
				s := d.Str
				if content != nil {
					s = *content + s
				}
				content = &s
			}
		}
		got := "null"
		if content != nil {
			got = strconv.Quote(*content)
		}
		if got != c.want {
			t.Errorf("%+v: content %s, want %s\n%s", c.r, got, c.want, w.Body.Bytes())
		}
	}
}
