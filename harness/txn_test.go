package harness

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// threeFiles writes a.golden and b.golden (old) in a fresh directory and
// returns the writes that change them and create c.golden.
func threeFiles(t *testing.T) (string, []FileWrite) {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.golden"), "old a\n")
	writeFile(t, filepath.Join(dir, "b.golden"), "old b\n")
	return dir, []FileWrite{
		{Path: filepath.Join(dir, "a.golden"), Data: []byte("new a\n")},
		{Path: filepath.Join(dir, "b.golden"), Data: []byte("new b\n")},
		{Path: filepath.Join(dir, "c.golden"), Data: []byte("new c\n")},
	}
}

// names lists a directory.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// assertOld checks that dir holds exactly the old a.golden and b.golden.
func assertOld(t *testing.T, dir string) {
	t.Helper()
	if got := names(t, dir); !slices.Equal(got, []string{"a.golden", "b.golden"}) {
		t.Errorf("files after the failure: %v, want only a.golden and b.golden", got)
	}
	for name, want := range map[string]string{"a.golden": "old a\n", "b.golden": "old b\n"} {
		if got := string(readFile(t, filepath.Join(dir, name))); got != want {
			t.Errorf("%s = %q, want the old %q", name, got, want)
		}
	}
}

// TestTempFilesAndBackupsAreDotFiles: while a transaction is under way,
// everything it adds beside the targets is a dot file with a name the
// leftover scan knows (the backups, and the journal in the golden
// directory), so git add golden/ never takes one.
func TestTempFilesAndBackupsAreDotFiles(t *testing.T) {
	dir, files := threeFiles(t)
	var seen []string
	err := writeFiles(t.Context(), files, dir, txnHooks{fail: func(step string, i int) error {
		if step == "sync" {
			seen = names(t, dir)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, n := range seen {
		if !strings.HasSuffix(n, ".golden") {
			extra = append(extra, n)
			if !strings.HasPrefix(n, ".") || (leftoverOf(n) == "" && n != journalName) {
				t.Errorf("%s beside the targets is not a dot file the leftover scan knows", n)
			}
		}
	}
	if !slices.Equal(extra, []string{".a.golden.headergold-old", ".b.golden.headergold-old", journalName}) {
		t.Errorf("during the transaction: %v, want two backups and the journal", seen)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"a.golden", "b.golden", "c.golden"}) {
		t.Errorf("after: %v", got)
	}
}

// TestBackupFailures: when the old bytes cannot be kept aside, the write
// fails naming the file, every target keeps its old bytes and no empty or
// partial backup stays; without hard links a synced copy serves.
func TestBackupFailures(t *testing.T) {
	noLink := func(string, string) error { return &os.LinkError{Op: "link", Err: syscall.EPERM} }
	t.Run("copy fails", func(t *testing.T) {
		dir, files := threeFiles(t)
		err := writeFiles(t.Context(), files, dir, txnHooks{link: noLink, copy: func(w io.Writer, r io.Reader) (int64, error) {
			n, _ := io.CopyN(w, r, 2) // part of it, then the disk fills
			return n, syscall.ENOSPC
		}})
		if err == nil || !strings.Contains(err.Error(), "keep the old "+files[0].Path) || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("err = %v, want a backup failure naming a.golden", err)
		}
		assertOld(t, dir)
	})
	t.Run("second backup fails", func(t *testing.T) {
		dir, files := threeFiles(t)
		calls := 0
		err := writeFiles(t.Context(), files, dir, txnHooks{link: func(o, n string) error {
			if calls++; calls == 2 {
				return syscall.EIO
			}
			return os.Link(o, n)
		}, copy: func(io.Writer, io.Reader) (int64, error) { return 0, syscall.EIO }})
		if err == nil || !strings.Contains(err.Error(), "keep the old "+files[1].Path) {
			t.Errorf("err = %v", err)
		}
		assertOld(t, dir)
	})
	t.Run("no hard links", func(t *testing.T) {
		dir, files := threeFiles(t)
		if err := os.Chmod(files[0].Path, 0o600); err != nil {
			t.Fatal(err)
		}
		var backup os.FileInfo
		err := writeFiles(t.Context(), files, dir, txnHooks{link: noLink, fail: func(step string, i int) error {
			if step == "sync" {
				var err error
				backup, err = os.Stat(filepath.Join(dir, ".a.golden.headergold-old"))
				return err
			}
			return nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if backup == nil || backup.Mode().Perm() != 0o600 {
			t.Errorf("copied backup: %v", backup)
		}
		if got := names(t, dir); !slices.Equal(got, []string{"a.golden", "b.golden", "c.golden"}) {
			t.Errorf("after: %v", got)
		}
	})
}

// TestDirectorySyncFailure: a directory that cannot be synced fails the
// transaction, which is rolled back; a file system that cannot sync
// directories at all (EINVAL) is not an error.
func TestDirectorySyncFailure(t *testing.T) {
	dir, files := threeFiles(t)
	err := writeFiles(t.Context(), files, dir, txnHooks{syncDir: func(string) error { return syscall.EIO }})
	if err == nil || !strings.Contains(err.Error(), "sync directory "+dir) || !errors.Is(err, syscall.EIO) {
		t.Errorf("err = %v, want the sync failure", err)
	}
	assertOld(t, dir)
	if err := syncDir(t.TempDir()); err != nil {
		t.Errorf("syncDir of a real directory: %v", err)
	}
	if err := syncDir(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("syncDir of a missing directory succeeded")
	}
}

// TestWriteFilesInterrupted: a context cancelled before every file is in
// place rolls the transaction back, wherever it is.
func TestWriteFilesInterrupted(t *testing.T) {
	for _, at := range []struct {
		step string
		i    int
	}{{"write", 1}, {"rename", 0}, {"rename", 2}, {"sync", 0}} {
		t.Run(at.step, func(t *testing.T) {
			dir, files := threeFiles(t)
			ctx, cancel := context.WithCancel(t.Context())
			err := writeFiles(ctx, files, dir, txnHooks{fail: func(step string, i int) error {
				if step == at.step && i == at.i {
					cancel()
				}
				return nil
			}})
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted while writing") || !strings.HasSuffix(err.Error(), "; no file was changed") {
				t.Errorf("err = %v", err)
			}
			assertOld(t, dir)
		})
	}
}

// TestRecordKeepsFileModes: a golden file keeps its permission bits when
// record rewrites it; a new one is 0644.
func TestRecordKeepsFileModes(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	modes := map[string]os.FileMode{"tool-turn.golden": 0o600, "resume.golden": 0o664, "text-turn.tools.json": 0o640}
	for name, mode := range modes {
		path := filepath.Join(opts.Golden, name)
		writeFile(t, path, "stale\n")
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(opts.Golden, "stable-header.golden"))
	modes["stable-header.golden"] = 0o644
	if _, _, err := mustLoad(t, opts).Record(RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, mode := range modes {
		fi, err := os.Stat(filepath.Join(opts.Golden, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v after record, want %v", name, fi.Mode().Perm(), mode)
		}
		if string(readFile(t, filepath.Join(opts.Golden, name))) == "stale\n" {
			t.Errorf("%s not rewritten", name)
		}
	}
}

// TestLeftoversReportedAndCleaned: temp files and backups an interrupted
// record left (in the golden and the fixtures directory, under today's
// and older names) are guard findings naming them; they are not orphans;
// the next record removes them and says so; a dry run only lists them.
func TestLeftoversReportedAndCleaned(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	left := []string{
		filepath.Join(opts.Golden, ".tool-turn.golden.headergold-tmp-123456"),
		filepath.Join(opts.Golden, ".text-turn.system.md.headergold-old"),
		filepath.Join(opts.Golden, ".resume.golden.tmp-42"),
		filepath.Join(opts.Golden, "resume.golden.headergold-old"),
		filepath.Join(opts.Fixtures, ".tool-turn.json.headergold-tmp-7"),
	}
	for _, f := range left {
		writeFile(t, f, "partial")
	}
	keep := []string{filepath.Join(opts.Golden, ".gitkeep"), filepath.Join(opts.Golden, ".notes.headergold-old")}
	for _, f := range keep {
		writeFile(t, f, "mine")
	}
	s := mustLoad(t, opts)
	var found []string
	for _, f := range s.Findings() {
		found = append(found, f.File)
		if !strings.Contains(f.Msg, "interrupted record") {
			t.Errorf("finding %s", f)
		}
	}
	slices.Sort(found)
	want := slices.Sorted(slices.Values(left))
	if !slices.Equal(found, want) {
		t.Errorf("findings %v\nwant %v", found, want)
	}
	for _, f := range s.Findings() {
		if f.Kind != Leftover {
			t.Errorf("a leftover found as %s: %s", f.Kind, f)
		}
	}
	dry, _, err := s.Record(RecordOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	cleaned := func(changes []FileChange) []string {
		var out []string
		for _, c := range changes {
			if c.Status == Cleaned {
				out = append(out, c.File)
			}
		}
		slices.Sort(out)
		return out
	}
	if got := cleaned(dry); !slices.Equal(got, want) {
		t.Errorf("dry run cleans %v", got)
	}
	for _, f := range left {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a dry run removed %s", f)
		}
	}
	changes, _, err := s.Record(RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cleaned(changes); !slices.Equal(got, want) {
		t.Errorf("record cleaned %v", got)
	}
	for _, f := range left {
		if _, err := os.Stat(f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there", f)
		}
	}
	for _, f := range keep {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("record removed %s, which is no leftover of its own", f)
		}
	}
	if f := mustLoad(t, opts).Findings(); len(f) != 0 {
		t.Errorf("after record: %v", f)
	}
}

// TestRecordLock: a record waits for another's lock on the golden
// directory, up to LockWait, then fails saying why and writes nothing.
func TestRecordLock(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	stale := filepath.Join(opts.Golden, "tool-turn.golden")
	writeFile(t, stale, "stale\n")
	unlock, err := lockDir(t.Context(), opts.Golden, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := mustLoad(t, opts)
	start := time.Now()
	_, _, err = s.Record(RecordOptions{LockWait: 300 * time.Millisecond})
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), opts.Golden) || !strings.Contains(err.Error(), "waited 300ms") {
		t.Errorf("err = %v, want ErrLocked naming %s", err, opts.Golden)
	}
	// Record runs every scenario before it asks for the lock, so its
	// own duration says nothing of the wait beyond this lower bound; how
	// long the runs take depends on the machine.
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("gave up after %s", d)
	}
	// The wait itself: the lock Record asked for with LockWait gives up
	// after LockWait, not after DefaultLockWait (the message above names
	// the wait its deadline was set from).
	// A wait that never gives up fails here, not at the test binary's
	// timeout: the call is bounded by DefaultLockWait and a hang margin.
	start = time.Now()
	waited := make(chan error, 1)
	go func() {
		unlock, err := lockDir(t.Context(), opts.Golden, 300*time.Millisecond)
		if err == nil {
			unlock()
		}
		waited <- err
	}()
	select {
	case err := <-waited:
		if !errors.Is(err, ErrLocked) {
			t.Errorf("lockDir on a held lock: %v, want ErrLocked", err)
		}
	case <-time.After(DefaultLockWait + hangBound):
		t.Fatalf("lockDir with a 300ms wait still waits %s later", DefaultLockWait+hangBound)
	}
	if d := time.Since(start); d < 300*time.Millisecond || d >= DefaultLockWait {
		t.Errorf("lockDir with a 300ms wait gave up after %s", d)
	}
	if string(readFile(t, stale)) != "stale\n" {
		t.Error("record wrote without the lock")
	}
	time.AfterFunc(200*time.Millisecond, func() { unlock() })
	if _, _, err := s.Record(RecordOptions{LockWait: 5 * time.Second}); err != nil {
		t.Fatalf("record after the lock is released: %v", err)
	}
	if string(readFile(t, stale)) == "stale\n" {
		t.Error("not recorded")
	}
	// The lock is released when Record returns.
	again, err := lockDir(t.Context(), opts.Golden, 0)
	if err != nil {
		t.Fatalf("lock still held after record: %v", err)
	}
	again()
}

// TestRecordInterruptedBeforeWriting: a cancelled context stops a record
// before it writes anything, and says so.
func TestRecordInterruptedBeforeWriting(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	before := checksums(t, opts.Golden)
	os.Remove(filepath.Join(opts.Golden, "resume.golden"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	opts.Context = ctx
	_, _, err := mustLoad(t, opts).Record(RecordOptions{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "before anything was written") {
		t.Errorf("err = %v", err)
	}
	after := checksums(t, opts.Golden)
	if len(after) != len(before)-1 {
		t.Errorf("files: %d before, %d after", len(before)-1, len(after))
	}
}
