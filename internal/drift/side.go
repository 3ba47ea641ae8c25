package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// side reads the requests of one input in order, each with the header it
// was sent under: a request body is its own header; in a session log a
// request is dispatched under the request/header event in force (see
// step). Every record is validated as it is read.
type side struct {
	name   string
	rr     *recordReader
	format Format
	log    int // logUndecided, logYes, logNo
	redact []redact.Rule
	hits   []int // per rule, the places it changed, shared by both sides
	// peer is the other input: a record byte-identical to the one the
	// peer read last takes its validation instead of being validated
	// again (two copies of one log are validated once).
	peer *side
	// keepCapture holds long capture/request events instead of dropping
	// them: pricing the first difference reads its request's
	// conversation there. Compare clears it once that is found.
	keepCapture bool
	// dropped is the kind of the long event being dropped (evOther,
	// evStep, evCapture), read from its first bytes.
	dropped int

	// The current record, valid until the next read. curOK is set when
	// it is held and validated, not a dropped line; unread, when the
	// next step must process it again (it dispatched the request before
	// it and is still to be taken into account itself).
	cur     []byte
	curLine int
	curInfo recInfo
	curOK   bool
	unread  bool
	// pending is set when cur was only framed (see frame), not yet
	// validated: it is validated when the other input's next record
	// differs from it, or before this input reads on. Two byte-identical
	// records read side by side are not validated at all, which keeps
	// comparing two copies of a large log near the cost of reading them.
	pending bool

	// The header in force of a session log: a copy of its request/header
	// event (and where its data member is), the line it is on, and the
	// number of header events read so far, the one in force last.
	hdr     []byte
	hdrData span
	hdrLine int
	headers int
	hdrUsed bool    // a request was dispatched under it
	parsed  *header // hdr parsed, once it had to be

	// open is set from a step/start until its request is dispatched;
	// opened is that request.
	open   bool
	opened request
	// requests counts the requests dispatched; req is the last, which
	// ready says is still to be compared.
	requests int
	req      request
	ready    bool
	eof      bool

	// established is the wire format this input's bodies were last read
	// in, when it was sure or decided by context (see resolveFormats).
	established wire.Format
	members     []topMember // checkBody's, reused
}

// request is one request of an input.
type request struct {
	n      int // 1-based
	line   int // the line of its record: step/start, capture/request, or the body (the header event for an implicit request)
	turn   int // a reference-agent log's step
	step   int
	header int // the 1-based index of its header among the input's header events (or bodies)
	// capture is set for a request dispatched by a capture/request
	// event; held, when that event is the current record (not dropped).
	capture, held bool
	// implicit is set for a header event no request was dispatched
	// under: it stands for a request of its own.
	implicit bool
}

const (
	logUndecided = iota
	logYes
	logNo
)

func newSide(s Source, opts Options, hits []int) *side {
	sd := &side{name: s.Name, rr: newRecordReader(s.Name, s.Reader, recordLimit(opts)), format: opts.Format, redact: opts.Redact, hits: hits}
	switch opts.Format {
	case FormatAuto, "":
		sd.format = FormatAuto
	case FormatLog:
		sd.log = logYes
	default:
		sd.log = logNo
	}
	if sd.log != logNo {
		sd.rr.skip = func(head []byte) bool {
			typ, ok := canonicalType(head)
			if !ok {
				return false
			}
			switch sd.dropped = eventKind(typ); sd.dropped {
			case evHeader:
				return false
			case evCapture:
				return !sd.keepCapture
			}
			return true
		}
	}
	return sd
}

// canonicalType returns the type of an event line written canonically,
// {"type":"T","data":{, from its first bytes.
func canonicalType(src []byte) ([]byte, bool) {
	if !hasPrefix(src, eventPrefix) {
		return nil, false
	}
	rest := src[len(eventPrefix):]
	q := bytes.IndexByte(rest, '"')
	if q < 0 || bytes.IndexByte(rest[:q], '\\') >= 0 || !hasPrefix(rest[q:], dataPrefix) {
		return nil, false
	}
	return rest[:q], true
}

func hasPrefix(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && string(b[:len(prefix)]) == prefix
}

