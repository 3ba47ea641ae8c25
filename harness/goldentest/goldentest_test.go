package goldentest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
)

func TestSplitPattern(t *testing.T) {
	for p, want := range map[string][][]string{
		"TestGolden":                      {{"TestGolden"}},
		"TestGolden/^text-turn$":          {{"TestGolden", "^text-turn$"}},
		"TestGolden/[a/b]/(x/y)":          {{"TestGolden", "[a/b]", "(x/y)"}},
		`TestGolden/a\/b`:                 {{"TestGolden", `a\/b`}},
		"TestGolden//":                    {{"TestGolden", "", ""}},
		"TestNothing/qqq|TestGolden$":     {{"TestNothing", "qqq"}, {"TestGolden$"}},
		"TestGolden/(a|b)|TestX/[|]":      {{"TestGolden", "(a|b)"}, {"TestX", "[|]"}},
		"TestGolden/^a$|TestGolden/^b$/c": {{"TestGolden", "^a$"}, {"TestGolden", "^b$", "c"}},
	} {
		if got := splitPattern(p); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("splitPattern(%q) = %q, want %q", p, got, want)
		}
	}
}

// testFlag returns a setter of go test's flag -NAME, whose value the
// test's cleanup puts back.
func testFlag(t *testing.T, name string) func(string) {
	fl := flag.Lookup("test." + name)
	old := fl.Value.String()
	t.Cleanup(func() { fl.Value.Set(old) })
	return func(v string) { fl.Value.Set(v) }
}

// subtestFilter reads the alternatives of -run that apply to the test.
func TestSubtestFilter(t *testing.T) {
	set := testFlag(t, "run")
	name := t.Name()
	for pattern, want := range map[string]string{
		name:                                  "<all>",
		name + "/^a$":                         "^a$",
		"TestNothing/qqq|" + name + "$":       "<all>",
		"TestNothing/qqq|" + name + "/b":      "b",
		name + "/^a$|" + name + "/^b$":        "(?:^a$)|(?:^b$)",
		name + "/(x|y)":                       "(x|y)",
		"TestNothing/qqq|TestOther/z|" + name: "<all>",
	} {
		set(pattern)
		re, err := subtestFilter(t)
		got := "<all>"
		if re != nil {
			got = re.String()
		}
		if err != nil || got != want {
			t.Errorf("-run %q: %s, %v; want %s", pattern, got, err, want)
		}
	}
}

// subtestSkip reads -skip as go test applies it to subtests a and b: the
// first alternative that matches decides, and one naming a deeper subtest
// skips none.
func TestSubtestSkip(t *testing.T) {
	set := testFlag(t, "skip")
	name := t.Name()
	for pattern, want := range map[string]string{
		"":                                "<none>",
		name + "/^a$":                     "a",
		name + "/a/x":                     "",
		name + "/":                        "a b",
		"TestOther/a|" + name + "/^b$":    "b",
		name + "/^a$|" + name + "/^b$/c":  "a",
		name + "/^a$/x|" + name + "/^a$":  "",
		name + "/^a$|" + name:             "a b",
		name + "/^a$/x|" + name:           "b",
		name + "/^a$|" + name + "/(b|c)$": "a b",
	} {
		set(pattern)
		sf, err := subtestSkip(t)
		if err != nil {
			t.Fatalf("-skip %q: %v", pattern, err)
		}
		got := "<none>"
		if sf != nil {
			var skipped []string
			for _, sub := range []string{"a", "b"} {
				if sf.skips(sub) {
					skipped = append(skipped, sub)
				}
			}
			got = strings.Join(skipped, " ")
		}
		if got != want {
			t.Errorf("-skip %q skips %q, want %q", pattern, got, want)
		}
	}
}

// With GOLDIE_UPDATE, go test -run 'TestX/^a$' records fixture a only.
func TestRecordingFollowsGoTestRun(t *testing.T) {
	dir := t.TempDir()
	opts := harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
	os.MkdirAll(opts.Fixtures, 0o755)
	recordAOfAB(t, opts, t.Name()+"/^a$", "", "-run")
}

