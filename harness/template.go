package harness

import (
	"bytes"
	"fmt"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// The templating rule, in one place.
//
// Every golden log is templated: in each request/header event the values of
// header.system and header.tools are replaced by the JSON strings
// "<<system>>" and "<<tools>>", splicing bytes at the offsets gjson reports,
// so every other byte (config, reason, the other events) stays as the agent
// wrote it. A header change therefore rewrites the pinned fixture's
// sidecars, not every golden log. Templating is a fixed point: a templated
// log templates to itself, and a golden log that does not is a guard
// failure.
//
// A captured log's capture/request events keep, for a pretty-printed
// body, the whitespace found inside its header values (headerSpaces);
// templating leaves that member out with the values it belongs to, so that
// a golden log does not move with the length of a tool description.

// Placeholders written in place of a header's system text and tool list:
// "<<system>>" and "<<tools>>".
const (
	SystemPlaceholder = logformat.SystemPlaceholder
	ToolsPlaceholder  = logformat.ToolsPlaceholder
)

var (
	systemJSON = []byte(`"` + SystemPlaceholder + `"`)
	toolsJSON  = []byte(`"` + ToolsPlaceholder + `"`)
)

// Template returns log with every header's system and tools replaced by
// their placeholders. It fails, naming the line, when a header's system is
// not a string or its tools are neither an array nor already the
// placeholder.
func Template(log []byte) ([]byte, error) {
	// The templated log is much smaller than a full one with large
	// headers: let it grow rather than reserve the full size.
	out := make([]byte, 0, min(len(log), 4<<10))
	for n, line := range logformat.Lines(log) {
		if !mayBe(line, logformat.RequestHeader) && !mayBe(line, logformat.CaptureRequest) {
			out = append(out, line...)
			continue
		}
		var err error
		if out, err = appendTemplated(out, line); err != nil {
			if te, ok := err.(*TemplateError); ok {
				te.Line = n
				return nil, te
			}
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	return out, nil
}

// TemplateError is a header [Template] cannot template: the line, the JSON
// path of the offending value in its event and what is wrong with it.
type TemplateError struct {
	Line int    // 1-based line of the event
	Path string // e.g. data.header.tools; "" when the event is not JSON
	Msg  string // what is wrong, e.g. "header.tools is not an array"
	// Start and End delimit the offending value in the line, when there
	// is one (Start < End).
	Start, End int
}

func (e *TemplateError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// appendTemplated appends one event line, templated when it is a
// request/header event. It walks the line's members with canon's skipping
// scanner, which jumps through string text, so a header of any size is
// read once.
func appendTemplated(dst, line []byte) ([]byte, error) {
	var typ string
	dataStart, dataEnd := -1, -1
	complete := canon.Members(line, 0, func(key []byte, s, e int) bool {
		switch {
		case keyIs(key, "type"):
			typ = gjson.Parse(string(line[s:e])).String()
		case keyIs(key, "data"):
			dataStart, dataEnd = s, e
		}
		return true
	})
	switch {
	case typ == logformat.CaptureRequest && dataStart >= 0:
		return appendWithoutHeaderSpaces(dst, line, dataStart, dataEnd), nil
	case typ != logformat.RequestHeader:
		return append(dst, line...), nil
	case !complete:
		return nil, &TemplateError{Msg: "the event is not a complete JSON object"}
	}
	hStart, hEnd := -1, -1
	captured := false
	if dataStart >= 0 {
		canon.Members(line[:dataEnd], dataStart, func(key []byte, s, e int) bool {
			switch {
			case keyIs(key, "header"):
				hStart, hEnd = s, e
			case keyIs(key, "format"):
				// A captured header (it has a wire format) holds the
				// body's own system member, which may be any JSON value.
				captured = true
			}
			return true
		})
	}
	switch {
	case dataStart < 0 || line[dataStart] != '{':
		return nil, &TemplateError{Path: "data", Msg: "request/header event without a header object", Start: dataStart, End: dataEnd}
	case hStart < 0:
		return nil, &TemplateError{Path: "data.header", Msg: "request/header event without a header object"}
	case line[hStart] != '{':
		return nil, &TemplateError{Path: "data.header", Msg: "request/header event without a header object", Start: hStart, End: hEnd}
	}
	type splice struct {
		at, end int
		with    []byte
	}
	var splices []splice
	var err error
	canon.Members(line[:hEnd], hStart, func(key []byte, s, e int) bool {
		switch {
		case keyIs(key, "system"):
			if line[s] != '"' && !captured {
				err = &TemplateError{Path: "data.header.system", Msg: "header.system is not a string", Start: s, End: e}
				return false
			}
			splices = append(splices, splice{s, e, systemJSON})
		case keyIs(key, "tools"):
			if line[s] != '[' && !bytes.Equal(line[s:e], toolsJSON) {
				err = &TemplateError{Path: "data.header.tools", Msg: "header.tools is not an array", Start: s, End: e}
				return false
			}
			splices = append(splices, splice{s, e, toolsJSON})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	prev := 0
	for _, sp := range splices {
		dst = append(dst, line[prev:sp.at]...)
		dst = append(dst, sp.with...)
		prev = sp.end
	}
	return append(dst, line[prev:]...), nil
}

// appendWithoutHeaderSpaces appends a capture/request event whose data
// member is line[dataStart:dataEnd] without its headerSpaces member.
func appendWithoutHeaderSpaces(dst, line []byte, dataStart, dataEnd int) []byte {
	from, to := -1, -1
	prevEnd := dataStart + 1 // where the member before ends, or the object's brace
	canon.Members(line[:dataEnd], dataStart, func(key []byte, s, e int) bool {
		if !keyIs(key, logformat.MemberHeaderSpaces) {
			prevEnd = e
			return true
		}
		// The comma before goes with it; for the first member, the
		// comma after.
		from, to = prevEnd, e
		if from == dataStart+1 {
			j := e
			for j < dataEnd && (line[j] == ' ' || line[j] == '\t' || line[j] == '\n' || line[j] == '\r') {
				j++
			}
			if j < dataEnd && line[j] == ',' {
				to = j + 1
			}
		}
		return false
	})
	if from < 0 {
		return append(dst, line...)
	}
	return append(append(dst, line[:from]...), line[to:]...)
}

// mayBe tells lines that cannot be events of type typ from the rest
// without reading them whole: the log writers put the type first.
func mayBe(line []byte, typ string) bool {
	const prefix = `{"type":"`
	if bytes.HasPrefix(line, []byte(prefix)) {
		return bytes.HasPrefix(line[len(prefix):], []byte(typ+`"`))
	}
	return bytes.Contains(line, []byte(`"`+typ+`"`))
}

// keyIs reports whether the raw JSON key (quotes included) is name,
// decoding escapes as JSON.parse would.
func keyIs(key []byte, name string) bool {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	text, _ := canon.DecodeString(inner)
	return text == name
}

// IsTemplated reports whether log is a fixed point of [Template].
func IsTemplated(log []byte) bool {
	t, err := Template(log)
	return err == nil && bytes.Equal(t, log)
}
