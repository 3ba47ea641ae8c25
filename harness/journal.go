package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A record's transaction keeps a journal in the golden directory, so that
// a record killed part way through its renames (SIGKILL, a crash, a power
// cut) can be rolled back by the next one; SIGINT and SIGTERM are rolled
// back in process and never need it.
//
// The journal is golden/.headergold-journal, a JSON object:
//
//	{"headergold-journal": 1, "files": [
//	  {"path": "a.golden", "existed": true, "backup": ".a.golden.headergold-old", "temp": ".a.golden.headergold-tmp-123"},
//	  {"path": "new.golden", "existed": false, "temp": ".new.golden.headergold-tmp-456"},
//	  {"path": "orphan.golden", "existed": true, "remove": true, "backup": ".orphan.golden.headergold-old"},
//	  {"path": "../fixtures/x.json", "existed": true, "backup": ".x.json.headergold-old", "temp": ".x.json.headergold-tmp-789"}]}
//
// one entry per target: its path, slash-separated and relative to the
// golden directory (a fixture written with -upstream is in the fixtures
// directory); whether it existed before the transaction; whether it is
// removed rather than written; the names of its backup and temp file,
// which are beside it. Its life, in writeFiles:
//
//  1. every temp file is written and synced;
//  2. the journal is written to a temp file (.headergold-journal.headergold-tmp-N),
//     synced, renamed into place and the directory synced: from here on a
//     journal on disk is always complete;
//  3. every old target is kept aside as its backup, and the directories
//     are synced;
//  4. the targets are renamed into place (or removed), and the
//     directories synced;
//  5. the journal is removed: that is the commit. Then the backups are.
//
// Whatever the point a record is killed at, the golden directory then
// holds the journal (steps 2–4) and its state can be rolled back: each
// backup goes back over its target, each target that did not exist is
// removed, the temp files are removed, the directories are synced, and
// only then the journal (see [journal.rollBack]). Each of these is
// idempotent, so a rollback killed in its turn is finished by the next
// one. Without a journal (killed in step 1, or after step 5) every
// target is as it was or as it should be, and what is left are temp
// files or backups only, which the next record removes.
const (
	journalName    = ".headergold-journal"
	journalVersion = 1
	// maxJournalSize bounds the journal read back: far more than a
	// record of thousands of files writes.
	maxJournalSize = 16 << 20
)

// journalFile is the journal's JSON.
type journalFile struct {
	Version int            `json:"headergold-journal"`
	Files   []journalEntry `json:"files"`
}

type journalEntry struct {
	Path    string `json:"path"`
	Existed bool   `json:"existed"`
	Remove  bool   `json:"remove,omitempty"`
	Backup  string `json:"backup,omitempty"`
	Temp    string `json:"temp,omitempty"`
}

// txnFile is one target of a transaction, with its paths resolved.
type txnFile struct {
	target  string
	backup  string // kept aside here while the transaction runs; "" for a file that did not exist
	temp    string // the new bytes until they are renamed; "" for a removal
	existed bool
	remove  bool
}

// backupPath is where writeFiles keeps the old bytes of target.
func backupPath(target string) string {
	return filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+backupSuffix)
}