// With GOLDIE_UPDATE, go test's -run narrows Options.Run, and -skip
// leaves out what it names, as they do in a replay: a record writes only
// what a replay with the same flags runs.
func TestRecordingFollowsGoTestRunAndSkip(t *testing.T) {
	for name, c := range map[string]struct {
		optsRun   string
		run, skip string
	}{
		"Options.Run and -run": {`^(a|b)$`, "/^a$", ""},
		"-skip":                {"", "", "/^(b|broken)$"},
		"-run and -skip":       {"", "/^(a|b)$", "/b"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			opts := harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
			if c.optsRun != "" {
				opts.Run = regexp.MustCompile(c.optsRun)
			}
			os.MkdirAll(opts.Fixtures, 0o755)
			// A broken fixture the flags leave out fails nothing.
			writeFile(t, filepath.Join(opts.Fixtures, "broken.json"), `{"description": "cut short`)
			run := t.Name() + c.run
			skip := ""
			if c.skip != "" {
				skip = t.Name() + c.skip
			}
			recordAOfAB(t, opts, run, skip, name)
		})
	}
}

// recordAOfAB records, with go test's -run set to run and -skip to skip, a suite of the
// fixtures a and b, and checks that only a was recorded (what selects it
// said in the message).
func recordAOfAB(t *testing.T, opts harness.Options, run, skip, selector string) {
	t.Helper()
	for _, name := range []string{"a", "b"} {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), minimalFixture)
	}
	testFlag(t, "run")(run)
	testFlag(t, "skip")(skip)
	t.Setenv("GOLDIE_UPDATE", "1")
	t.Setenv("CI", "")
	Test(t, opts)
	if _, err := os.Stat(filepath.Join(opts.Golden, "a.golden")); err != nil {
		t.Errorf("a was not recorded: %v", err)
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "b.golden")); err == nil {
		t.Errorf("b was recorded although %s selects a only", selector)
	}
}

// TestRunMatchingNothingFails: recording, a -run pattern that selects no
// fixture fails the test, as record exits 2 (a record that writes nothing
// is not a pass); replaying, it is said and fails nothing, as go test does
// for any subtest pattern that selects none (go test ./... -run
// 'TestGolden/^NAME$' reaches packages without NAME). Test runs in a
// child process.
func TestRunMatchingNothingFails(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_NOMATCH_DIR"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		return
	}
	opts := layout(t, "one")
	child := func(pattern, update string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", pattern, "-test.v")
		cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_NOMATCH_DIR="+filepath.Dir(opts.Fixtures), "GOLDIE_UPDATE="+update, "CI=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	const none = `-run "^typo$" matches no fixture in `
	if out, err := child("^TestRunMatchingNothingFails$/^typo$", "1"); err == nil || !strings.Contains(out, none) {
		t.Errorf("recording: want a failure naming the pattern, got %v:\n%s", err, out)
	}
	if out, err := child("^TestRunMatchingNothingFails$/^typo$", ""); err != nil || !strings.Contains(out, none) {
		t.Errorf("replaying: want a pass that says so, got %v:\n%s", err, out)
	}
	// A pattern naming the fixture, and one whose other alternative
	// selects every subtest, pass.
	for _, pattern := range []string{"^TestRunMatchingNothingFails$/^one$", "TestNothing/qqq|^TestRunMatchingNothingFails$"} {
		for _, update := range []string{"", "1"} {
			if out, err := child(pattern, update); err != nil || strings.Contains(out, "matches no fixture") {
				t.Errorf("-run %q, GOLDIE_UPDATE=%q: %v\n%s", pattern, update, err, out)
			}
		}
	}
}