// The frame of a canonical event line, and the types of the events that
// place requests and headers.
const (
	eventPrefix = `{"type":"`
	dataPrefix  = `","data":{`
	headerType  = logformat.RequestHeader
	stepType    = logformat.StepStart
)

// step reads and processes one record; a request may be ready after it
// (s.ready), or the input at its end (s.eof).
//
// In a session log, a step/start opens a request, which is dispatched
// under the header in force at its first event other than a
// request/header (its assistant/message or step/end, as the reference
// agent writes them), or at the next step/start or the end of input; a
// capture/request event is a captured request, dispatched under the
// header in force. A request/header event that no request is dispatched
// under (a log of header events only) stands for a request of its own,
// so that such logs compare header by header.
func (s *side) step() error {
	if !s.unread {
		// The record about to be overwritten is validated first, unless
		// the other input's read one byte-identical to it.
		if err := s.settle(); err != nil {
			return err
		}
		src, line, err := s.rr.next()
		if err == io.EOF {
			return s.end()
		}
		if err != nil {
			// The other input's framed record was read first: its error,
			// if it has one, comes first.
			if p := s.peer; p != nil {
				if perr := p.settle(); perr != nil {
					return perr
				}
			}
			return err
		}
		s.cur, s.curLine, s.curOK = src, line, false
		if s.rr.skipped { // a long event, validated as it was dropped
			s.curInfo = recInfo{event: true, kind: s.dropped}
			if s.log == logUndecided {
				s.log = logYes
			}
		} else {
			info, pending, err := s.check(src, line)
			if err != nil {
				return err
			}
			s.curInfo, s.curOK, s.pending = info, true, pending
		}
	}
	s.unread = false
	if s.log == logNo {
		s.requests++
		s.req = request{n: s.requests, line: s.curLine, header: s.requests}
		s.ready = true
		return nil
	}
	switch s.curInfo.kind {
	case evStep:
		if s.open {
			s.unread = true
			return s.dispatch()
		}
		s.open, s.opened = true, request{line: s.curLine}
		if s.curOK {
			s.opened.turn, s.opened.step = stepOf(s.cur, s.curInfo.data)
		}
	case evHeader:
		if !s.open && s.hdr != nil && !s.hdrUsed {
			s.unread = true
			return s.emit(request{line: s.hdrLine, implicit: true})
		}
		s.hdr = append(s.hdr[:0], s.cur...)
		s.hdrData, s.hdrLine, s.hdrUsed, s.parsed = s.curInfo.data, s.curLine, false, nil
		s.headers++
	case evCapture:
		if s.open {
			s.unread = true
			return s.dispatch()
		}
		return s.emit(request{line: s.curLine, capture: true, held: s.curOK})
	default:
		if s.open {
			return s.dispatch()
		}
	}
	return nil
}

// end dispatches what the end of input leaves: an open step, or a header
// event no request was dispatched under.
func (s *side) end() error {
	if err := s.settle(); err != nil {
		return err
	}
	switch {
	case s.open:
		return s.dispatch()
	case s.hdr != nil && !s.hdrUsed:
		return s.emit(request{line: s.hdrLine, implicit: true})
	}
	s.eof = true
	return nil
}

// dispatch dispatches the open step's request.
func (s *side) dispatch() error {
	s.open = false
	return s.emit(s.opened)
}

// emit makes r the ready request, under the header in force.
func (s *side) emit(r request) error {
	if s.hdr == nil {
		// A framed record that is not valid JSON says so, not this.
		if err := s.settle(); err != nil {
			return err
		}
		what := fmt.Sprintf("the request of turn %d step %d", r.turn, r.step)
		if r.capture {
			what = "a captured request"
		}
		return &InputError{File: s.name, Line: r.line, Err: fmt.Errorf("%s has no header in force: no request/header event comes before it", what)}
	}
	s.requests++
	r.n, r.header = s.requests, s.headers
	s.hdrUsed = true
	s.req, s.ready = r, true
	return nil
}

