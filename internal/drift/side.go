package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// side reads the headers of one input in order: request/header events of a
// session log, or request bodies.
type side struct {
	name   string
	rr     *recordReader
	format Format
	log    int // logUndecided, logYes, logNo
	count  int // headers returned so far
	redact []redact.Rule
	hits   []int // per rule, the places it changed, shared by both sides
	// pricing, once the first differing header is found, may still await
	// the capture/request event that holds that request's conversation.
	pricing *pricing
	// current record
	src  []byte
	line int
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
			return ok && string(typ) != headerType && !(string(typ) == captureType && sd.awaiting())
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

// The frame of a canonical event line, and the type of header events.
const (
	eventPrefix = `{"type":"`
	dataPrefix  = `","data":{`
	headerType  = logformat.RequestHeader
)

// next advances to the next header record; it returns io.EOF at the end.
// The record stays in s.src and s.line until the next call.
func (s *side) next() error {
	for {
		src, line, err := s.rr.next()
		if err != nil {
			return err
		}
		if s.rr.skipped { // a long event other than request/header
			if !hasEventSuffix(src) {
				return &InputError{File: s.name, Line: line, Err: errors.New(`invalid JSON: event line does not end with "}}"`)}
			}
			s.log = logYes
			continue
		}
		if s.log == logNo {
			s.src, s.line = src, line
			s.count++
			return nil
		}
		isEvent, isHeader, err := classify(src)
		if err != nil {
			return s.errorAt(src, line, err)
		}
		if s.log == logUndecided {
			s.log = logNo
			if isEvent {
				s.log = logYes
			}
		}
		if s.log == logNo {
			s.src, s.line = src, line
			s.count++
			return nil
		}
		if !isEvent {
			return &InputError{File: s.name, Line: line, Err: errors.New(`not a session-log event (an object with "type" and "data" members)`)}
		}
		if isHeader {
			s.src, s.line = src, line
			s.count++
			return nil
		}
		if s.awaiting() {
			if typ, ok := canonicalType(src); !ok || string(typ) == captureType {
				s.pricing.captured(src)
			}
		}
	}
}

// awaiting reports whether the side still looks for the capture/request
// event of the first differing header's request.
func (s *side) awaiting() bool { return s.pricing != nil && s.pricing.request > 0 }

// classify tells whether a record is a session-log event and whether it is
// a request/header event. A canonically written event is told from its
// frame without parsing; anything else is parsed, and invalid JSON is an
// error.
func classify(src []byte) (isEvent, isHeader bool, err error) {
	if typ, ok := canonicalType(src); ok && hasEventSuffix(src) {
		return true, string(typ) == headerType, nil
	}
	if err := validate(src); err != nil {
		return false, false, err
	}
	root := gjson.Parse(string(src))
	typ, data := lookup(root, "type"), lookup(root, "data")
	if !root.IsObject() || !typ.Exists() || !data.Exists() {
		return false, false, nil
	}
	if typ.Type != gjson.String || !data.IsObject() {
		return false, false, errors.New(`event needs a string "type" and an object "data"`)
	}
	return true, typ.Str == headerType, nil
}

// hasEventSuffix reports whether an event line ends as a canonical one
// does, with the closing braces of data and of the event.
func hasEventSuffix(src []byte) bool {
	n := len(src)
	for n > 0 && (src[n-1] == ' ' || src[n-1] == '\t' || src[n-1] == '\r') {
		n--
	}
	return n >= 2 && src[n-2] == '}' && src[n-1] == '}'
}

// validate checks that src is one JSON value no deeper than MaxDepth. The
// depth is checked first: gjson's validation recurses.
func validate(src []byte) error {
	if err := checkDepth(src); err != nil {
		return err
	}
	if gjson.ValidBytes(src) {
		return nil
	}
	if _, err := canon.Compact(nil, src); err != nil {
		return err
	}
	return errors.New("invalid JSON")
}

// validateEvent is validate for a session-log event, an object: one pass
// of canon.ScanObject validates it and finds its data member (the last
// one, as JSON.parse keeps it), after the depth check.
func validateEvent(src []byte) (data span, err error) {
	if err := checkDepth(src); err != nil {
		return span{}, err
	}
	scanErr := canon.ScanObject(src, func(ks, ke, vs, ve int) {
		if rawKeyIs(src[ks:ke], "data") {
			data = span{vs, ve}
		}
	})
	if scanErr == nil {
		return data, nil
	}
	if _, err := canon.Compact(nil, src); err != nil {
		return span{}, err
	}
	return span{}, errors.New("invalid JSON")
}

// errorAt wraps err as an InputError at the record starting on line,
// placing a syntax error on its own line and column.
func (s *side) errorAt(src []byte, line int, err error) error {
	var se *canon.SyntaxError
	if errors.As(err, &se) {
		return &InputError{File: s.name, Line: line + se.Line - 1, Column: se.Column, Err: fmt.Errorf("invalid JSON: %s", se.Msg)}
	}
	var le *limitError
	if errors.As(err, &le) {
		l, c := position(src, le.Offset)
		return &InputError{File: s.name, Line: line + l - 1, Column: c, Err: err}
	}
	return &InputError{File: s.name, Line: line, Err: err}
}

// header parses the current record and returns its header.
func (s *side) header() (*header, error) {
	src := s.src
	var (
		h   *header
		err error
	)
	if s.log == logYes {
		var data span
		if data, err = validateEvent(src); err != nil {
			return nil, s.errorAt(src, s.line, err)
		}
		if len(s.redact) > 0 {
			src, data = s.redactEvent(src), span{}
		}
		h, err = logHeader(src, s.line, data)
	} else {
		if err := validate(src); err != nil {
			return nil, s.errorAt(src, s.line, err)
		}
		h, err = bodyHeader(src, s.line, s.format, s.redactBody)
	}
	if err != nil {
		return nil, s.errorAt(src, s.line, err)
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

// drain counts the remaining headers of an input.
func (s *side) drain() error {
	for {
		if err := s.next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}
