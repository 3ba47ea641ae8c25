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

// findLeftovers lists the leftovers of interrupted records in dirs (the
// golden and the fixtures directory) as findings, by path. A missing
// directory has none.
func findLeftovers(dirs ...string) ([]Finding, error) {
	var out []Finding
	for i, dir := range dirs {
		if slices.Contains(dirs[:i], dir) {
			continue
		}
		entries, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if of := leftoverOf(e.Name()); of != "" && !e.IsDir() {
				out = append(out, Finding{Kind: Leftover, File: filepath.Join(dir, e.Name()),
					Msg: fmt.Sprintf("left by an interrupted record (a temp file or backup of %s); the next record removes it", of)})
			}
		}
	}
	return out, nil
}
