package harness

import (
	"bytes"
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
	// RolledBack is the journal of a record killed while it replaced
	// files, which this record rolled back (or, in a dry run, would)
	// before anything else; the FileChange's Note says what that did, or
	// what the interrupted record left.
	RolledBack Status = "rolled-back"
	// Restored is a file that the interrupted record of a RolledBack had
	// replaced (or created, or removed), which the rollback put back as
	// it was before it (or, in a dry run, would). The file is then
	// recorded as any other, and has a second FileChange.
	Restored Status = "restored"
)

// DefaultLockWait is how long a record waits for another record's lock on
// the golden directory before it gives up.
const DefaultLockWait = 10 * time.Second

// FileChange is what recording did, or would do, to one file.
type FileChange struct {
	File   string
	Status Status // Created, Changed, Unchanged, Removed, Cleaned, Skipped, RolledBack or Restored
	// Note is one line on what a RolledBack did (or, in a dry run, what
	// the interrupted record left); "" for the other statuses.
	Note string
}

// RecordOptions tunes [Suite.Record].
type RecordOptions struct {
	// DryRun computes the changes without writing anything.
	DryRun bool
	// Prune removes golden files that belong to no fixture.
	Prune bool
	// LockWait bounds the wait for the golden directory's lock, which
	// another record holds while it writes; zero or a negative duration
	// means DefaultLockWait (a record cannot be told not to wait).
	LockWait time.Duration
	// SkipInProcess records the other fixtures of a directory when some
	// are scenarios whose agent is an in-process Go function and the
	// suite has no Options.Agent (as in cmd/record): those are reported
	// Skipped and their golden files kept. Without it they fail, since
	// they cannot run.
	SkipInProcess bool
}

// lockWait is LockWait, or DefaultLockWait when it is not positive: a
// negative wait would give up before another record could finish.
func (o RecordOptions) lockWait() time.Duration {
	if o.LockWait <= 0 {
		return DefaultLockWait
	}
	return o.LockWait
}

// ErrLocked is returned (wrapped, with the directory and the time waited)
// when another record held the golden directory's lock for longer than
// RecordOptions.LockWait.
var ErrLocked = errors.New("another record is writing to the golden directory")

// Record runs the selected fixtures and writes their golden logs and pin
// sidecars. Every selected fixture is run and checked as [Suite.Check]
// does (rebuild, trace, uniformity and permutation; rebuild and repeat for
// a captured scenario) before anything is written: a fixture that fails
// those checks would record bytes that do not replay, so then nothing is
// written and the failures are returned.
//
// The writing is one transaction (see [WriteFiles]) under an advisory
// lock (flock) on the golden directory, taken before the old files are
// read and held until the last file is in place, so two records never
// mix their files: the second waits up to RecordOptions.LockWait, then
// fails with [ErrLocked]. Holding the lock, it first rolls back a record
// that was killed part way through its renames, as the journal that one
// left in the golden directory says (reported as one [RolledBack] and a
// [Restored] per file it puts back), then removes what else an
// interrupted record left (temp files and backups, see [Suite.Findings]),
// reported [Cleaned]. A journal it cannot roll back fails the record,
// which then writes nothing; one rollback stopped in its turn is finished
// by the next record.
// When Options.Context is cancelled (record cancels it on SIGINT and
// SIGTERM), nothing more is run, and a transaction under way is rolled
// back; the error then wraps the context's.
//
// It is [Suite.RecordContext] with Options.Context.
func (s *Suite) Record(opts RecordOptions) ([]FileChange, []*Result, error) {
	return s.RecordContext(s.context(), opts)
}

// RecordContext is [Suite.Record] with ctx in place of Options.Context; a
// nil ctx means Options.Context.
func (s *Suite) RecordContext(ctx context.Context, opts RecordOptions) ([]FileChange, []*Result, error) {
	return s.record(s.orContext(ctx), opts, txnHooks{})
}

