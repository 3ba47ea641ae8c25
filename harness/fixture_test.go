package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
)

// TestBadFixtures checks that each kind of invalid fixture is reported with
// its file and position, and that neither replay nor record touches a
// golden file.
func TestBadFixtures(t *testing.T) {
	for _, tc := range []struct {
		name, file, body string
		line, col        int    // 0: not checked
		want             string // in the message
	}{
		{"syntax", "broken", "{\n  \"description\": \"x\",\n  \"turns\": [\n    {\"user\": \"hi\",}\n  ]\n}\n",
			4, 19, "JSON syntax error"},
		{"unknown field", "typo", "{\n  \"description\": \"x\",\n  \"turns\": [{\"user\": \"hi\", \"replise\": []}]\n}\n",
			3, 28, `turns[0].replise: unknown field "replise"`},
		{"unknown listener op", "badop", "{\n  \"description\": \"x\",\n  \"listeners\": [{\"op\": \"shuffle\"}],\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 17, `unknown listener op "shuffle"`},
		{"bad name", "Bad_Name", minimalFixture, 0, 0, `"Bad_Name" is not a fixture name`},
		{"empty toolOrder", "empty-order", "{\n  \"description\": \"x\",\n  \"config\": {\"toolOrder\": []},\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 27, `config.toolOrder: toolOrder: no rest entry`},
		{"wrong type", "wrongtype", "{\n  \"description\": \"x\",\n  \"pin\": \"yes\",\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 10, "expected bool"},
		{"duplicate field", "dup", "{\n  \"description\": \"x\",\n  \"description\": \"y\",\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 3, `field "description" appears twice`},
		{"byte-order mark", "bom", "\ufeff" + minimalFixture, 1, 1, "starts with a UTF-8 byte-order mark"},
		{"empty turns", "noturns", "{\n  \"description\": \"x\",\n  \"turns\": []\n}\n",
			3, 12, "turns: a fixture needs at least one turn"},
		{"empty policy", "nopolicy", "{\n  \"description\": \"x\",\n  \"config\": {\"dependencyPolicy\": \"\"},\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 34, `config.dependencyPolicy: unknown policy ""`},
		{"extends missing", "orphan", "{\n  \"description\": \"x\",\n  \"extends\": \"nobody\",\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 14, "nobody.json"},
		// "" is a name that names nothing, not extends left out.
		{"extends empty", "empty-extends", "{\n  \"description\": \"x\",\n  \"extends\": \"\",\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 14, `extends: "" is not a fixture name (want ^[a-z0-9][a-z0-9-]*$, at most 200 characters; leave extends out to extend nothing)`},
		// A captured scenario has no config, sections, plugins or
		// listeners to inherit; the reverse is refused in decodeFixture.
		{"extends captured", "extends-captured", "{\n  \"description\": \"x\",\n  \"extends\": \"captured-weather\",\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n",
			3, 14, `extends: "captured-weather" is a captured scenario (with "agent"); a captured scenario cannot be extended`},
		{"toolResults null", "null-results", "{\n  \"description\": \"x\",\n  \"turns\": [{\"user\": \"hi\", \"toolResults\": null}]\n}\n",
			3, 43, "turns[0].toolResults: expected a JSON object, found JSON null (leave the member out instead)"},
		{"turn null", "null-turn", "{\n  \"description\": \"x\",\n  \"turns\": [null]\n}\n",
			3, 13, "turns[0]: expected a JSON object, found JSON null (leave the member out instead)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := copyBundled(t)
			before := checksums(t, opts.Golden)
			file := filepath.Join(opts.Fixtures, tc.file+".json")
			writeFile(t, file, tc.body)

			_, err := Load(opts)
			var fe *FixtureError
			if !errors.As(err, &fe) {
				t.Fatalf("Load error = %v, want a *FixtureError", err)
			}
			if fe.File != file || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), file) {
				t.Errorf("error = %q, want file %s and %q", err, file, tc.want)
			}
			if tc.line > 0 && (fe.Line != tc.line || fe.Column != tc.col) {
				t.Errorf("position = %d:%d, want %d:%d (%v)", fe.Line, fe.Column, tc.line, tc.col, err)
			}
			after := checksums(t, opts.Golden)
			if len(before) != len(after) {
				t.Fatalf("golden files changed: %d before, %d after", len(before), len(after))
			}
			for path, sum := range before {
				if after[path] != sum {
					t.Errorf("%s changed", path)
				}
			}
		})
	}
}

func TestExtendsInheritsAndAdds(t *testing.T) {
	f, err := loadFixture("../fixtures", "late-registration")
	if err != nil {
		t.Fatal(err)
	}
	parent, err := loadFixture("../fixtures", "text-turn")
	if err != nil {
		t.Fatal(err)
	}
	if f.Config.Persona != parent.Config.Persona || f.Config.Model != parent.Config.Model {
		t.Errorf("config not inherited: %+v", f.Config)
	}
	if len(f.Plugins) != len(parent.Plugins)+1 || f.Plugins[len(f.Plugins)-1].Name != "lsp" {
		t.Errorf("plugins = %d, want the parent's %d plus lsp", len(f.Plugins), len(parent.Plugins))
	}
	if len(f.Sections) != len(parent.Sections) || f.Pin {
		t.Errorf("sections or pin inherited wrongly: %d sections, pin %v", len(f.Sections), f.Pin)
	}
	order, err := loadFixture("../fixtures", "tool-order")
	if err != nil {
		t.Fatal(err)
	}
	if order.Config.ToolOrder == nil || order.Config.Persona != parent.Config.Persona {
		t.Errorf("tool-order: own toolOrder must win and persona be inherited: %+v", order.Config)
	}
}

func TestExtendsCycle(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), `{"description":"a","extends":"b","turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "b.json"), `{"description":"b","extends":"a","turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	_, err := loadFixture(dir, "a")
	if err == nil || !strings.Contains(err.Error(), "a -> b -> a") {
		t.Fatalf("error = %v, want the cycle spelled out", err)
	}
	// The cycle is named at the extends that closes it, with its
	// position, and so is a fixture that extends itself.
	if !strings.Contains(err.Error(), "b.json:1:30: extends: extends cycle: a -> b -> a") {
		t.Errorf("error = %v, want b.json's extends at 1:30", err)
	}
	writeFile(t, filepath.Join(dir, "self.json"), `{"description":"s","extends":"self","turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	if _, err := loadFixture(dir, "self"); err == nil || !strings.Contains(err.Error(), "self.json:1:30: extends: extends cycle: self -> self") {
		t.Errorf("self: error = %v", err)
	}
}

// A name is at most maxNameLen characters: the temp files a record
// writes beside a golden file add 34 bytes to it, and a file name has 255
// at most. A name of the limit records and replays.
func TestNameLength(t *testing.T) {
	long := strings.Repeat("a", maxNameLen)
	if !validName(long) || validName(long+"a") {
		t.Fatalf("validName at %d and %d characters", maxNameLen, maxNameLen+1)
	}
	if _, err := loadFixture(t.TempDir(), long+"a"); err == nil || !strings.Contains(err.Error(), "at most 200 characters") {
		t.Errorf("one over the limit: %v", err)
	}
	opts := layout(t, map[string]string{long: minimalFixture})
	s := mustLoad(t, opts)
	if res := s.Replay(s.Fixture(long)); !res.Passed() {
		t.Errorf("a name of %d characters: %v", maxNameLen, res.Failures)
	}
}

func TestNameRulesBeforeFiles(t *testing.T) {
	for _, name := range []string{"../escape", "Upper", "-dash", "", "a_b", "a.b"} {
		if validName(name) {
			t.Errorf("validName(%q) = true", name)
		}
		_, err := loadFixture(t.TempDir(), name)
		if err == nil || !strings.Contains(err.Error(), "is not a fixture name") {
			t.Errorf("loadFixture(%q) = %v, want a name error before any read", name, err)
		}
	}
	for _, name := range []string{"a", "text-turn", "0-9"} {
		if !validName(name) {
			t.Errorf("validName(%q) = false", name)
		}
	}
}

func TestToolResultForms(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "r.json"), `{"description":"r","turns":[{"user":"x",
	  "replies":[{"toolCalls":[{"id":"a","name":"t"},{"id":"b","name":"t"}]},{"text":"done"}],
	  "toolResults":{"a":"plain","b":{"output":"bad","error":true}}}]}`)
	f, err := loadFixture(dir, "r")
	if err != nil {
		t.Fatal(err)
	}
	got := f.Turns[0].ToolResults
	if got["a"] != (ToolResult{Output: "plain"}) || got["b"] != (ToolResult{Output: "bad", Error: true}) {
		t.Errorf("toolResults = %+v", got)
	}
	writeFile(t, filepath.Join(dir, "u.json"), `{"description":"u","turns":[{"user":"x","replies":[{"text":"ok"}],"toolResults":{"zz":"never called"}}]}`)
	if _, err := loadFixture(dir, "u"); err == nil || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("a result for an uncalled id = %v, want an error naming it", err)
	}
}

func TestMissingFixturesDir(t *testing.T) {
	_, err := Load(Options{Fixtures: filepath.Join(t.TempDir(), "nope")})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want not-exist", err)
	}
}

func TestTypeErrorsNameTheElement(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.json"), "{\n  \"description\": \"x\",\n  \"turns\": [\n    {\"user\": \"a\", \"replies\": [{\"text\": \"ok\"}]},\n    {\"user\": \"b\", \"replies\": [{\"text\": 5}]}\n  ]\n}\n")
	_, err := loadFixture(dir, "x")
	if err == nil || !strings.Contains(err.Error(), "x.json:5:40: turns[1].replies[0].text: expected string, found a JSON number") {
		t.Errorf("err = %v", err)
	}
	writeFile(t, filepath.Join(dir, "y.json"), `{"description":"y","turns":[{"user":"a","replies":[{"toolCalls":[{"id":"c1","name":"t"}]}],"toolResults":{"c1":5}}]}`)
	if _, err := loadFixture(dir, "y"); err == nil || !strings.Contains(err.Error(), `turns[0].toolResults.c1: expected a string or {"output"`) {
		t.Errorf("err = %v", err)
	}
}

func TestDuplicateEntries(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "root.json"), "{\n  \"description\": \"r\",\n  \"sections\": [{\"id\": \"a\", \"text\": \"x\"}],\n  \"plugins\": [{\"name\": \"p\", \"tools\": []}],\n  \"turns\": [{\"user\": \"x\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n")
	writeFile(t, filepath.Join(dir, "twice.json"), "{\n  \"description\": \"t\",\n  \"plugins\": [{\"name\": \"p\", \"tools\": []},\n              {\"name\": \"p\", \"tools\": []}],\n  \"turns\": [{\"user\": \"x\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n")
	writeFile(t, filepath.Join(dir, "child.json"), "{\n  \"description\": \"c\",\n  \"extends\": \"root\",\n  \"sections\": [{\"id\": \"b\", \"text\": \"y\"}, {\"id\": \"a\", \"text\": \"z\"}],\n  \"turns\": [{\"user\": \"x\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n")
	// Three entries of one id: the third names the first, where it first
	// appears.
	writeFile(t, filepath.Join(dir, "thrice.json"), "{\n  \"description\": \"t\",\n  \"sections\": [{\"id\": \"a\", \"text\": \"x\"}, {\"id\": \"b\", \"text\": \"x\"},\n               {\"id\": \"a\", \"text\": \"x\"}],\n  \"turns\": [{\"user\": \"x\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n")
	for name, want := range map[string]string{
		"twice":  `twice.json:4:24: plugins[1].name: plugin "p" is also plugins[0]`,
		"thrice": `thrice.json:4:23: sections[2].id: section "a" is also sections[0]`,
		"child":  `child.json:4:49: sections[1].id: section "a" is also defined by root`,
	} {
		_, err := loadFixture(dir, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
}

// TestConfigToolOrderStates checks that the public Config keeps absent
// (nil) and empty ([]) apart through JSON both ways: [] is refused at
// config.toolOrder, null and an omitted member are absent.
func TestConfigToolOrderStates(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "empty.json"), `{"description":"e","config":{"toolOrder":[]},"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "null.json"), `{"description":"n","config":{"toolOrder":null},"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	if _, err := loadFixture(dir, "empty"); err == nil || !strings.Contains(err.Error(), "config.toolOrder") {
		t.Errorf("toolOrder []: error = %v, want one at config.toolOrder", err)
	}
	f, err := loadFixture(dir, "null")
	if err != nil {
		t.Fatal(err)
	}
	if f.Config.ToolOrder != nil {
		t.Errorf("toolOrder null decoded as %#v, want nil (absent)", f.Config.ToolOrder)
	}
	for _, c := range []struct {
		order []string
		want  string
	}{
		{nil, `{}`},
		{[]string{}, `{"toolOrder":[]}`},
		{[]string{UnlistedTools}, `{"toolOrder":["<unlisted-tools>"]}`},
	} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(Config{ToolOrder: c.order}); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSuffix(b.String(), "\n"); got != c.want {
			t.Errorf("Config{ToolOrder: %#v} = %s, want %s", c.order, got, c.want)
		}
		if got := (Config{ToolOrder: c.order}).row().ToolOrder.Present(); got != (c.order != nil) {
			t.Errorf("Config{ToolOrder: %#v}: present = %v in the app row", c.order, got)
		}
	}
}

// TestLoadReportsEveryInvalidFixture: without Run, every invalid fixture
// is named, not only the first; with Run, files it does not select,
// badly named ones included, are not looked at.
func TestLoadReportsEveryInvalidFixture(t *testing.T) {
	opts := layout(t, map[string]string{"good": minimalFixture})
	writeFile(t, filepath.Join(opts.Fixtures, "a-broken.json"), `{"description": "d",`)
	writeFile(t, filepath.Join(opts.Fixtures, "b-typo.json"), strings.Replace(minimalFixture, `"turns"`, `"turn"`, 1))
	writeFile(t, filepath.Join(opts.Fixtures, "Bad_Name.json"), minimalFixture)
	_, err := Load(opts)
	if err == nil {
		t.Fatal("loaded")
	}
	for _, want := range []string{"a-broken.json:1:", "b-typo.json:", `unknown field "turn"`, `"Bad_Name" is not a fixture name`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	var fe *FixtureError
	if !errors.As(err, &fe) {
		t.Errorf("no *FixtureError in %T", err)
	}
	opts.Run = regexp.MustCompile("^good$")
	s := mustLoad(t, opts)
	if n := len(s.Fixtures()); n != 1 {
		t.Errorf("-run ^good$ selects %d fixtures", n)
	}
	opts.Run = regexp.MustCompile("Name")
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), `"Bad_Name" is not a fixture name`) {
		t.Errorf("a Run that selects a badly named file: %v", err)
	}
}

// TestUnplayableScripts: a turn the loop cannot play as written is an
// error at the reply (or turn) to change: no reply at all, a last reply
// that calls tools (the loop would ask again), a reply past the step
// limit. A turn of as many tool-calling replies as the step limit is a
// scenario of its own (the limit is reached) and loads.
func TestUnplayableScripts(t *testing.T) {
	calls := func(n int) string {
		rs := make([]string, n)
		for i := range rs {
			rs[i] = fmt.Sprintf(`{"toolCalls":[{"id":"c%d","name":"t"}]}`, i)
		}
		return strings.Join(rs, ",")
	}
	fixture := func(turn string) string {
		return `{"description":"d","turns":[{"user":"a","replies":[{"text":"ok"}]},` + turn + `]}`
	}
	for name, c := range map[string]struct{ turn, want string }{
		"no replies":     {`{"user":"x"}`, "turns[1]: a turn needs a reply"},
		"empty replies":  {`{"user":"x","replies":[]}`, "turns[1]: a turn needs a reply"},
		"ends on a call": {`{"user":"x","replies":[{"text":"t","toolCalls":[{"id":"c1","name":"t"}]}]}`, "turns[1].replies[0]: the turn would ask the model again after these tool calls, and no reply is left"},
		"past the limit": {`{"user":"x","replies":[` + calls(agent.DefaultMaxSteps) + `,{"text":"late"}]}`, fmt.Sprintf("turns[1].replies[%d]: this reply is never played: a turn stops at step %d", agent.DefaultMaxSteps, agent.DefaultMaxSteps)},
	} {
		if _, err := decodeFixture("x.json", []byte(fixture(c.turn))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := decodeFixture("x.json", []byte(fixture(`{"user":"x","replies":[`+calls(agent.DefaultMaxSteps)+`]}`))); err != nil {
		t.Errorf("a turn that reaches the step limit: %v", err)
	}
}
