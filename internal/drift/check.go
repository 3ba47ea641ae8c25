package drift

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/wire"
)

// Event kinds, as the comparison tells session-log events apart.
const (
	evOther = iota
	evHeader
	evStep    // step/start: a reference-agent request opens
	evCapture // capture/request: a captured request
)

// recInfo is what validating a record found, kept beside the record so
// that a byte-identical record of the other input need not be validated
// again.
type recInfo struct {
	event bool // a session-log event (else a request body)
	kind  int  // for an event: evOther, evHeader, …
	data  span // for an event: its data member
	// For a request body: its wire format, as detected (or forced), and
	// whether the detection is sure (see body.detect).
	format wire.Format
	sure   bool
	// refuses, for a body whose detection is not sure, lists the formats
	// whose shape check it fails: it is judged in the format it is read
	// in, which only the comparison decides (see resolveFormats and
	// side.checkShape). A sure body's shape is checked at once.
	refuses wire.Refusals
}

// placedError is an error about a record at byte Offset of it: where a
// limit is passed, or, for a request body, the key of the member at
// fault.
type placedError struct {
	Offset int
	err    error
}

func (e *placedError) Error() string { return e.err.Error() }
func (e *placedError) Unwrap() error { return e.err }

// utf8BOM is the byte order mark some editors write at the start of a
// UTF-8 file.
var utf8BOM = []byte("\xef\xbb\xbf")

// errBOM is the error of a record that starts with utf8BOM; the reader
// says whether the file or only the line does (see side.errorAt).
var errBOM = errors.New("starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not allow")

// ByteOrderMarkError is the error of a line of file that starts with a
// UTF-8 byte order mark, for every reader of logs and bodies: worded as
// replay words a golden log's mark, the file's when the mark opens it, a
// line's when it is further in.
func ByteOrderMarkError(file string, line int) error {
	err := fmt.Errorf("the line %w (files joined with cat keep each one's mark): remove it", errBOM)
	if line == 1 {
		err = fmt.Errorf("the file %w: an editor added it; remove it", errBOM)
	}
	return &InputError{File: file, Line: line, Column: 1, Err: err}
}

// HasByteOrderMark reports whether line starts with a UTF-8 byte order
// mark.
func HasByteOrderMark(line []byte) bool { return bytes.HasPrefix(line, utf8BOM) }

// errTwice is the error of an event with its type or data member twice.
var errTwice = errors.New(`an event with its "type" or "data" member written twice`)

// scanEvent validates a record that should be a session-log event, in one
// pass of canon.ScanObject that also finds its type and data members.
// isEvent is false for a valid object that lacks either member; an event
// whose type is not a string, whose data is not an object, or that has
// either member twice is an error.
func scanEvent(src []byte) (info recInfo, isEvent bool, err error) {
	var typ span
	twice := false
	scanErr := canon.ScanObject(src, func(ks, ke, vs, ve int) {
		switch {
		case rawKeyIs(src[ks:ke], "type"):
			twice = twice || typ.end > 0
			typ = span{vs, ve}
		case rawKeyIs(src[ks:ke], "data"):
			twice = twice || info.data.end > 0
			info.data = span{vs, ve}
		}
	})
	if scanErr != nil {
		return recInfo{}, false, syntaxError(src)
	}
	if twice {
		// Refused whatever the layout: a framed line is read by its
		// first type and data, a parse would keep the last.
		return recInfo{}, false, errTwice
	}
	if typ.end == 0 || info.data.end == 0 {
		return recInfo{}, false, nil
	}
	if src[typ.start] != '"' || src[info.data.start] != '{' {
		return recInfo{}, false, errors.New(`event needs a string "type" and an object "data"`)
	}
	info.event = true
	raw := src[typ.start:typ.end]
	switch {
	case rawKeyIs(raw, headerType):
		info.kind = evHeader
	case rawKeyIs(raw, stepType):
		info.kind = evStep
	case rawKeyIs(raw, captureType):
		info.kind = evCapture
	}
	return info, true, nil
}

// syntaxError explains why src, which a validating scan refused, is not
// a JSON object: a byte order mark before it or past the nesting limit (a
// *placedError), a *canon.SyntaxError (placed), or a valid value that is
// not an object.
func syntaxError(src []byte) error {
	if bytes.HasPrefix(src, utf8BOM) {
		// Named, not reported as "invalid character 0xef": the mark is
		// invisible in an editor, and one added it.
		return &placedError{Offset: 0, err: errBOM}
	}
	if err := checkDepth(src); err != nil {
		return err
	}
	if _, err := canon.Compact(nil, src); err != nil {
		return err
	}
	return errors.New("not a JSON object")
}

