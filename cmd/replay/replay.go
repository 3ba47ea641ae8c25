package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/capture"
	"github.com/headergold/headergold/internal/cliflags"
)

// replayCommand is replay's usage and help.
var replayCommand = cliflags.Command{Name: "replay", Usage: `usage: replay [flags]
       replay diff [flags] A B
       replay stability [flags] LOG...
       replay help [diff | stability]
`, Help: replayHelp}

const replayHelp = `Replays every fixture in -fixtures against its golden files in -golden:
each request is rebuilt from its log prefix, the templated log and pinned
sidecars are compared byte for byte, and -shuffle more runs register
plugins and sections in seeded random and concurrent orders.

A captured scenario (a fixture with "agent") runs its agent as a
subprocess against a fake provider on 127.0.0.1, as many times as its
"runs" says (default 4; -shuffle 0 runs it once), and every run's log must
be byte-identical to the first's. The agent finds the fake provider in
ANTHROPIC_BASE_URL and GOOGLE_GEMINI_BASE_URL (http://127.0.0.1:PORT) and
OPENAI_BASE_URL (the same, ending in /v1), with dummy API keys; the
README's "Pinning your own agent" describes the fixture. Scenarios whose
agent is an in-process Go function run from go test (harness.Options.Agent):
replay skips them and says so.

Examples (replay is go run github.com/headergold/headergold/cmd/replay,
or the binary go install puts on PATH):
  replay                                  replay the fixtures in ./fixtures
  replay -run '^tool-' -v                 replay the tool-* fixtures
  replay -shard 2/4 -json                 the second of four CI shards
  replay -seed 1234 -run '^resume$'       replay a reported failure
  replay diff ci.jsonl laptop.jsonl       see 'replay help diff'
  replay stability runs/*.jsonl           see 'replay help stability'

A subcommand comes first, its flags after it (replay diff -json A B);
flags go before or after other arguments; -h prints this help.

Exit status: 0 all match, 1 mismatch or guard failure, 2 usage error,
125 cannot test (invalid fixture, unreadable file), so it works with
git bisect run (build the binary first: go run turns 125 into 1);
130 or 143 when SIGINT or SIGTERM stopped it. A report that could not be
written to standard output (a full disk) is said on stderr and makes 0
exit 125; 1, 2, 125, 130 and 143 stand.
`

// replayFlags are the parsed flags of a replay.
type replayFlags struct {
	opts      harness.Options
	shard     int // 1-based; 0 means no sharding
	shards    int
	json      bool
	verbose   bool
	colour    bool
	annotated bool // GitHub Actions error annotations
	capture   cliflags.Capture
}

// parseReplayFlags parses replay's flags; when it returns nil, replay
// is done and exits with the status it returns (a usage error or the help
// printed).
func parseReplayFlags(args []string, e env) (*replayFlags, int) {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	var (
		rf      replayFlags
		runExpr string
		shard   string
		shuffle int
		seed    uint64
	)
	fs.StringVar(&rf.opts.Fixtures, "fixtures", "fixtures", "directory of fixture `DIR`/NAME.json")
	fs.StringVar(&rf.opts.Golden, "golden", "golden", "directory of golden `DIR`/NAME.golden and pin sidecars")
	fs.StringVar(&runExpr, "run", "", "replay only fixtures whose name matches `REGEX`")
	fs.IntVar(&shuffle, "shuffle", harness.DefaultShuffle, "permutation runs per reference fixture (`N`, 0 disables); a captured scenario runs its agent \"runs\" times instead, once with 0")
	fs.Uint64Var(&seed, "seed", 0, "seed of the permutation runs and of subprocess agents' PYTHONHASHSEEDs (`N`; 0 picks one and prints it)")
	fs.StringVar(&shard, "shard", "", "replay only shard `I/N` of the fixtures (by name hash, 1 <= I <= N)")
	fs.BoolVar(&rf.json, "json", false, "print one JSON object per fixture, then a summary object")
	fs.BoolVar(&rf.verbose, "v", false, "print the seed and every check of every fixture")
	rf.opts.MaxFileSize = harness.DefaultMaxFileSize
	fs.Var(&rf.opts.MaxFileSize, "max-file-size", "refuse to read a fixture or golden file larger than `SIZE` (KiB, MiB, GiB)")
	rf.capture.Register(fs, false)
	pos, code, ok := replayCommand.Parse(fs, args, e.stdout, e.stderr)
	if !ok {
		return nil, code
	}
	if len(pos) > 0 {
		if msg := misplacedSubcommand(fs, args, pos); msg != "" {
			return nil, replayCommand.Fail(e.stderr, "%s", msg)
		}
		return nil, replayCommand.Fail(e.stderr, "unexpected argument %q (subcommands: diff, stability, help)", pos[0])
	}
	if runExpr != "" {
		re, err := regexp.Compile(runExpr)
		if err != nil {
			return nil, replayCommand.Fail(e.stderr, "-run: %v", err)
		}
		rf.opts.Run = re
	}
	switch {
	case shuffle < 0:
		return nil, replayCommand.Fail(e.stderr, "-shuffle %d: want 0 or more", shuffle)
	case shuffle == 0:
		rf.opts.Shuffle = -1
	default:
		rf.opts.Shuffle = shuffle
	}
	rf.opts.Seed = seed
	if shard != "" {
		var err error
		if rf.shard, rf.shards, err = parseShard(shard); err != nil {
			return nil, replayCommand.Fail(e.stderr, "%v", err)
		}
	}
	// -listen serves a captured scenario alone: its flags go with every
	// record line.
	rf.opts.Commands = cliflags.RecordCommands(rf.opts.Fixtures, rf.opts.Golden, func(string) string { return rf.capture.Flags() })
	rf.colour = e.terminal && e.getenv("NO_COLOR") == "" && !rf.json
	rf.annotated = e.getenv("GITHUB_ACTIONS") == "true"
	return &rf, exitOK
}

