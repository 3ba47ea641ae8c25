package harness

import (
	"bytes"
	"fmt"

	"github.com/headergold/headergold/internal/canon"
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
// JSON.stringify(x, null, 2) lays it out. Both files end with a newline.

// markerPrefix starts the line before each later system prompt.
const markerPrefix = "<!-- headergold: header "

// headerEvent is one request/header event of a full log.
type headerEvent struct {
	index      int // 1-based over header events
	line       int // 1-based log line
	reason     string
	turn, step int
	header     gjson.Result
}

// headerEvents lists the request/header events of a full log.
func headerEvents(log []byte) []headerEvent {
	var out []headerEvent
	n := 0
	for len(log) > 0 {
		n++
		i := bytes.IndexByte(log, '\n')
		line := log
		if i >= 0 {
			line, log = log[:i], log[i+1:]
		} else {
			log = nil
		}
		if !bytes.Contains(line, []byte(`"request/header"`)) {
			continue
		}
		v := gjson.ParseBytes(line)
		if v.Get("type").String() != "request/header" {
			continue
		}
		d := v.Get("data")
		out = append(out, headerEvent{
			index: len(out) + 1, line: n, reason: d.Get("reason").String(),
			turn: int(d.Get("turn").Int()), step: int(d.Get("step").Int()),
			header: d.Get("header"),
		})
	}
	return out
}

// Sidecars returns the contents of NAME.system.md and NAME.tools.json for a
// full (untemplated) log.
func Sidecars(log []byte) (systemMD, toolsJSON []byte, err error) {
	events := headerEvents(log)
	var md []byte
	tools := []byte(`{"initial":`)
	var prevSystem, prevTools string
	changes := 0
	for i, e := range events {
		sys, ts := e.header.Get("system"), e.header.Get("tools")
		if sys.Exists() && sys.Type != gjson.String {
			return nil, nil, fmt.Errorf("log line %d: header.system is not a string", e.line)
		}
		if ts.Exists() && !ts.IsArray() {
			return nil, nil, fmt.Errorf("log line %d: header.tools is not an array", e.line)
		}
		toolsRaw := ts.Raw
		if !ts.Exists() {
			toolsRaw = "[]"
		}
		if i == 0 {
			md = append(md, sys.String()...)
			md = append(md, '\n')
			tools = append(tools, toolsRaw...)
			tools = append(tools, `,"changes":[`...)
		} else {
			if sys.String() != prevSystem {
				md = fmt.Appendf(md, "\n%s%d (%s, turn %d, step %d) -->\n\n", markerPrefix, e.index, e.reason, e.turn, e.step)
				md = append(md, sys.String()...)
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
		prevSystem, prevTools = sys.String(), toolsRaw
	}
	if len(events) == 0 {
		md = []byte("\n")
		tools = append(tools, `[],"changes":[`...)
	}
	tools = append(tools, "]}"...)
	indented, err := canon.Indent(nil, tools, "  ")
	if err != nil {
		return nil, nil, fmt.Errorf("tools sidecar: %w", err)
	}
	return md, append(indented, '\n'), nil
}
