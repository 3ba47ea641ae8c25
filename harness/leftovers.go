package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
)

// leftoverName matches the temp files and backups a killed record leaves
// beside a golden file or fixture: .NAME.headergold-tmp-N and
// .NAME.headergold-old, and the names older versions used,
// .NAME.tmp-N and NAME.headergold-old.
var leftoverName = regexp.MustCompile(`^(?:\.([a-z0-9][a-z0-9-]*\.(?:golden|system\.md|tools\.json|json))(?:\.headergold-tmp-[0-9]+|\.headergold-old|\.tmp-[0-9]+)|([a-z0-9][a-z0-9-]*\.(?:golden|system\.md|tools\.json|json))\.headergold-old)$`)

// leftoverOf returns the file a leftover's name belongs to, or "".
func leftoverOf(name string) string {
	m := leftoverName.FindStringSubmatch(name)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

// findLeftovers lists the leftovers of interrupted records in the golden
// and the fixtures directory as findings, by path, and reads the journal
// of a record killed while it replaced files, if there is one: then its
// finding comes first and says which files it had replaced, and those of
// its backups and temp files say what they hold. A missing directory has
// none.
func findLeftovers(golden, fixtures string) ([]Finding, *journal, error) {
	j, err := readJournal(golden, fixtures)
	if err != nil {
		return nil, nil, err
	}
	var out []Finding
	if j != nil {
		out = append(out, Finding{Kind: Leftover, File: j.path, Msg: j.describe()})
	}
	ofJournal := map[string]string{} // backup and temp files of the journal's targets: what they are
	if j != nil {
		for _, f := range j.files {
			replaced := f.replaced()
			switch {
			case f.backup != "" && replaced:
				ofJournal[f.backup] = fmt.Sprintf("the old bytes of %s, which an interrupted record replaced; the next record puts them back (see %s)", f.target, j.path)
			case f.backup != "":
				ofJournal[f.backup] = fmt.Sprintf("a backup of %s, which an interrupted record had not replaced yet; the next record removes it", f.target)
			}
			if f.temp != "" {
				ofJournal[f.temp] = fmt.Sprintf("the new bytes of %s, which an interrupted record had not put in place; the next record removes it", f.target)
			}
		}
	}
	dirs := []string{golden, fixtures}
	for i, dir := range dirs {
		if slices.Contains(dirs[:i], dir) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			if e.IsDir() || (j != nil && path == j.path) {
				continue
			}
			msg, ok := ofJournal[path]
			switch of := leftoverOf(e.Name()); {
			case ok:
			case of != "":
				msg = fmt.Sprintf("left by an interrupted record (a temp file or backup of %s); the next record removes it", of)
			case i == 0 && journalTempName.MatchString(e.Name()):
				msg = "the journal of an interrupted record, which it was writing when it stopped, before it replaced any file; the next record removes it"
			default:
				continue
			}
			out = append(out, Finding{Kind: Leftover, File: path, Msg: msg})
		}
	}
	return out, j, nil
}
