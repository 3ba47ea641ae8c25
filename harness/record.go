package harness

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// Status is what recording did, or would do, to one file.
type Status string

// File statuses reported by [Suite.Record].
const (
	Created   Status = "created"
	Changed   Status = "changed"
	Unchanged Status = "unchanged"
	Removed   Status = "removed"
	// Cleaned is a temp file or backup an interrupted record left behind,
	// which this record removed (or, in a dry run, would remove).
	Cleaned Status = "cleaned"
	// Skipped is the fixture file of a scenario with an in-process agent
	// that RecordOptions.SkipInProcess left alone, golden files and all.
	Skipped Status = "skipped"
)

// DefaultLockWait is how long a record waits for another record's lock on
// the golden directory before it gives up.
const DefaultLockWait = 10 * time.Second

// FileChange is what recording did, or would do, to one file.
type FileChange struct {
	File   string
	Status Status // Created, Changed, Unchanged, Removed, Cleaned or Skipped
}

// RecordOptions tunes [Suite.Record].
type RecordOptions struct {
	// DryRun computes the changes without writing anything.
	DryRun bool
	// Prune removes golden files that belong to no fixture.
	Prune bool
	// LockWait bounds the wait for the golden directory's lock, which
	// another record holds while it writes; 0 means DefaultLockWait.
	LockWait time.Duration
	// SkipInProcess records the other fixtures of a directory when some
	// are scenarios whose agent is an in-process Go function and the
	// suite has no Options.Agent (as in cmd/record): those are reported
	// Skipped and their golden files kept. Without it they fail, since
	// they cannot run.
	SkipInProcess bool
}

// ErrLocked is returned (wrapped, with the directory and the time waited)
// when another record held the golden directory's lock for longer than
// RecordOptions.LockWait.
var ErrLocked = errors.New("another record is writing to the golden directory")

// Record runs the selected fixtures and writes their golden logs and pin
// sidecars. Every selected fixture is run and checked (rebuild, uniformity
// and permutation) before anything is written: a fixture that fails those
// checks would record bytes that do not replay, so then nothing is written
// and the failures are returned.
//
// The writing is one transaction (see [WriteFiles]) under an advisory
// lock (flock) on the golden directory, taken before the old files are
// read and held until the last file is in place, so two records never
// mix their files: the second waits up to RecordOptions.LockWait, then
// fails with [ErrLocked]. Holding the lock, it first removes what an
// interrupted record left (temp files and backups, see [Suite.Findings]).
// When Options.Context is cancelled (record cancels it on SIGINT and
// SIGTERM), nothing more is run, and a transaction under way is rolled
// back; the error then wraps the context's.
func (s *Suite) Record(opts RecordOptions) ([]FileChange, []*Result, error) {
	ctx := s.context()
	var writes []FileWrite
	var failed []*Result
	var skipped []FileChange
	for _, f := range s.Fixtures() {
		if ctx.Err() != nil {
			return nil, failed, interrupted(ctx, "before anything was written")
		}
		if opts.SkipInProcess && s.Skips(f) {
			skipped = append(skipped, FileChange{f.File, Skipped})
			continue
		}
		out, res := s.Check(f)
		if !res.Passed() {
			failed = append(failed, res)
			continue
		}
		writes = append(writes, FileWrite{Path: s.goldenPath(f.Name), Data: out.Golden})
		writes = append(writes, out.extra...)
		if f.Pin {
			writes = append(writes, FileWrite{Path: s.systemPath(f.Name), Data: out.System}, FileWrite{Path: s.toolsPath(f.Name), Data: out.Tools})
			continue
		}
		// Sidecars of a fixture no longer pinned are what replay would
		// refuse: they go with the record that unpins it.
		for _, sc := range []string{s.systemPath(f.Name), s.toolsPath(f.Name)} {
			if s.goldenFiles[filepath.Base(sc)] {
				writes = append(writes, FileWrite{Path: sc, Remove: true})
			}
		}
	}
	if ctx.Err() != nil {
		return nil, failed, interrupted(ctx, "before anything was written")
	}
	if len(failed) > 0 {
		return nil, failed, fmt.Errorf("%d fixture(s) fail their checks; nothing was written", len(failed))
	}
	if !opts.DryRun {
		// The golden directory is made if need be, but not its parents:
		// a mistyped path is refused rather than created.
		if err := os.Mkdir(s.opts.goldenDir(), 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			if errors.Is(err, os.ErrNotExist) {
				return nil, nil, fmt.Errorf("golden: cannot make %s: its parent directory %s does not exist", s.opts.goldenDir(), filepath.Dir(filepath.Clean(s.opts.goldenDir())))
			}
			return nil, nil, fmt.Errorf("golden: %w", err)
		}
		unlock, err := lockDir(ctx, s.opts.goldenDir(), cmp.Or(opts.LockWait, DefaultLockWait))
		if err != nil {
			return nil, nil, err
		}
		defer unlock()
	}
	changes := append(make([]FileChange, 0, len(skipped)+len(writes)), skipped...)
	var pending []FileWrite
	for _, w := range writes {
		if w.Remove {
			changes = append(changes, FileChange{w.Path, Removed})
			pending = append(pending, w)
			continue
		}
		old, err := readRegular(w.Path, s.opts.maxFileSize())
		switch {
		case errors.Is(err, os.ErrNotExist):
			changes = append(changes, FileChange{w.Path, Created})
			pending = append(pending, w)
		case err != nil:
			return nil, nil, err
		case bytes.Equal(old, w.Data):
			changes = append(changes, FileChange{w.Path, Unchanged})
		default:
			changes = append(changes, FileChange{w.Path, Changed})
			pending = append(pending, w)
		}
	}
	if opts.Prune {
		for _, o := range s.orphans {
			changes = append(changes, FileChange{o.File, Removed})
			pending = append(pending, FileWrite{Path: o.File, Remove: true})
		}
	}
	// With the lock held no other record is writing: what looks like its
	// temp files and backups was left by one that was killed.
	leftovers, err := findLeftovers(s.opts.goldenDir(), s.opts.fixturesDir())
	if err != nil {
		return nil, nil, err
	}
	for _, l := range leftovers {
		changes = append(changes, FileChange{l.File, Cleaned})
	}
	if opts.DryRun {
		return changes, nil, nil
	}
	for _, l := range leftovers {
		if err := os.Remove(l.File); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("remove %s, left by an interrupted record: %w", l.File, err)
		}
	}
	if err := WriteFilesContext(ctx, pending); err != nil {
		return nil, nil, err
	}
	return changes, nil, nil
}

