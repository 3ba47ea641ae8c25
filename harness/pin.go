package harness

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// The sidecar formats of a pinned fixture, in one place.
//
// NAME.system.md holds the system text of the first header, then the text
// of every later header whose system text differs from the one before it,
// each after a marker line naming the header:
//
//	<first system text>
//
//	<!-- headergold: header 2 (change, turn 1, step 2) -->
//
//	<changed system text>
//
// NAME.tools.json is {"initial": [tools], "changes": [[tools], ...]}: the
// tools of the first header, then the tools of every later header whose
// tool list differs from the one before it, laid out as
// JSON.stringify(x, null, 2) lays it out (a captured header's tools are
// the body's member with its tokens as sent, which Gemini's API also takes
// as one object). Both files end with a newline.

// markerPrefix starts the line before each later system prompt.
const markerPrefix = "<!-- headergold: header "

// escapeMarkers escapes the lines of a system text that would read as a
// marker line, or as an escaped one: each gets one more backslash before
// it, so that no text reads as a header boundary and two different
// header sequences never make one sidecar (Markdown shows \< as <).
func escapeMarkers(text string) string {
	if !strings.Contains(text, markerPrefix) {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, `\`), markerPrefix) {
			lines[i] = `\` + l
		}
	}
	return strings.Join(lines, "\n")
}

// unescapeMarkers undoes escapeMarkers.
func unescapeMarkers(text string) string {
	if !strings.Contains(text, `\`+markerPrefix) {
		return text
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, `\`) && strings.HasPrefix(strings.TrimLeft(l, `\`), markerPrefix) {
			lines[i] = l[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// markerHeader returns the header number a marker line names, and
// whether line is a marker that names one.
func markerHeader(line []byte) (int, bool) {
	rest, ok := bytes.CutPrefix(line, []byte(markerPrefix))
	if !ok {
		return 0, false
	}
	digits := rest[:len(rest)-len(bytes.TrimLeft(rest, "0123456789"))]
	n, err := strconv.Atoi(string(digits))
	return n, err == nil
}

// headerEvent is one request/header event of a full log.
type headerEvent struct {
	index      int // 1-based over header events
	line       int // 1-based log line
	reason     string
	turn, step int
	request    int    // captured logs: the generation request
	format     string // captured logs: the wire format
	header     gjson.Result
}

// label names the place of a header for a sidecar marker.
func (e headerEvent) label() string {
	if e.format != "" {
		return fmt.Sprintf("%s, request %d", e.reason, e.request)
	}
	return fmt.Sprintf("%s, turn %d, step %d", e.reason, e.turn, e.step)
}

// headerEvents lists the request/header events of a full log.
func headerEvents(log []byte) []headerEvent {
	var out []headerEvent
	for n, line := range logformat.Lines(log) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		if !bytes.Contains(line, []byte(`"`+logformat.RequestHeader+`"`)) {
			continue
		}
		v := gjson.ParseBytes(line)
		if v.Get("type").String() != logformat.RequestHeader {
			continue
		}
		d := v.Get("data")
		out = append(out, headerEvent{
			index: len(out) + 1, line: n, reason: d.Get("reason").String(),
			turn: int(d.Get("turn").Int()), step: int(d.Get("step").Int()),
			request: int(d.Get("request").Int()), format: d.Get("format").String(),
			header: d.Get("header"),
		})
	}
	return out
}

// Sidecars returns the contents of NAME.system.md and NAME.tools.json for a
// full (untemplated) log. A header that the sidecars cannot hold is a
// *[TemplateError], as [Template] reports it.
func Sidecars(log []byte) (systemMD, toolsJSON []byte, err error) {
	events := headerEvents(log)
	var md []byte
	tools := []byte(`{"initial":`)
	var prevSystem, prevTools string
	changes := 0
	captured := len(events) > 0 && events[0].format != ""
	for i, e := range events {
		sys, ts := e.header.Get("system"), e.header.Get("tools")
		text := sys.String()
		// A captured header holds the body's own members: any system
		// value, and tools as the provider takes them (Gemini's API
		// also takes a single object).
		if captured {
			text = systemTokens(sys)
		} else if sys.Exists() && sys.Type != gjson.String {
			return nil, nil, &TemplateError{Line: e.line, Path: "data.header.system", Msg: "header.system is not a string"}
		}
		text = escapeMarkers(text)
		if ts.Exists() && !ts.IsArray() && !captured {
			return nil, nil, &TemplateError{Line: e.line, Path: "data.header.tools", Msg: "header.tools is not an array"}
		}
		toolsRaw := ts.Raw
		if !ts.Exists() {
			toolsRaw = "[]"
		}
		if i == 0 {
			md = append(md, text...)
			md = append(md, '\n')
			tools = append(tools, toolsRaw...)
			tools = append(tools, `,"changes":[`...)
		} else {
			if text != prevSystem {
				md = fmt.Appendf(md, "\n%s%d (%s) -->\n\n", markerPrefix, e.index, e.label())
				md = append(md, text...)
				md = append(md, '\n')
			}
			if toolsRaw != prevTools {
				if changes > 0 {
					tools = append(tools, ',')
				}
				changes++
				tools = append(tools, toolsRaw...)
			}
		}
		prevSystem, prevTools = text, toolsRaw
	}
	if len(events) == 0 {
		md = []byte("\n")
		tools = append(tools, `[],"changes":[`...)
	}
	tools = append(tools, "]}"...)
	if captured {
		return md, append(canon.IndentTokens(nil, tools, "  "), '\n'), nil
	}
	indented, err := canon.Indent(nil, tools, "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("tools sidecar: %w", err)
	}
	return md, append(indented, '\n'), nil
}

// systemTokens renders a captured header's system part for the Markdown
// sidecar: indented JSON with every token as sent, except that the \n
// escapes inside strings are written as line breaks, so a prompt edit is a
// line diff. A JSON token never holds a raw line break, so the rendering
// loses nothing: an escaping-only drift shows too.
func systemTokens(sys gjson.Result) string {
	if !sys.Exists() {
		return ""
	}
	b := canon.IndentTokens(nil, []byte(sys.Raw), "  ")
	out := make([]byte, 0, len(b))
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\' && i+1 < len(b):
			if b[i+1] == 'n' {
				out = append(out, '\n')
			} else {
				out = append(out, c, b[i+1])
			}
			i++
			continue
		case c == '"':
			inString = !inString
		}
		out = append(out, c)
	}
	return string(out)
}