// record is [Suite.RecordContext] with the hooks of its transaction.
func (s *Suite) record(ctx context.Context, opts RecordOptions, h txnHooks) ([]FileChange, []*Result, error) {
	var writes []FileWrite
	var failed []*Result
	var skipped []FileChange
	if !opts.DryRun {
		// A killed record's journal is rolled back before anything is
		// run or planned: the fixtures it wrote (-upstream) and the
		// sidecars it removed come back, and the checks and the plan
		// must be made from those, not from the half-written files.
		rolled, err := s.rollBackFirst(ctx, opts, h)
		if err != nil {
			return nil, nil, err
		}
		skipped = rolled
	}
	for _, f := range s.Fixtures() {
		if ctx.Err() != nil {
			return nil, failed, interrupted(ctx, "before anything was written")
		}
		if opts.SkipInProcess && s.Skips(f) {
			skipped = append(skipped, FileChange{File: f.File, Status: Skipped})
			continue
		}
		out, res := s.CheckContext(ctx, f)
		if !res.Passed() {
			failed = append(failed, res)
			continue
		}
		files := append([]FileWrite{{Path: s.goldenPath(f.Name), Data: out.Golden}}, out.extra...)
		if f.Pin {
			files = append(files, FileWrite{Path: s.systemPath(f.Name), Data: out.System}, FileWrite{Path: s.toolsPath(f.Name), Data: out.Tools})
		}
		if fails := s.unreadable(files); fails != nil {
			res.Failures = fails
			failed = append(failed, res)
			continue
		}
		writes = append(writes, files...)
		if f.Pin {
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
				return nil, nil, fmt.Errorf("golden: cannot make %s: its parent directory %s does not exist: %w", s.opts.goldenDir(), filepath.Dir(filepath.Clean(s.opts.goldenDir())), err)
			}
			return nil, nil, fmt.Errorf("golden: %w", err)
		}
		unlock, err := lockDir(ctx, s.opts.goldenDir(), opts.lockWait())
		if err != nil {
			return nil, nil, err
		}
		defer unlock()
	}
	changes := append(make([]FileChange, 0, len(skipped)+len(writes)), skipped...)
	// With the lock held no other record is writing: what looks like its
	// journal, temp files and backups was left by one that was killed.
	// Its journal is rolled back first (a dry run only says so, and
	// compares with the old files where the rollback would put them);
	// what else it left is removed after.
	leftovers, j, err := findLeftovers(s.opts.goldenDir(), s.opts.fixturesDir())
	if err != nil {
		return nil, nil, err
	}
	oldPath := func(path string) string { return path }
	orphans := s.orphans
	if j != nil {
		var restored []string
		var note string
		if opts.DryRun {
			restored, _ = j.counts()
			note = j.describe()
			oldPath = j.oldPath
			// Files it had pruned would be back, orphans again.
			for _, f := range j.files {
				if f.remove && f.replaced() && filepath.Dir(f.target) == filepath.Clean(s.opts.goldenDir()) {
					if o, ok := s.orphan(filepath.Base(f.target)); ok {
						orphans = append(orphans, o)
					}
				}
			}
		} else {
			if restored, err = j.rollBack(h); err != nil {
				return nil, nil, err
			}
			note = rolledBackNote(restored, len(j.files))
			// Files it had pruned are back, and orphans again.
			s.orphans = nil
			if err := s.scanGolden(); err != nil {
				return nil, nil, err
			}
			orphans = s.orphans
		}
		changes = append(changes, FileChange{File: j.path, Status: RolledBack, Note: note})
		for _, r := range restored {
			changes = append(changes, FileChange{File: r, Status: Restored})
		}
	}
	var pending []FileWrite
	for _, w := range writes {
		if w.Remove {
			changes = append(changes, FileChange{File: w.Path, Status: Removed})
			pending = append(pending, w)
			continue
		}
		var old []byte
		err := os.ErrNotExist
		if p := oldPath(w.Path); p != "" {
			old, err = readRegular(p, s.opts.maxFileSize())
		}
		switch {
		case errors.Is(err, os.ErrNotExist):
			changes = append(changes, FileChange{File: w.Path, Status: Created})
			pending = append(pending, w)
		case err != nil:
			return nil, nil, err
		case bytes.Equal(old, w.Data):
			changes = append(changes, FileChange{File: w.Path, Status: Unchanged})
		default:
			changes = append(changes, FileChange{File: w.Path, Status: Changed})
			pending = append(pending, w)
		}
	}
	if opts.Prune {
		for _, o := range orphans {
			changes = append(changes, FileChange{File: o.File, Status: Removed})
			pending = append(pending, FileWrite{Path: o.File, Remove: true})
		}
	}
	var clean []string
	for _, l := range leftovers {
		if j == nil || !j.consumes(l.File) {
			clean = append(clean, l.File)
			changes = append(changes, FileChange{File: l.File, Status: Cleaned})
		}
	}
	if opts.DryRun {
		return changes, nil, nil
	}
	for _, l := range clean {
		if err := os.Remove(l); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("remove %s, left by an interrupted record: %w", l, err)
		}
	}
	if err := writeFiles(ctx, pending, s.opts.goldenDir(), h); err != nil {
		return nil, nil, err
	}
	// The suite's view of the golden directory is the one the record
	// left: a replay on the same suite must not find the orphans it
	// pruned or the sidecars it removed.
	s.orphans = nil
	if err := s.scanGolden(); err != nil {
		return nil, nil, err
	}
	if s.leftovers, _, err = findLeftovers(s.opts.goldenDir(), s.opts.fixturesDir()); err != nil {
		return nil, nil, fmt.Errorf("golden: %w", err)
	}
	return changes, nil, nil
}