// stepOf reads the turn and step of a step/start event.
func stepOf(src []byte, data span) (turn, step int) {
	var f [2]span
	if !fields(src, data.start, []string{"turn", "step"}, f[:]) {
		return 0, 0
	}
	value := func(sp span) int {
		if sp.end == 0 {
			return 0
		}
		return jsonInt(src[sp.start:sp.end])
	}
	return value(f[0]), value(f[1])
}

// jsonInt is gjson's Int of the JSON value b, read directly when b is a
// plain integer of at most 18 digits, as the turn and step of every event
// are: through gjson's number parse, reading them was a large part of
// comparing two long logs.
func jsonInt(b []byte) int {
	digits := b
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 {
		return int(gjson.ParseBytes(b).Int())
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return int(gjson.ParseBytes(b).Int())
		}
		n = n*10 + int(c-'0')
	}
	if len(digits) < len(b) {
		return -n
	}
	return n
}

// check validates a record as what this input holds, a session-log event
// or a request body (the first record decides which, unless -format
// does), and returns what it found. A record byte-identical to the one
// the other input read last is not validated again, and neither is that
// one if it was only framed. An event of a session log in the canonical
// layout is only framed (pending), to be validated when it turns out
// not to be byte-identical to the other input's (see settle).
func (s *side) check(src []byte, line int) (info recInfo, pending bool, err error) {
	p := s.peer
	if p != nil && p.curOK && (s.log == logUndecided || (s.log == logYes) == p.curInfo.event) && bytes.Equal(p.cur, src) {
		info := p.curInfo
		p.pending = false // two byte-identical records: neither needs more
		if s.log == logUndecided {
			s.log = logNo
			if info.event {
				s.log = logYes
			}
		}
		return info, false, nil
	}
	if p != nil {
		if err := p.settle(); err != nil {
			return recInfo{}, false, err
		}
	}
	if s.log == logYes {
		if info, ok := frame(src); ok {
			return info, true, nil
		}
	}
	info, err = s.validate(src, line)
	return info, false, err
}

// settle validates the current record if it was only framed, and holds
// what validation finds to what the frame said.
func (s *side) settle() error {
	if !s.pending {
		return nil
	}
	s.pending = false
	info, err := s.validate(s.cur, s.curLine)
	if err != nil {
		return err
	}
	frame := s.curInfo
	if info.kind != frame.kind || info.data.start != frame.data.start {
		// The record was taken for what its first bytes say; only an
		// event with its type or data member written twice parses as
		// something else.
		return &InputError{File: s.name, Line: s.curLine, Err: errTwice}
	}
	// A member after data ends data before the line's last brace: the
	// frame found where data starts, which is what was read of it.
	s.curInfo = info
	if info.kind == evHeader && s.hdrLine == s.curLine {
		s.hdrData = info.data
	}
	return nil
}

// frame reads the type and the data member of an event line in the
// canonical layout, {"type":"T","data":{…}}, from its first bytes and
// its last two, without validating it. Where data ends is a guess (the
// line's last brace but one) that settle corrects.
func frame(src []byte) (recInfo, bool) {
	typ, ok := canonicalType(src)
	if !ok || !bytes.HasSuffix(src, []byte("}}")) {
		return recInfo{}, false
	}
	open := len(eventPrefix) + len(typ) + len(dataPrefix) - 1
	return recInfo{event: true, kind: eventKind(typ), data: span{open, len(src) - 1}}, true
}

// eventKind is the kind of an event of type typ (its text, unescaped).
func eventKind(typ []byte) int {
	switch string(typ) {
	case headerType:
		return evHeader
	case stepType:
		return evStep
	case captureType:
		return evCapture
	}
	return evOther
}

// validate validates a record as check does, without the shortcuts.
func (s *side) validate(src []byte, line int) (recInfo, error) {
	if s.log != logNo {
		info, isEvent, err := scanEvent(src)
		if err != nil {
			return recInfo{}, s.errorAt(src, line, err)
		}
		if s.log == logUndecided {
			s.log = logNo
			if isEvent {
				s.log = logYes
			}
		}
		if s.log == logYes {
			if !isEvent {
				return recInfo{}, &InputError{File: s.name, Line: line, Err: errors.New(`not a session-log event (an object with "type" and "data" members)`)}
			}
			return info, nil
		}
	}
	info, err := checkBody(src, s.format, &s.members)
	if err != nil {
		return recInfo{}, s.errorAt(src, line, err)
	}
	return info, nil
}