// TestMessagesNameGoTest: the failures Test reports say how to
// record with go test, with the test's own -run pattern: a missing golden
// log, a golden log that differs (beside goldie's report), an orphan.
// Test runs in a child process, where its failures are the expected
// output.
func TestMessagesNameGoTest(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_MESSAGES_DIR"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		return
	}
	opts := layout(t, "one")
	writeFile(t, filepath.Join(opts.Fixtures, "two.json"), minimalFixture)
	writeFile(t, filepath.Join(opts.Fixtures, "one.json"), strings.Replace(minimalFixture, `"hello"`, `"hi there"`, 1))
	writeFile(t, filepath.Join(opts.Golden, "gone.golden"), "x\n")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMessagesNameGoTest$", "-test.v")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_MESSAGES_DIR="+filepath.Dir(opts.Fixtures), "GOLDIE_UPDATE=", "CI=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{
		"two.golden: [guard] missing: record it: GOLDIE_UPDATE=1 go test -run '^TestMessagesNameGoTest$/^two$'",
		"if the change is intended, record it: GOLDIE_UPDATE=1 go test -run '^TestMessagesNameGoTest$/^one$'",
		"gone.golden: golden log with no fixture",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go test output lacks %q:\n%s", want, out)
		}
	}
	// goldie's report of one's difference is the failure replay prints,
	// check named, and how to accept the change comes after it.
	diff := strings.Index(string(out), "one.golden:")
	if diff < 0 || !strings.Contains(string(out)[diff:], "[golden]") {
		t.Errorf("no [golden] failure for one.golden:\n%s", out)
	} else if advice := strings.Index(string(out), "if the change is intended"); advice < diff {
		t.Errorf("the advice to record comes before the difference:\n%s", out)
	}
	if strings.Contains(string(out), "cmd/record") || strings.Contains(string(out), "-prune") {
		t.Errorf("go test output names a command of the CLIs:\n%s", out)
	}
}

// TestFailuresNameTheCallersLine: a subtest's failures, a golden log
// that differs (goldie's) and a fixture that cannot run alike, are
// located at the caller's call of Test, not at a line of goldentest; an
// in-process scenario without Options.Agent says Options.Agent is nil.
// Test runs in a child process, where its failures are the expected
// output.
func TestFailuresNameTheCallersLine(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_LINES_DIR"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		return
	}
	_, file, line, _ := runtime.Caller(0)
	at := fmt.Sprintf("%s:%d: ", filepath.Base(file), line-3) // the call of Test, three lines up
	opts := layout(t, "one")
	writeFile(t, filepath.Join(opts.Fixtures, "one.json"), strings.Replace(minimalFixture, `"hello"`, `"hi there"`, 1))
	writeFile(t, filepath.Join(opts.Fixtures, "inproc.json"), `{"description": "in-process", "agent": {}, "replies": [{"text": "ok"}]}`)
	// Its stray sidecar is cmd/replay's finding, which skips the
	// scenario; here the subtest's failure says why it cannot run.
	writeFile(t, filepath.Join(opts.Golden, "inproc.tools.json"), "[]\n")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestFailuresNameTheCallersLine$", "-test.v")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_LINES_DIR="+filepath.Dir(opts.Fixtures), "GOLDIE_UPDATE=", "CI=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{
		at + filepath.Join(opts.Fixtures, "inproc.json") + ": [invalid] cannot run: ",
		"inproc has an in-process agent (no agent.exec) and Options.Agent is nil: set Options.Agent",
		at + "Result did not match the golden fixture", // goldie's
		filepath.Join(opts.Golden, "one.golden") + ":5: [golden] event assistant/message differs at data.text",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go test output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "goldentest.go:") {
		t.Errorf("a failure is located in goldentest:\n%s", out)
	}
	if strings.Contains(string(out), "sidecar beside inproc") {
		t.Errorf("the skipped-scenario finding is reported by go test too:\n%s", out)
	}
}

const minimalFixture = `{
  "description": "minimal",
  "config": {"persona": "P.", "model": "m"},
  "plugins": [{"name": "p", "tools": [{"name": "b"}, {"name": "a"}]}],
  "turns": [{"user": "hi", "replies": [{"text": "hello"}]}]
}
`

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// layout writes minimalFixture under each name and records them.
func layout(t *testing.T, names ...string) harness.Options {
	t.Helper()
	dir := t.TempDir()
	opts := harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: 2, Seed: 1}
	for _, name := range names {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), minimalFixture)
	}
	s, err := harness.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, failed, err := s.Record(harness.RecordOptions{}); err != nil || len(failed) > 0 {
		t.Fatalf("record: %v %v", err, failed)
	}
	return opts
}