// misplacedSubcommand says how to write a command line whose flags come
// before its subcommand (replay -json diff A B), or returns "" when its
// first argument is not a subcommand; pos are its arguments. Such flags are not accepted: replay
// and its subcommands have flags of their own, and those of one read as
// the other's would be misread or refused by a message about another
// flag.
func misplacedSubcommand(fs *flag.FlagSet, args, pos []string) string {
	i := firstArgument(fs, args)
	if i < 0 {
		return ""
	}
	sub := args[i]
	switch sub {
	case "diff", "stability":
		rest := append(append([]string{}, args[:i]...), args[i+1:]...)
		return fmt.Sprintf("the subcommand %s comes first, its flags after it: %s", sub, capture.QuoteArgv(append([]string{replayCommand.Name, sub}, rest...)))
	case "help":
		return fmt.Sprintf("help takes no flags: %s", capture.QuoteArgv(append([]string{replayCommand.Name}, pos...)))
	}
	return ""
}

// firstArgument returns the index in args of the first argument that is
// not a flag or a flag's value, as fs.Parse reads them, or -1.
func firstArgument(fs *flag.FlagSet, args []string) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) {
				return i + 1
			}
			return -1
		}
		if len(a) < 2 || a[0] != '-' {
			return i
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		i++ // the flag's value
	}
	return -1
}

func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("-shard %q: want I/N with 1 <= I <= N", s)
	}
	return i, n, nil
}

// inShard partitions fixtures by a hash of their name, so a fixture's shard
// never depends on which other fixtures exist.
func inShard(name string, i, n int) bool {
	h := fnv.New32a()
	io.WriteString(h, name)
	return int(h.Sum32()%uint32(n)) == i-1
}

// fixtureReport is the -json object of one fixture.
type fixtureReport struct {
	Fixture  string          `json:"fixture"`
	Status   string          `json:"status"` // "ok", "fail", "invalid" or "skipped"
	Seconds  float64         `json:"seconds"`
	Seed     uint64          `json:"seed"`
	Pins     pinsReport      `json:"pins"`
	Failures []failureReport `json:"failures"`
	Skip     string          `json:"skip,omitempty"` // why a skipped fixture did not run
}

// pinsReport says what a fixture's golden files pin (harness.Pinning).
type pinsReport struct {
	Kind  string   `json:"kind"`            // "sidecars", "uniform" or "determinism"
	Files []string `json:"files,omitempty"` // the sidecars, for "sidecars"
	Pin   string   `json:"pin,omitempty"`   // the pin its headers equal, for "uniform"
}

