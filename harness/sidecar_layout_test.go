package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// TestSidecarsLayout: the system sidecar holds the first system text and
// then each changed one after a marker naming the header by its index
// over header events (not its log line), its reason, turn and step; the
// tools sidecar holds the first tool list (an absent one as []) and each
// changed one. A header that changes only its tools adds no marker, and
// one that changes only its system text adds no tools entry.
func TestSidecarsLayout(t *testing.T) {
	t.Parallel()
	log := jsonlLines(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"step/start","data":{"turn":1,"step":1}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{},"system":"A"}}}`,
		`{"type":"step/start","data":{"turn":1,"step":2}}`,
		`{"type":"request/header","data":{"turn":1,"step":2,"reason":"change","header":{"config":{},"system":"B","tools":[{"name":"t"}]}}}`,
		`{"type":"turn/start","data":{"turn":2}}`,
		`{"type":"step/start","data":{"turn":2,"step":1}}`,
		`{"type":"request/header","data":{"turn":2,"step":1,"reason":"change","header":{"config":{},"system":"B","tools":[{"name":"t"},{"name":"u"}]}}}`,
		`{"type":"step/start","data":{"turn":2,"step":2}}`,
		`{"type":"request/header","data":{"turn":2,"step":2,"reason":"change","header":{"config":{},"system":"C","tools":[{"name":"t"},{"name":"u"}]}}}`,
	)
	md, tools, err := Sidecars([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	const wantMD = "A\n" +
		"\n<!-- headergold: header 2 (change, turn 1, step 2) -->\n\nB\n" +
		"\n<!-- headergold: header 4 (change, turn 2, step 2) -->\n\nC\n"
	if string(md) != wantMD {
		t.Errorf("system sidecar\n got %q\nwant %q", md, wantMD)
	}
	const wantTools = "{\n" +
		"  \"initial\": [],\n" +
		"  \"changes\": [\n" +
		"    [\n      {\n        \"name\": \"t\"\n      }\n    ],\n" +
		"    [\n      {\n        \"name\": \"t\"\n      },\n      {\n        \"name\": \"u\"\n      }\n    ]\n" +
		"  ]\n" +
		"}\n"
	if string(tools) != wantTools {
		t.Errorf("tools sidecar\n got %q\nwant %q", tools, wantTools)
	}
}

// TestSidecarsCapturedSystemLineBreaks: a captured header's system part
// is rendered with its tokens as sent, except that a \n escape inside a
// string is written as a line break, so a prompt edit is a line diff.
func TestSidecarsCapturedSystemLineBreaks(t *testing.T) {
	t.Parallel()
	log := jsonlLines(
		`{"type":"request/header","data":{"request":1,"format":"anthropic","reason":"initial","header":{"config":{"model":"m"},"system":"one\ntwo \u00e9\\n","tools":[]}}}`,
	)
	md, tools, err := Sidecars([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	// The escaped backslash before the last n stays as sent: it is \\
	// followed by the letter n, not a \n escape.
	const wantMD = "\"one\ntwo \\u00e9\\\\n\"\n"
	if string(md) != wantMD {
		t.Errorf("system sidecar\n got %q\nwant %q", md, wantMD)
	}
	const wantTools = "{\n  \"initial\": [],\n  \"changes\": []\n}\n"
	if string(tools) != wantTools {
		t.Errorf("tools sidecar\n got %q\nwant %q", tools, wantTools)
	}
}

// jsonlLines joins event lines into a log: LF after each.
func jsonlLines(lines ...string) string {
	var s string
	for _, l := range lines {
		s += l + "\n"
	}
	return s
}

// TestSidecarMarkerInPrompt: a system prompt holding a line that reads as
// a sidecar marker (or an escaped one) is written escaped, so two header
// sequences never make one NAME.system.md, and the pricing split reads
// each prompt back as it was.
func TestSidecarMarkerInPrompt(t *testing.T) {
	header := func(n int, reason, system string) string {
		sys, _ := json.Marshal(system)
		return fmt.Sprintf(`{"type":"request/header","data":{"turn":1,"step":%d,"reason":%q,"header":{"config":{},"system":%s}}}`+"\n", n, reason, sys)
	}
	marker := markerPrefix + "2 (change, turn 1, step 2) -->"
	changed := header(1, "initial", "p") + header(2, "change", "p\n\nLater.")
	forged := header(1, "initial", "p\n\n"+marker+"\n\np\n\nLater.")
	a, _, err := Sidecars([]byte(changed))
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Sidecars([]byte(forged))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a, b) {
		t.Fatalf("one system.md for two header sequences:\n%s", a)
	}
	for _, text := range []string{"p\n\n" + marker + "\n\nq", `\` + marker, `\\` + marker + "\nx", marker} {
		md, _, err := Sidecars([]byte(header(1, "initial", "first") + header(2, "change", text)))
		if err != nil {
			t.Fatal(err)
		}
		secs := systemSections(md)
		if len(secs) != 2 || secs[0].text != "first" || secs[1].header != 2 || secs[1].text != text {
			t.Errorf("%q: sections %+v", text, secs)
		}
	}
}
