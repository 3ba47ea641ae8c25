//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// -o writes where its name points and replaces nothing but a regular
// file: "-" is standard output, a link keeps pointing at the file it
// names, a named pipe (or a device such as /dev/stdout) is written
// through, not replaced by a file; an empty name (an unset $OUT) is a
// usage error, not a record of the golden files.
func TestRecordOutputTargets(t *testing.T) {
	t.Setenv("CI", "true")
	fx, gd := copyBundled(t)
	before := snapshot(t, gd)
	run := func(o string) (int, string, string) {
		return record(t, "-fixtures", fx, "-golden", gd, "-run", "^text-turn$", "-o", o)
	}
	if code, out, errs := run(""); code != exitUsage || out != "" || !strings.Contains(errs, "-o needs a file name") {
		t.Errorf(`-o "": exit %d %q %q`, code, out, errs)
	}
	code, out, errs := run("-")
	if code != exitOK || !strings.HasPrefix(out, `{"type":"turn/start"`) || !strings.Contains(errs, "wrote -") {
		t.Errorf("-o -: exit %d\n%.200s\n%s", code, out, errs)
	}
	want := out
	// The shell's names of the standard streams are those streams, as
	// they are open (a pipe, or a redirected file at its offset).
	if code, out, errs := run("/dev/stdout"); code != exitOK || out != want || !strings.Contains(errs, "wrote /dev/stdout") {
		t.Errorf("-o /dev/stdout: exit %d\n%.200s\n%s", code, out, errs)
	}
	dir := t.TempDir()
	// A link to a file not written yet: the file is made.
	dangling := filepath.Join(dir, "later.jsonl")
	os.Symlink("made.jsonl", dangling)
	if code, _, errs := run(dangling); code != exitOK {
		t.Errorf("-o dangling link: exit %d %s", code, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "made.jsonl")); string(got) != want {
		t.Errorf("-o dangling link: the file it names holds %.100q", got)
	}
	target, link := filepath.Join(dir, "target.jsonl"), filepath.Join(dir, "link.jsonl")
	os.WriteFile(target, []byte("old"), 0o644)
	os.Symlink("target.jsonl", link)
	if code, _, errs := run(link); code != exitOK {
		t.Fatalf("-o link: exit %d %s", code, errs)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("-o replaced the link: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(target); string(got) != want {
		t.Errorf("-o link: the file it names holds %.100q", got)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	read := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			read <- nil
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		read <- b
	}()
	if code, _, errs := run(fifo); code != exitOK {
		t.Errorf("-o fifo: exit %d %s", code, errs)
	}
	if got := <-read; string(got) != want {
		t.Errorf("-o fifo: the reader got %.100q", got)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("-o replaced the named pipe: %v %v", fi, err)
	}
	if code, _, errs := run(dir); code != exitCannotRun || !strings.Contains(errs, "is a directory") {
		t.Errorf("-o dir: exit %d %q", code, errs)
	}
	sameSnapshot(t, before, snapshot(t, gd))
}
