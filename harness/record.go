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
		writes = append(writes, FileWrite{s.goldenPath(f.Name), out.Golden})
		if f.Pin {
			writes = append(writes, FileWrite{s.systemPath(f.Name), out.System}, FileWrite{s.toolsPath(f.Name), out.Tools})
		}
	}
	if len(failed) > 0 {
		return nil, failed, fmt.Errorf("%d fixture(s) fail their checks; nothing was written", len(failed))
	}
	changes := make([]FileChange, 0, len(writes))
	var pending []FileWrite
	for _, w := range writes {
		old, err := os.ReadFile(w.Path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			changes = append(changes, FileChange{w.Path, Created})
			pending = append(pending, w)
		case err != nil:
			return nil, nil, fmt.Errorf("record: %w", err)
		case bytes.Equal(old, w.Data):
			changes = append(changes, FileChange{w.Path, Unchanged})
		default:
			changes = append(changes, FileChange{w.Path, Changed})
			pending = append(pending, w)
		}
	}
	var remove []string
	if opts.Prune {
		for _, file := range s.Orphans() {
			changes = append(changes, FileChange{file, Removed})
			remove = append(remove, file)
		}
	}
	if opts.DryRun {
		return changes, nil, nil
	}
	if len(pending) > 0 {
		if err := os.MkdirAll(s.opts.goldenDir(), 0o755); err != nil {
			return nil, nil, fmt.Errorf("record: %w", err)
		}
	}
	if err := WriteFiles(pending, nil); err != nil {
		return nil, nil, err
	}
	for _, file := range remove {
		if err := os.Remove(file); err != nil {
			return changes, nil, fmt.Errorf("prune: %w", err)
		}
	}
	return changes, nil, nil
}

// FileWrite is one file to write.
type FileWrite struct {
	Path string
	Data []byte
}

// WriteFiles writes every file or none. Each file's new bytes go to a temp
// file in its own directory and are synced; only when all are written are
// they renamed over the targets, the old contents kept aside until every
// rename has succeeded. A failure at any point restores every target to its
// old bytes (or absence) and leaves no temp file behind.
//
// fail, when not nil, is called before each step ("write" or "rename" of
// the i-th file) and a non-nil result aborts there: tests use it to inject
// failures.
func WriteFiles(files []FileWrite, fail func(step string, i int) error) (err error) {
	temps := make([]string, 0, len(files))
	backups := make(map[int]string)
	renamed := 0
	defer func() {
		if err == nil {
			for _, b := range backups {
				os.Remove(b)
			}
			return
		}
		// Undo in reverse: restore each renamed target, then drop temps.
		for i := renamed - 1; i >= 0; i-- {
			if b, ok := backups[i]; ok {
				os.Rename(b, files[i].Path)
			} else {
				os.Remove(files[i].Path)
			}
		}
		for i := renamed; i < len(files); i++ {
			if b, ok := backups[i]; ok {
				os.Remove(b)
			}
		}
		for _, t := range temps[renamed:] {
			os.Remove(t)
		}
	}()
	for i, f := range files {
		if fail != nil {
			if err := fail("write", i); err != nil {
				return err
			}
		}
		t, err := writeTemp(f)
		if err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		temps = append(temps, t)
	}
	for i, f := range files {
		if fail != nil {
			if err := fail("rename", i); err != nil {
				return err
			}
		}
		if _, err := os.Stat(f.Path); err == nil {
			b := f.Path + ".headergold-old"
			os.Remove(b) // left by a crashed run
			if err := os.Link(f.Path, b); err != nil {
				return fmt.Errorf("keep old %s: %w", f.Path, err)
			}
			backups[i] = b
		}
		if err := os.Rename(temps[i], f.Path); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
		renamed++
	}
	return nil
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
