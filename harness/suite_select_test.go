package harness

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// selectionDir writes fixtures a-child (extending z-base), m and z-base.
func selectionDir(t *testing.T) Options {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "z-base.json"), `{"description": "base", "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "a-child.json"), `{"description": "child", "extends": "z-base", "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "m.json"), `{"description": "m", "turns": [{"user": "u", "replies": [{"text": "ok"}]}]}`)
	return Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Seed: 1}
}

func fixtureNames(list []*Fixture) string {
	var names []string
	for _, f := range list {
		names = append(names, f.Name)
	}
	return strings.Join(names, " ")
}

// TestFixturesByName: Fixtures lists by name, although a fixture's parent
// is loaded right after it.
func TestFixturesByName(t *testing.T) {
	s := mustLoad(t, selectionDir(t))
	if got := fixtureNames(s.Fixtures()); got != "a-child m z-base" {
		t.Errorf("Fixtures() = %s, want a-child m z-base", got)
	}
}

// TestFixturesUnderRun: with Run, Fixtures lists only the selected
// fixtures; the parent loaded for one of them is not among them.
func TestFixturesUnderRun(t *testing.T) {
	opts := selectionDir(t)
	opts.Run = regexp.MustCompile(`child`)
	s := mustLoad(t, opts)
	if got := fixtureNames(s.Fixtures()); got != "a-child" {
		t.Errorf("Fixtures() = %s, want a-child", got)
	}
	if s.Fixture("z-base") == nil {
		t.Error("the parent z-base is not loaded")
	}
}

// TestReadRegularSeesAFileGrow: a regular file whose Stat says 0 bytes
// (as /proc's do) is still held to the limit while it is read.
func TestReadRegularSeesAFileGrow(t *testing.T) {
	const path = "/proc/self/status"
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() {
		t.Skip("no /proc/self/status of size 0")
	}
	b, err := readRegular(path, 16)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != path || !strings.Contains(err.Error(), "is over the limit of 16B for one file") {
		t.Errorf("readRegular = %d bytes, %v; want the limit's error", len(b), err)
	}
	if b, err := readRegular(path, DefaultMaxFileSize); err != nil || !strings.Contains(string(b), "Name:") {
		t.Errorf("readRegular under the default limit = %q, %v", b, err)
	}
}

// TestDotFilesInTheFixturesDirectory: editors' dot files are not
// fixtures, and a journal's temp name means something only in the golden
// directory.
func TestDotFilesInTheFixturesDirectory(t *testing.T) {
	opts := selectionDir(t)
	writeFile(t, filepath.Join(opts.Fixtures, ".m.json"), "not json: an editor's backup")
	writeFile(t, filepath.Join(opts.Fixtures, ".headergold-journal.headergold-tmp-5"), "mine")
	s := mustLoad(t, opts)
	if got := fixtureNames(s.Fixtures()); got != "a-child m z-base" {
		t.Errorf("Fixtures() = %s, want a-child m z-base", got)
	}
	for _, f := range s.Findings() {
		t.Errorf("finding %s", f)
	}
}

// TestLeftoverOfOneDirectoryReportedOnce: with the golden files beside
// the fixtures, a leftover there is one finding.
func TestLeftoverOfOneDirectoryReportedOnce(t *testing.T) {
	opts := selectionDir(t)
	opts.Golden = opts.Fixtures
	left := filepath.Join(opts.Fixtures, ".m.golden.headergold-tmp-3")
	writeFile(t, left, "partial")
	s := mustLoad(t, opts)
	if fs := s.Findings(); len(fs) != 1 || fs[0].Kind != Leftover || fs[0].File != left {
		t.Errorf("findings %v, want the one leftover %s", fs, left)
	}
}
