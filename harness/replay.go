package harness

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// Check names the check a failure comes from.
type Check string

// Checks a failure can come from.
const (
	CheckRebuild    Check = "rebuild"    // a request is not rebuilt from its log prefix
	CheckGolden     Check = "golden"     // the templated log differs from the golden log
	CheckSidecar    Check = "sidecar"    // a pinned header differs from its sidecar
	CheckPermute    Check = "permute"    // another registration order changed the bytes
	CheckGuard      Check = "guard"      // the golden layout is broken
	CheckUniformity Check = "uniformity" // an extends of a pin changed the pin's headers
	CheckInvalid    Check = "invalid"    // the fixture cannot run: it cannot be tested
	CheckTrace      Check = "trace"      // a tool call ran before a tool it depends on
	CheckAgent      Check = "agent"      // a captured agent failed: exit, timeout, script
	CheckRepeat     Check = "repeat"     // a captured agent's runs differ
)

// Failure is one failed check of a fixture.
type Failure struct {
	Check    Check     // which check failed
	File     string    // the file to look at, when there is one
	Line     int       // 1-based line in File, 0 when none
	Msg      string    // what failed, and how to reproduce or fix it
	Mismatch *Mismatch // the first difference, for comparisons
}

// String formats the failure as the replay report prints it.
func (f Failure) String() string {
	loc := ""
	if f.File != "" {
		loc = f.File
		if f.Line > 0 {
			loc += fmt.Sprintf(":%d", f.Line)
		}
		loc += ": "
	}
	s := fmt.Sprintf("%s[%s] %s", loc, f.Check, f.Msg)
	if m := f.Mismatch; m != nil && (m.Want != "" || m.Got != "") {
		s += fmt.Sprintf("\n  want: %s\n  got:  %s", m.Want, m.Got)
	}
	if f.Mismatch != nil {
		s += f.Mismatch.cacheText()
	}
	return s
}

// Outputs is what running a fixture produced: the bytes a record writes.
type Outputs struct {
	Log    []byte // the full session log
	Golden []byte // the templated log: golden/NAME.golden
	System []byte // pinned fixtures: golden/NAME.system.md
	Tools  []byte // pinned fixtures: golden/NAME.tools.json
	// Requests are the bodies a captured agent sent. For a reference
	// fixture it is nil: its requests were checked against the log as
	// the replay went (rebuild), and each can be rebuilt from Log;
	// keeping a copy of each would hold the header once per step.
	Requests [][]byte

	depsAt agent.DepsAt // the tool dependencies in force at each step
	// run is the run the outputs come from, whose log fullLog joins when
	// Log is nil (a replay's outputs, until a failure prices a drift).
	run *runResult
	// extra are more files a record writes in the same transaction: the
	// fixture of a scenario recorded from a real provider.
	extra []FileWrite
}

// fullLog returns Log, joined from the run the outputs come from when it
// is nil: Check returns it set, a replay joins it only to price a drift.
func (o *Outputs) fullLog() []byte {
	if o.Log == nil && o.run != nil {
		o.Log = o.run.fullLog()
	}
	return o.Log
}

// Result is the outcome of replaying one fixture.
type Result struct {
	Fixture string
	Seed    uint64 // base seed of the permutation pass
	Elapsed time.Duration
	// Runs counts the runs that completed: the first, then the
	// permutation runs of a reference fixture or the repeat runs of a
	// captured scenario.
	Runs     int
	Failures []Failure
}

// Passed reports whether every check passed.
func (r *Result) Passed() bool { return len(r.Failures) == 0 }

// Invalid reports whether the fixture could not be tested at all.
func (r *Result) Invalid() bool {
	for _, f := range r.Failures {
		if f.Check == CheckInvalid {
			return true
		}
	}
	return false
}

// Replay runs f and checks it against its golden files: rebuild, compare,
// permute, and the guards. f must be one of the suite's own fixtures
// ([Suite.Fixture], [Suite.Fixtures]): a nil f (what Fixture returns for a
// name it does not have), or one built or decoded elsewhere, whose extends
// and name no Load resolved and checked, is a failure of check invalid.
// It is [Suite.ReplayContext] with Options.Context.
func (s *Suite) Replay(f *Fixture) *Result { return s.ReplayContext(s.context(), f) }

