package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNeverTouchesTheSuite: -o refuses any path that lands in the
// golden or fixtures directory once links are resolved, and any existing
// golden file or fixture under another name, with CI set as a CI job
// would run it; nothing there changes.
func TestOutputNeverTouchesTheSuite(t *testing.T) {
	t.Setenv("CI", "true")
	fx, gd := copyBundled(t)
	root := filepath.Dir(fx)
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(gd, filepath.Join(root, "g2")))
	must(os.Symlink(fx, filepath.Join(outside, "fx-link")))
	must(os.Symlink(filepath.Join(gd, "text-turn.golden"), filepath.Join(outside, "golden-link.jsonl")))
	must(os.Symlink(filepath.Join(gd, "not-yet.golden"), filepath.Join(outside, "dangling.jsonl")))
	must(os.Link(filepath.Join(gd, "tool-turn.golden"), filepath.Join(outside, "hardlink.jsonl")))
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(root, "g2", "tool-turn.golden"), "inside the golden directory"},
		{filepath.Join(root, "g2", "new.jsonl"), "inside the golden directory"},
		{filepath.Join(gd, "..", "golden", "x.jsonl"), "inside the golden directory"},
		{filepath.Join(fx, "tool-turn.json"), "inside the fixtures directory"},
		{filepath.Join(outside, "fx-link", "text-turn.json"), "inside the fixtures directory"},
		{filepath.Join(outside, "golden-link.jsonl"), "inside the golden directory"},
		{filepath.Join(outside, "dangling.jsonl"), "inside the golden directory"},
		{filepath.Join(outside, "hardlink.jsonl"), "a file of the golden directory"},
		{gd, "inside the golden directory"},
	} {
		t.Run(filepath.Base(tc.out), func(t *testing.T) {
			before, beforeFx := snapshot(t, gd), snapshot(t, fx)
			code, _, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^tool-turn$", "-o", tc.out)
			// A usage error like any other: one line, then the short usage.
			msg, usage, _ := strings.Cut(errs, "\n")
			if code != exitUsage || !strings.HasPrefix(msg, "record: -o ") || !strings.Contains(msg, tc.want) || usage != shortUsage {
				t.Errorf("-o %s: exit %d, %q; want exit 2, %q and the short usage", tc.out, code, errs, tc.want)
			}
			sameSnapshot(t, before, snapshot(t, gd))
			sameSnapshot(t, beforeFx, snapshot(t, fx))
		})
	}
	// Beside the suite is fine, and an existing log keeps its mode.
	log := filepath.Join(root, "tool-turn.jsonl")
	writeLogFile(t, log, 0o640)
	if code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^tool-turn$", "-o", log); code != exitOK {
		t.Fatalf("-o beside the suite: exit %d\n%s%s", code, out, errs)
	}
	if fi, err := os.Stat(log); err != nil || fi.Mode().Perm() != 0o640 || fi.Size() < 100 {
		t.Errorf("-o over an existing log: %v %v", fi, err)
	}
}

func writeLogFile(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte("old log\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// TestOutputIntoMissingDirectory: -o into a directory that does not exist
// (or a file taken for one) is said by that directory's name, not by the
// name of the temp file a write would have made there, and before the
// fixture runs; nothing is written.
func TestOutputIntoMissingDirectory(t *testing.T) {
	fx, gd := copyBundled(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	writeLogFile(t, file, 0o644)
	for _, tc := range []struct{ out, want string }{
		{filepath.Join(dir, "no", "such", "x.jsonl"), "the directory " + filepath.Join(dir, "no", "such") + " does not exist"},
		{filepath.Join(file, "x.jsonl"), file + " is not a directory"},
	} {
		code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^text-turn$", "-o", tc.out)
		if code != exitCannotRun || out != "" || !strings.Contains(errs, "record: -o "+tc.out+": "+tc.want) ||
			strings.Contains(errs, "headergold-tmp") || strings.Count(errs, "\n") != 1 {
			t.Errorf("-o %s: exit %d, stdout %q, stderr %q; want exit 125 and %q", tc.out, code, out, errs, tc.want)
		}
		// The same when the directory goes away between the check and
		// the write.
		err := writeOutput(context.Background(), tc.out, []byte("{}\n"), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "headergold-tmp") {
			t.Errorf("writeOutput(%s): %v; want %q", tc.out, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%s holds %d files, want the one it had", dir, len(entries))
	}
}
