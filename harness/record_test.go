package harness

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestWriteFilesAllOrNothing(t *testing.T) {
	for _, tc := range []struct {
		step string
		at   int
	}{{"write", 0}, {"write", 2}, {"rename", 0}, {"rename", 1}, {"rename", 2}} {
		t.Run(tc.step+"-"+string(rune('0'+tc.at)), func(t *testing.T) {
			dir := t.TempDir()
			old := map[string]string{"a.golden": "old a\n", "b.golden": "old b\n"} // c.golden is new
			for name, body := range old {
				writeFile(t, filepath.Join(dir, name), body)
			}
			files := []FileWrite{
				{Path: filepath.Join(dir, "a.golden"), Data: []byte("new a\n")},
				{Path: filepath.Join(dir, "b.golden"), Data: []byte("new b\n")},
				{Path: filepath.Join(dir, "c.golden"), Data: []byte("new c\n")},
			}
			injected := errors.New("injected")
			err := writeFiles(t.Context(), files, dir, txnHooks{fail: func(step string, i int) error {
				if step == tc.step && i == tc.at {
					return injected
				}
				return nil
			}})
			if !errors.Is(err, injected) {
				t.Fatalf("err = %v, want the injected failure", err)
			}
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			if !slices.Equal(names, []string{"a.golden", "b.golden"}) {
				t.Errorf("files after failure = %v, want only the old ones (no temp, no backup, no c.golden)", names)
			}
			for name, body := range old {
				if got := string(readFile(t, filepath.Join(dir, name))); got != body {
					t.Errorf("%s = %q, want the old %q", name, got, body)
				}
			}
		})
	}
}

func TestWriteFilesRealFailure(t *testing.T) {
	// A directory where the last file should go can be neither kept aside
	// nor replaced: the write fails, and the others keep their old bytes.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.golden"), "old a\n")
	if err := os.Mkdir(filepath.Join(dir, "z.golden"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "z.golden", "keep"), "x")
	err := writeFiles(t.Context(), []FileWrite{
		{Path: filepath.Join(dir, "a.golden"), Data: []byte("new a\n")},
		{Path: filepath.Join(dir, "b.golden"), Data: []byte("new b\n")},
		{Path: filepath.Join(dir, "z.golden"), Data: []byte("new z\n")},
	}, dir, txnHooks{})
	if err == nil || !strings.Contains(err.Error(), "z.golden") {
		t.Fatalf("err = %v, want a failure naming z.golden", err)
	}
	if got := string(readFile(t, filepath.Join(dir, "a.golden"))); got != "old a\n" {
		t.Errorf("a.golden = %q after rollback", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestWriteFilesSuccess(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.golden"), "old\n")
	err := writeFiles(t.Context(), []FileWrite{{Path: filepath.Join(dir, "a.golden"), Data: []byte("new\n")}, {Path: filepath.Join(dir, "b.golden"), Data: []byte("b\n")}}, dir, txnHooks{})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 || string(readFile(t, filepath.Join(dir, "a.golden"))) != "new\n" {
		t.Errorf("entries %v", entries)
	}
}

func TestRecordStatusesAndPrune(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	writeFile(t, filepath.Join(opts.Golden, "orphan.golden"), "x\n")
	// A sidecar of a fixture that is not pinned (one unpinned since):
	// replay refuses it, so record removes it.
	writeFile(t, filepath.Join(opts.Golden, "tool-turn.tools.json"), "[]\n")
	path := filepath.Join(opts.Golden, "tool-turn.golden")
	writeFile(t, path, "stale\n")
	if err := os.Remove(filepath.Join(opts.Golden, "resume.golden")); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, opts)
	dry, _, err := s.Record(RecordOptions{DryRun: true, Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]Status{}
	for _, c := range dry {
		status[filepath.Base(c.File)] = c.Status
	}
	want := map[string]Status{"tool-turn.golden": Changed, "resume.golden": Created, "orphan.golden": Removed, "tool-turn.tools.json": Removed,
		"text-turn.golden": Unchanged, "text-turn.system.md": Unchanged}
	for f, st := range want {
		if status[f] != st {
			t.Errorf("%s: %q, want %q", f, status[f], st)
		}
	}
	if string(readFile(t, path)) != "stale\n" {
		t.Fatal("a dry run wrote")
	}
	if _, _, err := s.Record(RecordOptions{Prune: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "orphan.golden")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan not pruned")
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "tool-turn.tools.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the sidecar of a fixture not pinned is still there")
	}
	again := mustLoad(t, opts)
	for _, f := range again.Fixtures() {
		if res := again.Replay(f); !res.Passed() {
			t.Errorf("%s after record: %v", f.Name, res.Failures)
		}
	}
}

func TestWriteFilesRemovalIsPartOfTheTransaction(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "orphan.golden"), "orphan\n")
	writeFile(t, filepath.Join(dir, "a.golden"), "old a\n")
	files := []FileWrite{
		{Path: filepath.Join(dir, "orphan.golden"), Remove: true},
		{Path: filepath.Join(dir, "a.golden"), Data: []byte("new a\n")},
	}
	injected := errors.New("injected")
	err := writeFiles(t.Context(), files, dir, txnHooks{fail: func(step string, i int) error {
		if step == "rename" && i == 1 {
			return injected // after the removal was done
		}
		return nil
	}})
	if !errors.Is(err, injected) {
		t.Fatal(err)
	}
	if got := string(readFile(t, filepath.Join(dir, "orphan.golden"))); got != "orphan\n" {
		t.Errorf("removed file not restored: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
	if err := writeFiles(t.Context(), files, dir, txnHooks{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "orphan.golden")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan still there: %v", err)
	}
}

// A golden directory whose parent does not exist is refused, not made,
// and the error keeps the one from the file system, so that callers can
// tell it apart with errors.Is.
func TestRecordGoldenParentMissing(t *testing.T) {
	opts := copyBundled(t)
	opts.Golden = filepath.Join(t.TempDir(), "missing", "golden")
	s := mustLoad(t, opts)
	_, _, err := s.Record(RecordOptions{})
	if err == nil || !strings.Contains(err.Error(), "its parent directory") {
		t.Fatalf("Record = %v, want the missing parent named", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Record = %v: errors.Is(err, fs.ErrNotExist) is false", err)
	}
}

// A suite sees the golden directory its own Record left: after a record
// that pruned an orphan and removed the sidecars of a fixture no longer
// pinned, the same suite finds nothing and replays the fixture green.
func TestSuiteAfterItsRecord(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	path := filepath.Join(opts.Fixtures, "text-turn.json")
	writeFile(t, path, strings.Replace(string(readFile(t, path)), `"pin": true`, `"pin": false`, 1))
	if err := os.Remove(filepath.Join(opts.Fixtures, "shared-names.json")); err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, opts)
	if len(s.Findings()) == 0 {
		t.Fatal("no orphan found before the record")
	}
	if _, failed, err := s.Record(RecordOptions{Prune: true}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	if f := s.Findings(); len(f) > 0 {
		t.Errorf("findings after the record pruned them: %v", f)
	}
	if res := s.Replay(s.Fixture("text-turn")); !res.Passed() {
		t.Errorf("replay on the suite that recorded it: %v", res.Failures)
	}
}