// ReplayContext is [Suite.Replay] with ctx bounding the agent runs of a
// captured scenario: cancelling it stops the running agent and fails the
// scenario. A nil ctx means Options.Context.
func (s *Suite) ReplayContext(ctx context.Context, f *Fixture) *Result {
	if f == nil {
		return noFixture()
	}
	start := time.Now()
	out, res := s.check(ctx, f)
	if out != nil {
		res.Failures = append(res.Failures, s.CompareGolden(f, out)...)
	}
	res.Elapsed = time.Since(start)
	return res
}

// noFixture is the result of replaying or checking no fixture.
func noFixture() *Result {
	return &Result{Failures: []Failure{{Check: CheckInvalid, Msg: "no fixture (Suite.Fixture returns nil for a name the suite does not have)"}}}
}

// foreign is the failure of a fixture this suite did not load (nil when
// it did): one built or decoded elsewhere has neither its extends
// resolved nor its name checked, so its golden files could lie anywhere.
func (s *Suite) foreign(f *Fixture) *Failure {
	if s.byName[f.Name] == f {
		return nil
	}
	return &Failure{Check: CheckInvalid, File: f.File, Msg: fmt.Sprintf("fixture %q is not one this suite loaded: write it to the fixtures directory and take it from Suite.Fixture after Load", f.Name)}
}

// Check runs f and performs every check that does not read its golden
// files: the rebuild check, the trace check, the uniformity guard and the
// permutation pass of a reference fixture, or the rebuild check and the
// repeat pass of a captured scenario.
// It returns the outputs to compare or record; a nil f is a failure of
// check invalid, with no outputs, and there are none either when the run
// does not complete or its outputs cannot be made (its result says why).
// It is [Suite.CheckContext] with Options.Context.
func (s *Suite) Check(f *Fixture) (*Outputs, *Result) { return s.CheckContext(s.context(), f) }

// CheckContext is [Suite.Check] with ctx bounding the agent runs of a
// captured scenario, as for [Suite.ReplayContext]; a nil ctx means
// Options.Context.
func (s *Suite) CheckContext(ctx context.Context, f *Fixture) (*Outputs, *Result) {
	out, res := s.check(ctx, f)
	if out != nil {
		out.fullLog()
	}
	return out, res
}