// unreadable returns a failure for each file of files larger than the
// limit replay and record read a file to (Options.MaxFileSize): written,
// it would make every later replay of its fixture fail as untestable.
func (s *Suite) unreadable(files []FileWrite) []Failure {
	var fails []Failure
	for _, w := range files {
		if limit := s.opts.maxFileSize(); int64(len(w.Data)) > int64(limit) {
			fails = append(fails, Failure{Check: CheckInvalid, File: w.Path,
				Msg: fmt.Sprintf("not written: replay could not read it back: %v", tooLarge(int64(len(w.Data)), limit))})
		}
	}
	return fails
}

// rollBackFirst rolls back the journal a killed record left, under the
// golden directory's lock, and loads the suite again from the files as
// they are then. It returns the changes to report, none when there was
// no journal.
func (s *Suite) rollBackFirst(ctx context.Context, opts RecordOptions, h txnHooks) ([]FileChange, error) {
	if _, j, err := findLeftovers(s.opts.goldenDir(), s.opts.fixturesDir()); err != nil || j == nil {
		return nil, err
	}
	changes, err := func() ([]FileChange, error) {
		unlock, err := lockDir(ctx, s.opts.goldenDir(), opts.lockWait())
		if err != nil {
			return nil, err
		}
		defer unlock()
		// Under the lock, the journal is still there unless another
		// record rolled it back meanwhile.
		_, j, err := findLeftovers(s.opts.goldenDir(), s.opts.fixturesDir())
		if err != nil || j == nil {
			return nil, err
		}
		restored, err := j.rollBack(h)
		if err != nil {
			return nil, err
		}
		changes := []FileChange{{File: j.path, Status: RolledBack, Note: rolledBackNote(restored, len(j.files))}}
		for _, r := range restored {
			changes = append(changes, FileChange{File: r, Status: Restored})
		}
		return changes, nil
	}()
	if err != nil || changes == nil {
		return nil, err
	}
	// Loaded once the lock is released: Load waits for it when it finds
	// what an interrupted record left.
	fresh, err := load(ctx, s.opts)
	if err != nil {
		return nil, fmt.Errorf("after rolling back an interrupted record: %w", err)
	}
	fresh.run, fresh.listen = s.run, s.listen
	*s = *fresh
	return changes, nil
}

// context is the suite's Options.Context, or the background context.
func (s *Suite) context() context.Context { return s.opts.context() }

// orContext is ctx, or the suite's context when ctx is nil: a nil
// context passed to a …Context method would panic only once an agent
// ran, far from the call that passed it.
func (s *Suite) orContext(ctx context.Context) context.Context {
	if ctx == nil {
		return s.context()
	}
	return ctx
}

