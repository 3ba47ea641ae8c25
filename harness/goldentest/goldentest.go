// Package goldentest runs a headergold suite from go test: every fixture
// a parallel subtest, its golden files compared through goldie's Assert,
// GOLDIE_UPDATE=1 recording them. It is the go test glue of package
// harness kept apart from it, as net/http/httptest is from net/http, so
// that programs using harness (cmd/replay, cmd/record) link neither
// testing nor goldie.
//
// goldie defines the test flags -update, -clean and -template in every
// binary that links it: a test package that imports goldentest and
// defines a flag of one of these names panics at start ("flag
// redefined"). Rename that flag, or record with GOLDIE_UPDATE=1, which
// works everywhere.
package goldentest

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/capture"
	"github.com/headergold/headergold/internal/goldenupdate"
	"github.com/sebdah/goldie/v2"
)

// Test replays every selected fixture as a parallel subtest named after it
// (TestGolden/NAME when called from TestGolden), comparing the golden log
// and sidecars through goldie's Assert with a report that names the first
// differing event, its line and JSON path.
//
// With GOLDIE_UPDATE=1 (or goldie's -update flag) it records instead,
// through [harness.Suite.Record], exactly as cmd/record does, what a
// replay with the same go test flags would run (Options.Run, narrowed by
// -run and -skip); it refuses to record when the CI environment variable
// is set, and fails on a golden log whose fixture is gone, which it
// cannot prune. HEADERGOLD_SEED sets the
// permutation seed, to replay a failure. HEADERGOLD_LOG_DIR=DIR (see
// [LogDirEnv]) writes each fixture's full log to DIR/NAME.jsonl.
//
// Its subtests are parallel: they run after Test returns, so what they
// use (Options.Context, the agent's resources) must outlive the calling
// test's deferred calls; t.Context() does.
//
// A module of your own can call it on its own directories:
//
//	func TestGolden(t *testing.T) {
//		goldentest.Test(t, harness.Options{Fixtures: "testdata/fixtures", Golden: "testdata/golden"})
//	}
func Test(t *testing.T, opts harness.Options) {
	t.Helper()
	if v := os.Getenv("HEADERGOLD_SEED"); v != "" && opts.Seed == 0 {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HEADERGOLD_SEED=%q: %v", v, err)
		}
		opts.Seed = seed
	}
	// go test -run 'TestGolden/^name$' replays only that fixture (go
	// test selects the subtests) and records only that one (Load does).
	sub, err := subtestFilter(t)
	if err != nil {
		t.Fatal(err)
	}
	what := "Options.Run"
	if Updating() {
		// A record writes what a replay with the same flags would run:
		// the fixtures of Options.Run that -run selects and -skip does
		// not.
		skip, err := subtestSkip(t)
		if err != nil {
			t.Fatal(err)
		}
		if sub != nil || skip != nil {
			if opts.Run, err = narrow(opts, sub, skip); err != nil {
				t.Fatal(err)
			}
			what = "-run"
		}
	}
	if opts.Commands.Record == nil {
		// Messages read in go test's output name go test's command.
		test := testPattern(t.Name())
		opts.Commands.Record = func(run string) string {
			return "GOLDIE_UPDATE=1 go test -run " + capture.QuoteArgv([]string{test + "/" + run})
		}
	}
	s, err := harness.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	selects := func(re *regexp.Regexp) bool {
		return slices.ContainsFunc(s.Fixtures(), func(f *harness.Fixture) bool { return re.MatchString(f.Name) })
	}
	switch {
	case opts.Run != nil && !selects(opts.Run):
		// A record that writes nothing, or the caller's own selection
		// of nothing, never passes.
		t.Fatalf("%s %q matches no fixture in %s", what, opts.Run, opts.Fixtures)
	case sub != nil && !selects(sub):
		// Replaying, as go test does for any subtest pattern that
		// selects none: say so, fail nothing (go test ./... -run
		// 'TestGolden/^NAME$' reaches packages without NAME).
		t.Logf("-run %q matches no fixture in %s", sub, opts.Fixtures)
	}
	if Updating() {
		if goldenupdate.InCI() {
			t.Fatalf("refusing to record golden files with CI=%s: recording belongs on a developer machine; unset CI to record", os.Getenv("CI"))
		}
		changes, failed, err := s.Record(harness.RecordOptions{})
		for _, r := range failed {
			for _, f := range r.Failures {
				t.Errorf("%s: %s", r.Fixture, f)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range changes {
			switch c.Status {
			case harness.Unchanged, harness.Restored: // the rolled-back line names those restored
			case harness.RolledBack:
				t.Log(c.Note)
			default:
				t.Logf("%s %s", c.Status, c.File)
			}
		}
		// What the next replay fails on and a record does not remove:
		// a golden file whose fixture is gone (cmd/record's -prune).
		for _, f := range s.Findings() {
			if f.Kind == harness.Orphan {
				t.Errorf("[guard] %s", f)
			}
		}
		return
	}
	for _, f := range s.Findings() {
		// A skipped fixture's sidecar is for cmd/replay, which skips
		// it; here its subtest fails, saying why it cannot run.
		if f.Kind != harness.Sidecar {
			t.Errorf("[guard] %s", f)
		}
	}
	parent := t.Name()
	for _, f := range s.Fixtures() {
		t.Run(f.Name, func(t *testing.T) {
			// Failures are located at the caller's call of Test, the
			// line of its own test: the testing package follows the
			// helpers up through t.Run, parallel subtests included.
			t.Helper()
			t.Parallel()
			if got := t.Name()[strings.LastIndex(t.Name(), "/")+1:]; got != f.Name {
				// go test made the name unique: another subtest of the
				// parent has it. -run then selects this one as got, which
				// names no fixture, so neither a record nor the commands
				// printed here could select it.
				t.Fatalf("go test named this subtest %s, not %s: another subtest of %s has that name (two calls of goldentest.Test whose directories share the fixture %s?), so go test -run cannot select it to replay or record it alone; call each Test in a subtest of its own, t.Run(dir, …)",
					got, f.Name, parent, f.Name)
			}
			if opts.Context != nil && opts.Context.Err() != nil {
				t.Fatalf("Options.Context was done before %s ran (%v): the subtests of goldentest.Test are parallel, so they run after Test returns, "+
					"when a context the calling test cancels with defer is cancelled already; pass t.Context(), or a context that outlives the test", f.Name, context.Cause(opts.Context))
			}
			out, res := s.Check(f)
			for _, fail := range res.Failures {
				t.Errorf("%s", fail)
			}
			if dir := os.Getenv(LogDirEnv); dir != "" && out != nil {
				writeLog(t, dir, f.Name, out.Log)
			}
			if out != nil {
				res.Failures = append(res.Failures, assertGolden(t, s, f, out)...)
			}
			if res.Passed() {
				return
			}
			if f.Seeded() {
				t.Logf("seed %d: reproduce with HEADERGOLD_SEED=%d go test -run %s", s.Seed(), s.Seed(), capture.QuoteArgv([]string{testPattern(parent) + "/^" + f.Name + "$"}))
			}
			if advice := harness.RecordAdvice(res, opts.Commands); advice != "" {
				t.Log(advice)
			}
		})
	}
}

// LogDirEnv names the environment variable that makes Test write each
// fixture's full, untemplated log to DIR/NAME.jsonl, as record -o does for
// one fixture: how a CI job keeps the logs of in-process agents, which
// record cannot run, for replay diff against another host's. It writes
// nothing in the golden directory, so it works with CI set. A relative
// DIR is taken from each test's package directory, as go test runs it
// there; give an absolute one when several packages write logs, since
// two suites with a fixture of the same name write the same file.
const LogDirEnv = "HEADERGOLD_LOG_DIR"

// writeLog writes one full log into dir, atomically.
func writeLog(t *testing.T, dir, name string, log []byte) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join(dir, name+".jsonl"))
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(abs), 0o755); err == nil {
			err = harness.WriteFiles([]harness.FileWrite{{Path: abs, Data: log}})
		}
	}
	if err != nil {
		t.Errorf("%s: %v", LogDirEnv, err)
	}
}