// checkBody validates a record that should be a request body: a JSON
// object of a known wire format (forced, or detected), that wire.Split
// would accept: no top-level member written twice, one system member,
// and whose shape its format's provider takes. One validating scan checks
// the object and finds its top-level members, which the detection reads;
// nothing is copied, and the split itself waits until the body is
// compared, so that a body byte-identical to the other input's costs one
// scan. The shape of a body whose format is not sure is judged only once
// the comparison has decided which format it is read in: info.refuses
// holds what each format would say (see side.checkShape). scratch, when
// not nil, is reused to hold the members.
func checkBody(src []byte, forced Format, scratch *[]topMember) (recInfo, error) {
	b, err := scanBody(src, scratch)
	if err != nil {
		return recInfo{}, err
	}
	info := recInfo{format: wire.Format(forced), sure: true}
	detected := forced == FormatAuto || forced == FormatLog || forced == ""
	if detected {
		f, sure, err := b.detect()
		if err != nil {
			return recInfo{}, fmt.Errorf("%w; use -format", err)
		}
		info.format, info.sure = f, sure
	}
	if err := b.splitRefuses(info.format); err != nil {
		return recInfo{}, err
	}
	if !detected {
		// A body of another format read as the one given can pass for
		// identical: OpenAI Chat's leading system messages read as
		// Anthropic are conversation, which is never compared.
		if m, ok := b.foreignMark(info.format); ok {
			return recInfo{}, &placedError{Offset: m.at, err: fmt.Errorf(
				"-format %s, but this body is in the %s format: %s marks it (give -format %s, or leave -format out to detect each body's format)",
				forced, m.format, m.what, m.format)}
		}
	}
	if !info.sure {
		info.refuses = wire.ShapeRefusals(b.members)
		return info, nil
	}
	if err := b.shapeRefuses(info.format); err != nil {
		return recInfo{}, err
	}
	return info, nil
}

// scanBody validates src as a JSON object, in one scan that finds its
// top-level members (into scratch, when not nil).
func scanBody(src []byte, scratch *[]topMember) (body, error) {
	if err := checkDepth(src); err != nil {
		return body{}, err
	}
	if scratch == nil {
		scratch = new([]topMember)
	}
	top := (*scratch)[:0]
	if canon.ScanObject(src, func(ks, ke, vs, ve int) { top = append(top, topMember{span{ks, ke}, span{vs, ve}}) }) != nil {
		return body{}, syntaxError(src)
	}
	*scratch = top
	return body{src: src, top: top}, nil
}

// shapeIn returns what makes a validated body, which checkBody took, not
// one of format f (see body.shapeRefuses), or nil. For a body whose
// format was sure that was checked already; for another, refuses says
// whether f takes it, and only a body that f refuses is read again, to
// say why.
func (info recInfo) shapeIn(src []byte, f wire.Format) error {
	if info.sure || !info.refuses.Has(f) {
		return nil
	}
	b, err := scanBody(src, nil)
	if err != nil {
		return err
	}
	return b.shapeRefuses(f)
}

// shapeRefuses says what makes the body not one of format f: the body
// rule's shape ([wire.CheckShape]), none of its conversation members or
// a member of a JSON type the provider refuses. A provider refuses a body
// that breaks it, so an input that does is not a body of that format: a
// log given with -format, or a mistake. The members a provider requires
// besides (model, max_tokens) are left to the fake provider: they say
// nothing of a header, and a body logged elsewhere may lack them.
// The error is placed at the member refused (a *placedError), unless
// the body lacks it.
func (b body) shapeRefuses(f wire.Format) error {
	err := wire.CheckShape(f, b.members)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("not a request body in the %s format: %w", f, err)
	var be *wire.BodyError
	if errors.As(err, &be) && be.Got != "missing" {
		for _, m := range b.top {
			if b.name(m) == be.Member {
				return &placedError{Offset: m.key.start, err: err}
			}
		}
	}
	return err
}

// members yields each top-level member's decoded name and the first byte
// of its value.
func (b body) members(yield func(string, byte) bool) {
	for _, m := range b.top {
		if !yield(b.name(m), b.src[m.val.start]) {
			return
		}
	}
}

// topMember is a top-level member of a body: its raw key and its value.
type topMember struct{ key, val span }

// body is a validated request body and its top-level members.
type body struct {
	src []byte
	top []topMember
}

// name returns the decoded key of a member.
func (b body) name(m topMember) string {
	raw := b.src[m.key.start+1 : m.key.end-1]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	text, _ := canon.DecodeString(raw)
	return text
}

