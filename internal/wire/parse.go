package wire

import (
	"bytes"
	"fmt"
	"mime"
	"strings"

	"github.com/tidwall/gjson"
)

// ParseResponse reads a provider's response of format f — JSON, a
// server-sent event stream when contentType says so, or Gemini's stream
// as a JSON array — into the reply it
// carries: its text and tool calls, with ids and argument bytes as
// received. OpenAI carries arguments as a string: its text is taken as
// the argument bytes.
func ParseResponse(f Format, contentType string, body []byte) (Reply, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "text/event-stream" {
		events, done, err := sseData(body)
		if err != nil {
			return Reply{}, err
		}
		return parseStream(f, events, done)
	}
	if !gjson.ValidBytes(body) {
		return Reply{}, fmt.Errorf("%s response is not JSON", f)
	}
	r := gjson.ParseBytes(body)
	if f == Gemini && r.IsArray() {
		// streamGenerateContent without alt=sse: the chunks as one array.
		return geminiStream(r.Array())
	}
	return parseJSON(f, r)
}

// sseData returns the data of each event of a stream, in order; an event
// with several data: lines joins them with a newline, as the standard
// says. OpenAI's closing [DONE] is left out, and done says whether it came.
func sseData(body []byte) (out []string, done bool, err error) {
	var data []string
	flush := func() {
		if len(data) > 0 {
			if d := strings.Join(data, "\n"); d != "[DONE]" {
				out = append(out, d)
			} else {
				done = true
			}
			data = nil
		}
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n") {
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	flush()
	for i, d := range out {
		if !gjson.Valid(d) {
			return nil, false, fmt.Errorf("event %d of the stream is not JSON: %.80s", i+1, d)
		}
	}
	return out, done, nil
}

// args returns an OpenAI argument string's text as raw JSON when it is
// JSON, else as a JSON string.
func args(text string) []byte {
	if text == "" {
		return nil
	}
	if gjson.Valid(text) {
		return []byte(text)
	}
	return appendString(nil, text)
}

func parseJSON(f Format, r gjson.Result) (Reply, error) {
	var rep Reply
	switch f {
	case Anthropic:
		r.Get("content").ForEach(func(_, c gjson.Result) bool {
			switch c.Get("type").String() {
			case "text":
				rep.Text += c.Get("text").String()
			case "tool_use":
				rep.ToolCalls = append(rep.ToolCalls, ToolCall{ID: c.Get("id").String(), Name: c.Get("name").String(), Arguments: rawOf(c.Get("input"))})
			}
			return true
		})
	case OpenAIChat:
		m := r.Get("choices.0.message")
		rep.Text = m.Get("content").String()
		m.Get("tool_calls").ForEach(func(_, c gjson.Result) bool {
			rep.ToolCalls = append(rep.ToolCalls, ToolCall{ID: c.Get("id").String(), Name: c.Get("function.name").String(), Arguments: args(c.Get("function.arguments").String())})
			return true
		})
	case OpenAIResponses:
		r.Get("output").ForEach(func(_, item gjson.Result) bool {
			switch item.Get("type").String() {
			case "message":
				item.Get("content").ForEach(func(_, c gjson.Result) bool {
					if c.Get("type").String() == "output_text" {
						rep.Text += c.Get("text").String()
					}
					return true
				})
			case "function_call":
				rep.ToolCalls = append(rep.ToolCalls, ToolCall{ID: item.Get("call_id").String(), Name: item.Get("name").String(), Arguments: args(item.Get("arguments").String())})
			}
			return true
		})
	case Gemini:
		geminiParts(r, &rep)
	default:
		return rep, fmt.Errorf("unknown format %q", f)
	}
	return rep, nil
}

func geminiParts(r gjson.Result, rep *Reply) {
	r.Get("candidates.0.content.parts").ForEach(func(_, p gjson.Result) bool {
		if t := p.Get("text"); t.Exists() && !p.Get("thought").Bool() {
			rep.Text += t.String()
		}
		if fc := p.Get("functionCall"); fc.Exists() {
			rep.ToolCalls = append(rep.ToolCalls, ToolCall{ID: fc.Get("id").String(), Name: fc.Get("name").String(), Arguments: rawOf(fc.Get("args"))})
		}
		return true
	})
}

// rawOf is a value's bytes as received, nil when absent.
func rawOf(v gjson.Result) []byte {
	if !v.Exists() {
		return nil
	}
	return []byte(v.Raw)
}

// parseStream reads the reply a stream of format f carries. A stream
// must end as the API ends one (Anthropic's message_stop, OpenAI Chat's
// [DONE], which done says came, or a finish reason where a compatible
// server sends none, Responses' response.completed, a Gemini chunk with a
// finish reason or a blocked prompt's feedback): one that stops before is
// a stream that broke off, though its connection closed cleanly, and its
// reply is not the one the model gave. A chunk's error member is the
// stream's error.
func parseStream(f Format, events []string, done bool) (Reply, error) {
	var rep Reply
	switch f {
	case Anthropic:
		type block struct {
			call *ToolCall
			args bytes.Buffer
			text bool
		}
		blocks := map[int64]*block{}
		var order []int64
		stopped := false
		for _, e := range events {
			ev := gjson.Parse(e)
			idx := ev.Get("index").Int()
			switch ev.Get("type").String() {
			case "content_block_start":
				cb := ev.Get("content_block")
				b := &block{}
				switch cb.Get("type").String() {
				case "tool_use":
					b.call = &ToolCall{ID: cb.Get("id").String(), Name: cb.Get("name").String()}
				case "text":
					b.text = true
					rep.Text += cb.Get("text").String()
				}
				blocks[idx] = b
				order = append(order, idx)
			case "content_block_delta":
				b := blocks[idx]
				if b == nil {
					return rep, fmt.Errorf("anthropic stream: delta for block %d before its start", idx)
				}
				d := ev.Get("delta")
				switch d.Get("type").String() {
				case "text_delta":
					rep.Text += d.Get("text").String()
				case "input_json_delta":
					b.args.WriteString(d.Get("partial_json").String())
				}
			case "error":
				return rep, fmt.Errorf("anthropic stream error: %s", ev.Get("error.message").String())
			case "message_stop":
				stopped = true
			}
		}
		if !stopped {
			return rep, fmt.Errorf("%s stream ended without message_stop: it broke off after %d events", f, len(events))
		}
		for _, idx := range order {
			if b := blocks[idx]; b.call != nil {
				// An input cut short by max_tokens is not JSON, in a
				// stream that ended as the API ends one: kept as a
				// string, as OpenAI's arguments are.
				b.call.Arguments = args(b.args.String())
				rep.ToolCalls = append(rep.ToolCalls, *b.call)
			}
		}
	case OpenAIChat:
		type call struct {
			id, name string
			args     strings.Builder
		}
		calls := map[int64]*call{}
		var order []int64
		finished := false // a finish reason, where a compatible server sends no [DONE]
		for _, e := range events {
			if err := streamError(f, gjson.Get(e, "error")); err != nil {
				return rep, err
			}
			if r := gjson.Get(e, "choices.0.finish_reason"); r.Type == gjson.String && r.Str != "" {
				finished = true
			}
			d := gjson.Get(e, "choices.0.delta")
			rep.Text += d.Get("content").String()
			d.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
				i := tc.Get("index").Int()
				c := calls[i]
				if c == nil {
					c = &call{}
					calls[i] = c
					order = append(order, i)
				}
				if id := tc.Get("id").String(); id != "" {
					c.id = id
				}
				if n := tc.Get("function.name").String(); n != "" {
					c.name = n
				}
				c.args.WriteString(tc.Get("function.arguments").String())
				return true
			})
		}
		if !done && !finished {
			return rep, fmt.Errorf("%s stream ended with neither a finish_reason nor data: [DONE]: it broke off after %d events", f, len(events))
		}
		for _, i := range order {
			c := calls[i]
			rep.ToolCalls = append(rep.ToolCalls, ToolCall{ID: c.id, Name: c.name, Arguments: args(c.args.String())})
		}
	case OpenAIResponses:
		for _, e := range events {
			ev := gjson.Parse(e)
			switch ev.Get("type").String() {
			case "response.completed":
				return parseJSON(f, ev.Get("response"))
			case "response.failed", "error":
				return rep, fmt.Errorf("responses stream: %s", firstOf(ev.Get("response.error.message").String(), ev.Get("message").String(), "failed"))
			}
		}
		return rep, fmt.Errorf("responses stream ended without response.completed")
	case Gemini:
		chunks := make([]gjson.Result, len(events))
		for i, e := range events {
			chunks[i] = gjson.Parse(e)
		}
		return geminiStream(chunks)
	default:
		return rep, fmt.Errorf("unknown format %q", f)
	}
	return rep, nil
}

// geminiStream reads the reply of a Gemini stream's chunks, server-sent
// events or the elements of one array: a chunk must give a finish reason
// (or a blocked prompt's feedback), else the stream broke off.
func geminiStream(chunks []gjson.Result) (Reply, error) {
	var rep Reply
	finished := false
	for _, c := range chunks {
		if err := streamError(Gemini, c.Get("error")); err != nil {
			return rep, err
		}
		if c.Get("candidates.0.finishReason").String() != "" || c.Get("promptFeedback.blockReason").String() != "" {
			finished = true
		}
		geminiParts(c, &rep)
	}
	if !finished {
		return rep, fmt.Errorf("gemini stream ended without a chunk giving a finishReason: it broke off after %d chunks", len(chunks))
	}
	return rep, nil
}

// streamError is the error a stream's chunk reports in its error member
// (absent or null: none).
func streamError(f Format, m gjson.Result) error {
	if !m.Exists() || m.Type == gjson.Null {
		return nil
	}
	return fmt.Errorf("%s stream error: %s", f, firstOf(m.Get("message").String(), m.Raw))
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
