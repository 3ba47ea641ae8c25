package wire

import "encoding/json"

// Reply is one scripted model answer: text, tool calls, or both.
type Reply struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Recorded, when set, is a real provider's response, served back
	// byte for byte instead of rendering Text and ToolCalls (which then
	// only describe it).
	Recorded *Recorded `json:"recorded,omitempty"`
}

// Recorded is a provider response as it was received.
type Recorded struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

// ToolCall is a tool call of a scripted reply. Its id and argument bytes
// are sent exactly as scripted.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Args returns the argument bytes, {} when none are scripted.
func (c ToolCall) Args() []byte {
	if len(c.Arguments) == 0 {
		return []byte("{}")
	}
	return c.Arguments
}