// check is CheckContext with the outputs' Log left for fullLog to join,
// which a replay that passes never needs.
func (s *Suite) check(ctx context.Context, f *Fixture) (*Outputs, *Result) {
	if f == nil {
		return nil, noFixture()
	}
	ctx = s.orContext(ctx)
	res := &Result{Fixture: f.Name, Seed: s.opts.Seed}
	if fail := s.foreign(f); fail != nil {
		res.Failures = append(res.Failures, *fail)
		return nil, res
	}
	if f.Captured() {
		return s.checkCaptured(ctx, f, res), res
	}
	fail := func(check Check, file string, line int, format string, args ...any) {
		res.Failures = append(res.Failures, Failure{Check: check, File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	first, err := s.run(f, nil)
	if err != nil {
		fail(CheckInvalid, f.File, 0, "cannot run: %v", err)
		return nil, res
	}
	res.Runs = 1
	out, err := outputs(f, first)
	if err != nil {
		fail(CheckGuard, f.File, 0, "%v", err)
		return nil, res
	}
	if err := first.checkRequests(); err != nil {
		fail(CheckRebuild, "", 0, "%v", err)
	}
	first.reqs = nil // checked: from here on the log stands for them
	if tf := traceErrFailure(f, s.goldenPath(f.Name), first.checkTrace()); tf != nil {
		res.Failures = append(res.Failures, *tf)
	}
	if s.opts.shuffle() > 0 {
		if bf := checkBatches(f, s.goldenPath(f.Name), first, permutationSeed(s.opts.Seed, f.Name, 0)); bf != nil {
			res.Failures = append(res.Failures, *bf)
		}
	}
	if f.addsNothing() {
		s.checkUniformity(f, first, res)
	}
	// Each permutation run registers the plugins the first run made
	// canonical, and is compared with the first as soon as it ends and
	// then dropped, so a replay holds two runs at most.
	for i := 1; i <= s.opts.shuffle(); i++ {
		seed := permutationSeed(s.opts.Seed, f.Name, i)
		concurrent := i%2 == 0
		again, err := s.run(f, newRegistration(seed, concurrent).with(first.plugins))
		if err != nil {
			fail(CheckPermute, f.File, 0, "run %d (seed %d): %v", i, s.opts.Seed, err)
			break
		}
		res.Runs++
		if m := comparePermutation(first, again); m != nil {
			if m.File == "log" {
				// Priced only now, a failure being reported: both runs'
				// logs are full, the first run's the one cached.
				priceDrift(m, "the listed order", first.fullLog(), fmt.Sprintf("permutation run %d", i), again.fullLog())
			}
			how := "shuffled"
			if concurrent {
				how = "shuffled, concurrent"
			}
			res.Failures = append(res.Failures, Failure{Check: CheckPermute, Mismatch: m,
				Msg: fmt.Sprintf("registration order is observable: permutation run %d (%s) differs from the listed order at %s line %d: %s; reproduce with seed %d",
					i, how, m.File, m.Line, m.Reason, s.opts.Seed)})
			break
		}
	}
	return out, res
}

// outputs computes the bytes a record writes for f's run.
func outputs(f *Fixture, r *runResult) (*Outputs, error) {
	golden := r.templated
	if golden == nil {
		var err error
		if golden, err = Template(r.fullLog()); err != nil {
			return nil, fmt.Errorf("malformed header in the log: %w", err)
		}
	}
	var err error
	out := &Outputs{Log: r.Log, Golden: golden, Requests: r.Requests, depsAt: r.depsAt, run: r}
	if f.Pin {
		if out.System, out.Tools, err = Sidecars(out.fullLog()); err != nil {
			return nil, fmt.Errorf("the sidecars of the run's log: %w", err)
		}
	}
	return out, nil
}

// comparePermutation compares the log and the requests of two runs. A
// request is a function of its log prefix (the rebuild invariant), so when
// the logs are equal and again's requests are the ones its log rebuilds,
// they are the first run's requests too (which the first run's rebuild
// check holds to its log): the requests are compared through the log
// rather than byte for byte, which would read every header once per step.
//
// Two reference runs' logs are compared as the loops wrote them, each
// header as the assembled header: the runs register the same prepared
// tools, so headers that hold them in the same order are equal without
// either being written, and the logs are joined only when they differ.
func comparePermutation(first, again *runResult) *Mismatch {
	if !first.sameLiveLog(again) {
		if m := compareFile("log", first.fullLog(), again.fullLog()); m != nil {
			return m
		}
	}
	err := again.checkRequests()
	if err == nil {
		return nil
	}
	m := &Mismatch{File: "requests", Reason: fmt.Sprintf("the logs agree but the requests do not: %v", err)}
	var re *agent.RebuildError
	if errors.As(err, &re) {
		m.Line = re.Step
		m.Reason = fmt.Sprintf("the logs agree but request %d is not the one the log rebuilds: %v", re.Step, err)
	}
	return m
}

// permutationSeed derives the seed of one permutation run from the base
// seed, the fixture and the run, so -run never changes another fixture's
// orders.
func permutationSeed(base uint64, name string, run int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%s/%d", base, name, run)
	return h.Sum64()
}

// checkUniformity enforces that a fixture extending a pin without adding
// anything produces the pin's headers byte for byte.
func (s *Suite) checkUniformity(f *Fixture, r *runResult, res *Result) {
	parent, chain := s.uniformPin(f)
	if parent == nil {
		return
	}
	// f adds no plugins, so its plugins are the parent's: the parent's
	// run registers those f's runs made canonical, when they are the same.
	var reg *registration
	if samePlugins(f.Plugins, parent.Plugins) {
		reg = (&registration{}).with(r.plugins)
	}
	pr, err := s.run(parent, reg)
	if err != nil {
		return // the parent's own replay reports it
	}
	want, got := pr.distinctHeaders(), r.distinctHeaders()
	for i := 0; i < len(want) || i < len(got); i++ {
		if i < len(want) && i < len(got) && want[i].equal(got[i]) {
			continue
		}
		file, line := s.goldenPath(f.Name), 0
		if i < len(got) {
			line = got[i].line
		}
		through := ""
		switch len(chain) {
		case 0:
		case 1:
			through = " (through " + chain[0] + ", which adds nothing either)"
		default:
			through = " (through " + strings.Join(chain, ", ") + ", which add nothing either)"
		}
		msg := fmt.Sprintf("%s extends the pin %s%s without adding config, sections, plugins or listeners, so its headers must be the pin's; header %d differs", f.Name, parent.Name, through, i+1)
		var m *Mismatch
		if i < len(want) && i < len(got) {
			m = lineMismatch(file, line, []byte(want[i].text()), []byte(got[i].text()), sides{"the pin " + parent.Name, f.Name})
			msg += " at " + m.Path
		} else {
			msg += fmt.Sprintf(": the pin has %d distinct headers, %s %d", len(want), f.Name, len(got))
		}
		res.Failures = append(res.Failures, Failure{Check: CheckUniformity, File: file, Line: line, Msg: msg, Mismatch: m})
		return
	}
}

// uniformPin returns the pin whose headers f's must be: the pin f extends
// through fixtures that, like f, add nothing of their own, and the names
// of those between; nil when there is none.
func (s *Suite) uniformPin(f *Fixture) (pin *Fixture, between []string) {
	for seen := 0; f.addsNothing() && seen <= len(s.all); seen++ {
		parent := s.byName[f.Extends]
		if parent == nil || parent.Pin {
			return parent, between
		}
		between = append(between, parent.Name)
		f = parent
	}
	return nil, nil
}

// samePlugins reports whether two plugin lists register the same tools.
func samePlugins(a, b []Plugin) bool {
	return slices.EqualFunc(a, b, func(p, q Plugin) bool {
		return p.Name == q.Name && slices.EqualFunc(p.Tools, q.Tools, func(s, t Tool) bool {
			return s.Name == t.Name && s.Description == t.Description && string(s.Parameters) == string(t.Parameters) &&
				slices.Equal(s.DependsOn, t.DependsOn) && s.Idempotent == t.Idempotent
		})
	})
}

// headerAt is the header of a request/header event and its 1-based line:
// the header the loop logged, or, for a log read as text, a view of it.
type headerAt struct {
	line int
	hdr  *assembler.Header
	raw  string // when hdr is nil
}

// text returns the header's JSON.
func (h headerAt) text() string {
	if h.hdr != nil {
		return h.hdr.JSON()
	}
	return h.raw
}

// equal reports whether h and o are the same header bytes; two headers
// the loop logged are compared by [assembler.Header.Equal], which finds a
// pin's and an extending fixture's headers over the same registered tools
// equal without writing them.
func (h headerAt) equal(o headerAt) bool {
	if h.hdr != nil && o.hdr != nil {
		return h.hdr.Equal(o.hdr)
	}
	return h.text() == o.text()
}

// distinctHeaders returns the headers of the request/header events of a
// log, leaving out those that repeat the header in force (a resume
// repeats it). It walks each header event with canon's skipping scanner,
// which jumps through string text, so a pin's header of kilobytes is
// read once and not copied: the headers are views of log, which must not
// change while they are in use.
func distinctHeaders(log []byte) []headerAt {
	var out []headerAt
	for n := 1; len(log) > 0; n++ {
		line, rest, _ := bytes.Cut(log, []byte("\n"))
		log = rest
		if !mayBe(line, logformat.RequestHeader) || gjson.Get(canon.View(line), "type").String() != agent.TypeRequestHeader {
			continue
		}
		h := canon.View(eventHeader(line))
		if len(out) == 0 || out[len(out)-1].raw != h {
			out = append(out, headerAt{line: n, raw: h})
		}
	}
	return out
}

// distinctHeaders is distinctHeaders of the run's log, from the headers
// the loop logged when the run has them.
func (r *runResult) distinctHeaders() []headerAt {
	if r.headers != nil {
		return distinct(r.headers)
	}
	return distinctHeaders(r.fullLog())
}

// distinct is what distinctHeaders returns for a log whose header events
// are hs.
func distinct(hs []agent.LoggedHeader) []headerAt {
	out := []headerAt{}
	for _, h := range hs {
		if at := (headerAt{line: h.Line, hdr: h.Header}); len(out) == 0 || !out[len(out)-1].equal(at) {
			out = append(out, at)
		}
	}
	return out
}

// eventHeader returns the bytes of data.header in an event line, or nil.
func eventHeader(line []byte) []byte {
	var h []byte
	canon.Walk(line, 0, func(key []byte, s int) int {
		if !keyIs(key, "data") || line[s] != '{' {
			return canon.SkipValue(line, s)
		}
		return canon.Walk(line, s, func(key []byte, s int) int {
			e := canon.SkipValue(line, s)
			if keyIs(key, "header") && e >= 0 {
				h = line[s:e]
			}
			return e
		})
	})
	return h
}

// CompareGolden compares a run's outputs with f's files in the golden
// directory, and applies the guards on those files. Nil outputs, which
// [Suite.Check] returns when it has none, are a failure of check invalid:
// there is nothing to compare.
func (s *Suite) CompareGolden(f *Fixture, out *Outputs) []Failure {
	if f == nil {
		return noFixture().Failures
	}
	if fail := s.foreign(f); fail != nil {
		return []Failure{*fail}
	}
	if out == nil {
		return []Failure{{Check: CheckInvalid, File: f.File, Msg: fmt.Sprintf("no outputs of %s to compare: Check returns none when the run does not complete or its outputs cannot be made, and its result says why", f.Name)}}
	}
	var fails []Failure
	if want, fail := s.readGolden(f, s.goldenPath(f.Name)); fail != nil {
		fails = append(fails, *fail)
	} else {
		fails = append(fails, s.compareLog(f, s.goldenPath(f.Name), want, out)...)
		if !f.Pin && len(fails) > 0 {
			attachGoldenCost(fails, s.goldenPath(f.Name), want, out)
		}
	}
	sidecars := []struct {
		file string
		got  []byte
	}{{s.systemPath(f.Name), out.System}, {s.toolsPath(f.Name), out.Tools}}
	for _, sc := range sidecars {
		if !f.Pin {
			if s.goldenFiles[filepath.Base(sc.file)] {
				fails = append(fails, Failure{Check: CheckGuard, File: sc.file,
					Msg: fmt.Sprintf("sidecar beside a fixture that is not pinned: only \"pin\": true fixtures own sidecars; delete it (record does), or pin %s", f.Name)})
			}
			continue
		}
		want, fail := s.readGolden(f, sc.file)
		if fail != nil {
			fails = append(fails, *fail)
		} else if fail := checkSidecar(sc.file, want, sc.got); fail != nil {
			fails = append(fails, *fail)
		} else if m := compareFile(sc.file, want, sc.got); m != nil {
			fails = append(fails, Failure{Check: CheckSidecar, File: sc.file, Line: m.Line, Msg: m.Reason, Mismatch: m})
		}
	}
	if f.Pin {
		attachCost(fails, s.goldenPath(f.Name), s.systemPath(f.Name), s.toolsPath(f.Name), out, s.opts.maxFileSize())
	}
	return fails
}

// readGolden reads one of f's golden files; a missing file is a guard
// failure, an unreadable one (or one that is not a regular file, or over
// limit) means the fixture cannot be tested.
func (s *Suite) readGolden(f *Fixture, file string) ([]byte, *Failure) {
	want, err := readRegular(file, s.opts.maxFileSize())
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, err := os.Stat(filepath.Dir(file)); errors.Is(err, os.ErrNotExist) {
			// Nothing to compare with, most likely a mistyped directory:
			// cannot test, rather than a missing file to record.
			return nil, &Failure{Check: CheckInvalid, File: file, Msg: fmt.Sprintf("the golden directory %s does not exist; %s", filepath.Dir(file), s.opts.Commands.record("^"+f.Name+"$"))}
		}
		return nil, &Failure{Check: CheckGuard, File: file, Msg: "missing: " + s.opts.Commands.record("^"+f.Name+"$")}
	case err != nil:
		return nil, &Failure{Check: CheckInvalid, File: file, Msg: err.Error()}
	}
	return want, nil
}

// compareLog compares a golden log with the run's templated log: it must be
// templated, its recorded tool calls must respect the dependencies declared
// now (an edge added since recording shows here, by edge), and its bytes
// must be the run's.
func (s *Suite) compareLog(f *Fixture, file string, want []byte, out *Outputs) []Failure {
	if bytes.Equal(want, out.Golden) {
		return nil // the run's log is templated and its trace checked
	}
	if fail := checkGolden(file, want, true); fail != nil {
		return []Failure{*fail}
	}
	if !bytes.Contains(want, []byte("\r\n")) {
		if t, err := Template(want); err != nil || !bytes.Equal(t, want) {
			fail := notTemplated(file, want, t, err)
			fail.Msg += "; " + s.opts.Commands.record("^"+f.Name+"$")
			return []Failure{fail}
		}
	}
	var fails []Failure
	if tf := traceFailure(f, file, want, out.depsAt); tf != nil {
		fails = append(fails, *tf)
	}
	if m := compareFile(file, want, out.Golden); m != nil {
		fails = append(fails, Failure{Check: CheckGolden, File: file, Line: m.Line, Msg: m.Reason, Mismatch: m})
	}
	return fails
}

// notTemplated is the guard failure of a golden log that is not a fixed
// point of [Template]: t is the log templated, or err why it cannot be.
// It names the line and the JSON path of the first value that is not its
// placeholder, what that value is, and shows the line beside the line as
// templating writes it.
func notTemplated(file string, want, t []byte, err error) Failure {
	const must = "headers must hold \"" + SystemPlaceholder + "\" and \"" + ToolsPlaceholder + "\""
	fail := Failure{Check: CheckGuard, File: file, Msg: "golden log is not templated: " + must}
	var m *Mismatch
	var te *TemplateError
	switch {
	case errors.As(err, &te):
		m = &Mismatch{File: file, Line: te.Line, Path: te.Path, Reason: te.Msg}
		if te.Line >= 1 {
			if lines := splitLines(want); te.Line <= len(lines) {
				line := lines[te.Line-1]
				m.Event = eventType(line)
				if te.Start >= 0 && te.Start < te.End && te.End <= len(line) {
					m.Want = window(line, te.Start)
					if with := placeholderFor(te.Path); with != "" {
						fixed := slices.Concat(line[:te.Start], []byte(`"`+with+`"`), line[te.End:])
						m.Got = window(fixed, te.Start)
						// The other value may be wrong too, and come
						// first: the line templated whole names the
						// first difference in document order.
						if full, err := appendTemplated(nil, fixed); err == nil {
							m = lineMismatch(file, te.Line, line, full, sidesOf(file))
						}
					}
				}
			}
		}
	case err == nil:
		m = compareFile(file, want, t)
	}
	if m == nil {
		return fail
	}
	fail.Line, fail.Mismatch = m.Line, m
	if m.Path == "" {
		if err != nil {
			fail.Msg = fmt.Sprintf("golden log is not templated: %s; %s", m.Reason, must)
		}
		return fail
	}
	value := ""
	if lines := splitLines(want); m.Line >= 1 && m.Line <= len(lines) {
		if v := gjson.GetBytes(lines[m.Line-1], m.Path); v.Exists() {
			value = v.Raw
		}
	}
	with := placeholderFor(m.Path)
	switch {
	case value != "" && with != "" && gjson.Parse(value).Str == with:
		// The placeholder's text in other bytes: a golden log writes
		// it as is, for a reviewer and grep to see.
		fail.Msg = fmt.Sprintf("golden log is not templated at %s: it holds %s, the placeholder escaped, not %q as written; %s", m.Path, shorten(value), with, must)
	case value != "" && with != "":
		fail.Msg = fmt.Sprintf("golden log is not templated at %s: it holds %s, not %q; %s", m.Path, shorten(value), with, must)
	case value != "":
		fail.Msg = fmt.Sprintf("golden log is not templated at %s: it holds %s; %s", m.Path, shorten(value), must)
	default:
		fail.Msg = fmt.Sprintf("golden log is not templated at %s: %s; %s", m.Path, cmp.Or(m.Reason, "it differs from the log templated"), must)
	}
	return fail
}

// placeholderFor is the placeholder the value at a header path stands for
// in a golden log, "" when it has none.
func placeholderFor(path string) string {
	switch path {
	case "data.header.system":
		return SystemPlaceholder
	case "data.header.tools":
		return ToolsPlaceholder
	}
	return ""
}

// shorten shows a JSON value on one line, its first 60 bytes when long,
// escaped as a window is.
func shorten(raw string) string {
	head, cut := headOf(raw, 60)
	if cut {
		return escapeBytes([]byte(head)) + "…"
	}
	return escapeBytes([]byte(head))
}
