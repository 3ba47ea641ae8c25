package agent

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
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
	header []byte // raw header object in force, when it came from a line
	// assembled is the header in force when it came from the loop's
	// assembler (header is then nil): its bytes are written only when
	// something reads them.
	assembled *assembler.Header
	messages  []byte // comma-separated message objects
	count     int    // number of messages
	// borrow lets header alias the line it came from instead of copying
	// it. It is set where every line folded stays unchanged for as long
	// as the projection is used: Rebuild and CheckRebuild fold a log they
	// hold, and the loop folds each line it has just written and keeps.
	borrow bool
	// layout lets a request/header line laid out as the loop writes it
	// give its header without a parse that reads past the header's
	// bytes (see headerOfLine). Only CheckRequests sets it, and only for
	// a pass whose every header is then found byte-equal to a received
	// one: a valid object, which a parse would have found the same.
	layout bool
}

// Apply folds one event line (with or without its newline) into the
// projection. Lines that do not touch the request are ignored; a line that
// touches it but lacks a member the request needs is an error.
func (p *Projector) Apply(line []byte) error {
	line = bytes.TrimSuffix(line, []byte("\n"))
	// The type is read on its own first, and every member by its own
	// path: a request/header line holds the whole header, which a parse of
	// the whole line would copy and scan past twice.
	return p.apply(lineType(line), line)
}

// apply is Apply of a line without its newline whose type was read.
func (p *Projector) apply(typ string, line []byte) error {
	// A view, not a copy: apply copies every byte it keeps, unless it
	// borrows the header from a line that is never written to again.
	s := canon.View(line)
	switch typ {
	case TypeRequestHeader:
		if h := headerOfLine(line); p.layout && p.borrow && h != nil {
			p.setHeader(h)
			return nil
		}
		h := gjson.Get(s, "data.header")
		if !h.IsObject() {
			return errors.New("request/header event without a header object")
		}
		if end := h.Index + len(h.Raw); p.borrow && h.Index > 0 && end <= len(line) {
			p.setHeader(line[h.Index:end:end])
		} else {
			// A new array, never the old one overwritten: requests
			// made before this line share the old header's bytes.
			p.setHeader([]byte(h.Raw))
		}
	case TypeUserMessage:
		c := gjson.Get(s, "data.content")
		if c.Type != gjson.String {
			return fmt.Errorf("%s event without a string content", typ)
		}
		p.user(c.Raw)
	case TypeAssistantMessage:
		p.assistant(gjson.Get(s, "data.text").Raw, gjson.Get(s, "data.toolCalls").Raw)
	case TypeToolResult:
		data := gjson.Get(s, "data")
		id, out := data.Get("callId"), data.Get("output")
		if id.Type != gjson.String || out.Type != gjson.String {
			return fmt.Errorf("%s event without a string callId and output", typ)
		}
		p.toolResult(id.Raw, out.Raw, data.Get("error").Bool())
	}
	return nil
}

// user, assistant and toolResult append one message, given the raw JSON
// of the event's members ("" for an absent one). They are the projection
// rule for messages, used by Apply and by the loop, which has the members
// at hand in the line it writes.
func (p *Projector) user(content string) {
	p.message(`{"role":"user","content":`, content, `}`)
}

func (p *Projector) assistant(text, calls string) {
	p.open(`{"role":"assistant"`)
	if text != "" {
		p.messages = append(p.messages, `,"content":`...)
		p.messages = append(p.messages, text...)
	}
	if calls != "" {
		p.messages = append(p.messages, `,"toolCalls":`...)
		p.messages = append(p.messages, calls...)
	}
	p.messages = append(p.messages, '}')
}