// TestLogDirWritesFullLogs: with HEADERGOLD_LOG_DIR, every fixture's full
// log is written beside the test run, byte for byte the log a check of it
// gives, and nothing in the golden directory changes.
func TestLogDirWritesFullLogs(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_LOGDIR_CHILD"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		return
	}
	opts := layout(t, "one", "two")
	logs := filepath.Join(t.TempDir(), "logs")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestLogDirWritesFullLogs$")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_LOGDIR_CHILD="+filepath.Dir(opts.Fixtures), LogDirEnv+"="+logs, "GOLDIE_UPDATE=", "CI=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child failed: %v\n%s", err, out)
	}
	s, err := harness.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one", "two"} {
		out, res := s.Check(s.Fixture(name))
		if !res.Passed() {
			t.Fatal(res.Failures)
		}
		got, err := os.ReadFile(filepath.Join(logs, name+".jsonl"))
		if err != nil || !bytes.Equal(got, out.Log) {
			t.Errorf("%s.jsonl: %v; equal to the check's log: %v", name, err, bytes.Equal(got, out.Log))
		}
	}
	entries, _ := os.ReadDir(opts.Golden)
	if len(entries) != 2 {
		t.Errorf("golden directory holds %d files", len(entries))
	}
}

// TestSubtestsNameTheFixtureAndTakeTheSeed: each fixture is the subtest
// PARENT/NAME, which go test -run selects; HEADERGOLD_SEED is the seed a
// failure reports, and one that is not a number fails the test. Test
// runs in a child process, where its failure is the expected output.
func TestSubtestsNameTheFixtureAndTakeTheSeed(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_SUBTESTS_DIR"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: 1})
		return
	}
	opts := layout(t, "one", "two")
	writeFile(t, filepath.Join(opts.Fixtures, "one.json"), strings.Replace(minimalFixture, `"hello"`, `"hi there"`, 1))
	child := func(pattern, seed string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run", pattern, "-test.v")
		cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_SUBTESTS_DIR="+filepath.Dir(opts.Fixtures), "HEADERGOLD_SEED="+seed, "GOLDIE_UPDATE=", "CI=")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	const parent = "TestSubtestsNameTheFixtureAndTakeTheSeed"
	out, err := child("^"+parent+"$", "4242")
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{
		"--- FAIL: " + parent + "/one ",
		"--- PASS: " + parent + "/two ",
		"seed 4242: reproduce with HEADERGOLD_SEED=4242 go test -run '^" + parent + "$/^one$'",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("go test output lacks %q:\n%s", want, out)
		}
	}
	// go test selects the passing subtest by the fixture's name alone.
	if out, err := child("^"+parent+"$/^two$", ""); err != nil || !strings.Contains(out, "--- PASS: "+parent+"/two ") || strings.Contains(out, parent+"/one") {
		t.Errorf("-run %s/^two$: %v\n%s", parent, err, out)
	}
	if out, err := child("^"+parent+"$/^two$", "x"); err == nil || !strings.Contains(out, `HEADERGOLD_SEED="x"`) {
		t.Errorf("HEADERGOLD_SEED=x: %v\n%s", err, out)
	}
}

// TestSubtestNamesInCommands: the commands that reproduce a seeded
// failure and record it select its subtest under a parent whose name go
// test rewrites ("dir (a's)" is "dir_(a's)": a pattern that must be
// escaped, and quoted for a shell), and a fixture whose subtest go test
// renamed, because a second call of Test in the same test has a fixture
// of that name, fails saying so. Test runs in a child process.
func TestSubtestNamesInCommands(t *testing.T) {
	if dirs := os.Getenv("HEADERGOLD_TEST_NAMES_DIRS"); dirs != "" {
		opts := func(dir string) harness.Options {
			return harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: 1}
		}
		d := filepath.SplitList(dirs)
		t.Run("dir (a's)", func(t *testing.T) { Test(t, opts(d[0])) })
		Test(t, opts(d[1]))
		Test(t, opts(d[2]))
		return
	}
	var dirs []string
	for range 3 {
		dirs = append(dirs, filepath.Dir(layout(t, "two").Fixtures))
	}
	// The first directory's fixture fails: its golden log is of another
	// reply.
	writeFile(t, filepath.Join(dirs[0], "fixtures", "two.json"), strings.Replace(minimalFixture, `"hello"`, `"hi there"`, 1))
	const parent = "TestSubtestNamesInCommands"
	cmd := exec.Command(os.Args[0], "-test.run", "^"+parent+"$", "-test.v")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_NAMES_DIRS="+strings.Join(dirs, string(os.PathListSeparator)), "HEADERGOLD_SEED=77", "GOLDIE_UPDATE=", "CI=")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child passed:\n%s", out)
	}
	for _, want := range []string{
		"seed 77: reproduce with HEADERGOLD_SEED=77 go test -run '^" + parent + `$/^dir_\(a'\''s\)$/^two$'`,
		"record it: GOLDIE_UPDATE=1 go test -run '^" + parent + `$/^dir_\(a'\''s\)$/^two$'`,
		"--- PASS: " + parent + "/two ",
		"--- FAIL: " + parent + "/two#01 ",
		"go test named this subtest two#01, not two: another subtest of " + parent + " has that name",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("go test output lacks %q:\n%s", want, out)
		}
	}
}

