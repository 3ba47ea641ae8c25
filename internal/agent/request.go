package agent

import (
	"bytes"
	"encoding/json"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// Request is the frozen request of one step. Its bytes are canonical JSON
// (see [Projector]); every accessor returns a copy, so an adapter can do
// what it likes with what it gets without changing the log or later
// requests.
//
// A request does not hold its bytes in one piece: it shares the header in
// force and the conversation so far with the projection it came from, which
// only ever appends to them. Steps under one header therefore share its
// bytes instead of each holding a copy, and a request costs the same
// whatever the size of its header.
type Request struct {
	header []byte // the header object in force; never written to
	// assembled is the header in force, when the loop assembled it
	// (header is then nil): a request reads its bytes only when its own
	// are read.
	assembled *assembler.Header
	messages  []byte // comma-separated message objects; never written to
}

// headerBytes returns the header object in force, for reading only.
func (r *Request) headerBytes() []byte {
	if r.assembled != nil {
		return unsafeBytes(r.assembled.JSON())
	}
	return r.header
}

// Bytes returns a copy of the request's canonical JSON.
func (r *Request) Bytes() []byte { return r.AppendJSON(make([]byte, 0, r.Len())) }

// AppendJSON appends the request's canonical JSON to dst.
func (r *Request) AppendJSON(dst []byte) []byte {
	h := r.headerBytes()
	dst = append(dst, h[:len(h)-1]...) // without the closing brace
	dst = append(dst, messagesKey...)
	dst = append(dst, r.messages...)
	return append(dst, ']', '}')
}

// Len returns the length of the request's canonical JSON.
func (r *Request) Len() int {
	n := len(r.header)
	if r.assembled != nil {
		n = r.assembled.Len()
	}
	return n - 1 + len(messagesKey) + len(r.messages) + 2
}

// messagesKey opens the messages member after the header's members.
const messagesKey = `,"messages":[`

// equalJSON reports whether b is the request's canonical JSON.
func (r *Request) equalJSON(b []byte) bool {
	h := r.headerBytes()
	for _, part := range [][]byte{h[:len(h)-1], []byte(messagesKey), r.messages, []byte("]}")} {
		if !bytes.HasPrefix(b, part) {
			return false
		}
		b = b[len(part):]
	}
	return len(b) == 0
}

// Config returns a copy of the call config object.
func (r *Request) Config() json.RawMessage {
	return json.RawMessage(gjson.GetBytes(r.headerBytes(), "config").Raw)
}

// System returns the system text, or "" when the header has none.
func (r *Request) System() string { return gjson.GetBytes(r.headerBytes(), "system").String() }

// Tools returns copies of the tools, in request order.
func (r *Request) Tools() []assembler.Tool {
	var tools []assembler.Tool
	gjson.GetBytes(r.headerBytes(), "tools").ForEach(func(_, v gjson.Result) bool {
		t := assembler.Tool{Name: v.Get("name").String(), Description: v.Get("description").String()}
		if p := v.Get("parameters"); p.Exists() {
			t.Parameters = json.RawMessage(p.Raw)
		}
		tools = append(tools, t)
		return true
	})
	return tools
}

// Messages returns copies of the conversation messages, in order.
func (r *Request) Messages() []Message {
	var msgs []Message
	list := make([]byte, 0, len(r.messages)+2)
	list = append(append(append(list, '['), r.messages...), ']')
	gjson.ParseBytes(list).ForEach(func(_, v gjson.Result) bool {
		m := Message{
			Role:    v.Get("role").String(),
			Content: v.Get("content").String(),
			CallID:  v.Get("callId").String(),
			IsError: v.Get("isError").Bool(),
		}
		v.Get("toolCalls").ForEach(func(_, c gjson.Result) bool {
			m.ToolCalls = append(m.ToolCalls, ToolCall{
				ID: c.Get("id").String(), Name: c.Get("name").String(),
				Arguments: json.RawMessage(c.Get("arguments").Raw),
			})
			return true
		})
		msgs = append(msgs, m)
		return true
	})
	return msgs
}

// Message is one conversation message of a request.
type Message struct {
	Role      string     // "user", "assistant" or "tool"
	Content   string     // text; the output for a tool message
	ToolCalls []ToolCall // assistant only
	CallID    string     // tool only
	IsError   bool       // tool only
}

// ToolCall is a call the model asked for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Reply is what an adapter returns for a request: text, tool calls or both.
// A reply without tool calls ends the turn.
type Reply struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
}
