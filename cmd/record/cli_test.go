package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
)

// The command-line conventions of the go tools: a usage error is one line
// of error, the short usage and where the help is, on stderr, exit 2;
// -h and help print the full help to stdout, exit 0.

const shortUsage = "usage: record [flags]\n       record help\nRun 'record -h' for details.\n"

func TestRecordUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-nope"}, "record: flag provided but not defined: -nope\n"},
		{[]string{"-run", "("}, "record: -run: error parsing regexp: missing closing ): `(`\n"},
		{[]string{"x"}, "record: unexpected argument \"x\" (record takes flags only)\n"},
		{[]string{"-check", "x", "-prune"}, "record: unexpected argument \"x\" (record takes flags only)\n"},
		{[]string{"-check", "help"}, "record: help takes no flags: record help\n"},
		{[]string{"-o", "f", "-check"}, "record: -o writes one log and cannot be combined with -check, -prune or -json\n"},
		{[]string{"-o", "f", "-prune"}, "record: -o writes one log and cannot be combined with -check, -prune or -json\n"},
		{[]string{"-json", "-o", "f"}, "record: -o writes one log and cannot be combined with -check, -prune or -json\n"},
		{[]string{"-listen-remote"}, "record: -listen-remote needs -listen\n"},
		{[]string{"-run", "^a$", "-prune"}, "record: -prune deletes golden files that belong to no fixture, which -run cannot select: drop -run (record -prune records every fixture), or delete the file by hand\n"},
		{[]string{"help", "me"}, "record: help takes no topic; got \"me\"\n"},
		{[]string{"-shuffle", "x"}, "record: flag provided but not defined: -shuffle\n"},
		{[]string{"-seed", "x"}, "record: invalid value \"x\" for flag -seed: parse error\n"},
	} {
		code, out, errs := record(t, c.args...)
		if code != exitUsage || out != "" || errs != c.msg+shortUsage {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant exit %d, no stdout, stderr\n%s", c.args, code, out, errs, exitUsage, c.msg+shortUsage)
		}
	}
}

func TestRecordHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}, {"-check", "-h"}} {
		code, out, errs := record(t, args...)
		if code != exitOK || errs != "" {
			t.Errorf("%q: exit %d, stderr %q; want 0 and nothing on stderr", args, code, errs)
		}
		for _, want := range []string{"usage: record [flags]\n", "Examples", "Exit status: 0 done", "3 refused to write golden\nfiles because CI is set", "\nFlags:\n", "-fixtures DIR", "-golden DIR", "-check"} {
			if !strings.Contains(out, want) {
				t.Errorf("%q: help lacks %q:\n%s", args, want, out)
			}
		}
	}
}

// TestRecordCheckExitsOnWhatReplayFails: -check exits 1 for what replay
// fails on, with nothing to record: an orphan golden file, and a sidecar
// beside a fixture that is not pinned (which a record removes); 0 when
// there is none.
func TestRecordCheckExitsOnWhatReplayFails(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	if code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-check"); code != exitOK {
		t.Fatalf("the bundled suite: -check exit %d\n%s%s", code, out, errs)
	}
	for _, c := range []struct{ file, want string }{
		{"gone.golden", "orphan    " + filepath.Join(gd, "gone.golden")},
		{"resume.tools.json", "would be removed " + filepath.Join(gd, "resume.tools.json")},
	} {
		file := filepath.Join(gd, c.file)
		if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, _ := record(t, "-fixtures", fx, "-golden", gd, "-check")
		if code != exitChanges || !strings.Contains(out, c.want) {
			t.Errorf("%s: -check exit %d, want %d and %q in\n%s", c.file, code, exitChanges, c.want, out)
		}
		if !replayFails(t, fx, gd) {
			t.Errorf("%s: replay passes: -check and replay disagree", c.file)
		}
		if c.file == "resume.tools.json" {
			// A record removes it, says so, and replay then passes.
			if code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^resume$"); code != exitOK || !strings.Contains(out, "removed") || strings.Contains(out, "sidecar") {
				t.Errorf("record: exit %d\n%s%s", code, out, errs)
			}
			if _, err := os.Stat(file); !os.IsNotExist(err) || replayFails(t, fx, gd) {
				t.Errorf("after record: %v, replay fails %v", err, replayFails(t, fx, gd))
			}
		}
		os.Remove(file)
	}
}

// replayFails reports whether replay, as cmd/replay runs it, fails on the
// suite: a fixture's failure or a finding.
func replayFails(t *testing.T, fx, gd string) bool {
	t.Helper()
	s, err := harness.Load(harness.Options{Fixtures: fx, Golden: gd, Shuffle: -1})
	if err != nil {
		t.Fatal(err)
	}
	failed := len(s.Findings()) > 0
	for _, f := range s.Fixtures() {
		failed = failed || !s.Replay(f).Passed()
	}
	return failed
}

