package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File statuses reported by [Suite.Record].
const (
	Created   = "created"
	Changed   = "changed"
	Unchanged = "unchanged"
	Removed   = "removed"
)

// FileChange is what recording did, or would do, to one file.
type FileChange struct {
	File   string
	Status string // Created, Changed, Unchanged or Removed
}

// RecordOptions tunes [Suite.Record].
type RecordOptions struct {
	// DryRun computes the changes without writing anything.
	DryRun bool
	// Prune removes golden files that belong to no fixture.
	Prune bool
}

// Record runs the selected fixtures and writes their golden logs and pin
// sidecars. Every selected fixture is run and checked (rebuild, uniformity
// and permutation) before anything is written: a fixture that fails those
// checks would record bytes that do not replay, so then nothing is written
// and the failures are returned. The files are written as one transaction
// (see [WriteFiles]).
func (s *Suite) Record(opts RecordOptions) ([]FileChange, []*Result, error) {
	var writes []FileWrite
	var failed []*Result
	for _, f := range s.Fixtures() {
		out, res := s.Check(f)
		if !res.Passed() {
			failed = append(failed, res)
			continue
		}
		writes = append(writes, FileWrite{Path: s.goldenPath(f.Name), Data: out.Golden})
		writes = append(writes, out.extra...)
		if f.Pin {
			writes = append(writes, FileWrite{Path: s.systemPath(f.Name), Data: out.System}, FileWrite{Path: s.toolsPath(f.Name), Data: out.Tools})
		}
	}
	if len(failed) > 0 {
		return nil, failed, fmt.Errorf("%d fixture(s) fail their checks; nothing was written", len(failed))
	}
	changes := make([]FileChange, 0, len(writes))
	var pending []FileWrite
	for _, w := range writes {
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
		for _, file := range s.Orphans() {
			changes = append(changes, FileChange{file, Removed})
			pending = append(pending, FileWrite{Path: file, Remove: true})
		}
	}
	if opts.DryRun {
		return changes, nil, nil
	}
	if len(pending) > 0 {
		if err := os.MkdirAll(s.opts.goldenDir(), 0o755); err != nil {
			return nil, nil, err
		}
	}
	if err := WriteFiles(pending); err != nil {
		return nil, nil, err
	}
	return changes, nil, nil
}

// FileWrite is one file to write, or with Remove set, to delete.
type FileWrite struct {
	Path   string
	Data   []byte
	Remove bool
}

// WriteFiles writes (and removes) every file or none. Each file's new bytes
// go to a temp file in its own directory and are synced; only when all are
// written are they renamed over the targets (and removals done), the old
// contents kept aside until every step has succeeded, and the directories
// synced. A failure at any point restores every target to its old bytes (or
// absence) and leaves no temp file behind; if the restoring itself fails,
// the error says so.
func WriteFiles(files []FileWrite) error { return writeFiles(files, nil) }

// writeFiles is WriteFiles with a hook for tests: fail, when not nil, is
// called before each step ("write" or "rename" of the i-th file) and a
// non-nil result aborts there.
func writeFiles(files []FileWrite, fail func(step string, i int) error) (err error) {
	temps := make([]string, len(files))
	backups := make(map[int]string)
	done := 0 // files renamed or removed
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
			} else if !files[i].Remove {
				undo = append(undo, os.Remove(files[i].Path))
			}
		}
		if u := errors.Join(undo...); u != nil {
			err = fmt.Errorf("%w; restoring the old files failed too: %v", err, u)
		}
		for i := done; i < len(files); i++ {
			if b, ok := backups[i]; ok {
				os.Remove(b)
			}
			if temps[i] != "" {
				os.Remove(temps[i])
			}
		}
	}()
	for i, f := range files {
		if fail != nil {
			if err := fail("write", i); err != nil {
				return err
			}
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
	dirs := map[string]bool{}
	for i, f := range files {
		if fail != nil {
			if err := fail("rename", i); err != nil {
				return err
			}
		}
		if _, err := os.Lstat(f.Path); err == nil {
			b, err := keepOld(f.Path)
			if err != nil {
				return fmt.Errorf("keep old %s: %w", f.Path, err)
			}
			backups[i] = b
		}
		if f.Remove {
			err = os.Remove(f.Path)
		} else {
			err = os.Rename(temps[i], f.Path)
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		done++
		dirs[filepath.Dir(f.Path)] = true
	}
	for dir := range dirs {
		syncDir(dir)
	}
	return nil
}

// keepOld keeps the current bytes of path beside it until the transaction
// ends: a hard link where the file system has them, else a copy.
func keepOld(path string) (string, error) {
	b := path + ".headergold-old"
	os.Remove(b) // left by a crashed run
	if err := os.Link(path, b); err == nil {
		return b, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return b, os.WriteFile(b, data, 0o644)
}

// syncDir makes renames in dir durable; file systems that cannot sync a
// directory are left to their defaults.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// writeTemp writes f's bytes to a synced temp file beside f.Path.
func writeTemp(f FileWrite) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), "."+filepath.Base(f.Path)+".tmp-*")
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
	if err := os.Chmod(name, 0o644); err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}
