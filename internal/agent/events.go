package agent

import (
	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
)

// Event types, as they appear in the "type" member of a log line.
const (
	TypeTurnStart        = logformat.TurnStart
	TypeUserMessage      = logformat.UserMessage
	TypeStepStart        = logformat.StepStart
	TypeRequestHeader    = logformat.RequestHeader
	TypeAssistantMessage = logformat.AssistantMessage
	TypeToolPlan         = logformat.ToolPlan
	TypeToolResult       = logformat.ToolResult
	TypeStepEnd          = logformat.StepEnd
	TypeTurnEnd          = logformat.TurnEnd
	TypeAgentError       = logformat.AgentError
)

// Header reasons of request/header events.
const (
	ReasonInitial = logformat.ReasonInitial // first header of a session
	ReasonResume  = logformat.ReasonResume  // first header of a loop instance continuing a log
	ReasonChange  = logformat.ReasonChange  // the header differs from the one in force
)

// Turn-end reasons.
const (
	EndCompleted = "completed"
	EndError     = "error"
)

// line writes one event line; members are added in call order, which is
// the fixed order documented on the package.
type line struct {
	b    []byte
	n    int
	typ  string
	vals []member // where each member's value is in b
	mem  [8]member
	// hdr, when set, is the value of the member header opened at hs: it
	// is not copied into b but logged beside it (see Log.appendHeader).
	hdr *assembler.Header
	hs  int
}

// member is where the value of member key is in a line.
type member struct {
	key        string
	start, end int
}

func newLine(typ string) *line {
	l := &line{b: make([]byte, 0, 128), typ: typ}
	l.vals = l.mem[:0]
	l.b = append(l.b, `{"type":`...)
	l.b = canon.AppendString(l.b, typ)
	l.b = append(l.b, `,"data":{`...)
	return l
}

func (l *line) key(k string) {
	if l.n > 0 {
		l.b = append(l.b, ',')
	}
	l.n++
	l.b = canon.AppendString(l.b, k)
	l.b = append(l.b, ':')
	l.vals = append(l.vals, member{key: k, start: len(l.b)})
}

// done marks the end of the value just written.
func (l *line) done() { l.vals[len(l.vals)-1].end = len(l.b) }

// value returns the raw JSON of member k's value in b (the line's bytes),
// or "" when the line has no member k.
func (l *line) value(b []byte, k string) string {
	for _, m := range l.vals {
		if m.key == k {
			return canon.View(b[m.start:m.end])
		}
	}
	return ""
}

func (l *line) int(k string, v int) *line {
	l.key(k)
	l.b = canon.AppendInt(l.b, int64(v))
	l.done()
	return l
}

func (l *line) str(k, v string) *line {
	l.key(k)
	l.b = canon.AppendString(l.b, v)
	l.done()
	return l
}

// raw adds a member whose value is canonical JSON already.
func (l *line) raw(k string, v []byte) *line {
	l.key(k)
	l.b = append(l.b, v...)
	l.done()
	return l
}

// header adds a member holding h's canonical JSON. It must be the last
// member: the line holds the place, and the log holds h itself there.
func (l *line) header(k string, h *assembler.Header) *line {
	l.key(k)
	l.hdr, l.hs = h, len(l.b)
	return l
}

func (l *line) strs(k string, vs []string) *line {
	l.key(k)
	l.b = append(l.b, '[')
	for i, v := range vs {
		if i > 0 {
			l.b = append(l.b, ',')
		}
		l.b = canon.AppendString(l.b, v)
	}
	l.b = append(l.b, ']')
	l.done()
	return l
}

func (l *line) flag(k string, v bool) *line {
	if v {
		l.key(k)
		l.b = append(l.b, "true"...)
		l.done()
	}
	return l
}

func (l *line) bytes() []byte { return append(l.b, '}', '}', '\n') }

func turnLine(typ string, turn int) *line { return newLine(typ).int("turn", turn) }

func stepLine(typ string, turn, step int) *line {
	return newLine(typ).int("turn", turn).int("step", step)
}
