package harness

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

// fixtureErr decodes src as fixture x.json and returns its *FixtureError,
// failing when it is accepted.
func fixtureErr(t *testing.T, src string) *FixtureError {
	t.Helper()
	_, err := decodeFixture("x.json", []byte(src))
	var fe *FixtureError
	if !errors.As(err, &fe) {
		t.Fatalf("accepted, or not a *FixtureError (%v):\n%s", err, src)
	}
	return fe
}

// position returns the 1-based line and column of the n-th (from 1)
// occurrence of mark in src.
func position(t *testing.T, src, mark string, n int) (int, int) {
	t.Helper()
	off := -1
	for range n {
		i := strings.Index(src[off+1:], mark)
		if i < 0 {
			t.Fatalf("mark %q occurs fewer than %d times", mark, n)
		}
		off += 1 + i
	}
	line := 1 + strings.Count(src[:off], "\n")
	col := 1 + len([]rune(src[strings.LastIndexByte(src[:off], '\n')+1:off]))
	return line, col
}

// TestDuplicateKeysEverywhere: a key given twice is an error in every
// object of a fixture, tool parameters and call arguments included, at
// the second key, with its JSON path.
func TestDuplicateKeysEverywhere(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		mark       string // the second key
		occurrence int
		path       string
	}{
		{"tool parameters", `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "t",
    "parameters": {"type": "object", "type": "string"}}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `"type"`, 2, "plugins[0].tools[0].parameters.type"},
		{"nested in parameters", `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"},
                   "path": {"type": "integer"}}}}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `"path"`, 2, "plugins[0].tools[0].parameters.properties.path"},
		{"call arguments", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "t",
    "arguments": {"path": "a", "path": "b"}}]}, {"text": "ok"}], "toolResults": {"c1": "x"}}]}`,
			`"path"`, 2, "turns[0].replies[0].toolCalls[0].arguments.path"},
		{"captured arguments", `{"description": "d", "agent": {},
  "replies": [{"toolCalls": [{"id": "c1", "name": "get_weather", "arguments": {"city": "Oslo", "city": "Bergen"}}]}]}`,
			`"city"`, 2, "replies[0].toolCalls[0].arguments.city"},
		{"addTool schema", `{"description": "d",
  "listeners": [{"op": "addTool", "schema": {"name": "t", "parameters": {"a": [{"b": 1, "b": 2}]}}}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `"b"`, 2, "listeners[0].schema.parameters.a[0].b"},
		{"escaped spelling", `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": {"type": "object", "t\u0079pe": "string"}}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `"t\u0079pe"`, 1, "plugins[0].tools[0].parameters.type"},
		{"wide object", `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": {` + wideKeys(40) + `, "k7": 0}}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `"k7"`, 2, "plugins[0].tools[0].parameters.k7"},
		{"odd key in the path", `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": {"a.b": {"x": 1, "x": 2}}}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `"x"`, 2, `plugins[0].tools[0].parameters["a.b"].x`},
		{"agent env", `{"description": "d", "agent": {"env": {"A": "1", "A": "2"}}, "replies": [{"text": "a"}]}`,
			`"A"`, 2, "agent.env.A"},
		{"toolResults", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "t"}]}, {"text": "ok"}],
    "toolResults": {"c1": "x", "c1": "y"}}]}`, `"c1"`, 3, "turns[0].toolResults.c1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fixtureErr(t, tc.src)
			line, col := position(t, tc.src, tc.mark, tc.occurrence)
			if fe.Line != line || fe.Column != col || fe.Path != tc.path || !strings.Contains(fe.Msg, "appears twice") {
				t.Errorf("got %v\nwant x.json:%d:%d: %s: ... appears twice", fe, line, col, tc.path)
			}
		})
	}
}

func wideKeys(n int) string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf(`"k%d": %d`, i, i)
	}
	return strings.Join(keys, ", ")
}

// TestDistinctKeysAccepted: keys that only look alike are different keys,
// as JSON.parse reads them.
func TestDistinctKeysAccepted(t *testing.T) {
	src := `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": {"\ud800": 1, "\ufffd": 2, "\ud800\udc00": 3, "𐀀x": 4, "A": 5, "a": 6, ` + wideKeys(30) + `}}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`
	if _, err := decodeFixture("x.json", []byte(src)); err != nil {
		t.Fatal(err)
	}
}

