package harness

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// opHeaders runs the fixture NAME.json, written to a temp dir with the
// given text, and returns the system text and the tool list (each tool as
// "name" or "name:description") of every header its log holds.
func opHeaders(t *testing.T, text string) (systems []string, tools [][]string) {
	t.Helper()
	run := runOps(t, text)
	for _, ln := range splitLines(run.fullLog()) {
		h := gjson.GetBytes(ln, "data.header")
		if !h.Exists() {
			continue
		}
		systems = append(systems, h.Get("system").String())
		var names []string
		for _, tl := range h.Get("tools").Array() {
			n := tl.Get("name").String()
			if d := tl.Get("description").String(); d != "" {
				n += ":" + d
			}
			names = append(names, n)
		}
		tools = append(tools, names)
	}
	return systems, tools
}

// listenerPlugins are a plugin's tools a, b, x, y and a second plugin's x:
// two tools of one name, which the header lists a, b, x:one, x:two, y.
const listenerPlugins = `"plugins": [
    {"name": "p", "tools": [{"name": "a"}, {"name": "b"}, {"name": "x", "description": "one"}, {"name": "y"}]},
    {"name": "q", "tools": [{"name": "x", "description": "two"}]}
  ]`

// TestListenerOps runs each op of the closed set on a list holding two
// tools of one name, chained in the listed order.
func TestListenerOps(t *testing.T) {
	for _, tc := range []struct {
		name, listeners string
		want            string
	}{
		{"none", ``, "a b x:one x:two y"},
		// Every tool of the name, in the order they had.
		{"moveToEnd", `{"op": "moveToEnd", "tool": "x"}`, "a b y x:one x:two"},
		// A tool that an addTool listener adds is one to move, and
		// before it is added there is nothing to move.
		{"moveToEnd before addTool", `{"op": "moveToEnd", "tool": "z"}, {"op": "addTool", "schema": {"name": "z"}, "at": 0}`, "z a b x:one x:two y"},
		// Every tool of the name.
		{"removeTool", `{"op": "removeTool", "tool": "x"}`, "a b y"},
		{"reverse", `{"op": "reverse"}`, "y x:two x:one b a"},
		// at defaults to the end; the end itself (at = the length) is a
		// position, and so is 0.
		{"addTool", `{"op": "addTool", "schema": {"name": "z"}}`, "a b x:one x:two y z"},
		{"addTool at end", `{"op": "addTool", "schema": {"name": "z"}, "at": 5}`, "a b x:one x:two y z"},
		{"addTool at 0", `{"op": "addTool", "schema": {"name": "z"}, "at": 0}`, "z a b x:one x:two y"},
		// Listeners apply in the listed order.
		{"chain", `{"op": "moveToEnd", "tool": "a"}, {"op": "reverse"}, {"op": "addTool", "schema": {"name": "z"}, "at": 1}, {"op": "removeTool", "tool": "y"}`,
			"a z x:two x:one b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, tools := opHeaders(t, `{
  "description": "listener ops",
  `+listenerPlugins+`,
  "listeners": [`+tc.listeners+`],
  "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]
}`)
			if len(tools) != 1 {
				t.Fatalf("%d headers, want 1", len(tools))
			}
			if got := strings.Join(tools[0], " "); got != tc.want {
				t.Errorf("tools %s, want %s", got, tc.want)
			}
		})
	}
}

// TestListenerToolMustExist: a removeTool or moveToEnd listener naming a
// tool that no plugin of its fixture (own or inherited) has and no addTool
// adds is an error at its tool, naming it: a misspelt name would change
// nothing. A fixture extending one with such a tool, or whose late plugin
// has it, loads.
func TestListenerToolMustExist(t *testing.T) {
	dir := t.TempDir()
	fixture := func(extends, listeners string) string {
		return `{"description": "d", ` + extends + `"listeners": [` + listeners + `], "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]}`
	}
	writeFile(t, filepath.Join(dir, "root.json"), `{"description": "r", "plugins": [{"name": "p", "tools": [{"name": "shell"}]}],
  "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "late.json"), `{"description": "l", "plugins": [{"name": "p", "registerAt": {"turn": 1, "step": 2}, "tools": [{"name": "grep"}]}],
  "listeners": [{"op": "removeTool", "tool": "grep"}],
  "turns": [{"user": "hi", "replies": [{"toolCalls": [{"id": "c1", "name": "x"}]}, {"text": "ok"}]}]}`)
	for name, c := range map[string]struct{ src, want string }{
		"move-to-end": {fixture(`"extends": "root", `, `{"op": "moveToEnd", "tool": "shel"}`), `listeners[0].tool: no plugin of move-to-end has a tool "shel", and no addTool listener adds one: this moveToEnd would change nothing`},
		"remove-tool": {fixture("", `{"op": "reverse"}, {"op": "removeTool", "tool": "grpe"}`), `listeners[1].tool: no plugin of remove-tool has a tool "grpe"`},
		"inherited":   {fixture(`"extends": "root", `, `{"op": "removeTool", "tool": "shell"}`), ""},
	} {
		writeFile(t, filepath.Join(dir, name+".json"), c.src)
		_, err := loadFixture(dir, name)
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, name+".json")+":1:") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := loadFixture(dir, "late"); err != nil {
		t.Errorf("a late plugin's tool: %v", err)
	}
}

// TestAppendSectionGoesLast: appendSection adds its section after every
// registered one, whatever its order field says.
func TestAppendSectionGoesLast(t *testing.T) {
	systems, _ := opHeaders(t, `{
  "description": "appendSection",
  "sections": [{"id": "s1", "order": 1, "text": "first"}, {"id": "s2", "order": 2, "text": "second"}],
  "listeners": [{"op": "appendSection", "section": {"id": "late", "order": 0, "text": "appended"}}],
  "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]
}`)
	if len(systems) != 1 || systems[0] != "first\n\nsecond\n\nappended" {
		t.Errorf("system texts %q, want [\"first\\n\\nsecond\\n\\nappended\"]", systems)
	}
}

// TestAddToolPastTheEnd: a position past the end fails the turn and
// names the tool and the position.
func TestAddToolPastTheEnd(t *testing.T) {
	run := runOps(t, `{
  "description": "addTool past the end",
  `+listenerPlugins+`,
  "listeners": [{"op": "addTool", "schema": {"name": "z"}, "at": 6}],
  "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]
}`)
	if !bytes.Contains(run.fullLog(), []byte(`addTool \"z\": position 6 is outside the 5 tools`)) {
		t.Errorf("log:\n%s", run.fullLog())
	}
}

// TestResumeKeepsLateRegistrations: the loop instance a resume starts
// registers the plugins and listeners registered late before it, as a
// process restarted after them would.
func TestResumeKeepsLateRegistrations(t *testing.T) {
	_, tools := opHeaders(t, `{
  "description": "late registrations survive a resume",
  "plugins": [
    {"name": "p", "tools": [{"name": "a"}, {"name": "b"}]},
    {"name": "late", "registerAt": {"turn": 1, "step": 2}, "tools": [{"name": "c"}]}
  ],
  "listeners": [{"op": "reverse", "registerAt": {"turn": 1, "step": 2}}],
  "turns": [
    {"user": "one", "replies": [{"toolCalls": [{"id": "c1", "name": "a"}]}, {"text": "ok"}], "toolResults": {"c1": "done"}},
    {"user": "two", "resume": true, "replies": [{"text": "ok"}]}
  ]
}`)
	var got []string
	for _, ts := range tools {
		got = append(got, strings.Join(ts, " "))
	}
	// The initial header, the change before step 2 and the resume's.
	if want := []string{"a b", "c b a", "c b a"}; !slices.Equal(got, want) {
		t.Errorf("header tools %q, want %q", got, want)
	}
}

// TestDepsAtAnUnreachedStep: a step the run never reached has the
// dependencies of the latest step before it.
func TestDepsAtAnUnreachedStep(t *testing.T) {
	d11, d13, d21 := assembler.Deps{"x": {"a"}}, assembler.Deps{"x": {"b"}}, assembler.Deps{"x": {"c"}}
	r := &runResult{deps: map[[2]int]assembler.Deps{{1, 1}: d11, {1, 3}: d13, {2, 1}: d21}}
	for _, tc := range []struct {
		turn, step int
		want       string
	}{
		{1, 1, "a"}, {1, 2, "a"}, {1, 3, "b"}, {1, 9, "b"}, {2, 1, "c"}, {2, 4, "c"}, {3, 1, "c"}, {1, 0, ""},
	} {
		got := ""
		if d := r.depsAt(tc.turn, tc.step); d != nil {
			got = strings.Join(d["x"], " ")
		}
		if got != tc.want {
			t.Errorf("depsAt(%d, %d) has x -> %q, want %q", tc.turn, tc.step, got, tc.want)
		}
	}
}

// runOps runs the fixture of the given text, named ops, once as listed.
func runOps(t *testing.T, text string) *runResult {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ops.json"), text)
	return runListed(t, dir, "ops")
}