// context is Options.Context, or the background context.
func (o Options) context() context.Context {
	if o.Context != nil {
		return o.Context
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
// the old contents kept aside (as .NAME.headergold-old, a hard link or a
// synced copy), then the new ones renamed over the targets (and removals
// done), and the directories synced; the backups are removed once every
// step has succeeded. A file replaced keeps its permission bits; a new
// one gets 0644.
//
// A failure at any point — a write, a backup, a rename, a directory sync
// — restores every target to its old bytes (or absence) and leaves no
// temp file or backup behind; if the restoring itself fails, the error
// says so. A process killed in the middle leaves each target either old
// or new, and dot files that [Suite.Findings] reports and the next
// [Suite.Record] removes. [Suite.Record] also keeps a journal of its
// transaction in the golden directory, by which the next record rolls
// back a record that was killed between its first rename and its last;
// WriteFiles, which knows no golden directory, keeps none, so a kill
// part way through its renames may leave some targets old and some new.
func WriteFiles(files []FileWrite) error { return WriteFilesContext(context.Background(), files) }

// WriteFilesContext is [WriteFiles] that also stops, and rolls back, when
// ctx is done before every file is in place.
func WriteFilesContext(ctx context.Context, files []FileWrite) error {
	return writeFiles(ctx, files, "", txnHooks{})
}

// txnHooks lets tests inject failures into writeFiles and the rollback of
// a journal, or kill the process at one of their steps; zero fields mean
// the real operations.
type txnHooks struct {
	// fail is called before each step: "write", "backup" and "rename" of
	// the i-th file, "sync" of the i-th directory, "journal" 0 before the
	// journal is written and 1 before it is renamed into place, "commit"
	// before it is removed, "cleanup" of the i-th backup after that (whose
	// result is ignored: the transaction is done), and in a rollback
	// (in process, or from a journal) "undo" of the i-th file, then
	// "undo-temp" and "undo-journal". A non-nil result aborts there.
	fail    func(step string, i int) error
	link    func(oldname, newname string) error
	copy    func(dst io.Writer, src io.Reader) (int64, error)
	syncDir func(dir string) error
}

// at runs before each step: a test may fail it.
func (h txnHooks) at(step string, i int) error {
	if h.fail != nil {
		return h.fail(step, i)
	}
	return nil
}

// step runs before each step of writeFiles until the commit: it aborts
// the transaction when ctx is done (or a test injects a failure).
func (h txnHooks) step(ctx context.Context, step string, i int) error {
	if err := h.at(step, i); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return interrupted(ctx, "while writing")
	}
	return nil
}

// writeFiles is [WriteFilesContext], keeping the transaction's journal in
// journalDir (see journal.go) unless it is "".
func writeFiles(ctx context.Context, files []FileWrite, journalDir string, h txnHooks) (err error) {
	if len(files) == 0 {
		return nil
	}
	txn := make([]txnFile, len(files))
	for i, f := range files {
		txn[i] = txnFile{target: f.Path, remove: f.Remove}
	}
	done := 0          // files renamed or removed
	journaled := false // the journal is on disk
	var dirs []string  // of the targets
	sync := h.syncDir
	if sync == nil {
		sync = syncDir
	}
	defer func() {
		if err == nil {
			return
		}
		// Undo in reverse: restore each target, then drop what is left.
		var undo []error
		for i := done - 1; i >= 0; i-- {
			f := &txn[i]
			if err := h.at("undo", i); err != nil {
				undo = append(undo, err)
				continue
			}
			if f.backup != "" {
				undo = append(undo, os.Rename(f.backup, f.target))
				f.backup = ""
			} else if !f.remove {
				undo = append(undo, os.Remove(f.target))
			}
		}
		for _, dir := range dirs {
			sync(dir) // best effort: the error being reported comes first
		}
		if u := errors.Join(undo...); u != nil {
			if journaled {
				// The journal, the backups and the temp files stay: the
				// next record rolls back what this one could not.
				err = fmt.Errorf("%w; restoring the old files failed too: %v; the next record restores them from the backups its journal %s names",
					err, u, filepath.Join(journalDir, journalName))
				return
			}
			err = fmt.Errorf("%w; restoring the old files failed too: %v", err, u)
		} else {
			err = fmt.Errorf("%w; no file was changed", err)
		}
		// An untouched target's backup goes before its temp file (see
		// txnFile.replaced), and the journal last.
		for i := range txn {
			if i >= done && txn[i].backup != "" {
				os.Remove(txn[i].backup)
			}
			if txn[i].temp != "" {
				os.Remove(txn[i].temp)
			}
		}
		if journaled && os.Remove(filepath.Join(journalDir, journalName)) == nil {
			sync(journalDir)
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
		txn[i].temp = t
	}
	for i, f := range files {
		_, err := os.Lstat(f.Path)
		switch {
		case err == nil:
			txn[i].existed = true
		case !errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		if dir := filepath.Dir(f.Path); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	if journalDir != "" {
		if err := h.step(ctx, "journal", 0); err != nil {
			return err
		}
		var err error
		if journaled, err = writeJournal(journalDir, txn, h); err != nil {
			return fmt.Errorf("write the journal %s: %w", filepath.Join(journalDir, journalName), err)
		}
	}
	for i, f := range files {
		if !txn[i].existed {
			continue
		}
		if err := h.step(ctx, "backup", i); err != nil {
			return err
		}
		b, err := keepOld(f.Path, h)
		if err != nil {
			return fmt.Errorf("keep the old %s: %w", f.Path, err)
		}
		txn[i].backup = b
	}
	// The backups are durable before any target changes.
	for _, dir := range dirs {
		if err := sync(dir); err != nil {
			return fmt.Errorf("sync directory %s: %w", dir, err)
		}
	}
	for i, f := range files {
		if err := h.step(ctx, "rename", i); err != nil {
			return err
		}
		var err error
		if f.Remove {
			if err = os.Remove(f.Path); errors.Is(err, os.ErrNotExist) {
				err = nil // already gone
			}
		} else {
			err = os.Rename(txn[i].temp, f.Path)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		txn[i].temp = ""
		done++
	}
	for i, dir := range dirs {
		if err := h.step(ctx, "sync", i); err != nil {
			return err
		}
		if err := sync(dir); err != nil {
			return fmt.Errorf("sync directory %s: %w", dir, err)
		}
	}
	if journaled {
		// The commit: without the journal, the next record keeps the new
		// files and only removes the backups, should this one not.
		if err := h.step(ctx, "commit", 0); err != nil {
			return err
		}
		if err := os.Remove(filepath.Join(journalDir, journalName)); err != nil {
			return fmt.Errorf("remove the journal %s: %w", filepath.Join(journalDir, journalName), err)
		}
		journaled = false
		sync(journalDir) // best effort: a journal that comes back only rolls back a record that succeeded
	}
	for i := range txn {
		h.at("cleanup", i)
		if txn[i].backup != "" {
			os.Remove(txn[i].backup)
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
// with the same permissions, made in a temp file and renamed, so that a
// backup is never partial. A copy that fails is removed.
func keepOld(path string, h txnHooks) (string, error) {
	b := backupPath(path)
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
	tmp, err := copyFile(path, h)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, b); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return b, nil
}

// copyFile copies src to a new temp file beside it (a writeFiles temp
// file of src) with src's permissions, synced, and returns its name; on
// failure it leaves none.
func copyFile(src string, h txnHooks) (name string, err error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return "", err
	}
	out, err := os.CreateTemp(filepath.Dir(src), "."+filepath.Base(src)+tempInfix+"*")
	if err != nil {
		return "", err
	}
	name = out.Name()
	cp := h.copy
	if cp == nil {
		cp = io.Copy
	}
	_, werr := cp(out, in)
	serr := out.Sync()
	cerr := out.Close()
	if err := errors.Join(werr, serr, cerr, os.Chmod(name, fi.Mode().Perm())); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
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
