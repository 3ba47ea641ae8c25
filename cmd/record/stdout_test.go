package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

// TestRecordLostReportDoesNotPass: record, record -check and -json exit
// 125 instead of 0 when their report cannot be written to standard
// output, and say so once on stderr; a -check that found something (1)
// and a refusal under CI (3) stand.
func TestRecordLostReportDoesNotPass(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	dirs := []string{"-fixtures", fx, "-golden", gd, "-run", "^(text-turn|tool-turn)$"}
	const msg = "record: writing standard output: no space left on device\n"
	recordTo := func(room int, args ...string) (int, string) {
		t.Helper()
		var errb bytes.Buffer
		code := run(append(dirs[:len(dirs):len(dirs)], args...), &bundletest.FullWriter{Room: room}, &errb)
		return code, errb.String()
	}
	check := func(what string, code int, errs string, want int) {
		t.Helper()
		if code != want || !strings.Contains(errs, msg) || strings.Count(errs, "writing") != 1 {
			t.Errorf("%s: exit %d, stderr\n%s\nwant exit %d and once %q", what, code, errs, want, msg)
		}
	}
	for _, args := range [][]string{nil, {"-check"}, {"-json"}, {"-check", "-json"}, {"-h"}} {
		for _, room := range []int{0, 30} {
			code, errs := recordTo(room, args...)
			check("record "+strings.Join(args, " "), code, errs, exitCannotRun)
		}
	}
	// -check finds a stale golden file (exit 1); its report is lost, and
	// the exit status still says what it found.
	os.WriteFile(filepath.Join(gd, "text-turn.golden"), []byte("stale\n"), 0o644)
	if code, out, errs := record(t, append(dirs, "-check")...); code != exitChanges {
		t.Fatalf("-check on a stale file: exit %d\n%s%s", code, out, errs)
	}
	for _, args := range [][]string{{"-check"}, {"-check", "-json"}} {
		code, errs := recordTo(10, args...)
		check("stale record "+strings.Join(args, " "), code, errs, exitChanges) // the finding holds
	}
	// Refused under CI: 3 says more than the lost -json summary.
	t.Setenv("CI", "true")
	code, errs := recordTo(0, "-json")
	check("record -json under CI", code, errs, exitRefused)
	if !strings.Contains(errs, "record: refusing to write golden files") {
		t.Errorf("record -json under CI: the refusal is not said:\n%s", errs)
	}
}

// TestRecordLogToDevFull: record -o - > /dev/full exits 125 and says
// once why.
func TestRecordLogToDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	t.Setenv("CI", "true")
	fx, gd := copyBundled(t)
	for _, args := range [][]string{{"-o", "-"}, {"-check"}} {
		var errb bytes.Buffer
		code := run(append([]string{"-fixtures", fx, "-golden", gd, "-run", "^text-turn$"}, args...), full, &errb)
		const msg = "record: writing standard output: write /dev/full: no space left on device\n"
		if errs := errb.String(); code != exitCannotRun || !strings.Contains(errs, msg) || strings.Count(errs, "no space left") != 1 {
			t.Errorf("record %s > /dev/full: exit %d, stderr\n%s\nwant exit 125 and once %q", strings.Join(args, " "), code, errs, msg)
		}
	}
}
