package harness

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// loadSuite writes the fixtures into a fresh directory and loads them.
func loadSuite(t *testing.T, fixtures map[string]string) (string, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range fixtures {
		writeFile(t, filepath.Join(dir, name+".json"), body)
	}
	_, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: -1})
	return dir, err
}

// wantFixtureError checks that err is a *FixtureError for file at the
// n-th occurrence of mark, with path and every fragment.
func wantFixtureError(t *testing.T, err error, file, src, mark string, n int, path string, fragments ...string) {
	t.Helper()
	var fe *FixtureError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a *FixtureError", err)
	}
	line, col := position(t, src, mark, n)
	if fe.File != file || fe.Line != line || fe.Column != col || fe.Path != path {
		t.Errorf("got  %v\nwant %s:%d:%d: %s: ...", err, file, line, col, path)
	}
	for _, frag := range fragments {
		if !strings.Contains(fe.Msg, frag) {
			t.Errorf("message %q lacks %q", fe.Msg, frag)
		}
	}
}

// TestRegisterAtNeverReached: a plugin or listener delayed to a step no
// fixture having it runs is an error at its registerAt, saying why.
func TestRegisterAtNeverReached(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		path      string
		why       string
	}{
		{"turn beyond the script", `{"description": "d",
  "plugins": [{"name": "p", "tools": [{"name": "a"}]},
              {"name": "late", "registerAt": {"turn": 2, "step": 1}, "tools": [{"name": "z"}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, "plugins[1].registerAt", "x has 1 turn(s)"},
		{"step after a text reply", `{"description": "d",
  "plugins": [{"name": "late", "registerAt": {"turn": 1, "step": 2}, "tools": [{"name": "z"}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`, "plugins[0].registerAt", "reply 1 of turn 1 of x has no tool calls, so the turn ends at step 1"},
		{"step past the text reply", `{"description": "d",
  "listeners": [{"op": "reverse", "registerAt": {"turn": 1, "step": 3}}],
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "a"}]}, {"text": "ok"}]}]}`, "listeners[0].registerAt", "reply 2 of turn 1 of x has no tool calls, so the turn ends at step 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := loadSuite(t, map[string]string{"x": tc.src})
			wantFixtureError(t, err, filepath.Join(dir, "x.json"), tc.src, `{"turn"`, 1, tc.path, "which no fixture that has it runs", tc.why)
		})
	}
}

// TestRegisterAtReachedByAnExtension: a fixture that others extend may
// delay a plugin beyond its own turns when one of them reaches it; when
// none does, the error is at the base's registerAt and names each one.
func TestRegisterAtReachedByAnExtension(t *testing.T) {
	base := `{"description": "base",
  "plugins": [{"name": "late", "registerAt": {"turn": 2, "step": 1}, "tools": [{"name": "z"}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`
	short := `{"description": "short", "extends": "base", "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`
	long := `{"description": "long", "extends": "base", "turns": [{"user": "a", "replies": [{"text": "b"}]}, {"user": "c", "replies": [{"text": "d"}]}]}`
	if _, err := loadSuite(t, map[string]string{"base": base, "short": short, "long": long}); err != nil {
		t.Fatalf("a base reached by an extension: %v", err)
	}
	dir, err := loadSuite(t, map[string]string{"base": base, "short": short})
	wantFixtureError(t, err, filepath.Join(dir, "base.json"), base, `{"turn"`, 1, "plugins[0].registerAt",
		`plugin "late" registers at turn 2 step 1`, "base has 1 turn(s)", "short has 1 turn(s)")
}

// TestRegisterAtUnderRun: with Run, a late registration of a selected
// fixture is judged among it and the fixtures that extend it, so that
// record -run does not write a golden log for a fixture replay calls
// invalid; an unrelated broken fixture does not stop the check, and a
// broken extension leaves it undecided.
func TestRegisterAtUnderRun(t *testing.T) {
	base := `{"description": "base",
  "plugins": [{"name": "late", "registerAt": {"turn": 2, "step": 1}, "tools": [{"name": "z"}]}],
  "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`
	long := `{"description": "long", "extends": "base", "turns": [{"user": "a", "replies": [{"text": "b"}]}, {"user": "c", "replies": [{"text": "d"}]}]}`
	other := `{"description": "other", "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`
	load := func(fixtures map[string]string, run string) (string, error) {
		dir := t.TempDir()
		for name, body := range fixtures {
			writeFile(t, filepath.Join(dir, name+".json"), body)
		}
		_, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: -1, Run: regexp.MustCompile(run)})
		return dir, err
	}
	dir, err := load(map[string]string{"base": base, "other": other, "broken": "{ not JSON"}, "^base$")
	wantFixtureError(t, err, filepath.Join(dir, "base.json"), base, `{"turn"`, 1, "plugins[0].registerAt", "which no fixture that has it runs")
	// Nor does a file that cannot be read (a dangling link) stop it.
	dir = t.TempDir()
	writeFile(t, filepath.Join(dir, "base.json"), base)
	os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "zz.json"))
	_, err = Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: -1, Run: regexp.MustCompile("^base$")})
	wantFixtureError(t, err, filepath.Join(dir, "base.json"), base, `{"turn"`, 1, "plugins[0].registerAt", "which no fixture that has it runs")
	if _, err := load(map[string]string{"base": base, "long": long}, "^base$"); err != nil {
		t.Errorf("reached by an extension Run does not select: %v", err)
	}
	if _, err := load(map[string]string{"base": base, "long": strings.Replace(long, `"turns"`, `"oops": 1, "turns"`, 1)}, "^base$"); err != nil {
		t.Errorf("a broken extension decides nothing: %v", err)
	}
	if _, err := load(map[string]string{"base": base, "other": other}, "^other$"); err != nil {
		t.Errorf("a fixture Run does not select is not judged: %v", err)
	}
}

