package main

import (
	"bytes"
	"cmp"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

// replayTo runs replay with stdout as its standard output.
func replayTo(t *testing.T, stdout io.Writer, args ...string) result {
	t.Helper()
	var errb bytes.Buffer
	code := run(args, env{
		stdin: strings.NewReader(""), stdout: stdout, stderr: &errb,
		getenv: func(string) string { return "" },
	})
	return result{code: code, stderr: errb.String()}
}

// lostReport checks that a run whose standard output failed said so
// once, naming the command, and exited want.
func lostReport(t *testing.T, what string, r result, command string, want int) {
	t.Helper()
	msg := command + ": writing standard output: " + syscall.ENOSPC.Error() + "\n"
	if r.code != want || !strings.Contains(r.stderr, msg) || strings.Count(r.stderr, "writing") != 1 {
		t.Errorf("%s: exit %d, stderr\n%s\nwant exit %d and once %q", what, r.code, r.stderr, want, msg)
	}
}

// TestLostReportDoesNotPass: replay, replay diff and replay stability
// exit 125 instead of 0 when their report cannot be written to standard
// output (at its first byte or halfway), in text and -json, and say so on
// stderr; a failing replay and a drift stay 1, whose verdict holds
// without its report, and a usage error stays 2.
func TestLostReportDoesNotPass(t *testing.T) {
	fx, gd := copyBundled(t)
	dirs := []string{"-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(text-turn|tool-turn)$"}
	a, b, same, _ := diffInputs(t)
	dir := t.TempDir()
	logs := []string{
		runLog(t, dir, "r1.jsonl", "done", "create", "notify"),
		runLog(t, dir, "r2.jsonl", "done", "notify", "create"),
	}
	type run struct {
		what, command string
		args          []string
		want          int // exitCannotRun unless the verdict is a failure
	}
	runs := []run{
		{what: "replay", command: "replay", args: dirs},
		{what: "replay -json", command: "replay", args: append([]string{"-json"}, dirs...)},
		{what: "replay -v", command: "replay", args: append([]string{"-v"}, dirs...)},
		{what: "replay -h", command: "replay", args: []string{"-h"}},
		{what: "replay diff identical", command: "replay diff", args: []string{"diff", a, same}},
		{what: "replay diff drift", command: "replay diff", args: []string{"diff", a, b}, want: exitMismatch},
		{what: "replay diff -json drift", command: "replay diff", args: []string{"diff", "-json", a, b}, want: exitMismatch},
		{what: "replay stability", command: "replay stability", args: append([]string{"stability"}, logs...)},
		{what: "replay stability -json", command: "replay stability", args: append([]string{"stability", "-json"}, logs...)},
	}
	if r := replay(t, nil, false, dirs...); r.code != exitOK {
		t.Fatalf("the bundled fixtures: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range runs {
		for _, room := range []int{0, 40} {
			lostReport(t, c.what, replayTo(t, &bundletest.FullWriter{Room: room}, c.args...), c.command, cmp.Or(c.want, exitCannotRun))
		}
	}
	// A failing replay whose report is lost still fails: its verdict
	// holds without the report.
	path := filepath.Join(gd, "tool-turn.golden")
	g, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(g, []byte(`"main.go\nmain_test.go"`), []byte(`"main.go"`), 1), 0o644)
	if r := replay(t, nil, false, dirs...); r.code != exitMismatch {
		t.Fatalf("the broken golden file: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{dirs, append([]string{"-json"}, dirs...)} {
		lostReport(t, "failing "+strings.Join(args[:1], " "), replayTo(t, &bundletest.FullWriter{Room: 10}, args...), "replay", exitMismatch)
	}
	// Nothing is written for a usage error: it stays 2, and says nothing
	// of standard output.
	if r := replayTo(t, &bundletest.FullWriter{}, "-nope"); r.code != exitUsage || strings.Contains(r.stderr, "standard output") {
		t.Errorf("usage error: exit %d, stderr\n%s", r.code, r.stderr)
	}
}

// TestReplayToDevFull: replay -json > /dev/full exits 125 and names the
// error, as CI would see a full disk.
func TestReplayToDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	r := replayTo(t, full, bundled(t, "-json", "-shuffle", "0", "-run", "^text-turn$")...)
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "replay: writing standard output: write /dev/full: no space left on device\n") {
		t.Errorf("replay -json > /dev/full: exit %d, stderr\n%s", r.code, r.stderr)
	}
}