// context is the suite's Options.Context, or the background context.
func (s *Suite) context() context.Context {
	if s.opts.Context != nil {
		return s.opts.Context
	}
	return context.Background()
}

// interrupted is the error of a record stopped by its context: it wraps
// both the context's error and its cause (a signal, say).
func interrupted(ctx context.Context, what string) error {
	return &interruptError{what: what, err: ctx.Err(), cause: context.Cause(ctx)}
}

type interruptError struct {
	what       string
	err, cause error
}

func (e *interruptError) Error() string   { return "interrupted " + e.what + ": " + e.cause.Error() }
func (e *interruptError) Unwrap() []error { return []error{e.err, e.cause} }

// FileWrite is one file to write, or with Remove set, to delete.
type FileWrite struct {
	Path   string
	Data   []byte
	Remove bool
}

// WriteFiles writes (and removes) every file or none. Each file's new bytes
// go to a temp file in its own directory (a dot file,
// .NAME.headergold-tmp-N) and are synced; only when all are written are
// they renamed over the targets (and removals done), the old contents
// kept aside (as .NAME.headergold-old, a hard link or a synced copy) until
// every step has succeeded, and the directories synced. A file replaced
// keeps its permission bits; a new one gets 0644.
//
// A failure at any point — a write, a backup, a rename, a directory sync
// — restores every target to its old bytes (or absence) and leaves no
// temp file or backup behind; if the restoring itself fails, the error
// says so. A process killed in the middle leaves each target either old
// or new, and dot files that [Suite.Findings] reports and the next
// [Suite.Record] removes.
func WriteFiles(files []FileWrite) error { return WriteFilesContext(context.Background(), files) }

// WriteFilesContext is [WriteFiles] that also stops, and rolls back, when
// ctx is done before every file is in place.
func WriteFilesContext(ctx context.Context, files []FileWrite) error {
	return writeFiles(ctx, files, txnHooks{})
}

// txnHooks lets tests inject failures into writeFiles; zero fields mean
// the real operations.
type txnHooks struct {
	// fail is called before each step ("write", "rename" or "sync" of
	// the i-th file or directory); a non-nil result aborts there.
	fail    func(step string, i int) error
	link    func(oldname, newname string) error
	copy    func(dst io.Writer, src io.Reader) (int64, error)
	syncDir func(dir string) error
}

// step runs before each step of writeFiles: it aborts the transaction
// when ctx is done (or a test injects a failure).
func (h txnHooks) step(ctx context.Context, step string, i int) error {
	if h.fail != nil {
		if err := h.fail(step, i); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return interrupted(ctx, "while writing")
	}
	return nil
}

