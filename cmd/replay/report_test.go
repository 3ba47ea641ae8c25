package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
	"github.com/tidwall/gjson"
)

// breakToolTurn makes tool-turn.golden differ from the run at line 6,
// data.output, and returns its path.
func breakToolTurn(t *testing.T, gd string) string {
	t.Helper()
	path := filepath.Join(gd, "tool-turn.golden")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"main.go\nmain_test.go"`), []byte(`"main.go"`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("the output to edit is gone; update this test")
	}
	if err := os.WriteFile(path, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A -json failure locates the difference as the text does: the file, its
// line and the JSON path, both sides; the fixture's object and the
// summary carry the seed that -seed gave.
func TestJSONFailureLocatesTheDifference(t *testing.T) {
	fx, gd := copyBundled(t)
	path := breakToolTurn(t, gd)
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-seed", "4242", "-json", "-run", "^tool-turn$")
	if r.code != exitMismatch {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := decodeJSONLines(t, r.stdout)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want the fixture and the summary:\n%s", len(lines), r.stdout)
	}
	fx0, sum := lines[0], lines[1]
	if fx0.Fixture == nil || *fx0.Fixture != "tool-turn" || fx0.Status != "fail" || fx0.Seed == nil || *fx0.Seed != 4242 || len(fx0.Failures) != 1 {
		t.Fatalf("fixture line:\n%s", r.stdout)
	}
	f := fx0.Failures[0]
	if f.Check != "golden" || f.File != path || f.Line != 6 || f.Path != "data.output" || f.Want == "" || f.Got == "" || f.Want == f.Got {
		t.Errorf("failure %+v, want check golden, file %s, line 6, path data.output and both sides", f, path)
	}
	if !sum.Summary || *sum.Passed != 0 || *sum.Failed != 1 || *sum.Invalid != 0 {
		t.Errorf("summary %+v", sum)
	}
	if !strings.Contains(r.stdout, `"summary":true`) || !strings.Contains(lastLine(r.stdout), `"seed":4242`) {
		t.Errorf("summary lacks the seed: %s", lastLine(r.stdout))
	}
}

// A fixture that could not be tested beside one that fails: the run
// cannot test (125, the status of the worst), and the last line counts
// both as failed, the line before it saying how many could not be tested.
func TestInvalidBesideFailedCannotTest(t *testing.T) {
	fx, gd := copyBundled(t)
	breakToolTurn(t, gd)
	resume := filepath.Join(gd, "resume.golden")
	if err := os.Remove(resume); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(resume, 0o755); err != nil {
		t.Fatal(err)
	}
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(resume|tool-turn)$")
	if r.code != exitCannotRun {
		t.Errorf("exit %d, want %d\n%s%s", r.code, exitCannotRun, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) < 2 || lines[len(lines)-1] != "0 passed, 2 failed" || lines[len(lines)-2] != "1 of the failed could not be tested" {
		t.Errorf("want the last lines %q and %q:\n%s", "1 of the failed could not be tested", "0 passed, 2 failed", r.stdout)
	}
}

// With -json, standard output is JSON Lines and nothing else, whatever
// else is said: -v's seed line is left out, and a finding's annotation
// (GitHub Actions) goes to stderr, naming its file.
func TestJSONStaysJSONWithFindingsAndVerbose(t *testing.T) {
	fx, gd := copyBundled(t)
	ghost := filepath.Join(gd, "ghost.golden")
	if err := os.WriteFile(ghost, []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := replay(t, map[string]string{"GITHUB_ACTIONS": "true"}, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-v", "-json")
	if r.code != exitMismatch {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := decodeJSONLines(t, r.stdout) // fails on any line that is not JSON
	if sum := lines[len(lines)-1]; !sum.Summary || *sum.Failed != 1 || len(*sum.Findings) != 1 || !strings.Contains((*sum.Findings)[0], "ghost.golden") {
		t.Errorf("summary %+v", sum)
	}
	if !strings.Contains(r.stderr, "::error file="+ghost+",line=1::") {
		t.Errorf("no annotation of the finding on stderr:\n%s", r.stderr)
	}
}

// An annotation is one workflow command: a failure that names no file
// points at the fixture's golden log, line 1, and a message's newlines
// and percent signs are escaped as GitHub Actions reads them.
func TestAnnotationOfAFailureWithoutFile(t *testing.T) {
	fx, gd := copyBundled(t)
	s, err := harness.Load(harness.Options{Fixtures: fx, Golden: gd})
	if err != nil {
		t.Fatal(err)
	}
	res := &harness.Result{Fixture: "text-turn", Failures: []harness.Failure{
		{Check: harness.CheckPermute, Msg: "order is observable:\r\n100% of runs"},
	}}
	var out, errb bytes.Buffer
	e := env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	newPrinter(e, &replayFlags{annotated: true}).fixture(s, res)
	want := "::error file=" + s.GoldenPath("text-turn") + ",line=1::text-turn: order is observable:%0D%0A100%25 of runs\n"
	if !strings.HasSuffix(out.String(), want) {
		t.Errorf("output\n%s\nwant it to end with\n%s", out.String(), want)
	}
}

// -listen serves one captured scenario: a -run that selects more, or a
// reference fixture, is a usage error (2), said on stderr with the short
// usage, and nothing is replayed.
func TestListenNeedsOneScenario(t *testing.T) {
	for run, want := range map[string]string{
		"^(text|tool)-turn$": `replay: -listen serves one scenario; -run "^(text|tool)-turn$" selects 2`,
		"^text-turn$":        "replay: -listen serves the fake provider to a captured scenario (one with \"agent\"); text-turn is a reference fixture",
	} {
		r := replay(t, nil, false, bundled(t, "-listen", "127.0.0.1:0", "-run", run)...)
		if r.code != exitUsage || r.stdout != "" || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "Run 'replay -h' for details.") {
			t.Errorf("-run %s: exit %d\n%s%s", run, r.code, r.stdout, r.stderr)
		}
	}
}

// A -listen address the system will not listen on (taken) cannot test
// (125) before anything runs: the output still ends with the counts, of
// nothing, and -json's summary says why.
func TestListenTakenEndsWithCounts(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	args := bundled(t, "-listen", ln.Addr().String(), "-run", "^text-turn$")
	r := replay(t, nil, false, args...)
	if r.code != exitCannotRun || r.stdout != "0 passed, 0 failed\n" || !strings.Contains(r.stderr, "replay: cannot test: -listen: ") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, append(args, "-json")...)
	if s := gjson.Parse(strings.TrimSpace(r.stdout)); r.code != exitCannotRun || !s.Get("summary").Bool() || !strings.Contains(s.Get("errors.0").String(), "-listen: ") {
		t.Errorf("-json: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