// splitRefuses returns the error wire.Split gives the body in format f,
// if any: a member written twice, or both of Gemini's system members,
// placed at the key of the second (a *placedError). Keys are compared as
// written, and decoded only where one has an escape.
func (b body) splitRefuses(f wire.Format) error {
	raw := func(m topMember) []byte { return b.src[m.key.start:m.key.end] }
	system := 0
	for i, m := range b.top {
		k := raw(m)
		escaped := bytes.IndexByte(k, '\\') >= 0
		for _, l := range b.top[:i] {
			if bytes.Equal(raw(l), k) || (escaped || bytes.IndexByte(raw(l), '\\') >= 0) && b.name(l) == b.name(m) {
				return &placedError{Offset: m.key.start, err: fmt.Errorf("the body has the member %q twice", b.name(m))}
			}
		}
		if f == wire.Gemini && (rawKeyIs(k, "systemInstruction") || rawKeyIs(k, "system_instruction")) {
			if system++; system > 1 {
				return &placedError{Offset: m.key.start, err: errors.New("the body has two system members")}
			}
		}
	}
	return nil
}

// has reports whether the body has a top-level member name.
func (b body) has(name string) bool {
	for _, m := range b.top {
		if rawKeyIs(b.src[m.key.start:m.key.end], name) {
			return true
		}
	}
	return false
}

// elements calls fn with the span of each element of the top-level member
// name when it is an array (of each member's value when it is an object,
// as gjson's ForEach, which wire.Detect uses, does), until fn returns
// false.
func (b body) elements(name string, fn func(span) bool) {
	for _, m := range b.top {
		if !rawKeyIs(b.src[m.key.start:m.key.end], name) {
			continue
		}
		if b.src[m.val.start] == '{' {
			more := true
			canon.Members(b.src, m.val.start, func(_ []byte, vs, ve int) bool {
				more = fn(span{vs, ve})
				return more
			})
			if !more {
				return
			}
			continue
		}
		if b.src[m.val.start] != '[' {
			continue
		}
		for i := m.val.start + 1; ; {
			for i < m.val.end && (isSpace(b.src[i]) || b.src[i] == ',') {
				i++
			}
			if i >= m.val.end || b.src[i] == ']' {
				break
			}
			end := canon.SkipValue(b.src, i)
			if end < 0 || !fn(span{i, end}) {
				return
			}
			i = end
		}
	}
}

// member returns the value of the member key of the object at e, the
// last one as JSON.parse keeps it; ok is false when e is no object or
// has no such member.
func (b body) member(e span, key string) (v span, ok bool) {
	canon.Members(b.src, e.start, func(k []byte, vs, ve int) bool {
		if rawKeyIs(k, key) {
			v, ok = span{vs, ve}, true
		}
		return true
	})
	return v, ok
}

// The tool members detect looks for, indexes into body.toolMarksAt.
var toolMarks = [...]string{"functionDeclarations", "function_declarations", "input_schema", "function", "custom", "name"}

const (
	markDeclarations      = 0
	markDeclarationsSnake = 1
	markInputSchema       = 2
	markFunction          = 3
	markCustom            = 4
	markName              = 5
	markedTools           = len(toolMarks)
)

// toolAt is where the first tool with a member of toolMarks is: its
// offset in the body, -1 when no tool has it.
type toolAt struct{ at int }

// toolMarksAt returns, for each of toolMarks, the first tool of the body
// (an object) that has it as a member, in one pass over the tools.
func (b body) toolMarksAt() [markedTools]toolAt {
	var found [markedTools]toolAt
	for i := range found {
		found[i].at = -1
	}
	b.elements("tools", func(t span) bool {
		canon.Members(b.src, t.start, func(k []byte, _, _ int) bool {
			for i, name := range toolMarks {
				if found[i].at < 0 && rawKeyIs(k, name) {
					found[i].at = t.start
				}
			}
			return true
		})
		return true
	})
	return found
}

// mark is what in a body [body.detect] takes as certain evidence of a wire
// format, whatever else the body holds: what it is, for a person, and its
// offset in the body.
type mark struct {
	format wire.Format
	what   string
	at     int
}