func writeFiles(ctx context.Context, files []FileWrite, h txnHooks) (err error) {
	temps := make([]string, len(files))
	backups := make(map[int]string)
	done := 0 // files renamed or removed
	var dirs []string
	defer func() {
		if err == nil {
			for _, b := range backups {
				os.Remove(b)
			}
			return
		}
		// Undo in reverse: restore each target, then drop what is left.
		var undo []error
		for i := done - 1; i >= 0; i-- {
			if b, ok := backups[i]; ok {
				undo = append(undo, os.Rename(b, files[i].Path))
				delete(backups, i)
			} else if !files[i].Remove {
				undo = append(undo, os.Remove(files[i].Path))
			}
		}
		for _, dir := range dirs {
			syncDir(dir) // best effort: the error being reported comes first
		}
		if u := errors.Join(undo...); u != nil {
			err = fmt.Errorf("%w; restoring the old files failed too: %v", err, u)
		} else {
			err = fmt.Errorf("%w; no file was changed", err)
		}
		for i := range files {
			if b, ok := backups[i]; ok {
				os.Remove(b)
			}
			if temps[i] != "" {
				os.Remove(temps[i])
			}
		}
	}()
	for i, f := range files {
		if err := h.step(ctx, "write", i); err != nil {
			return err
		}
		if f.Remove {
			continue
		}
		t, err := writeTemp(f)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		temps[i] = t
	}
	for i, f := range files {
		if err := h.step(ctx, "rename", i); err != nil {
			return err
		}
		if _, err := os.Lstat(f.Path); err == nil {
			b, err := keepOld(f.Path, h)
			if err != nil {
				return fmt.Errorf("keep the old %s: %w", f.Path, err)
			}
			backups[i] = b
		}
		if f.Remove {
			if err = os.Remove(f.Path); errors.Is(err, os.ErrNotExist) {
				err = nil // already gone
			}
		} else {
			err = os.Rename(temps[i], f.Path)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		if !f.Remove {
			temps[i] = ""
		}
		done++
		if dir := filepath.Dir(f.Path); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	sync := h.syncDir
	if sync == nil {
		sync = syncDir
	}
	for i, dir := range dirs {
		if err := h.step(ctx, "sync", i); err != nil {
			return err
		}
		if err := sync(dir); err != nil {
			return fmt.Errorf("sync directory %s: %w", dir, err)
		}
	}
	return nil
}

// Leftover names: a writeFiles temp file and backup of NAME are
// .NAME.headergold-tmp-N and .NAME.headergold-old.
const (
	tempInfix    = ".headergold-tmp-"
	backupSuffix = ".headergold-old"
)

// keepOld keeps the current bytes of path beside it until the transaction
// ends: a hard link where the file system has them, else a synced copy
// with the same permissions. A copy that fails is removed.
func keepOld(path string, h txnHooks) (string, error) {
	b := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+backupSuffix)
	if err := os.Remove(b); err != nil && !errors.Is(err, os.ErrNotExist) { // left by a killed run
		return "", err
	}
	link := h.link
	if link == nil {
		link = os.Link
	}
	if err := link(path, b); err == nil {
		return b, nil
	}
	if err := copyFile(path, b, h); err != nil {
		os.Remove(b)
		return "", err
	}
	return b, nil
}

// copyFile copies src to a new file dst with src's permissions, synced.
func copyFile(src, dst string, h txnHooks) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	cp := h.copy
	if cp == nil {
		cp = io.Copy
	}
	_, werr := cp(out, in)
	serr := out.Sync()
	cerr := out.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return err
	}
	// The mode given to OpenFile went through the umask.
	return os.Chmod(dst, fi.Mode().Perm())
}

// syncDir makes renames in dir durable. A file system that cannot sync a
// directory at all (EINVAL, ENOTSUP) is left to its defaults; any other
// failure is an error.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	serr := d.Sync()
	cerr := d.Close()
	if errors.Is(serr, syscall.EINVAL) || errors.Is(serr, syscall.ENOTSUP) {
		serr = nil
	}
	return errors.Join(serr, cerr)
}

// writeTemp writes f's bytes to a synced temp file beside f.Path, with the
// permission bits of the file it replaces (0644 for a new one).
func writeTemp(f FileWrite) (string, error) {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(f.Path); err == nil && fi.Mode().IsRegular() {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+tempInfix+"*")
	if err != nil {
		return "", err
	}
	name := tmp.Name()
	_, werr := tmp.Write(f.Data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(name)
		return "", err
	}
	if err := os.Chmod(name, mode); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