// TestTypeErrorsAtTheValue: a value of the wrong type is reported at the
// value, with its path, wherever it is: inside toolOrder and toolResults
// (read by custom decoders), durations, env and exec included.
func TestTypeErrorsAtTheValue(t *testing.T) {
	for _, tc := range []struct {
		name, src, mark string
		path, msg       string
	}{
		{"toolOrder element", `{"description": "d",
  "config": {"toolOrder": ["<unlisted-tools>", 5]},
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, `5]`, "config.toolOrder[1]", "expected string, found a JSON number"},
		{"toolOrder itself", `{"description": "d", "config": {"toolOrder": "read_file"}, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`"read_file"`, "config.toolOrder", "expected a JSON array, found a JSON string"},
		{"toolResults error flag", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "t"}]}, {"text": "ok"}],
    "toolResults": {"c1": {"output": "x", "error": "no"}}}]}`, `"no"`, "turns[0].toolResults.c1.error", "expected bool, found a JSON string"},
		{"toolResults output", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "t"}]}, {"text": "ok"}],
    "toolResults": {"c1": {"output": 42}}}]}`, `42`, "turns[0].toolResults.c1.output", "expected string, found a JSON number"},
		{"toolResults unknown member", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "t"}]}, {"text": "ok"}],
    "toolResults": {"c1": {"Output": "x"}}}]}`, `"Output"`, "turns[0].toolResults.c1.Output", `unknown field "Output"`},
		{"timeout type", `{"description": "d", "agent": {"timeout": 60}, "replies": [{"text": "a"}]}`,
			`60`, "agent.timeout", "expected string, found a JSON number"},
		{"timeout value", `{"description": "d",
  "agent": {"timeout": "soon"}, "replies": [{"text": "a"}]}`, `"soon"`, "agent.timeout", `duration "soon"`},
		{"env value", `{"description": "d", "agent": {"env": {"A": 1}}, "replies": [{"text": "a"}]}`,
			`1}`, "agent.env.A", "expected string, found a JSON number"},
		{"exec element", `{"description": "d", "agent": {"exec": ["node", true]}, "replies": [{"text": "a"}]}`,
			`true`, "agent.exec[1]", "expected string, found a JSON bool"},
		{"section order", `{"description": "d", "sections": [{"id": "s", "order": 1.5, "text": "x"}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`1.5`, "sections[0].order", "expected int, found a JSON number 1.5"},
		{"registerAt", `{"description": "d", "plugins": [{"name": "p", "registerAt": {"turn": "1", "step": 1}, "tools": []}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`"1"`, "plugins[0].registerAt.turn", "expected int, found a JSON string"},
		{"null scalar", `{"description": "d", "pin": null, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`null`, "pin", "expected bool, found JSON null"},
		{"dependsOn", `{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "dependsOn": "u"}]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`"u"}`, "plugins[0].tools[0].dependsOn", "expected a JSON array, found a JSON string"},
		{"parameters a string", `{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": "object"}]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`"object"`, "plugins[0].tools[0].parameters", "parameters must be a JSON object"},
		{"parameters an array", `{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": [{"type": "object"}]}]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`[{"type"`, "plugins[0].tools[0].parameters", "parameters must be a JSON object"},
		{"parameters null", `{"description": "d", "listeners": [{"op": "addTool", "schema": {"name": "t", "parameters": null}}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			`null`, "listeners[0].schema.parameters", "parameters must be a JSON object"},
		{"reference arguments", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "t", "arguments": "{}"}]}, {"text": "ok"}], "toolResults": {"c1": "x"}}]}`,
			`"{}"`, "turns[0].replies[0].toolCalls[0].arguments", "arguments must be a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fixtureErr(t, tc.src)
			line, col := position(t, tc.src, tc.mark, 1)
			if fe.Line != line || fe.Column != col || fe.Path != tc.path || !strings.Contains(fe.Msg, tc.msg) {
				t.Errorf("got  %v\nwant x.json:%d:%d: %s: %s", fe, line, col, tc.path, tc.msg)
			}
		})
	}
}

// TestNullIsNotAbsent: null is an error in every member but
// config.toolOrder (SPEC §1 makes its null absent), containers and array
// elements included, in the words, at the position and with the path of
// a scalar's null. mark is the n-th "null" of src.
func TestNullIsNotAbsent(t *testing.T) {
	const (
		object  = "expected a JSON object, found JSON null (leave the member out instead)"
		array   = "expected a JSON array, found JSON null (leave the member out instead)"
		result  = `expected a string or {"output": …, "error": …}, found JSON null (leave the member out instead)`
		call    = `"replies": [{"toolCalls": [{"id": "c1", "name": "t"}]}, {"text": "ok"}]`
		plugin  = `{"name": "p", "tools": [{"name": "t"}]}`
		captive = `{"description": "d", "agent": {}, `
	)
	for _, tc := range []struct {
		name, src string
		n         int // which null
		path, msg string
	}{
		{"scalar", `{"description": "d", "pin": null, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "pin", "expected bool, found JSON null (leave the member out instead)"},
		{"config", `{"description": "d",
  "config": null,
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "config", object},
		{"sections", `{"description": "d", "sections": null, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "sections", array},
		{"sections element", `{"description": "d", "sections": [null], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "sections[0]", object},
		{"plugins", `{"description": "d", "plugins": null, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "plugins", array},
		{"plugins element", `{"description": "d", "plugins": [` + plugin + `, null], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "plugins[1]", object},
		{"plugin tools", `{"description": "d", "plugins": [{"name": "p", "tools": null}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "plugins[0].tools", array},
		{"plugin tools element", `{"description": "d", "plugins": [{"name": "p", "tools": [null]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "plugins[0].tools[0]", object},
		{"plugin registerAt", `{"description": "d",
  "plugins": [{"name": "p", "registerAt": null, "tools": []}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "plugins[0].registerAt", object},
		{"dependsOn", `{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "dependsOn": null}]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "plugins[0].tools[0].dependsOn", array},
		{"dependsOn element", `{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "dependsOn": [null]}]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "plugins[0].tools[0].dependsOn[0]", "expected string, found JSON null (leave the member out instead)"},
		{"listeners", `{"description": "d", "listeners": null, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "listeners", array},
		{"listeners element", `{"description": "d", "listeners": [null], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, 1, "listeners[0]", object},
		{"listener registerAt", `{"description": "d", "listeners": [{"op": "reverse", "registerAt": null}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "listeners[0].registerAt", object},
		{"listener schema", `{"description": "d", "listeners": [{"op": "addTool", "schema": null}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "listeners[0].schema", object},
		{"listener section", `{"description": "d", "listeners": [{"op": "appendSection", "section": null}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`,
			1, "listeners[0].section", object},
		{"turns", `{"description": "d", "turns": null}`, 1, "turns", array},
		{"turns element", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"text": "ok"}]},
            null]}`, 1, "turns[1]", object},
		{"replies", `{"description": "d", "turns": [{"user": "u", "replies": null}]}`, 1, "turns[0].replies", array},
		{"replies element", `{"description": "d", "turns": [{"user": "u", "replies": [null]}]}`, 1, "turns[0].replies[0]", object},
		{"toolCalls", `{"description": "d", "turns": [{"user": "u", "replies": [{"text": "a", "toolCalls": null}]}]}`,
			1, "turns[0].replies[0].toolCalls", array},
		{"toolCalls element", `{"description": "d", "turns": [{"user": "u", "replies": [{"toolCalls": [null]}]}]}`,
			1, "turns[0].replies[0].toolCalls[0]", object},
		// Before, a null toolResults was read as an object with one
		// result of key "".
		{"toolResults", `{"description": "d",
  "turns": [{"user": "u", ` + call + `,
    "toolResults": null}]}`, 1, "turns[0].toolResults", object},
		{"toolResults without calls", `{"description": "d", "turns": [{"user": "u", "toolResults": null}]}`,
			1, "turns[0].toolResults", object},
		{"toolResults entry", `{"description": "d",
  "turns": [{"user": "u", ` + call + `,
    "toolResults": {"c1": null}}]}`, 1, "turns[0].toolResults.c1", result},
		{"toolResults output", `{"description": "d", "turns": [{"user": "u", ` + call + `, "toolResults": {"c1": {"output": null}}}]}`,
			1, "turns[0].toolResults.c1.output", "expected string, found JSON null (leave the member out instead)"},
		{"agent", `{"description": "d", "agent": null, "replies": [{"text": "a"}]}`, 1, "agent", object},
		{"agent exec", `{"description": "d", "agent": {"exec": null}, "replies": [{"text": "a"}]}`, 1, "agent.exec", array},
		{"agent env", `{"description": "d", "agent": {"env": null}, "replies": [{"text": "a"}]}`, 1, "agent.env", object},
		{"redact", captive + `"redact": null, "replies": [{"text": "a"}]}`, 1, "redact", array},
		{"redact element", captive + `"redact": [null], "replies": [{"text": "a"}]}`, 1, "redact[0]", object},
		{"captured replies", captive + `"replies": null}`, 1, "replies", array},
		{"captured replies element", captive + `"replies": [{"text": "a"}, null]}`, 1, "replies[1]", object},
		{"captured toolCalls", captive + `"replies": [{"text": "a", "toolCalls": null}]}`, 1, "replies[0].toolCalls", array},
		{"recorded", captive + `"replies": [{"text": "a", "recorded": null}]}`, 1, "replies[0].recorded", object},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fe := fixtureErr(t, tc.src)
			line, col := position(t, tc.src, "null", tc.n)
			want := fmt.Sprintf("x.json:%d:%d: %s: %s", line, col, tc.path, tc.msg)
			if got := fe.Error(); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestNullToolOrderIsAbsent: config.toolOrder is the one member whose
// null is read as absent (SPEC §1); it still counts as set, so it wins
// over an inherited toolOrder.
func TestNullToolOrderIsAbsent(t *testing.T) {
	f, err := decodeFixture("x.json", []byte(`{"description": "d", "config": {"toolOrder": null}, "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Config.ToolOrder != nil || f.configKeys["toolOrder"] != 1 {
		t.Errorf("toolOrder = %#v (keys %v), want nil and set", f.Config.ToolOrder, f.configKeys)
	}
}

