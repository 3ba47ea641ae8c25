package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckOutput returns an error when writing a file at path (record -o)
// could touch the suite's own files: when path, with every symlink in it
// resolved (its directory's, and its own if it is one), lies inside the
// fixtures or the golden directory, or when it is an existing fixture or
// golden file under another name (a hard link, a bind mount, a path that
// differs only in case on a file system that ignores it). It writes
// nothing.
func (s *Suite) CheckOutput(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	// What a write replaces is the directory entry: its directory, with
	// links resolved, and its name. A link there is followed as well, so a
	// link into golden/ is refused rather than quietly replaced.
	targets := []string{filepath.Join(resolve(filepath.Dir(abs)), filepath.Base(abs))}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if dest, err := filepath.EvalSymlinks(abs); err == nil {
			targets = append(targets, dest)
		} else if dest, err := os.Readlink(abs); err == nil {
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(abs), dest)
			}
			targets = append(targets, filepath.Join(resolve(filepath.Dir(dest)), filepath.Base(dest)))
		}
	}
	dirs := []struct{ what, dir string }{
		{"the golden directory", s.opts.goldenDir()},
		{"the fixtures directory", s.opts.fixturesDir()},
	}
	for _, t := range targets {
		for _, d := range dirs {
			if insideDir(t, d.dir) {
				return fmt.Errorf("%s resolves to %s, inside %s %s; -o writes a full log for comparison and never touches golden files or fixtures",
					path, t, d.what, d.dir)
			}
		}
	}
	for _, t := range targets {
		fi, err := os.Stat(t)
		if err != nil {
			continue
		}
		for _, d := range dirs {
			entries, err := os.ReadDir(d.dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				own := filepath.Join(d.dir, e.Name())
				if oi, err := os.Stat(own); err == nil && os.SameFile(fi, oi) {
					return fmt.Errorf("%s is %s, a file of %s %s; -o never overwrites golden files or fixtures", path, own, d.what, d.dir)
				}
			}
		}
	}
	return nil
}

// insideDir reports whether path, already resolved, lies in dir or below: by
// name, after resolving dir's links, and by identity of each ancestor
// directory of path with dir.
func insideDir(path, dir string) bool {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for _, d := range []string{absDir, resolve(absDir)} {
		if rel, err := filepath.Rel(d, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	di, err := os.Stat(absDir)
	if err != nil {
		return false
	}
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		if pi, err := os.Stat(p); err == nil && os.SameFile(pi, di) {
			return true
		}
		if next := filepath.Dir(p); next == p {
			return false
		}
	}
}

// resolve returns the absolute path p with the symlinks of its longest
// existing prefix resolved; the missing rest is appended as written.
func resolve(p string) string {
	p, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	var rest []string
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		} else if !errors.Is(err, os.ErrNotExist) {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(append([]string{p}, rest...)...)
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
