package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Adapter sends a request to a model and returns its reply.
type Adapter interface {
	Send(ctx context.Context, req *Request) (Reply, error)
}

// ToolRunner answers tool calls.
type ToolRunner interface {
	RunTool(ctx context.Context, call ToolCall) (ToolResult, error)
}

// ToolResult is the answer to one tool call. IsError marks a failed call:
// it is still a result the model sees, not a failure of the turn.
type ToolResult struct {
	Output  string
	IsError bool
}

// Scripted is an Adapter and ToolRunner that plays replies and tool results
// from a script and records every request it received. It is safe for
// concurrent use.
type Scripted struct {
	mu       sync.Mutex
	replies  []Reply
	results  map[string]ToolResult
	requests []*Request // immutable; they share their header's bytes
}

// NewScripted returns a scripted adapter that will play replies in order.
func NewScripted(replies ...Reply) *Scripted {
	s := &Scripted{results: map[string]ToolResult{}}
	s.Push(replies...)
	return s
}

// Push queues more replies.
func (s *Scripted) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range replies {
		s.replies = append(s.replies, cloneReply(r))
	}
}

// SetResult scripts the output of the tool call with the given id.
func (s *Scripted) SetResult(callID string, r ToolResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.results[callID] = r
}

// Send records the request and plays the next reply.
func (s *Scripted) Send(_ context.Context, req *Request) (Reply, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	if len(s.replies) == 0 {
		return Reply{}, errors.New("scripted adapter: no reply left for this request")
	}
	r := s.replies[0]
	s.replies = s.replies[1:]
	return cloneReply(r), nil
}

// RunTool answers a call from the scripted results; an unscripted call id is
// an error result, so a script that forgot one shows in the log.
func (s *Scripted) RunTool(_ context.Context, call ToolCall) (ToolResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.results[call.ID]
	if !ok {
		return ToolResult{Output: fmt.Sprintf("no scripted result for call %q", call.ID), IsError: true}, nil
	}
	return r, nil
}

// Requests returns copies of the bytes of every request received, in
// order.
func (s *Scripted) Requests() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]byte, len(s.requests))
	for i, r := range s.requests {
		out[i] = r.Bytes()
	}
	return out
}

// Received returns every request received, in order, without copying
// their bytes (for [CheckRequests]).
func (s *Scripted) Received() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Remaining returns how many scripted replies were not played.
func (s *Scripted) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies)
}

func cloneReply(r Reply) Reply {
	calls := make([]ToolCall, len(r.ToolCalls))
	for i, c := range r.ToolCalls {
		c.Arguments = append(json.RawMessage(nil), c.Arguments...)
		calls[i] = c
	}
	if len(calls) == 0 {
		calls = nil
	}
	return Reply{Text: r.Text, ToolCalls: calls}
}