// markOf returns the first certain mark of format f that the body holds,
// by detect's rule: for Gemini one of its members or a tool with
// functionDeclarations; for OpenAI Responses, in a body without
// messages, one of its members; in a body with messages, for Anthropic
// the system or anthropic_version member or a tool with input_schema, and
// for OpenAI Chat a leading system or developer message or a tool with a
// function or custom member. tools is the body's toolMarksAt. The weaker
// marks detect reads only when these say nothing (a member only Chat
// Completions takes, Anthropic's top_k) are not certain: servers that
// speak one format take some of the other's members. Nor is a system
// message further in: Anthropic bodies carry those too (tool references
// after a tool result).
func (b body) markOf(f wire.Format, tools *[markedTools]toolAt) (mark, bool) {
	member := func(names ...string) (mark, bool) {
		for _, m := range b.top {
			for _, name := range names {
				if rawKeyIs(b.src[m.key.start:m.key.end], name) {
					return mark{format: f, what: fmt.Sprintf("the member %q", name), at: m.key.start}, true
				}
			}
		}
		return mark{}, false
	}
	tool := func(marks ...int) (mark, bool) {
		for _, i := range marks {
			if t := tools[i]; t.at >= 0 {
				return mark{format: f, what: fmt.Sprintf("a tool with the member %q", toolMarks[i]), at: t.at}, true
			}
		}
		return mark{}, false
	}
	switch f {
	case wire.Gemini:
		if m, ok := member("contents", "systemInstruction", "system_instruction", "generationConfig", "generation_config"); ok {
			return m, true
		}
		return tool(markDeclarations, markDeclarationsSnake)
	case wire.OpenAIResponses:
		if b.has("messages") {
			return mark{}, false
		}
		return member("input", "instructions", "max_output_tokens", "previous_response_id")
	case wire.Anthropic:
		if !b.has("messages") {
			return mark{}, false
		}
		if m, ok := member("system", "anthropic_version"); ok {
			return m, true
		}
		return tool(markInputSchema)
	case wire.OpenAIChat:
		if !b.has("messages") {
			return mark{}, false
		}
		if at, role, ok := b.systemMessage(true); ok {
			return mark{format: f, what: fmt.Sprintf("a leading message with role %q", role), at: at}, true
		}
		return tool(markFunction, markCustom)
	}
	return mark{}, false
}

// systemMessage returns the offset of the role of the first message of
// role system or developer, and the role; with leading set, only the
// first message is looked at.
func (b body) systemMessage(leading bool) (at int, role string, ok bool) {
	b.elements("messages", func(m span) bool {
		if r, found := b.member(m, "role"); found {
			raw := b.src[r.start:r.end]
			for _, name := range [...]string{"system", "developer"} {
				if raw[0] == '"' && rawKeyIs(raw, name) {
					at, role, ok = r.start, name, true
				}
			}
		}
		return !ok && !leading
	})
	return at, role, ok
}

// foreignMark returns what shows the body to be of another format than
// f: detect's answer when it is sure and not f, and the body holds a
// certain mark of it (see markOf). A body detect reads in f, or reads
// otherwise only by a weaker mark, is f's to read.
func (b body) foreignMark(f wire.Format) (mark, bool) {
	g, sure, err := b.detect()
	if err != nil || !sure || g == f {
		return mark{}, false
	}
	tools := b.toolMarksAt()
	return b.markOf(g, &tools)
}

// detect tells the wire format of the body by [wire.Detect]'s rule
// (TestDetectAgrees holds the two together), read from the members the
// validating scan found, and whether the answer is sure. wire.Detect falls
// back to OpenAI Chat for a body with messages and none of Anthropic's
// marks (system, anthropic_version, a tool with input_schema), so an
// Anthropic body without a system prompt whose tools are all server tools
// reads as OpenAI Chat. Such an answer is sure only when the body has a
// mark of OpenAI Chat (a system or developer message, a tool with a
// function or custom member, a member only Chat Completions takes); a body
// with a mark of Anthropic instead (a tool with a top-level name,
// stop_sequences, top_k, thinking, …) is Anthropic, surely. Otherwise the
// answer is ambiguous, and the comparison decides it from context (see
// resolveFormats).
func (b body) detect() (wire.Format, bool, error) {
	tools := b.toolMarksAt()
	for _, f := range [...]wire.Format{wire.Gemini, wire.OpenAIResponses} {
		if _, ok := b.markOf(f, &tools); ok {
			return f, true, nil
		}
	}
	if !b.has("messages") {
		return "", false, errors.New("cannot tell the wire format of this request body (no messages, input or contents member)")
	}
	if _, ok := b.markOf(wire.Anthropic, &tools); ok {
		return wire.Anthropic, true, nil
	}
	for _, name := range [...]string{"max_completion_tokens", "response_format", "logprobs", "top_logprobs", "n", "frequency_penalty",
		"presence_penalty", "logit_bias", "seed", "parallel_tool_calls", "stream_options", "reasoning_effort", "modalities", "audio",
		"prediction", "web_search_options", "store", "user"} {
		if b.has(name) {
			return wire.OpenAIChat, true, nil
		}
	}
	if _, _, ok := b.systemMessage(false); ok || tools[markFunction].at >= 0 || tools[markCustom].at >= 0 {
		return wire.OpenAIChat, true, nil
	}
	for _, name := range [...]string{"stop_sequences", "top_k", "thinking", "mcp_servers", "container", "context_management"} {
		if b.has(name) {
			return wire.Anthropic, true, nil
		}
	}
	if tools[markName].at >= 0 {
		return wire.Anthropic, true, nil
	}
	return wire.OpenAIChat, false, nil
}