// TestSyntaxBeforeShape: a file that is not JSON is reported as such even
// when an unknown member comes first, and the nesting limit holds.
func TestSyntaxBeforeShape(t *testing.T) {
	fe := fixtureErr(t, `{"descripton": "d", "turns": [}`)
	if !strings.HasPrefix(fe.Msg, "JSON syntax error") || fe.Line != 1 || fe.Column != 31 {
		t.Errorf("got %v, want the syntax error at 1:31", fe)
	}
	deep := `{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": {"a": ` +
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}]}], "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`
	if fe := fixtureErr(t, deep); !strings.Contains(fe.Msg, "nesting deeper than 10000") {
		t.Errorf("got %v", fe)
	}
	for _, bad := range []string{"{\"description\": \"\xff\"}", `{"description": "a` + "\x01" + `"}`, `{"description": "\x"}`, `{"a": 01}`, `{"a": -}`, `{"a": 1.}`, `{"a": tru}`, `{"a" 1}`, `[1,]`, `{} {}`} {
		if fe := fixtureErr(t, bad); !strings.HasPrefix(fe.Msg, "JSON syntax error") {
			t.Errorf("%q: got %v, want a syntax error", bad, fe)
		}
	}
}

// FuzzCheckFixture: the walker and canon's parser agree on what is JSON,
// and the walker never panics.
func FuzzCheckFixture(f *testing.F) {
	for _, s := range []string{minimalFixture, `{"a":"\ud800"}`, `[1,2,{"b":[]}]`, `"x"`, `-0.5e+3`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := checkFixture(b, anything)
		_, cerr := canon.Compact(nil, b)
		if (err != nil && err.syntax) != (cerr != nil) {
			t.Fatalf("walker syntax error %v, canon %v on %q", err, cerr, b)
		}
	})
}
