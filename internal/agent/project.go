package agent

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tidwall/gjson"
)

// Projector folds log lines into the request of the next step: the header in
// force (the last request/header event) followed by the conversation so far.
// It is the only way requests are built, live or from a log.
//
// A request is {"config":…,"system":…,"tools":[…],"messages":[…]}: the
// header's members, then every user/message, assistant/message and
// tool/result in log order as
//
//	{"role":"user","content":…}
//	{"role":"assistant","content":…,"toolCalls":[…]}   (either may be absent)
//	{"role":"tool","callId":…,"content":…,"isError":true}   (isError only when set)
type Projector struct {
	header   []byte // raw header object in force
	messages []byte // comma-separated message objects
	count    int    // number of messages
}

// Apply folds one event line (with or without its newline) into the
// projection. Lines that do not touch the request are ignored.
func (p *Projector) Apply(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	v := gjson.ParseBytes(line)
	data := v.Get("data")
	switch v.Get("type").String() {
	case TypeRequestHeader:
		h := data.Get("header")
		if !h.IsObject() {
			return errors.New("request/header event without a header object")
		}
		p.header = append(p.header[:0], h.Raw...)
	case TypeUserMessage:
		p.message(`{"role":"user","content":`, data.Get("content").Raw, `}`)
	case TypeAssistantMessage:
		p.open(`{"role":"assistant"`)
		if t := data.Get("text"); t.Exists() {
			p.messages = append(p.messages, `,"content":`...)
			p.messages = append(p.messages, t.Raw...)
		}
		if c := data.Get("toolCalls"); c.Exists() {
			p.messages = append(p.messages, `,"toolCalls":`...)
			p.messages = append(p.messages, c.Raw...)
		}
		p.messages = append(p.messages, '}')
	case TypeToolResult:
		p.open(`{"role":"tool","callId":`)
		p.messages = append(p.messages, data.Get("callId").Raw...)
		p.messages = append(p.messages, `,"content":`...)
		p.messages = append(p.messages, data.Get("output").Raw...)
		if data.Get("error").Bool() {
			p.messages = append(p.messages, `,"isError":true`...)
		}
		p.messages = append(p.messages, '}')
	}
	return nil
}

func (p *Projector) open(prefix string) {
	if p.count > 0 {
		p.messages = append(p.messages, ',')
	}
	p.count++
	p.messages = append(p.messages, prefix...)
}

func (p *Projector) message(prefix, raw, suffix string) {
	p.open(prefix)
	p.messages = append(p.messages, raw...)
	p.messages = append(p.messages, suffix...)
}

// Header returns a copy of the header in force, or nil before the first
// request/header event.
func (p *Projector) Header() []byte { return bytes.Clone(p.header) }

// AppendRequest appends the request of the next step to dst.
func (p *Projector) AppendRequest(dst []byte) ([]byte, error) {
	if len(p.header) < 2 {
		return dst, errors.New("no request/header in force")
	}
	dst = append(dst, p.header[:len(p.header)-1]...) // without the closing brace
	dst = append(dst, `,"messages":[`...)
	dst = append(dst, p.messages...)
	return append(dst, ']', '}'), nil
}

// Rebuild returns the exact bytes of the request that follows the log prefix:
// a pure function of the prefix. Errors name the 1-based line.
func Rebuild(prefix []byte) ([]byte, error) {
	var p Projector
	err := forEachLine(prefix, func(n int, line []byte) error {
		if err := p.Apply(line); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p.AppendRequest(nil)
}

// CheckRebuild checks the rebuild invariant: for every step/start in log,
// the request rebuilt from the lines before the step's dispatch equals the
// corresponding request in received, byte for byte. A step's request is
// rebuilt from the prefix ending just before its assistant/message (or, for
// a step whose adapter call failed, its step/end). It returns nil when all
// match and the counts agree.
func CheckRebuild(log []byte, received [][]byte) error {
	var p Projector
	step := 0
	pending := false // a step/start without its dispatch yet
	var mismatch error
	err := forEachLine(log, func(n int, line []byte) error {
		typ := gjson.GetBytes(line, "type").String()
		if pending && (typ == TypeAssistantMessage || typ == TypeStepEnd) {
			pending = false
			if mismatch == nil {
				want, err := p.AppendRequest(nil)
				if err != nil {
					return fmt.Errorf("line %d: %w", n, err)
				}
				if step > len(received) {
					mismatch = fmt.Errorf("step %d (before line %d): the adapter received only %d requests", step, n, len(received))
				} else if got := received[step-1]; !bytes.Equal(want, got) {
					mismatch = &RebuildError{Step: step, Line: n, Want: want, Got: bytes.Clone(got)}
				}
			}
		}
		if typ == TypeStepStart {
			step++
			pending = true
		}
		return p.Apply(line)
	})
	if err != nil {
		return err
	}
	if mismatch != nil {
		return mismatch
	}
	if dispatched := step; len(received) > dispatched {
		return fmt.Errorf("the adapter received %d requests but the log has %d steps", len(received), dispatched)
	}
	return nil
}

// RebuildError reports a request that the log prefix does not reproduce.
type RebuildError struct {
	Step int    // 1-based over the whole log
	Line int    // log line just after the dispatch
	Want []byte // rebuilt from the log
	Got  []byte // what the adapter received
}

func (e *RebuildError) Error() string {
	i := 0
	for i < len(e.Want) && i < len(e.Got) && e.Want[i] == e.Got[i] {
		i++
	}
	return fmt.Sprintf("rebuild: request of step %d (log line %d) differs from the log at byte %d: rebuilt %s, received %s",
		e.Step, e.Line, i, window(e.Want, i), window(e.Got, i))
}

// window shows a few bytes around offset i.
func window(b []byte, i int) string {
	lo, hi := max(0, i-24), min(len(b), i+24)
	return fmt.Sprintf("…%s…", b[lo:hi])
}
