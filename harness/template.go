package harness

import (
	"bytes"
	"fmt"
	"slices"

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
		if !mayBe(line, logformat.RequestHeader) && !(mayBe(line, logformat.CaptureRequest) && mayHoldHeaderSpaces(line)) {
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

// Error formats the error as "line N: what is wrong".
func (e *TemplateError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// appendTemplated appends one event line, templated when it is a
// request/header event, and without its headerSpaces when it is a
// capture/request event. It walks the line once with canon's skipping
// scanner, which jumps through string text, into data and its header
// where it finds them, so a header of any size is read once.
func appendTemplated(dst, line []byte) ([]byte, error) {
	type span struct{ at, end int }
	var typ string
	data, header := span{-1, -1}, span{-1, -1}
	captured := false
	// The header's system and tools values, and data's headerSpaces
	// member with its comma, as found; what the type asks for is done
	// after the walk, which may meet data before type.
	var system, tools, spaces = span{-1, -1}, span{-1, -1}, span{-1, -1}
	end := canon.Walk(line, 0, func(key []byte, s int) int {
		switch {
		case keyIs(key, "type"):
			e := canon.SkipValue(line, s)
			if e >= 0 {
				typ = gjson.Parse(string(line[s:e])).String()
			}
			return e
		case keyIs(key, "data") && line[s] == '{':
			prevEnd := s + 1 // where the member before ends, or the brace
			data = span{s, canon.Walk(line, s, func(key []byte, s int) int {
				e := -1
				switch {
				case keyIs(key, "header") && line[s] == '{':
					e = canon.Walk(line, s, func(key []byte, s int) int {
						e := canon.SkipValue(line, s)
						switch {
						case keyIs(key, "system"):
							system = span{s, e}
						case keyIs(key, "tools"):
							tools = span{s, e}
						}
						return e
					})
					header = span{s, e}
				case keyIs(key, "header"):
					e = canon.SkipValue(line, s)
					header = span{s, e}
				case keyIs(key, "format"):
					// A captured header (it has a wire format) holds the
					// body's own system member, which may be any JSON value.
					captured = true
					e = canon.SkipValue(line, s)
				case keyIs(key, logformat.MemberHeaderSpaces) && spaces.at < 0:
					// The comma before goes with it; for the first member,
					// the comma after.
					e = canon.SkipValue(line, s)
					spaces = span{prevEnd, e}
				default:
					e = canon.SkipValue(line, s)
				}
				prevEnd = e
				return e
			})}
			return data.end
		case keyIs(key, "data"):
			e := canon.SkipValue(line, s)
			data = span{s, e}
			return e
		}
		return canon.SkipValue(line, s)
	})
	switch {
	case typ == logformat.CaptureRequest:
		if spaces.at < 0 || spaces.end < 0 {
			return append(dst, line...), nil
		}
		from, to := spaces.at, spaces.end
		if from == data.at+1 {
			j := to
			for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\n' || line[j] == '\r') {
				j++
			}
			if j < len(line) && line[j] == ',' {
				to = j + 1
			}
		}
		return append(append(dst, line[:from]...), line[to:]...), nil
	case typ != logformat.RequestHeader:
		return append(dst, line...), nil
	case end < 0:
		return nil, &TemplateError{Msg: "the event is not a complete JSON object"}
	case data.at < 0 || line[data.at] != '{':
		return nil, &TemplateError{Path: "data", Msg: "request/header event without a header object", Start: data.at, End: data.end}
	case header.at < 0:
		return nil, &TemplateError{Path: "data.header", Msg: "request/header event without a header object"}
	case line[header.at] != '{':
		return nil, &TemplateError{Path: "data.header", Msg: "request/header event without a header object", Start: header.at, End: header.end}
	case system.at >= 0 && line[system.at] != '"' && !captured:
		return nil, &TemplateError{Path: "data.header.system", Msg: "header.system is not a string", Start: system.at, End: system.end}
	case tools.at >= 0 && line[tools.at] != '[' && !captured && !bytes.Equal(line[tools.at:tools.end], toolsJSON):
		// A captured header holds the body's own tools member, which
		// Gemini's API also takes as a single object.
		return nil, &TemplateError{Path: "data.header.tools", Msg: "header.tools is not an array", Start: tools.at, End: tools.end}
	}
	type splice struct {
		span
		with []byte
	}
	var splices []splice
	if system.at >= 0 {
		splices = append(splices, splice{system, systemJSON})
	}
	if tools.at >= 0 {
		splices = append(splices, splice{tools, toolsJSON})
	}
	slices.SortFunc(splices, func(a, b splice) int { return a.at - b.at })
	prev := 0
	for _, sp := range splices {
		dst = append(dst, line[prev:sp.at]...)
		dst = append(dst, sp.with...)
		prev = sp.end
	}
	return append(dst, line[prev:]...), nil
}

// mayHoldHeaderSpaces tells capture/request lines that cannot hold a
// headerSpaces member from the rest, at IndexByte's speed: its key is
// written plainly, or escaped.
func mayHoldHeaderSpaces(line []byte) bool {
	return bytes.Contains(line, []byte(logformat.MemberHeaderSpaces)) || bytes.Contains(line, []byte(`\u`))
}

// mayBe tells lines that cannot be events of type typ from the rest
// without reading them whole: the log writers put the type first. It
// allocates nothing: it runs on every line of a log.
func mayBe(line []byte, typ string) bool {
	const prefix = `{"type":"`
	if rest, ok := bytes.CutPrefix(line, []byte(prefix)); ok {
		return len(rest) > len(typ) && string(rest[:len(typ)]) == typ && rest[len(typ)] == '"'
	}
	for off := 0; ; {
		i := bytes.Index(line[off:], []byte(typ))
		if i < 0 {
			return false
		}
		i += off
		if i > 0 && line[i-1] == '"' && i+len(typ) < len(line) && line[i+len(typ)] == '"' {
			return true
		}
		off = i + 1
	}
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