// assertGolden compares the outputs through goldie and returns the
// failures. What goldie cannot say (a missing, unreadable or untemplated
// golden file, a recorded call that breaks a declared edge) is reported
// as cmd/replay reports it, and a fixture with such a failure is not
// diffed; goldie reports a difference in a golden file with the failure
// cmd/replay prints for it (check, line, JSON path, cache cost).
func assertGolden(t *testing.T, s *harness.Suite, f *harness.Fixture, out *harness.Outputs) []harness.Failure {
	t.Helper()
	fails := s.CompareGolden(f, out)
	byFile := map[string]harness.Failure{}
	reported := false
	for _, fail := range fails {
		if fail.Check != harness.CheckGolden && fail.Check != harness.CheckSidecar {
			t.Errorf("%s", fail)
			reported = true
			continue
		}
		byFile[fail.File] = fail
	}
	if reported {
		return fails
	}
	assert := func(path string, got []byte) {
		t.Helper()
		dir, base := filepath.Split(path)
		name, suffix, _ := strings.Cut(base, ".")
		g := goldie.New(t,
			goldie.WithFixtureDir(filepath.Clean(dir)),
			goldie.WithNameSuffix("."+suffix),
			goldie.WithDiffFn(func(actual, expected string) string {
				if fail, ok := byFile[path]; ok {
					return fail.String()
				}
				if m := harness.Compare(path, []byte(expected), []byte(actual)); m != nil {
					return m.String()
				}
				return "no difference"
			}))
		g.Assert(t, name, got)
	}
	assert(s.GoldenPath(f.Name), out.Golden)
	if p := s.Pins(f); p.Kind == harness.PinSidecars {
		assert(p.Files[0], out.System)
		assert(p.Files[1], out.Tools)
	}
	return fails
}

// Updating reports whether this go test run records golden files
// (GOLDIE_UPDATE=1, or goldie's -update flag). Tests that read golden files
// a recording run is rewriting should skip while it is true.
func Updating() bool { return goldenupdate.On() }

