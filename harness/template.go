package harness

import (
	"bytes"
	"fmt"

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

// Placeholders written in place of a header's system text and tool list.
const (
	SystemPlaceholder = "<<system>>"
	ToolsPlaceholder  = "<<tools>>"
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
	out := make([]byte, 0, len(log))
	n := 0
	for len(log) > 0 {
		n++
		i := bytes.IndexByte(log, '\n')
		line := log
		if i >= 0 {
			line, log = log[:i+1], log[i+1:]
		} else {
			log = nil
		}
		if !bytes.Contains(line, []byte(`"request/header"`)) {
			out = append(out, line...)
			continue
		}
		t, err := templateLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, t...)
	}
	return out, nil
}

// templateLine templates one request/header event line. gjson reads the
// line at most twice up to the end of the tools, whatever their size.
func templateLine(line []byte) ([]byte, error) {
	if gjson.GetBytes(line, "type").String() != "request/header" {
		return line, nil
	}
	if !gjson.GetBytes(line, "data.header.config").Exists() && !gjson.GetBytes(line, "data.header").IsObject() {
		return nil, fmt.Errorf("request/header event without a header object")
	}
	type splice struct {
		at, end int
		raw     string // the bytes expected at [at, end)
		with    []byte
	}
	var splices []splice
	// A captured header (it has a wire format) holds the body's own
	// system member, which may be any JSON value.
	captured := gjson.GetBytes(line, "data.format").Exists()
	if sys := gjson.GetBytes(line, "data.header.system"); sys.Exists() {
		if sys.Type != gjson.String && !captured {
			return nil, fmt.Errorf("header.system is not a string")
		}
		splices = append(splices, splice{sys.Index, sys.Index + len(sys.Raw), sys.Raw, systemJSON})
	}
	if tools := gjson.GetBytes(line, "data.header.tools"); tools.Exists() {
		if !tools.IsArray() && !(tools.Type == gjson.String && tools.Str == ToolsPlaceholder) {
			return nil, fmt.Errorf("header.tools is not an array")
		}
		splices = append(splices, splice{tools.Index, tools.Index + len(tools.Raw), tools.Raw, toolsJSON})
	}
	if len(splices) == 2 && splices[1].at < splices[0].at {
		splices[0], splices[1] = splices[1], splices[0]
	}
	out := make([]byte, 0, len(line))
	prev := 0
	for _, s := range splices {
		if s.at < prev || s.end > len(line) || string(line[s.at:s.end]) != s.raw {
			return nil, fmt.Errorf("header members at unexpected offsets")
		}
		out = append(out, line[prev:s.at]...)
		out = append(out, s.with...)
		prev = s.end
	}
	return append(out, line[prev:]...), nil
}

// IsTemplated reports whether log is a fixed point of [Template].
func IsTemplated(log []byte) bool {
	t, err := Template(log)
	return err == nil && bytes.Equal(t, log)
}
