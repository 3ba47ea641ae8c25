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
		events, err := sseData(body)
		if err != nil {
			return Reply{}, err
		}
		return parseStream(f, events)
	}
	if !gjson.ValidBytes(body) {
		return Reply{}, fmt.Errorf("%s response is not JSON", f)
	}
	r := gjson.ParseBytes(body)
	if f == Gemini && r.IsArray() {
		// streamGenerateContent without alt=sse: the chunks as one array.
		var rep Reply
		r.ForEach(func(_, c gjson.Result) bool {
			geminiParts(c, &rep)
			return true
		})
		return rep, nil
	}
	return parseJSON(f, r)
}

// sseData returns the data of each event of a stream, in order; an event
// with several data: lines joins them with a newline, as the standard
// says. OpenAI's closing [DONE] is left out.
func sseData(body []byte) ([]string, error) {
	var out []string
	var data []string
	flush := func() {
		if len(data) > 0 {
			if d := strings.Join(data, "\n"); d != "[DONE]" {
				out = append(out, d)
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
			return nil, fmt.Errorf("event %d of the stream is not JSON: %.80s", i+1, d)
		}
	}
	return out, nil
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

func parseStream(f Format, events []string) (Reply, error) {
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
			}
		}
		for _, idx := range order {
			if b := blocks[idx]; b.call != nil {
				if b.args.Len() > 0 {
					b.call.Arguments = bytes.Clone(b.args.Bytes())
				}
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
		for _, e := range events {
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
		for _, e := range events {
			geminiParts(gjson.Parse(e), &rep)
		}
	default:
		return rep, fmt.Errorf("unknown format %q", f)
	}
	return rep, nil
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