type failureReport struct {
	Check   string `json:"check"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Want    string `json:"want,omitempty"`
	Got     string `json:"got,omitempty"`
	// Cache, CacheAt and CacheNote are, for a failure whose headers differ
	// (a pin's golden or sidecar, another golden log, a permutation or
	// repeat run), the cost of the drift in prompt caching, as replay diff
	// -json writes them;
	// CacheLines is the text replay diff prints for it.
	Cache      *harness.CacheCost  `json:"cache,omitempty"`
	CacheAt    *harness.CachePlace `json:"cacheAt,omitempty"`
	CacheNote  string              `json:"cacheNote,omitempty"`
	CacheLines []string            `json:"cacheLines,omitempty"`
	// Kinds, Moved, Added and Removed classify that failure's first
	// differing header as replay diff does.
	Kinds   []string `json:"kinds,omitempty"`
	Moved   []string `json:"moved,omitempty"`
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
}

// summaryReport is the last -json object.
type summaryReport struct {
	Summary  bool     `json:"summary"`
	Passed   int      `json:"passed"`
	Failed   int      `json:"failed"`
	Invalid  int      `json:"invalid"`
	Skipped  int      `json:"skipped"` // in-process agents, which run from go test
	Seed     uint64   `json:"seed"`
	Findings []string `json:"findings"`
	// Errors are what kept replay from replaying anything: one per
	// invalid fixture (which Invalid counts), or the one reason (a
	// directory missing or without fixtures, a -listen address taken).
	Errors []string `json:"errors,omitempty"`
	// Fixtures are those of the Errors that name a fixture file, with
	// where and what, for a program to point at (an annotation, say).
	Fixtures []cliflags.InvalidFixture `json:"invalidFixtures,omitempty"`
	// Interrupted names the fixture a signal stopped replay in; the
	// counts are of the fixtures before it.
	Interrupted string `json:"interrupted,omitempty"`
}

// interruptedLoading is summaryReport.Interrupted for a signal that came
// before any fixture ran.
const interruptedLoading = "(loading)"

func runReplay(args []string, e env) int {
	rf, code := parseReplayFlags(args, e)
	if rf == nil {
		return code
	}
	release, err := rf.capture.Apply(&rf.opts, e.stderr)
	if err != nil {
		if cliflags.NotUsage(err) {
			fmt.Fprintf(e.stderr, "replay: cannot test: %v\n", err)
			newPrinter(e, rf).summary(summaryReport{Summary: true, Seed: rf.opts.Seed, Errors: []string{err.Error()}})
			return exitCannotRun
		}
		return replayCommand.Fail(e.stderr, "%v", err)
	}
	defer release()
	ctx, stop := cliflags.Interruptible(cmp.Or(e.parent, context.Background()), false)
	defer stop()
	rf.opts.Context = ctx
	suite, err := harness.Load(rf.opts)
	if code, ok := cliflags.InterruptedStatus(ctx, cmp.Or(err, ctx.Err())); ok {
		fmt.Fprintf(e.stderr, "replay: interrupted (%v) before any fixture was replayed\n", context.Cause(ctx))
		newPrinter(e, rf).summary(summaryReport{Summary: true, Seed: rf.opts.Seed, Findings: []string{}, Interrupted: interruptedLoading})
		return code
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "replay: cannot test: %v\n", err)
		// The output still ends with the counts (SPEC §4), each fixture
		// that could not be loaded among the failed; a program reading
		// the -json report reads why there is no other. A directory that
		// cannot be read, or holds no fixture, counts none.
		errs, fixtures := cliflags.LoadErrors(err)
		newPrinter(e, rf).summary(summaryReport{Summary: true, Invalid: len(fixtures), Seed: rf.opts.Seed, Errors: errs, Fixtures: fixtures})
		return exitCannotRun
	}
	if rf.opts.Listen != nil && len(suite.Fixtures()) != 1 {
		return replayCommand.Fail(e.stderr, "-listen serves one scenario; -run %q selects %d", rf.opts.Run, len(suite.Fixtures()))
	}
	if msg := cliflags.CaptureOnly(rf.opts, suite.Fixtures()); msg != "" {
		return replayCommand.Fail(e.stderr, "%s", msg)
	}
	if dir := cmp.Or(rf.opts.Golden, "golden"); !isDir(dir) {
		// Every fixture would run, agents and all, to find nothing to
		// compare with: a mistyped -golden is said once, up front.
		msg := fmt.Sprintf("the golden directory %s does not exist (or is not a directory); record the fixtures into it with record%s", dir, cliflags.DirFlags(rf.opts.Fixtures, rf.opts.Golden))
		fmt.Fprintf(e.stderr, "replay: cannot test: %s\n", msg)
		newPrinter(e, rf).summary(summaryReport{Summary: true, Seed: suite.Seed(), Errors: []string{msg}})
		return exitCannotRun
	}
	out := newPrinter(e, rf)
	if rf.verbose {
		out.linef("seed %d (replay the same orders with -seed %d)", suite.Seed(), suite.Seed())
	}
	selected := suite.Fixtures()
	if len(selected) == 0 && rf.opts.Run != nil {
		// Under git bisect run, a mistyped -run would pass every commit.
		return replayCommand.Fail(e.stderr, "-run %q matches no fixture in %s", rf.opts.Run, rf.opts.Fixtures)
	}
	passed, failed, invalid, skipped := 0, 0, 0, 0
	for _, f := range selected {
		if rf.shards > 0 && !inShard(f.Name, rf.shard, rf.shards) {
			continue
		}
		if suite.Skips(f) {
			// Its agent is a Go function that only a go test can call.
			skipped++
			out.skip(f.Name)
			continue
		}
		var res *harness.Result
		if ctx.Err() == nil {
			res = suite.Replay(f)
		}
		if code, ok := cliflags.InterruptedStatus(ctx, ctx.Err()); ok {
			// What the run says now is about the interrupt, not the
			// fixture: report neither it nor the fixtures not reached,
			// and exit as the signal would have.
			out.summary(summaryReport{Summary: true, Passed: passed, Failed: failed, Invalid: invalid, Skipped: skipped, Seed: suite.Seed(),
				Findings: []string{}, Interrupted: f.Name})
			fmt.Fprintf(e.stderr, "replay: interrupted (%v) at %s; neither it nor the fixtures after it count\n", context.Cause(ctx), f.Name)
			return code
		}
		switch {
		case res.Invalid():
			invalid++
		case res.Passed():
			passed++
		default:
			failed++
		}
		out.fixture(suite, res)
	}
	var findings []harness.Finding
	for _, f := range suite.Findings() {
		// A fixture's own finding goes with its shard; the others
		// with every shard, as each loads the whole suite.
		if f.Fixture == "" || rf.shards == 0 || inShard(f.Fixture, rf.shard, rf.shards) {
			findings = append(findings, f)
		}
	}
	out.findings(findings)
	failed += len(findings)
	out.summary(summaryReport{Summary: true, Passed: passed, Failed: failed, Invalid: invalid, Skipped: skipped, Seed: suite.Seed(),
		Findings: findingStrings(findings)})
	switch {
	case skipped > 0 && passed+failed+invalid == 0:
		// Under git bisect run, replaying nothing must not pass.
		fmt.Fprintf(e.stderr, "replay: nothing to replay here: the selected scenarios have in-process agents; run them from go test (goldentest.Test with Options.Agent)\n")
		return exitCannotRun
	case invalid > 0:
		return exitCannotRun
	case failed > 0:
		return exitMismatch
	}
	return exitOK
}

func findingStrings(fs []harness.Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.String()
	}
	return out
}

// printer writes the human or -json report.
type printer struct {
	e  env
	rf *replayFlags
	js *json.Encoder
}

func newPrinter(e env, rf *replayFlags) *printer {
	p := &printer{e: e, rf: rf}
	if rf.json {
		p.js = json.NewEncoder(e.stdout)
		p.js.SetEscapeHTML(false)
	}
	return p
}

func (p *printer) linef(format string, args ...any) {
	if p.js == nil {
		fmt.Fprintf(p.e.stdout, format+"\n", args...)
	}
}

func (p *printer) paint(code, s string) string {
	if !p.rf.colour {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *printer) fixture(s *harness.Suite, res *harness.Result) {
	status := "ok"
	switch {
	case res.Invalid():
		status = "invalid"
	case !res.Passed():
		status = "fail"
	}
	if p.js != nil {
		pins := s.Pins(s.Fixture(res.Fixture))
		r := fixtureReport{Fixture: res.Fixture, Status: status, Seconds: res.Elapsed.Seconds(), Seed: res.Seed,
			Pins: pinsReport{Kind: string(pins.Kind), Files: pins.Files, Pin: pins.Pin}, Failures: []failureReport{}}
		for _, f := range res.Failures {
			fr := failureReport{Check: string(f.Check), File: f.File, Line: f.Line, Message: f.Msg}
			if m := f.Mismatch; m != nil {
				fr.Path, fr.Want, fr.Got = m.Path, m.Want, m.Got
				fr.Cache, fr.CacheAt, fr.CacheNote, fr.CacheLines = m.Cost, m.CostAt, m.CostNote, m.Cache
				fr.Kinds, fr.Moved, fr.Added, fr.Removed = m.Kinds, m.Moved, m.Added, m.Removed
			}
			r.Failures = append(r.Failures, fr)
		}
		p.js.Encode(r)
	} else {
		label := p.paint("32", "ok  ")
		if status != "ok" {
			label = p.paint("31", "FAIL")
		}
		fmt.Fprintf(p.e.stdout, "%s %-24s %.3fs\n", label, res.Fixture, res.Elapsed.Seconds())
		for _, f := range res.Failures {
			fmt.Fprintf(p.e.stdout, "    %s\n", strings.ReplaceAll(f.String(), "\n", "\n    "))
		}
		f := s.Fixture(res.Fixture)
		switch {
		case res.Passed() || res.Invalid():
			// An invalid fixture's message says what to fix; no seed
			// can reproduce it differently.
		case !f.Seeded():
			// No seed: nothing an in-process run does depends on it,
			// nor a run whose agent.env sets PYTHONHASHSEED.
			fmt.Fprintf(p.e.stdout, "    reproduce: %s%s -run '^%s$'\n", replayCommand.Name, p.dirFlags(), res.Fixture)
		default:
			fmt.Fprintf(p.e.stdout, "    reproduce: %s%s -seed %d -run '^%s$'\n", replayCommand.Name, p.dirFlags(), res.Seed, res.Fixture)
		}
		if advice := harness.RecordAdvice(res, p.rf.opts.Commands); advice != "" {
			fmt.Fprintf(p.e.stdout, "    %s\n", advice)
		}
		if p.rf.verbose && res.Passed() {
			fmt.Fprintf(p.e.stdout, "    %s\n", harness.Verified(f, res))
		}
		if p.rf.verbose {
			fmt.Fprintf(p.e.stdout, "    %s\n", s.Pins(s.Fixture(res.Fixture)))
		}
	}
	if p.rf.annotated {
		for _, f := range res.Failures {
			file, line := f.File, f.Line
			if file == "" {
				file = s.GoldenPath(res.Fixture)
			}
			fmt.Fprintf(p.annotations(), "::error file=%s,line=%d::%s\n", file, max(line, 1), annotation(res.Fixture+": "+f.Msg))
		}
	}
}

// annotations is where GitHub Actions commands go: standard output, which
// the runner reads, unless that carries -json.
func (p *printer) annotations() io.Writer {
	if p.js != nil {
		return p.e.stderr
	}
	return p.e.stdout
}

// dirFlags repeats -fixtures, -golden and -shuffle when they are not the
// defaults, and -listen, so the reproduce line replays the same runs.
func (p *printer) dirFlags() string {
	s := cliflags.DirFlags(p.rf.opts.Fixtures, p.rf.opts.Golden)
	if n := p.rf.opts.Shuffle; n != harness.DefaultShuffle {
		s += fmt.Sprintf(" -shuffle %d", max(n, 0))
	}
	return s + p.rf.capture.Flags()
}

// annotation escapes a message for a GitHub Actions workflow command.
func annotation(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func (p *printer) findings(fs []harness.Finding) {
	for _, f := range fs {
		p.linef("%s %s", p.paint("31", "FAIL"), f)
		if p.rf.annotated {
			fmt.Fprintf(p.annotations(), "::error file=%s,line=1::%s\n", f.File, annotation(f.Msg))
		}
	}
}

func (p *printer) summary(s summaryReport) {
	if p.js != nil {
		if s.Findings == nil {
			s.Findings = []string{}
		}
		p.js.Encode(s)
		return
	}
	// The last line is the contract's "N passed, N failed", a fixture
	// that could not be tested counted as failed; what needs saying
	// besides goes on the line before.
	var notes []string
	if s.Invalid > 0 {
		notes = append(notes, fmt.Sprintf("%d of the failed could not be tested", s.Invalid))
	}
	if s.Skipped > 0 {
		notes = append(notes, fmt.Sprintf("%d skipped (in-process agents run from go test)", s.Skipped))
	}
	switch s.Interrupted {
	case "":
	case interruptedLoading:
		notes = append(notes, "interrupted while loading the fixtures")
	default:
		notes = append(notes, fmt.Sprintf("interrupted at %s: neither it nor the fixtures after it count", s.Interrupted))
	}
	if len(notes) > 0 {
		fmt.Fprintln(p.e.stdout, strings.Join(notes, "; "))
	}
	fmt.Fprintf(p.e.stdout, "%d passed, %d failed\n", s.Passed, s.Failed+s.Invalid)
}

// skip reports a scenario replay does not run: its agent is in-process.
func (p *printer) skip(name string) {
	const why = "in-process agent: run it from go test (goldentest.Test with Options.Agent)"
	if p.js != nil {
		p.js.Encode(fixtureReport{Fixture: name, Status: "skipped", Failures: []failureReport{}, Skip: why})
		return
	}
	fmt.Fprintf(p.e.stdout, "%s %-24s %s\n", p.paint("33", "skip"), name, why)
}

// isDir reports whether path names a directory (a link to one included).
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
