// Package logformat owns the vocabulary of a session log: the event types
// of the "type" member, the header reasons, the members of a header and
// the placeholders a templated (golden) log holds in their place. The
// reference agent (internal/agent), the capture (internal/capture), the
// wire split (internal/wire), harness, drift and stability spell the
// format with these names; the line format itself is documented in
// internal/agent/doc.go and internal/capture/doc.go.
package logformat

import (
	"bytes"
	"iter"
)

// Event types of the reference agent's log (SPEC §2).
const (
	TurnStart        = "turn/start"
	UserMessage      = "user/message"
	StepStart        = "step/start"
	RequestHeader    = "request/header"
	AssistantMessage = "assistant/message"
	ToolPlan         = "tool/plan"
	ToolResult       = "tool/result"
	StepEnd          = "step/end"
	TurnEnd          = "turn/end"
	AgentError       = "agent/error"
)

// Event types a captured log adds beside RequestHeader.
const (
	CaptureRequest = "capture/request"
	CaptureReply   = "capture/reply"
)

// MemberHeaderSpaces is the member of a CaptureRequest event's data that
// holds the whitespace found inside the header values of a pretty-printed
// body: a full log's, which templating leaves out with the values.
const MemberHeaderSpaces = "headerSpaces"

// Header reasons of RequestHeader events.
const (
	ReasonInitial = "initial" // first header of a session
	ReasonResume  = "resume"  // first header of a loop instance continuing a log
	ReasonChange  = "change"  // the header differs from the one in force
)

// Members of a header (data.header of a RequestHeader event), in the order
// they are written.
const (
	MemberConfig = "config"
	MemberSystem = "system"
	MemberTools  = "tools"
)

// Placeholders: a templated log holds these strings where a header's
// system and tools were, and a captured request body holds them (and
// ConfigPlaceholder) where its header parts were.
const (
	ConfigPlaceholder = "<<config>>"
	SystemPlaceholder = "<<system>>"
	ToolsPlaceholder  = "<<tools>>"
)

// Lines iterates over the lines of a log: each line with its number,
// counted from 1, and its bytes, the terminating "\n" included when there
// is one (a last line may lack it). The lines are views of log.
func Lines(log []byte) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		for n := 1; len(log) > 0; n++ {
			line := log
			if i := bytes.IndexByte(log, '\n'); i >= 0 {
				line, log = log[:i+1], log[i+1:]
			} else {
				log = nil
			}
			if !yield(n, line) {
				return
			}
		}
	}
}