func (p *Projector) toolResult(id, out string, isError bool) {
	p.open(`{"role":"tool","callId":`)
	p.messages = append(p.messages, id...)
	p.messages = append(p.messages, `,"content":`...)
	p.messages = append(p.messages, out...)
	if isError {
		p.messages = append(p.messages, `,"isError":true`...)
	}
	p.messages = append(p.messages, '}')
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

// useHeader makes the assembled header h the header in force, itself
// rather than its bytes, which it writes only when something reads them.
func (p *Projector) useHeader(h *assembler.Header) { p.assembled, p.header = h, nil }

// setHeader makes b, which nothing writes to, the header in force.
func (p *Projector) setHeader(b []byte) { p.assembled, p.header = nil, b }

// headerBytes returns the header in force, for reading only.
func (p *Projector) headerBytes() []byte {
	if p.assembled != nil {
		return unsafeBytes(p.assembled.JSON())
	}
	return p.header
}

// hasHeader reports whether a header is in force.
func (p *Projector) hasHeader() bool { return p.assembled != nil || p.header != nil }

// Header returns a copy of the header in force, or nil before the first
// request/header event.
func (p *Projector) Header() []byte {
	if p.assembled != nil {
		return p.assembled.Bytes()
	}
	return bytes.Clone(p.header)
}

// AppendRequest appends the request of the next step to dst.
func (p *Projector) AppendRequest(dst []byte) ([]byte, error) {
	r, err := p.Request()
	if err != nil {
		return dst, err
	}
	return r.AppendJSON(slices.Grow(dst, r.Len())), nil
}

// Request returns the request of the next step without copying its bytes:
// it shares them with the projection, which later Apply calls never change
// (the conversation is only appended to, and a new header is a new array).
func (p *Projector) Request() (*Request, error) {
	if p.assembled == nil && len(p.header) < 2 {
		return nil, errors.New("no request/header in force")
	}
	return &Request{assembled: p.assembled, header: p.header, messages: p.messages[:len(p.messages):len(p.messages)]}, nil
}

// Rebuild returns the exact bytes of the request that follows the log prefix:
// a pure function of the prefix. Errors name the 1-based line.
func Rebuild(prefix []byte) ([]byte, error) {
	p := Projector{borrow: true}
	n := 0
	for line := range textLines(prefix) {
		n++
		if err := p.Apply(line); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	return p.AppendRequest(nil)
}

// CheckRebuild checks the rebuild invariant: for every step/start in log,
// the request rebuilt from the lines before the step's dispatch equals the
// corresponding request in received, byte for byte. A step's request is
// rebuilt from the prefix ending just before its assistant/message (or, for
// a step whose adapter call failed, its step/end); a log that ends before
// its last step's dispatch ends that step's prefix. It returns nil when all
// match and the counts agree.
func CheckRebuild(log []byte, received [][]byte) error {
	return checkRebuild(textLines(log), len(received), false,
		func(k int, want *Request) bool { return want.equalJSON(received[k]) },
		func(k int) []byte { return bytes.Clone(received[k]) })
}

// CheckRequests is [CheckRebuild] for the requests as an adapter received
// them. It compares each request's header with the rebuilt one only when
// either changed since the last step it compared, so its cost grows with
// the conversation and the number of header changes, not with the size
// of the header times the number of steps.
func CheckRequests(log []byte, received []*Request) error {
	// A first pass reads each header line by its layout and holds every
	// header it reads to the received one's bytes. When it passes, those
	// headers are the assembler's own objects, so the parsing pass would
	// have read them alike; when it does not, the parsing pass decides.
	if checkRequests(textLines(log), received, true) == nil {
		return nil
	}
	return checkRequests(textLines(log), received, false)
}

// CheckLogRequests is [CheckRequests] of the log l as it is now, without
// its bytes joined: a request/header line the loop wrote holds the
// assembled header itself, which the requests under it share, so the
// check finds them equal without reading (or writing) its bytes, and only
// the rest of the log is read. Its verdict is
// CheckRequests(l.Bytes(), received)'s.
func CheckLogRequests(l *Log, received []*Request) error {
	if checkRequests(l.Lines(), received, true) == nil {
		return nil
	}
	return checkRequests(l.Lines(), received, false)
}

// textLines gives the lines of a log's text, none with a header apart
// (see Log.Lines).
func textLines(log []byte) iter.Seq2[[]byte, *assembler.Header] {
	return func(yield func([]byte, *assembler.Header) bool) {
		for _, line := range logformat.Lines(log) {
			if !yield(bytes.TrimSuffix(line, []byte{'\n'}), nil) {
				return
			}
		}
	}
}

// checkRequests is CheckRequests in one pass. With layout, header lines
// are read by headerOfLine and a header must equal the received one byte
// for byte; without, they are parsed, and a header that differs only in
// its JSON text is compared as JSON.
func checkRequests(lines iter.Seq2[[]byte, *assembler.Header], received []*Request, layout bool) error {
	// The last request header found equal to the rebuilt header in force,
	// and that rebuilt header: neither is ever written to, so while both
	// are the same arrays, they are still equal.
	var gotHeader, wantHeader []byte
	// The last two conversations found equal. Conversations only grow by
	// appending, so a request's conversation often starts with the last
	// one's very bytes, in the same array on each side: then only what was
	// appended since is compared, and a scenario's check costs its
	// conversation's length, not the sum of every request's (which grows
	// with the square of its turns).
	var gotMessages, wantMessages []byte
	equal := func(k int, want *Request) bool {
		got := received[k]
		switch {
		case got.assembled != nil && got.assembled == want.assembled:
			// One assembled header, which equals itself unread.
		case !sameArray(got.headerBytes(), gotHeader) || !sameArray(want.headerBytes(), wantHeader):
			if !bytes.Equal(got.headerBytes(), want.headerBytes()) {
				return !layout && want.equalJSON(got.Bytes())
			}
			gotHeader, wantHeader = got.headerBytes(), want.headerBytes()
		}
		g, w := got.messages, want.messages
		if extends(g, gotMessages) && extends(w, wantMessages) {
			g, w = g[len(gotMessages):], w[len(wantMessages):]
		}
		if !bytes.Equal(g, w) {
			return false
		}
		gotMessages, wantMessages = got.messages, want.messages
		return true
	}
	return checkRebuild(lines, len(received), layout, equal, func(k int) []byte { return received[k].Bytes() })
}

// headerOfLine returns the header object of a request/header line laid
// out exactly as the loop writes one,
//
//	{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{…}}}
//
// that is everything between the header's key and the final "}}", or nil
// for a line laid out otherwise. It reads only the line's first bytes and
// its last two: it does not check that the header is one value, which is
// for the caller to know another way.
func headerOfLine(line []byte) []byte {
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`+TypeRequestHeader+`","data":{"turn":`))
	if !ok {
		return nil
	}
	if rest, ok = cutDigits(rest); !ok {
		return nil
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"step":`)); !ok {
		return nil
	}
	if rest, ok = cutDigits(rest); !ok {
		return nil
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"reason":"`)); !ok {
		return nil
	}
	i := 0
	for i < len(rest) && ('a' <= rest[i] && rest[i] <= 'z' || rest[i] == '-') {
		i++
	}
	if rest, ok = bytes.CutPrefix(rest[i:], []byte(`","header":`)); !ok {
		return nil
	}
	h, ok := bytes.CutSuffix(rest, []byte(`}}`))
	if !ok || len(h) < 2 || h[0] != '{' || h[len(h)-1] != '}' {
		return nil
	}
	return h[:len(h):len(h)]
}

// cutType splits a line laid out as the loop writes one, which begins
// {"type":"…" with no escape in the type, into its type (a view of line)
// and what follows the type; ok is false for any other line.
func cutType(line []byte) (typ string, rest []byte, ok bool) {
	if rest, ok = bytes.CutPrefix(line, []byte(`{"type":"`)); ok {
		if i := bytes.IndexByte(rest, '"'); i >= 0 && bytes.IndexByte(rest[:i], '\\') < 0 && i+1 < len(rest) && (rest[i+1] == ',' || rest[i+1] == '}') {
			return canon.View(rest[:i]), rest[i+1:], true
		}
	}
	return "", nil, false
}

// lineType returns the type of an event line without its newline, as a
// view of line: read by cutType from a line laid out as the loop writes
// one, parsed from any other (an escape in the type, another member
// first).
func lineType(line []byte) string {
	if typ, _, ok := cutType(line); ok {
		return typ
	}
	return gjson.Get(canon.View(line), "type").String()
}

// lineTurn returns the data.turn of an event line without its newline (0
// when it has none), read without a parse when the line begins
// {"type":"…","data":{"turn":N, as the loop writes every line that has a
// turn.
func lineTurn(line []byte) int {
	if _, rest, ok := cutType(line); ok {
		if rest, ok = bytes.CutPrefix(rest, []byte(`,"data":{"turn":`)); ok {
			t, j := 0, 0
			for ; j < len(rest) && j < 9 && '0' <= rest[j] && rest[j] <= '9'; j++ {
				t = t*10 + int(rest[j]-'0')
			}
			if j > 0 && j < len(rest) && (rest[j] == ',' || rest[j] == '}') && (rest[0] != '0' || j == 1) {
				return t
			}
		}
	}
	return int(gjson.Get(canon.View(line), "data.turn").Int())
}

// cutDigits cuts a non-empty run of ASCII digits from the front of b.
func cutDigits(b []byte) ([]byte, bool) {
	i := 0
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return b[i:], i > 0
}

// sameArray reports whether a and b are the same bytes in memory.
func sameArray(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// extends reports whether a starts with all of prefix in the same memory.
func extends(a, prefix []byte) bool {
	return len(prefix) > 0 && len(a) >= len(prefix) && &a[0] == &prefix[0]
}

// checkRebuild folds log and, at each step's dispatch point, asks equal
// whether the k-th of n received requests (from 0) is the rebuilt one;
// got gives that request's bytes for the report.
func checkRebuild(lines iter.Seq2[[]byte, *assembler.Header], n int, layout bool, equal func(k int, want *Request) bool, got func(k int) []byte) error {
	p := Projector{borrow: true, layout: layout}
	step := 0
	pending := false // a step/start without its dispatch yet
	var mismatch error
	count := 0 // lines read
	// check compares the request of the pending step, whose dispatch
	// prefix is everything folded so far, with what the adapter received.
	check := func(line int) error {
		pending = false
		if mismatch != nil {
			return nil
		}
		want, err := p.Request()
		if err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
		if step > n {
			mismatch = fmt.Errorf("step %d (before line %d): the adapter received only %d requests", step, line, n)
		} else if !equal(step-1, want) {
			mismatch = &RebuildError{Step: step, Line: line, Want: want.Bytes(), Got: got(step - 1)}
		}
		return nil
	}
	for text, h := range lines {
		count++
		typ := TypeRequestHeader
		if h == nil {
			typ = lineType(text)
		}
		if pending && (typ == TypeAssistantMessage || typ == TypeStepEnd) {
			if err := check(count); err != nil {
				return err
			}
		}
		if typ == TypeStepStart {
			step++
			pending = true
		}
		if h != nil {
			p.useHeader(h) // a request/header line the loop wrote
			continue
		}
		if err := p.apply(typ, text); err != nil {
			return err
		}
	}
	// A log that ends between a step/start and its dispatch (a crash, a
	// cut copy) still determines that step's request: compare it when the
	// adapter received one, rather than waving it through.
	if pending && step <= n {
		if err := check(count + 1); err != nil {
			return err
		}
	}
	if mismatch != nil {
		return mismatch
	}
	if dispatched := step; n > dispatched {
		return fmt.Errorf("the adapter received %d requests but the log has %d steps", n, dispatched)
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

// Error names the step and shows both requests around their first
// differing byte.
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