// targetName matches the files a record writes: golden logs, sidecars and
// fixtures.
var targetName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*\.(?:golden|system\.md|tools\.json|json)$`)

// journalTempName matches the temp file of a journal being written.
var journalTempName = regexp.MustCompile(`^` + regexp.QuoteMeta(journalName+tempInfix) + `[0-9]+$`)

// writeJournal writes the journal of files into dir (step 2 above).
// written reports whether the journal is in place, even when syncing the
// directory then failed: it must be removed if the transaction stops.
func writeJournal(dir string, files []txnFile, h txnHooks) (written bool, err error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	j := journalFile{Version: journalVersion, Files: make([]journalEntry, len(files))}
	for i, f := range files {
		abs, err := filepath.Abs(f.target)
		if err != nil {
			return false, err
		}
		path := abs
		if rel, err := filepath.Rel(absDir, abs); err == nil {
			path = rel
		}
		e := journalEntry{Path: filepath.ToSlash(path), Existed: f.existed, Remove: f.remove}
		if f.existed {
			e.Backup = filepath.Base(backupPath(f.target))
		}
		if f.temp != "" {
			e.Temp = filepath.Base(f.temp)
		}
		j.Files[i] = e
	}
	data, err := json.MarshalIndent(j, "", "\t")
	if err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(dir, journalName+tempInfix+"*")
	if err != nil {
		return false, err
	}
	name := tmp.Name()
	_, werr := tmp.Write(append(data, '\n'))
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr, h.at("journal", 1)); err != nil {
		os.Remove(name)
		return false, err
	}
	if err := os.Rename(name, filepath.Join(dir, journalName)); err != nil {
		os.Remove(name)
		return false, err
	}
	sync := h.syncDir
	if sync == nil {
		sync = syncDir
	}
	if err := sync(dir); err != nil {
		return true, fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return true, nil
}

// journal is the journal of an interrupted record, read back.
type journal struct {
	path   string // the journal file
	golden string // the golden directory
	files  []txnFile
}

// readJournal reads the journal in the golden directory, if there is one,
// and checks that every file it names is a golden file or fixture of the
// golden or the fixtures directory, so that rolling it back touches
// nothing else. A journal that is not one writeFiles wrote is an error:
// the golden directory is then put right by hand.
func readJournal(golden, fixtures string) (*journal, error) {
	path := filepath.Join(golden, journalName)
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s; it should be the journal of an interrupted record, which the next record rolls back: "+
			"put the golden files back by hand (each .NAME.headergold-old beside one holds its old bytes), then delete it", path, fmt.Sprintf(format, args...))
	}
	if !fi.Mode().IsRegular() {
		return nil, bad("not a regular file (%v)", fi.Mode().Type())
	}
	if fi.Size() > maxJournalSize {
		return nil, bad("%d bytes, more than a journal has", fi.Size())
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // a record writing now has just committed
	}
	if err != nil {
		return nil, err
	}
	var jf journalFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&jf); err != nil {
		return nil, bad("not valid: %v", err)
	}
	if jf.Version != journalVersion {
		return nil, bad("version %d, which this record does not know (it knows %d)", jf.Version, journalVersion)
	}
	dirs := map[string]bool{}
	for _, d := range []string{golden, fixtures} {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		dirs[abs] = true
	}
	j := &journal{path: path, golden: golden}
	seen := map[string]bool{}
	for i, e := range jf.Files {
		target := filepath.FromSlash(e.Path)
		if !filepath.IsAbs(target) {
			target = filepath.Join(golden, target)
		}
		abs, err := filepath.Abs(target)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(target)
		switch {
		case !dirs[filepath.Dir(abs)] || !targetName.MatchString(base):
			return nil, bad("file %d, %q, is no golden file or fixture of %s or %s", i+1, e.Path, golden, fixtures)
		case seen[abs]:
			return nil, bad("file %d, %q, is there twice", i+1, e.Path)
		case e.Existed != (e.Backup != "") || (e.Backup != "" && e.Backup != filepath.Base(backupPath(target))):
			return nil, bad("file %d, %q: backup %q", i+1, e.Path, e.Backup)
		case e.Remove != (e.Temp == "") || (e.Temp != "" && !isTempOf(e.Temp, base)):
			return nil, bad("file %d, %q: temp file %q", i+1, e.Path, e.Temp)
		}
		seen[abs] = true
		f := txnFile{target: target, existed: e.Existed, remove: e.Remove}
		if e.Backup != "" {
			f.backup = backupPath(target)
		}
		if e.Temp != "" {
			f.temp = filepath.Join(filepath.Dir(target), e.Temp)
		}
		j.files = append(j.files, f)
	}
	return j, nil
}

// isTempOf reports whether name is a writeFiles temp file of base.
func isTempOf(name, base string) bool {
	n, ok := strings.CutPrefix(name, "."+base+tempInfix)
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// exists reports whether path exists (an error other than not existing
// counts as existing, so that nothing is taken for absent that is not).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// replaced reports whether the interrupted record had already put f's new
// state in place (renamed its temp file over it, created it, removed it).
// The order of writeFiles and of the rollbacks decides it: a temp file
// exists until it is renamed; a backup exists from before the rename until
// a rollback puts it back, and is removed before the temp file when an
// untouched target's transaction is undone.
func (f txnFile) replaced() bool {
	switch {
	case !f.existed && f.remove:
		return false // nothing was there, nothing is
	case !f.existed:
		return exists(f.target)
	case f.remove:
		return !exists(f.target)
	}
	if !exists(f.backup) || exists(f.temp) {
		return false
	}
	a, aerr := os.Stat(f.target)
	b, berr := os.Stat(f.backup)
	return aerr != nil || berr != nil || !os.SameFile(a, b)
}

// oldPath returns the file that holds the old bytes of target now ("" for
// a target that did not exist before the interrupted record), or target
// itself when the journal does not name it.
func (j *journal) oldPath(target string) string {
	abs, _ := filepath.Abs(target)
	for _, f := range j.files {
		if fa, _ := filepath.Abs(f.target); fa != abs {
			continue
		}
		switch {
		case !f.existed:
			return ""
		case exists(f.backup):
			return f.backup
		}
		return target
	}
	return target
}

// consumes reports whether rolling back uses up path: the journal itself,
// the backups it restores and the temp files it removes are not leftovers
// to clean.
func (j *journal) consumes(path string) bool {
	if path == j.path {
		return true
	}
	for _, f := range j.files {
		if f.backup == path || f.temp == path {
			return true
		}
	}
	return false
}

// counts lists the files the interrupted record had replaced, and counts
// those it had not.
func (j *journal) counts() (replaced []string, old int) {
	for _, f := range j.files {
		if f.replaced() {
			replaced = append(replaced, f.target)
		} else {
			old++
		}
	}
	return replaced, old
}

// describe says what the interrupted record left, for replay and record
// -check.
func (j *journal) describe() string {
	replaced, old := j.counts()
	if len(replaced) == 0 {
		return fmt.Sprintf("an interrupted record wrote this journal but had replaced none of its %s yet: every golden file is old; the next record removes the journal and the temp files and backups beside it",
			files(len(j.files)))
	}
	return fmt.Sprintf("an interrupted record left the golden directory partly written: %s new (%s) and %d old; "+
		"the old bytes are in the .NAME.headergold-old backups beside them, and the next record restores the old files, then records",
		files(len(replaced)), someNames(replaced), old)
}

// rolledBackNote says what a rollback did.
func rolledBackNote(restored []string, total int) string {
	if len(restored) == 0 {
		return fmt.Sprintf("rolled back an interrupted record, which had replaced none of its %s yet", files(total))
	}
	return fmt.Sprintf("rolled back an interrupted record: restored %s of its %d to their old state: %s",
		files(len(restored)), total, someNames(restored))
}

// namedFiles is how many files a journal's message names: a record of
// hundreds of files killed in its write would otherwise make it a line
// of kilobytes. The others are counted; the journal names them all, and
// record -json lists each it restores.
const namedFiles = 5

// someNames lists the first namedFiles of names, then counts the rest.
func someNames(names []string) string {
	if len(names) <= namedFiles {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(names[:namedFiles], ", "), len(names)-namedFiles)
}

// files is "1 file" or "N files".
func files(n int) string { return fmt.Sprintf("%d file%s", n, plural(n, "", "s")) }

// rollBack puts every file of the journal back in its old state: each
// backup over its target (or, being the target itself still, removed),
// each target that did not exist removed; then it syncs the directories,
// removes the temp files and, last, the journal. It returns the targets
// that had been replaced. Every step can be done again: a rollback that
// stops (killed, or failing) leaves the journal, and the next one
// finishes it.
func (j *journal) rollBack(h txnHooks) (restored []string, err error) {
	var dirs []string
	var errs []error
	for i, f := range j.files {
		if err := h.at("undo", i); err != nil {
			errs = append(errs, err)
			continue
		}
		if f.replaced() {
			restored = append(restored, f.target)
		}
		if dir := filepath.Dir(f.target); !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
		if err := undoFile(f); err != nil {
			errs = append(errs, err)
		}
	}
	sync := h.syncDir
	if sync == nil {
		sync = syncDir
	}
	for _, dir := range dirs {
		errs = append(errs, sync(dir))
	}
	if err := errors.Join(errs...); err != nil {
		return restored, fmt.Errorf("roll back the interrupted record of %s: %w; the journal is kept, so the next record tries again", j.path, err)
	}
	for i, f := range j.files {
		if err := h.at("undo-temp", i); err != nil {
			return restored, err
		}
		if f.temp != "" {
			if err := os.Remove(f.temp); err != nil && !errors.Is(err, os.ErrNotExist) {
				return restored, fmt.Errorf("roll back the interrupted record of %s: %w", j.path, err)
			}
		}
	}
	if err := h.at("undo-journal", 0); err != nil {
		return restored, err
	}
	if err := os.Remove(j.path); err != nil {
		return restored, fmt.Errorf("roll back the interrupted record: %w", err)
	}
	sync(filepath.Dir(j.path)) // best effort: a journal that comes back is rolled back again, doing nothing
	return restored, nil
}

// undoFile puts one target back in its old state.
func undoFile(f txnFile) error {
	if !f.existed {
		if f.remove {
			return nil
		}
		if err := os.Remove(f.target); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, err := os.Lstat(f.backup)
	if errors.Is(err, os.ErrNotExist) {
		return nil // never replaced, or already put back
	}
	if err != nil {
		return err
	}
	if t, err := os.Lstat(f.target); err == nil && os.SameFile(t, b) {
		// Not replaced: the backup is a hard link to the target, which a
		// rename over it would leave in place.
		return os.Remove(f.backup)
	}
	return os.Rename(f.backup, f.target)
}
