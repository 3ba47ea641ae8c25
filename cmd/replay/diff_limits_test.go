package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLimitsEverywhere: a log line nested 100,000 deep is refused the same
// way by replay diff, by replay (as a golden log) and by replay
// stability: exit 125, naming the file, line, column and depth, with
// nothing on standard output from diff and stability.
func TestLimitsEverywhere(t *testing.T) {
	const head = `{"type":"request/header","data":{"header":{"tools":`
	deepLine := head + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "}}}\n"
	okLine := `{"type":"turn/start","data":{"turn":1}}` + "\n"
	// The event, data and header objects are three levels: the limit is
	// passed at the 9,998th bracket after the head.
	want := func(file string) string {
		return file + ":2:" + strconv.Itoa(len(head)+9998) + ": nesting 100003 deep, deeper than the limit of 10000"
	}
	dir := t.TempDir()
	deep := writeInput(t, dir, "deep.jsonl", okLine+deepLine)
	ok := writeInput(t, dir, "ok.jsonl", okLine+`{"type":"request/header","data":{"header":{"tools":[]}}}`+"\n")

	r := replay(t, nil, false, "diff", ok, deep)
	if r.code != exitCannotRun || !strings.Contains(r.stderr, want(deep)) || r.stdout != "" {
		t.Errorf("diff: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "stability", ok, deep)
	if r.code != exitCannotRun || !strings.Contains(r.stderr, want(deep)) || r.stdout != "" {
		t.Errorf("stability: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	fixtures, golden := copyBundled(t)
	path := filepath.Join(golden, "tool-turn.golden")
	if err := os.WriteFile(path, []byte(okLine+deepLine), 0o644); err != nil {
		t.Fatal(err)
	}
	r = replay(t, nil, false, "-fixtures", fixtures, "-golden", golden, "-run", "^tool-turn$", "-shuffle", "0")
	// The failure is reported as FILE:LINE: [invalid] message.
	if wantReplay := path + ":2: [invalid] column " + strconv.Itoa(len(head)+9998) + ": nesting 100003 deep, deeper than the limit of 10000"; r.code != exitCannotRun || !strings.Contains(r.stdout, wantReplay) {
		t.Errorf("replay: exit %d, want 125 and %q\nstdout:\n%s\nstderr:\n%s", r.code, wantReplay, r.stdout, r.stderr)
	}
}