// TestScriptedCallsAndResults: call ids are unique within a turn, a reply
// after one without tool calls is never played, and a result must answer
// a call of its turn; each is reported where it is written.
func TestScriptedCallsAndResults(t *testing.T) {
	for _, tc := range []struct {
		name, src, mark string
		n               int
		path, msg       string
	}{
		{"duplicate id in one reply", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "a"}, {"id": "c1", "name": "b"}]}, {"text": "ok"}],
    "toolResults": {"c1": "x"}}]}`, `"c1"`, 2, "turns[0].replies[0].toolCalls[1].id",
			`call id "c1" is also turns[0].replies[0].toolCalls[0]`},
		{"duplicate id across replies", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "a"}]}, {"toolCalls": [{"id": "c1", "name": "b"}]}, {"text": "ok"}],
    "toolResults": {"c1": "x"}}]}`, `"c1"`, 2, "turns[0].replies[1].toolCalls[0].id",
			`call id "c1" is also turns[0].replies[0].toolCalls[0]`},
		{"reply never played", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"text": "done"}, {"toolCalls": [{"id": "c1", "name": "a"}]}], "toolResults": {"c1": "x"}}]}`,
			`{"toolCalls"`, 1, "turns[0].replies[1]", "never played: replies[0] has no tool calls"},
		{"result without a call", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "a"}]}, {"text": "ok"}],
    "toolResults": {"c1": "x", "c9": "y"}}]}`, `"c9"`, 1, "turns[0].toolResults.c9", `result for "c9", a call that no reply of this turn makes`},
		{"result for another turn's call", `{"description": "d",
  "turns": [{"user": "u", "replies": [{"toolCalls": [{"id": "c1", "name": "a"}]}, {"text": "ok"}], "toolResults": {"c1": "x"}},
            {"user": "v", "replies": [{"text": "ok"}], "toolResults": {"c1": "again"}}]}`, `"c1": "again"`, 1, "turns[1].toolResults.c1", `result for "c1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "x.json")
			writeFile(t, file, tc.src)
			_, err := loadFixture(dir, "x")
			wantFixtureError(t, err, file, tc.src, tc.mark, tc.n, tc.path, tc.msg)
		})
	}
}

// TestBundledFixturesPassTheNewRules: the stricter validation accepts
// every fixture this repository ships.
func TestBundledFixturesPassTheNewRules(t *testing.T) {
	for _, dir := range []string{"../fixtures", "../examples/fixtures", "../examples/ts/fixtures"} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		if _, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "..", "golden")}); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}

// A directory named as a fixture is reported as one that cannot be read,
// as a link to a directory is, unless Run passes it over.
func TestDirectoryNamedAsAFixture(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok.json"), `{"description": "d", "turns": [{"user": "u", "replies": [{"text": "a"}]}]}`)
	if err := os.Mkdir(filepath.Join(dir, "oops.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: -1})
	var fe *FixtureError
	if !errors.As(err, &fe) || fe.File != filepath.Join(dir, "oops.json") || !strings.Contains(fe.Msg, "a directory") {
		t.Errorf("err = %v", err)
	}
	if _, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: -1, Run: regexp.MustCompile("^ok$")}); err != nil {
		t.Errorf("-run passing it over: %v", err)
	}
}

// A fixture this suite did not load is refused, not run: its extends is
// not resolved and its name not checked, so a name like "../escape"
// would read a golden file outside the golden directory.
func TestForeignFixtureRefused(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	s := mustLoad(t, opts)
	own := s.Fixture("late-registration")
	for _, f := range []*Fixture{{Name: "../escape"}, {Name: own.Name, Extends: own.Extends, File: own.File}} {
		res := s.Replay(f)
		if len(res.Failures) != 1 || res.Failures[0].Check != CheckInvalid || !strings.Contains(res.Failures[0].Msg, "not one this suite loaded") {
			t.Errorf("%q: %v", f.Name, res.Failures)
		}
		if fails := s.CompareGolden(f, &Outputs{}); len(fails) != 1 || fails[0].Check != CheckInvalid {
			t.Errorf("CompareGolden %q: %v", f.Name, fails)
		}
	}
	if res := s.Replay(own); !res.Passed() {
		t.Errorf("the suite's own fixture: %v", res.Failures)
	}
}

// CompareGolden on what Check returns for a run that failed (no outputs),
// or on a nil fixture, is a failure of check invalid, not a panic.
func TestCompareGoldenWithoutOutputs(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	inproc := `{"description": "an in-process agent, and no Options.Agent", "agent": {"env": {}}, "replies": [{"text": "a"}]}`
	if err := os.WriteFile(filepath.Join(opts.Fixtures, "inproc.json"), []byte(inproc), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, opts)
	f := s.Fixture("inproc")
	out, res := s.Check(f)
	if out != nil || res.Passed() {
		t.Fatalf("Check of a run that cannot start: outputs %v, %v", out, res.Failures)
	}
	fails := s.CompareGolden(f, out)
	if len(fails) != 1 || fails[0].Check != CheckInvalid || !strings.Contains(fails[0].Msg, "no outputs of inproc") {
		t.Errorf("CompareGolden of no outputs: %v", fails)
	}
	if fails := s.CompareGolden(nil, nil); len(fails) != 1 || fails[0].Check != CheckInvalid {
		t.Errorf("CompareGolden of a nil fixture: %v", fails)
	}
}