// TestRecordSeed: -seed is taken, as replay's, and a check under it
// of the bundled fixture finds nothing to change.
func TestRecordSeed(t *testing.T) {
	fixtures, golden := copyBundled(t)
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^tool-order$", "-check", "-seed", "42")
	if code != exitOK || stdout != "would be: 0 created, 0 changed, 1 unchanged\n" {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
}

// A fixture that fails its checks is reported with the command line that
// runs the same runs again: its seed, which record otherwise picks
// unseen.
func TestRecordFailureNamesItsSeed(t *testing.T) {
	t.Setenv("CI", "")
	fixtures, golden := copyBundled(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	// The demo agent lists its tools in map order: the repeat pass sees
	// another order within a few runs.
	fx := `{"description":"tools in map order","runs":12,` +
		`"agent":{"exec":["go","run","./internal/demoagent","-prompt","Weather in Oslo?","-tools-from-map"],"dir":` + strconv.Quote(root) + `,"timeout":"120s"},` +
		`"replies":[{"text":"12 °C."}]}`
	if err := os.WriteFile(filepath.Join(fixtures, "map-order.json"), []byte(fx), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, golden)
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^map-order$", "-seed", "7")
	if code != exitChanges || !strings.Contains(stderr, "[repeat]") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	want := "map-order: reproduce: record -check -fixtures " + fixtures + " -golden " + golden + " -seed 7 -run '^map-order$'"
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	sameSnapshot(t, before, snapshot(t, golden))
}

// Record makes a missing golden directory, not its missing parents: a
// mistyped path is refused.
func TestRecordRefusesAGoldenDirectoryWithoutParent(t *testing.T) {
	t.Setenv("CI", "")
	fixtures, _ := copyBundled(t)
	parent := filepath.Join(t.TempDir(), "typo")
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", filepath.Join(parent, "golden"), "-run", "^text-turn$")
	if code != exitCannotRun || !strings.Contains(stderr, "its parent directory "+parent+" does not exist") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Errorf("%s was made: %v", parent, err)
	}
	// One level is made, as before.
	code, stdout, stderr = record(t, "-fixtures", fixtures, "-golden", parent, "-run", "^text-turn$")
	if code != exitOK || !strings.Contains(stdout, "3 created") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
}

// record -json prints an object per file, one per fixture that fails its
// checks, and a summary, each on a line of its own, and nothing else.
func TestRecordJSON(t *testing.T) {
	t.Setenv("CI", "")
	fixtures, golden := copyBundled(t)
	os.Remove(filepath.Join(golden, "tool-turn.golden"))
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-json")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	statuses := map[string]string{}
	for _, l := range lines[:len(lines)-1] {
		var f struct{ File, Status string }
		if err := json.Unmarshal([]byte(l), &f); err != nil || f.File == "" {
			t.Fatalf("line %q: %v", l, err)
		}
		statuses[filepath.Base(f.File)] = f.Status
	}
	if statuses["tool-turn.golden"] != "created" || statuses["text-turn.golden"] != "unchanged" {
		t.Errorf("statuses %v", statuses)
	}
	var sum struct {
		Summary                   bool
		Created, Unchanged, Stray int
		Check                     bool
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || !sum.Summary || sum.Created != 1 || sum.Unchanged != len(statuses)-1 || sum.Check {
		t.Errorf("summary %s (%v)", lines[len(lines)-1], err)
	}
	// A fixture that fails its checks: its object names the check, the
	// seed and the command that runs the same runs again.
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	fx := `{"description":"tools in map order","runs":12,` +
		`"agent":{"exec":["go","run","./internal/demoagent","-prompt","Weather in Oslo?","-tools-from-map"],"dir":` + strconv.Quote(root) + `,"timeout":"120s"},` +
		`"replies":[{"text":"12 °C."}]}`
	os.WriteFile(filepath.Join(fixtures, "map-order.json"), []byte(fx), 0o644)
	code, stdout, _ = record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^map-order$", "-check", "-json", "-seed", "3")
	lines = strings.Split(strings.TrimSpace(stdout), "\n")
	var fr struct {
		Fixture, Status, Reproduce string
		Seed                       uint64
		Failures                   []struct{ Check, Message string }
	}
	if code != exitChanges || len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &fr) != nil || fr.Fixture != "map-order" || fr.Status != "fail" ||
		fr.Seed != 3 || !strings.Contains(fr.Reproduce, "-check") || len(fr.Failures) == 0 || fr.Failures[0].Check != "repeat" {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
	if !strings.Contains(lines[1], `"summary":true`) || !strings.Contains(lines[1], `"check":true`) || !strings.Contains(lines[1], `"failed":1`) || !strings.Contains(lines[1], `"error":`) {
		t.Errorf("summary %s", lines[1])
	}
	if !strings.Contains(lines[0], `"want":`) || !strings.Contains(lines[0], `"got":`) {
		t.Errorf("the repeat failure lacks its first difference: %s", lines[0])
	}
	// Stopped before anything to report: the summary alone says why.
	os.WriteFile(filepath.Join(fixtures, "broken.json"), []byte("{\n"), 0o644)
	code, stdout, stderr = record(t, "-fixtures", fixtures, "-golden", golden, "-json")
	if code != exitCannotRun || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, `"summary":true`) ||
		!strings.Contains(stdout, `broken.json:2:1`) || !strings.Contains(stderr, "record: cannot record:") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
}

// A reference fixture that fails in a record run with -upstream is
// reproduced without -upstream, which a selection of it alone refuses;
// the flag goes only with captured scenarios' lines.
func TestRecordReproduceLeavesUpstreamToCaptured(t *testing.T) {
	t.Setenv("CI", "")
	dir := t.TempDir()
	fixtures, golden := filepath.Join(dir, "fixtures"), filepath.Join(dir, "golden")
	os.Mkdir(fixtures, 0o755)
	for name, fx := range map[string]string{
		// The pin never reaches turn 2, where a plugin registers; the
		// child that extends it unchanged does: uniformity fails.
		"p": `{"description": "pin", "pin": true, "config": {"persona": "P.", "model": "m"},
  "plugins": [{"name": "late", "registerAt": {"turn": 2, "step": 1}, "tools": [{"name": "z"}]}],
  "turns": [{"user": "hi", "replies": [{"text": "hello"}]}]}`,
		"c":      `{"description": "child", "extends": "p", "turns": [{"user": "a", "replies": [{"text": "b"}]}, {"user": "c", "replies": [{"text": "d"}]}]}`,
		"inproc": `{"description": "an in-process agent, which record skips", "agent": {}, "replies": [{"text": "x"}]}`,
	} {
		if err := os.WriteFile(filepath.Join(fixtures, name+".json"), []byte(fx), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-seed", "7", "-upstream", "http://127.0.0.1:1")
	want := "c: reproduce: record -check -fixtures " + fixtures + " -golden " + golden + " -seed 7 -run '^c$'\n"
	if code != exitChanges || !strings.Contains(stderr, "[uniformity]") || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, stderr lacks %q:\n%s%s", code, want, stdout, stderr)
	}
}

// TestRecordJSONInvalidFixtures: fixtures that do not load stop record
// before it writes, and its -json summary lists them as replay -json's
// does, in invalidFixtures: file, line, column, path and message.
func TestRecordJSONInvalidFixtures(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	os.WriteFile(filepath.Join(fx, "broken.json"), []byte("{\n  \"description\": \"x\",\n}\n"), 0o644)
	os.WriteFile(filepath.Join(fx, "broken-too.json"), []byte(`{"description":"x","oops":1}`), 0o644)
	before := snapshot(t, gd)
	code, stdout, _ := record(t, "-fixtures", fx, "-golden", gd, "-json")
	sameSnapshot(t, before, snapshot(t, gd))
	var sum struct {
		Summary  bool
		Error    string
		Fixtures []struct {
			File, Path, Message string
			Line, Column        int
		} `json:"invalidFixtures"`
	}
	if code != exitCannotRun || strings.Count(stdout, "\n") != 1 || json.Unmarshal([]byte(stdout), &sum) != nil || !sum.Summary ||
		!strings.Contains(sum.Error, "broken.json:3:1") || len(sum.Fixtures) != 2 {
		t.Fatalf("exit %d\n%s", code, stdout)
	}
	found := map[string]int{}
	for i, f := range sum.Fixtures {
		found[filepath.Base(f.File)] = i
	}
	b, ok := found["broken.json"]
	if f := sum.Fixtures[b]; !ok || f.File != filepath.Join(fx, "broken.json") || f.Line != 3 || f.Column != 1 || f.Message == "" {
		t.Errorf("broken.json: %+v", f)
	}
	o, ok := found["broken-too.json"]
	if f := sum.Fixtures[o]; !ok || f.Path != "oops" || !strings.Contains(f.Message, `"oops"`) {
		t.Errorf("broken-too.json: %+v", f)
	}
}