// TestRecordingRefusedUnderCI: GOLDIE_UPDATE=1 with CI set fails the test
// and writes nothing. Test runs in a child process.
func TestRecordingRefusedUnderCI(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_CI_DIR"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		return
	}
	opts := layout(t, "one")
	writeFile(t, filepath.Join(opts.Fixtures, "two.json"), minimalFixture) // a golden log to create
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRecordingRefusedUnderCI$", "-test.v")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_CI_DIR="+filepath.Dir(opts.Fixtures), "GOLDIE_UPDATE=1", "CI=true")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to record golden files with CI=true") {
		t.Errorf("want a failure that refuses, got %v:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "two.golden")); !os.IsNotExist(err) {
		t.Errorf("two.golden was written under CI: %v", err)
	}
}

// TestRecordingReportsOrphans: a record from go test, which cannot prune,
// fails on a golden log whose fixture is gone, which the next replay
// would fail on; it still records the others. Test runs in a child
// process.
func TestRecordingReportsOrphans(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_ORPHAN_DIR"); dir != "" {
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		return
	}
	opts := layout(t, "one")
	one, err := os.ReadFile(filepath.Join(opts.Golden, "one.golden"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(opts.Golden, "gone.golden"), string(one))
	writeFile(t, filepath.Join(opts.Fixtures, "two.json"), minimalFixture)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestRecordingReportsOrphans$", "-test.v")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_ORPHAN_DIR="+filepath.Dir(opts.Fixtures), "GOLDIE_UPDATE=1", "CI=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "[guard] "+filepath.Join(opts.Golden, "gone.golden")) {
		t.Errorf("want a failure naming the orphan, got %v:\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "two.golden")); err != nil {
		t.Errorf("two.golden was not recorded: %v", err)
	}
}

// TestDeferredCancelIsExplained: a context the calling test cancels with
// defer is done before the parallel subtests run; each says so and how to
// pass one that outlives the test, instead of failing its agent runs as
// interrupted. Test runs in a child process.
func TestDeferredCancelIsExplained(t *testing.T) {
	if dir := os.Getenv("HEADERGOLD_TEST_CANCEL_DIR"); dir != "" {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		Test(t, harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1, Context: ctx})
		return
	}
	opts := layout(t, "one")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestDeferredCancelIsExplained$", "-test.v")
	cmd.Env = append(os.Environ(), "HEADERGOLD_TEST_CANCEL_DIR="+filepath.Dir(opts.Fixtures), "GOLDIE_UPDATE=", "CI=")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Options.Context was done before one ran (context canceled)") || !strings.Contains(string(out), "t.Context()") {
		t.Errorf("want a failure that explains, got %v:\n%s", err, out)
	}
}

// With GOLDIE_UPDATE, the caller's Options.Run selects what is recorded
// when go test's -run selects every subtest.
func TestRecordingKeepsOptionsRun(t *testing.T) {
	dir := t.TempDir()
	opts := harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1, Run: regexp.MustCompile("^a$")}
	recordAOfAB(t, opts, "^"+t.Name()+"$", "", "Options.Run")
}

// GOLDIE_UPDATE turns recording on with 1, true or t, in any case, and
// nothing else.
func TestUpdatingValues(t *testing.T) {
	if fl := flag.Lookup("update"); fl != nil && fl.Value.String() == "true" {
		t.Skip("goldie's -update flag is on")
	}
	for v, want := range map[string]bool{"1": true, "true": true, "TRUE": true, "t": true, "T": true, "": false, "0": false, "false": false, "yes": false} {
		t.Setenv("GOLDIE_UPDATE", v)
		if got := Updating(); got != want {
			t.Errorf("GOLDIE_UPDATE=%q: Updating() = %v, want %v", v, got, want)
		}
	}
}