// testPattern anchors each element of a test's name, for go test -run.
func testPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// narrow returns a pattern that selects, by their whole names, the
// fixtures of opts's directory that opts.Run (nil: any) and sub (nil:
// any) match and skip (nil: none) does not skip. The names come from the
// directory, not from loading it: a broken fixture the flags leave out
// must not fail the record of the others.
func narrow(opts harness.Options, sub *regexp.Regexp, skip *skipFlag) (*regexp.Regexp, error) {
	dir := cmp.Or(opts.Fixtures, "fixtures")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	}
	var names []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		if (opts.Run == nil || opts.Run.MatchString(name)) && (sub == nil || sub.MatchString(name)) && (skip == nil || !skip.skips(name)) {
			names = append(names, regexp.QuoteMeta(name))
		}
	}
	if len(names) == 0 {
		var flags []string
		if sub != nil {
			flags = append(flags, fmt.Sprintf("-run %q", sub))
		}
		if skip != nil {
			flags = append(flags, fmt.Sprintf("-skip %q", skip.pattern))
		}
		if opts.Run != nil {
			flags = append(flags, fmt.Sprintf("Options.Run %q", opts.Run))
		}
		if skip == nil {
			return nil, fmt.Errorf("%s matches no fixture in %s", strings.Join(flags, " with "), dir)
		}
		return nil, fmt.Errorf("%s leave no fixture of %s to record", strings.Join(flags, " with "), dir)
	}
	return regexp.Compile("^(?:" + strings.Join(names, "|") + ")$")
}

// skipFlag is go test's -skip as it applies to this test's subtests.
type skipFlag struct {
	pattern string             // as given
	test    []string           // the test's name, by level
	alts    [][]*regexp.Regexp // the pattern's alternatives, by element
}

// subtestSkip returns go test's -skip as it applies to this test's
// subtests (nil: none).
func subtestSkip(t *testing.T) (*skipFlag, error) {
	fl := flag.Lookup("test.skip")
	if fl == nil || fl.Value.String() == "" {
		return nil, nil
	}
	sf := &skipFlag{pattern: fl.Value.String(), test: strings.Split(t.Name(), "/")}
	for _, elems := range splitPattern(sf.pattern) {
		var alt []*regexp.Regexp
		for _, e := range elems {
			re, err := regexp.Compile(e)
			if err != nil {
				return nil, fmt.Errorf("-skip %q: %w", sf.pattern, err)
			}
			alt = append(alt, re)
		}
		sf.alts = append(sf.alts, alt)
	}
	return sf, nil
}

// skips reports whether go test skips the subtest name, as it decides: the
// first alternative whose elements match the name's levels (as far as
// both go) decides, and skips it unless it has more elements than the
// name has levels (a match of a deeper subtest, which runs this one).
func (sf *skipFlag) skips(name string) bool {
	levels := append(slices.Clone(sf.test), name)
	for _, alt := range sf.alts {
		matched := true
		for i := 0; i < len(alt) && i < len(levels) && matched; i++ {
			matched = alt[i].MatchString(levels[i])
		}
		if matched {
			return len(alt) <= len(levels)
		}
	}
	return false
}

// subtestFilter returns what selects t's subtests in go test's -run
// pattern, or nil when it selects them all: of every alternative of the
// pattern whose elements match t's name, the element at the depth of t's
// subtests, any of which selects.
func subtestFilter(t *testing.T) (*regexp.Regexp, error) {
	fl := flag.Lookup("test.run")
	if fl == nil || fl.Value.String() == "" {
		return nil, nil
	}
	bad := func(err error) (*regexp.Regexp, error) { return nil, fmt.Errorf("-run %q: %w", fl.Value.String(), err) }
	names := strings.Split(t.Name(), "/")
	var exprs []string
	for _, elems := range splitPattern(fl.Value.String()) {
		applies := true
		for i := 0; i < len(names) && i < len(elems) && applies; i++ {
			re, err := regexp.Compile(elems[i])
			if err != nil {
				return bad(err)
			}
			applies = re.MatchString(names[i])
		}
		switch {
		case !applies:
		case len(elems) <= len(names) || elems[len(names)] == "":
			return nil, nil // this alternative selects every subtest
		default:
			exprs = append(exprs, elems[len(names)])
		}
	}
	if len(exprs) == 0 {
		return nil, nil
	}
	expr := exprs[0]
	if len(exprs) > 1 {
		expr = "(?:" + strings.Join(exprs, ")|(?:") + ")"
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return bad(err)
	}
	return re, nil
}

// splitPattern splits a -run pattern as go test does: into alternatives
// at the | outside brackets and parentheses, and each alternative into
// its elements at the slashes outside them.
func splitPattern(p string) [][]string {
	var alts [][]string
	var elems []string
	brackets, parens, start := 0, 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '[':
			brackets++
		case ']':
			brackets = max(0, brackets-1)
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				elems = append(elems, p[start:i])
				start = i + 1
				if p[i] == '|' {
					alts, elems = append(alts, elems), nil
				}
			}
		}
	}
	return append(alts, append(elems, p[start:]))
}
