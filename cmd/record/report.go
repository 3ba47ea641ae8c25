package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/cliflags"
)

// reporter writes what record did, as text (files on stdout, failures on
// stderr) or, with -json, as one JSON object per line on stdout.
type reporter struct {
	stdout, stderr io.Writer
	js             *json.Encoder
	check          bool
}

func newReporter(stdout, stderr io.Writer, asJSON, check bool) *reporter {
	r := &reporter{stdout: stdout, stderr: stderr, check: check}
	if asJSON {
		r.js = json.NewEncoder(stdout)
		r.js.SetEscapeHTML(false)
	}
	return r
}

// fileReport is the -json object of one file.
type fileReport struct {
	File   string `json:"file"`
	Status string `json:"status"` // created, changed, unchanged, removed, cleaned, skipped, orphan, sidecar, rolled-back, restored
	Note   string `json:"note,omitempty"`
}

// fixtureReport is the -json object of a fixture that failed its checks.
type fixtureReport struct {
	Fixture   string          `json:"fixture"`
	Status    string          `json:"status"` // fail or invalid
	Seed      uint64          `json:"seed"`
	Reproduce string          `json:"reproduce,omitempty"`
	Failures  []failureReport `json:"failures"`
}

// failureReport is one failure, with the first difference of a
// comparison as replay -json gives it.
type failureReport struct {
	Check      string   `json:"check"`
	File       string   `json:"file,omitempty"`
	Line       int      `json:"line,omitempty"`
	Message    string   `json:"message"`
	Path       string   `json:"path,omitempty"`
	Want       string   `json:"want,omitempty"`
	Got        string   `json:"got,omitempty"`
	Kinds      []string `json:"kinds,omitempty"`
	CacheLines []string `json:"cacheLines,omitempty"`
}

// summaryReport is the last -json object.
type summaryReport struct {
	Summary   bool `json:"summary"`
	Check     bool `json:"check"` // -check: nothing was written, and the counts are what a record would do
	Created   int  `json:"created"`
	Changed   int  `json:"changed"`
	Unchanged int  `json:"unchanged"`
	Removed   int  `json:"removed"`
	Cleaned   int  `json:"cleaned"`
	Skipped   int  `json:"skipped"`
	// RolledBack: the journal of a killed record was (with -check, would
	// be) rolled back first; Restored counts the files it put back.
	RolledBack bool   `json:"rolledBack"`
	Restored   int    `json:"restored"`
	Stray      int    `json:"stray"`  // orphans and sidecars replay would fail on
	Failed     int    `json:"failed"` // fixtures that failed their checks
	Error      string `json:"error,omitempty"`
	// Fixtures are the fixtures that did not load, when that stopped
	// record (Error names them too), as replay -json gives them.
	Fixtures []cliflags.InvalidFixture `json:"invalidFixtures,omitempty"`
}

// failed reports a fixture that failed its checks, and the command line
// that runs the same runs again ("" when no seed would).
func (r *reporter) failed(res *harness.Result, reproduce string) {
	if r.js != nil {
		fr := fixtureReport{Fixture: res.Fixture, Status: "fail", Seed: res.Seed, Reproduce: reproduce, Failures: []failureReport{}}
		if res.Invalid() {
			fr.Status = "invalid"
		}
		for _, f := range res.Failures {
			x := failureReport{Check: string(f.Check), File: f.File, Line: f.Line, Message: f.Msg}
			if m := f.Mismatch; m != nil {
				x.Path, x.Want, x.Got, x.Kinds, x.CacheLines = m.Path, m.Want, m.Got, m.Kinds, m.Cache
			}
			fr.Failures = append(fr.Failures, x)
		}
		r.js.Encode(fr)
		return
	}
	for _, f := range res.Failures {
		fmt.Fprintf(r.stderr, "%s: %s\n", res.Fixture, f)
	}
	if reproduce != "" {
		fmt.Fprintf(r.stderr, "%s: reproduce: %s\n", res.Fixture, reproduce)
	}
}

// file reports one file: what record did to it (or, with -check, would
// do), or what replay would fail on; note says why, in the text.
func (r *reporter) file(status, path, note string) {
	if r.js != nil {
		r.js.Encode(fileReport{File: path, Status: status, Note: note})
		return
	}
	if r.check && status == string(harness.Unchanged) {
		return
	}
	verb := status
	switch {
	case status == string(harness.Skipped), status == "orphan", status == "sidecar":
	case r.check:
		verb = "would be " + status
	}
	if note != "" {
		fmt.Fprintf(r.stdout, "%-9s %s (%s)\n", verb, path, note)
		return
	}
	fmt.Fprintf(r.stdout, "%-9s %s\n", verb, path)
}

// rolledBack reports the rollback of a killed record's journal, or with
// -check what that record left, in one line: note, which names the files.
func (r *reporter) rolledBack(journal, note string) {
	if r.js != nil {
		r.js.Encode(fileReport{File: journal, Status: string(harness.RolledBack), Note: note})
		return
	}
	fmt.Fprintln(r.stdout, note)
}

// abort says why record stops before it has anything to report (on
// stderr, and with -json in a summary of its own) and returns code.
func (r *reporter) abort(code int, format string, args ...any) int {
	return r.stop(code, summaryReport{}, format, args...)
}

// abortLoad is abort for fixtures that did not load (exit 125), which the
// -json summary lists in invalidFixtures.
func (r *reporter) abortLoad(fixtures []cliflags.InvalidFixture, format string, args ...any) int {
	return r.stop(cliflags.ExitCannotRun, summaryReport{Fixtures: fixtures}, format, args...)
}

func (r *reporter) stop(code int, s summaryReport, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(r.stderr, "record: %s\n", msg)
	if r.js != nil {
		s.Summary, s.Check, s.Error = true, r.check, msg
		r.js.Encode(s)
	}
	return code
}

// summary ends the report.
func (r *reporter) summary(s summaryReport, prune bool) {
	s.Summary, s.Check = true, r.check
	if r.js != nil {
		r.js.Encode(s)
		return
	}
	if s.Error != "" {
		return // said on stderr
	}
	if r.check {
		// As the file lines do: nothing was written, and the counts are
		// what a record would do.
		fmt.Fprint(r.stdout, "would be: ")
	}
	fmt.Fprintf(r.stdout, "%d created, %d changed, %d unchanged", s.Created, s.Changed, s.Unchanged)
	if prune || s.Removed > 0 {
		fmt.Fprintf(r.stdout, ", %d removed", s.Removed)
	}
	if s.Cleaned > 0 {
		fmt.Fprintf(r.stdout, ", %d cleaned (left by an interrupted record)", s.Cleaned)
	}
	if s.Skipped > 0 {
		fmt.Fprintf(r.stdout, ", %d skipped", s.Skipped)
	}
	fmt.Fprintln(r.stdout)
}