// record returns the bytes the current request's header is read from:
// the header event in force, or the body.
func (s *side) record() []byte {
	if s.log == logYes {
		return s.hdr
	}
	return s.cur
}

// heldWire returns the wire format the header event in force names (a
// captured log's), or "".
func (s *side) heldWire() wire.Format {
	var f [1]span
	if s.hdr == nil || !fields(s.hdr, s.hdrData.start, []string{"format"}, f[:]) || f[0].end == 0 {
		return ""
	}
	return wire.Format(gjson.ParseBytes(s.hdr[f[0].start:f[0].end]).Str)
}

// errorAt wraps err as an InputError at the record starting on line,
// placing a syntax error on its own line and column.
func (s *side) errorAt(src []byte, line int, err error) error {
	if errors.Is(err, errBOM) {
		return ByteOrderMarkError(s.name, line)
	}
	var pe *placedError
	if errors.As(err, &pe) {
		l, c := position(src, pe.Offset)
		return &InputError{File: s.name, Line: line + l - 1, Column: c, Err: err}
	}
	return RecordError(s.name, line, err)
}

// header returns the header of the current request: the header event in
// force, parsed once, or the current body read in format f.
func (s *side) header(f wire.Format) (*header, error) {
	if s.log == logYes {
		if s.parsed != nil {
			return s.parsed, nil
		}
		src, data := s.hdr, s.hdrData
		if len(s.redact) > 0 {
			src, data = s.redactEvent(src), span{}
		}
		h, err := logHeader(src, s.hdrLine, data)
		if err != nil {
			return nil, s.errorAt(src, s.hdrLine, err)
		}
		s.parsed = h
		return h, nil
	}
	h, err := bodyHeader(s.cur, s.curLine, f, s.redactBody)
	if err != nil {
		return nil, s.errorAt(s.cur, s.curLine, err)
	}
	return h, nil
}

// redactEvent applies the redactions to a session-log event: a path rule
// at its place in data.header, a regular expression in every string value.
func (s *side) redactEvent(src []byte) []byte {
	for i, r := range s.redact {
		if r.Regex != nil {
			src = redact.Apply(src, wire.Anthropic, s.redact[i:i+1], s.hits[i:i+1])
			continue
		}
		v := gjson.GetBytes(src, "data.header."+r.Path)
		if !v.Exists() || v.Index <= 0 {
			continue
		}
		with := canon.AppendString(nil, r.With)
		out := make([]byte, 0, len(src)-len(v.Raw)+len(with))
		out = append(out, src[:v.Index]...)
		out = append(out, with...)
		src = append(out, src[v.Index+len(v.Raw):]...)
		s.hits[i]++
	}
	return src
}

// redactBody applies the redactions to a request body of format f, as a
// captured scenario applies them (package redact).
func (s *side) redactBody(src []byte, f wire.Format) []byte {
	if len(s.redact) == 0 {
		return src
	}
	return redact.Apply(src, f, s.redact, s.hits)
}

// captureKeys reads, from the capture/request event of a captured log's
// current request (when it is held), the keys of the body's members that
// held the header's system and tools: those whose value is the
// placeholder. OpenAI Chat's system is a run of messages, with no key.
func (s *side) captureKeys() wireKeys {
	var k wireKeys
	if s.log != logYes || !s.req.capture || !s.req.held {
		return k
	}
	d := gjson.Parse(canon.View(s.cur)).Get("data")
	chat := d.Get("format").String() == string(wire.OpenAIChat)
	d.Get("body").ForEach(func(key, v gjson.Result) bool {
		switch {
		// Copies: the record's buffer is read into again.
		case v.Raw == wire.SystemPlaceholder && !chat && k.system == "":
			k.system = strings.Clone(key.Raw)
		case v.Raw == wire.ToolsPlaceholder && k.tools == "":
			k.tools = strings.Clone(key.Raw)
		}
		return true
	})
	return k
}
