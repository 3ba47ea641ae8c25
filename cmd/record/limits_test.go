package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordMaxFileSize: -max-file-size bounds what record reads, with a
// message naming the file and the flag.
func TestRecordMaxFileSize(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	before := snapshot(t, gd)
	code, _, errs := record(t, "-fixtures", fx, "-golden", gd, "-max-file-size", "100")
	if code != exitCannotRun || !strings.Contains(errs, filepath.Join(fx, "")) || !strings.Contains(errs, "over the limit of 100B for one file") ||
		!strings.Contains(errs, "-max-file-size") {
		t.Errorf("exit %d, %q", code, errs)
	}
	sameSnapshot(t, before, snapshot(t, gd))
	if code, _, errs := record(t, "-fixtures", fx, "-golden", gd, "-max-file-size", "lots"); code != exitUsage || !strings.Contains(errs, `size "lots"`) {
		t.Errorf("-max-file-size lots: exit %d, %q", code, errs)
	}
	if code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-max-file-size", "1MiB", "-check"); code != exitOK {
		t.Errorf("-max-file-size 1MiB: exit %d\n%s%s", code, out, errs)
	}
}
