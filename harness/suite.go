package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// DefaultShuffle is the number of permutation runs per fixture.
const DefaultShuffle = 8

// Options selects fixtures and tunes a replay.
type Options struct {
	// Fixtures and Golden are the directories of fixtures/NAME.json and
	// golden/NAME.golden; empty means "fixtures" and "golden".
	Fixtures, Golden string
	// Run selects fixtures by name; nil selects all.
	Run *regexp.Regexp
	// Shuffle is the number of permutation runs per fixture: 0 means
	// DefaultShuffle, a negative number disables the pass. A negative
	// number also disables a captured scenario's repeat pass, whatever
	// its runs: the agent runs once and Result.Runs is 1.
	Shuffle int
	// Seed seeds the permutation runs of every fixture; 0 picks one from
	// the clock. Failures report it so the same orders can be replayed.
	Seed uint64
	// Agent runs the in-process Go agent of every captured scenario
	// without agent.exec (see [Session]); scenarios with an exec run as
	// subprocesses either way.
	Agent AgentFunc
	// Upstream, when set, records captured scenarios from a real
	// provider: their first run goes through a recording proxy to it, and
	// a record writes the replies it answered into the fixture, beside
	// the goldens and in the same transaction.
	Upstream *Upstream
	// Listen, when set, serves the fake provider of the captured
	// scenarios on it instead of starting their agents: an agent started
	// elsewhere (an IDE, a server) is pointed at it, and the run ends when
	// the script is consumed (so Load refuses it beside Upstream). OnListen is called with the session first,
	// to tell the user the base URLs to export. The runs of the suite take
	// turns on the one listener, which the harness leaves open for its
	// owner to close (two suites must not share one); a listener without
	// SetDeadline (every net.TCPListener and net.UnixListener has one)
	// serves one run, is closed after it, and fails the runs after.
	Listen   net.Listener
	OnListen func(*Session)
	// MaxFileSize is the largest fixture or golden file read; 0 means
	// DefaultMaxFileSize. Only regular files are read, whatever their size.
	MaxFileSize ByteSize
	// Context, when set, bounds every agent run of Replay, Check and
	// Record (and Load's wait for an interrupted record's lock):
	// cancelling it stops running agents and fails their scenarios, so a
	// record writes nothing. ReplayContext, CheckContext and
	// RecordContext take a context per call instead.
	Context context.Context
	// Commands words the commands that failure messages tell the user to
	// run, as the user runs them where the message is read. goldentest.Test
	// sets it for go test; cmd/replay and cmd/record set their own command
	// lines.
	Commands Commands
}

// Commands words the commands a message tells the user to run.
type Commands struct {
	// Record returns the command that records the fixtures a -run
	// pattern (such as ^NAME$) selects; nil names no command.
	Record func(run string) string
	// Prune is the command that deletes golden files with no fixture;
	// "" when there is none.
	Prune string
}

// prune says how to remove an orphan.
func (c Commands) prune() string {
	if c.Prune == "" {
		return "delete it"
	}
	return "delete it, or run " + c.Prune
}

// record says how to record the fixtures run selects.
func (c Commands) record(run string) string {
	if c.Record == nil {
		return "record it (GOLDIE_UPDATE=1 go test, or the record command)"
	}
	return "record it: " + c.Record(run)
}

// Upstream says where a recording proxy forwards each format's requests.
type Upstream struct {
	// URL is the base every request's path is appended to, such as
	// https://api.anthropic.com.
	URL string
	// ByFormat overrides URL per wire format: anthropic, openai-chat,
	// openai-responses, gemini.
	ByFormat map[string]string
}

// base is the upstream base URL of a format.
func (u *Upstream) base(f wire.Format) string {
	if b, ok := u.ByFormat[string(f)]; ok {
		return b
	}
	return u.URL
}

func (o Options) fixturesDir() string { return cmp.Or(o.Fixtures, "fixtures") }
func (o Options) goldenDir() string   { return cmp.Or(o.Golden, "golden") }

func (o Options) shuffle() int {
	switch {
	case o.Shuffle == 0:
		return DefaultShuffle
	case o.Shuffle < 0:
		return 0
	}
	return o.Shuffle
}

// Suite is a loaded fixtures directory with its golden directory.
//
// Replay, Check, CompareGolden and their Context forms may be called
// concurrently, on the same fixture or different ones: goldentest.Test
// checks the fixtures in parallel subtests of one suite. Record (which
// may reload the suite after rolling back an interrupted record) must not
// run alongside any other call on the suite.
type Suite struct {
	opts    Options
	all     []*Fixture // every fixture, by name
	byName  map[string]*Fixture
	orphans []Finding // golden files that belong to no fixture
	// leftovers are the temp files and backups of interrupted records.
	leftovers []Finding
	// goldenFiles holds the names in the golden directory at Load.
	goldenFiles map[string]bool
	// run runs a fixture; tests swap it to inject faults.
	run func(*Fixture, *registration) (*runResult, error)
	// listen makes the runs that serve Options.Listen take turns (the
	// go test subtests of goldentest run in parallel).
	listen *listenTurns
}

// listenTurns lets one fake provider at a time accept on Options.Listen.
// spent is set once a listener that cannot be lent (see capture.Borrow)
// has served its one run.
type listenTurns struct {
	mu    sync.Mutex
	spent bool
}

// Finding is a guard failure: a problem of the golden layout.
type Finding struct {
	Kind FindingKind // Orphan, Leftover or Sidecar
	File string      // the file at fault
	Msg  string
	// Fixture is the fixture a Sidecar finding belongs to, empty for the
	// other kinds: a caller that runs a share of the fixtures (a shard)
	// reports it with that fixture's share.
	Fixture string
}

// FindingKind says what a [Finding] is about.
type FindingKind string

// Kinds of finding.
const (
	// Orphan is a golden log or sidecar whose fixture does not exist;
	// RecordOptions.Prune deletes it.
	Orphan FindingKind = "orphan"
	// Leftover is a temp file, backup or journal an interrupted record
	// left in the golden or fixtures directory; the next record rolls
	// back what the journal says and removes them.
	Leftover FindingKind = "leftover"
	// Sidecar is a sidecar beside a fixture that is not pinned and that
	// no replay here runs: an in-process scenario the suite skips (see
	// [Suite.Skips]). A fixture that runs reports its own as a guard
	// failure of its result.
	Sidecar FindingKind = "sidecar"
)

// String formats the finding as FILE: message.
func (f Finding) String() string { return f.File + ": " + f.Msg }

// Load reads and validates every fixture in the fixtures directory and
// checks the golden directory's layout. Any invalid fixture fails the load:
// nothing can be tested or recorded until it is fixed. The error names
// every invalid fixture (errors.Join of one *FixtureError each, which
// errors.As finds); with Options.Run, only the fixtures it selects (and
// those they extend) are loaded, and the others are read only to find
// those that extend them, which decide whether a late registration is
// reached. A fixtures directory that does not exist fails the load with
// an error for which errors.Is(err, fs.ErrNotExist) holds.
func Load(opts Options) (*Suite, error) { return load(opts.context(), opts) }

// load is [Load] with ctx bounding its wait for a record's lock.
func load(ctx context.Context, opts Options) (*Suite, error) {
	if opts.Listen != nil && opts.Upstream != nil {
		// A run served on Listen ends when its script is consumed, and
		// one recorded from a provider has no script: it would only end
		// by failing or by Options.Context.
		return nil, errors.New("Options.Listen with Options.Upstream: a run served to an agent started elsewhere ends when its scripted replies are used, and a recording from the upstream has none; record through agent.exec or Options.Agent")
	}
	dir := opts.fixturesDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("fixtures: %w", err)
	}
	if opts.Seed == 0 {
		opts.Seed = uint64(time.Now().UnixNano())
	}
	s := &Suite{opts: opts, byName: map[string]*Fixture{}, run: runFixture, listen: &listenTurns{}}
	// Every invalid fixture is reported, not only the first, so that a
	// broken directory is fixed in one go.
	var errs []error
	seen := map[string]bool{}
	report := func(err error) {
		if !seen[err.Error()] {
			seen[err.Error()] = true
			errs = append(errs, err)
		}
	}
	var names []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue // editors' lock and backup files start with a dot
		}
		if e.IsDir() {
			// Named as a fixture is, so most likely meant as one: said,
			// as a link to a directory is, rather than passed over.
			if opts.Run == nil || opts.Run.MatchString(name) {
				report(&FixtureError{File: filepath.Join(dir, e.Name()), Msg: "a directory, not a fixture file"})
			}
			continue
		}
		if !validName(name) {
			// Under Run, a file Run does not select is not looked at,
			// as a fixture it does not select is not loaded.
			if opts.Run == nil || opts.Run.MatchString(name) {
				report(&FixtureError{File: filepath.Join(dir, e.Name()),
					Msg: fmt.Sprintf("%q is not a fixture name: names match %s", name, nameRule())})
			}
			continue
		}
		names = append(names, name)
	}
	if len(names) == 0 && len(errs) == 0 && opts.Run == nil {
		// A mistyped or empty directory must not pass: replaying nothing
		// would pass every commit of a bisect and every CI run.
		return nil, fmt.Errorf("fixtures: no fixtures in %s (a fixture is a file NAME.json)", dir)
	}
	slices.Sort(names)
	valid := slices.Clone(names)
	// With Run, only the selected fixtures and those they extend are
	// loaded and guarded: a commit that breaks or deletes an unrelated
	// fixture must not fail a bisect of this one.
	for len(names) > 0 {
		name := names[0]
		names = names[1:]
		if s.byName[name] != nil || (opts.Run != nil && !opts.Run.MatchString(name) && !s.extended(name)) {
			continue
		}
		f, err := loadChain(dir, name, nil, opts.maxFileSize())
		if err != nil {
			report(err)
			continue
		}
		s.all = append(s.all, f)
		s.byName[name] = f
		if f.Extends != "" && s.byName[f.Extends] == nil {
			names = append([]string{f.Extends}, names...)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	slices.SortFunc(s.all, func(a, b *Fixture) int { return strings.Compare(a.Name, b.Name) })
	// Whether a late registration is reached needs every fixture that
	// extends its fixture.
	if opts.Run == nil {
		err = checkReached(s.all, nil)
	} else {
		err = reachedUnderRun(dir, valid, s.all, opts.maxFileSize())
	}
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(opts.goldenDir()); err == nil && !fi.IsDir() {
		what := describeMode(fi.Mode())
		if fi.Mode().IsRegular() {
			what = "a file"
		}
		return nil, fmt.Errorf("golden: %s is %s, not a directory: -golden (Options.Golden) names the directory of the golden files", opts.goldenDir(), what)
	}
	if s.leftovers, _, err = findLeftovers(opts.goldenDir(), dir); err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	if len(s.leftovers) > 0 {
		// A record writing now has temp files that are not leftovers:
		// it holds the golden directory's lock, so wait for it to end,
		// then look again. Without the lock in time, they are reported.
		unlock, err := lockDir(ctx, opts.goldenDir(), DefaultLockWait)
		switch {
		case err == nil:
			unlock()
			if s.leftovers, _, err = findLeftovers(opts.goldenDir(), dir); err != nil {
				return nil, fmt.Errorf("golden: %w", err)
			}
		case ctx.Err() != nil:
			return nil, err // interrupted while waiting
		}
	}
	if err := s.scanGolden(); err != nil {
		return nil, err
	}
	return s, nil
}

// extended reports whether a loaded fixture extends name.
// reachedUnderRun is checkReached for the fixtures a Run loaded: their
// registrations are judged among them and every fixture that extends one
// of them, loaded for this alone. When one of those cannot be loaded (a
// broken fixture, which a bisect of another must get past), nothing is
// judged: the replay without Run reports it. A file that cannot be read
// at all extends nothing.
func reachedUnderRun(dir string, names []string, loaded []*Fixture, limit ByteSize) error {
	have, files := map[string]bool{}, map[string]bool{}
	for _, f := range loaded {
		have[f.Name], files[f.File] = true, true
	}
	fixtures := slices.Clone(loaded)
	for grew := true; grew; {
		grew = false
		for _, name := range names {
			if have[name] {
				continue
			}
			raw, err := readRegular(filepath.Join(dir, name+".json"), limit)
			if err != nil {
				// Unreadable (a dangling link, too large): no fixture
				// that runs, so none that reaches anything.
				continue
			}
			if !have[gjson.GetBytes(raw, "extends").String()] {
				continue
			}
			f, err := loadChain(dir, name, nil, limit)
			if err != nil {
				return nil
			}
			have[name], grew = true, true
			fixtures = append(fixtures, f)
		}
	}
	return checkReached(fixtures, func(file string) bool { return files[file] })
}

func (s *Suite) extended(name string) bool {
	for _, f := range s.all {
		if f.Extends == name {
			return true
		}
	}
	return false
}

// Seed returns the base seed of the permutation pass.
func (s *Suite) Seed() uint64 { return s.opts.Seed }

// Fixtures returns the fixtures Options.Run selects, by name. The slice
// is the caller's, but the fixtures are the suite's own, which every later
// replay, check and record reads: callers must not modify them.
func (s *Suite) Fixtures() []*Fixture {
	var out []*Fixture
	for _, f := range s.all {
		if s.opts.Run == nil || s.opts.Run.MatchString(f.Name) {
			out = append(out, f)
		}
	}
	return out
}

// Fixture returns the fixture of that name, or nil. It is the suite's own
// fixture, not a copy: callers must not modify it.
func (s *Suite) Fixture(name string) *Fixture { return s.byName[name] }

// Findings returns the layout problems no replay of a fixture reports:
// golden logs and sidecars whose fixture does not exist ([Orphan]), the
// sidecars beside a fixture the suite skips ([Sidecar], below), and the temp files
// and backups (dot files ending in .headergold-tmp-N or .headergold-old)
// that an interrupted record left in the golden or fixtures directory,
// which the next record removes ([Leftover]). A record killed while it
// replaced files also left its journal, golden/.headergold-journal: its
// finding comes first and says how many files are new (naming them) and
// how many old, which the next record restores. Replay reports each as a
// guard failure. With Options.Run, only the selected fixtures' files are
// considered orphans. The sidecars beside a selected fixture that is not
// pinned and that the suite skips ([Sidecar]) come after the orphans: a
// fixture that runs reports its own, and one that is skipped must not
// hide them.
func (s *Suite) Findings() []Finding {
	return slices.Concat(s.orphans, s.skippedSidecars(), s.leftovers)
}

// skippedSidecars returns the [Sidecar] findings: the sidecars beside the
// selected fixtures that are not pinned and that the suite skips.
func (s *Suite) skippedSidecars() []Finding {
	var out []Finding
	for _, f := range s.Fixtures() {
		if f.Pin || !s.Skips(f) {
			continue
		}
		for _, file := range []string{s.systemPath(f.Name), s.toolsPath(f.Name)} {
			if s.goldenFiles[filepath.Base(file)] {
				out = append(out, Finding{Kind: Sidecar, File: file, Fixture: f.Name,
					Msg: fmt.Sprintf("sidecar beside %s, which is not pinned and whose in-process agent runs from go test: only \"pin\": true fixtures own sidecars; delete it, or pin %s", f.Name, f.Name)})
			}
		}
	}
	return out
}

// GoldenPath returns the path of the fixture's golden log.
func (s *Suite) GoldenPath(name string) string { return s.goldenPath(name) }

// The files of a fixture in the golden directory.
func (s *Suite) goldenPath(name string) string {
	return filepath.Join(s.opts.goldenDir(), name+".golden")
}
func (s *Suite) systemPath(name string) string {
	return filepath.Join(s.opts.goldenDir(), name+".system.md")
}
func (s *Suite) toolsPath(name string) string {
	return filepath.Join(s.opts.goldenDir(), name+".tools.json")
}

// scanGolden finds golden files with no fixture. A missing golden directory
// is an empty one: recording creates it.
func (s *Suite) scanGolden() error {
	entries, err := os.ReadDir(s.opts.goldenDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	s.goldenFiles = make(map[string]bool, len(entries))
	for _, e := range entries {
		s.goldenFiles[e.Name()] = !e.IsDir()
		if o, ok := s.orphan(e.Name()); ok && !e.IsDir() {
			s.orphans = append(s.orphans, o)
		}
	}
	return nil
}

// orphan returns the finding of the golden directory's file of that name
// when it is a golden file whose fixture does not exist (among those
// Options.Run selects).
func (s *Suite) orphan(file string) (Finding, bool) {
	name, kind := goldenName(file)
	if kind == "" || s.byName[name] != nil || (s.opts.Run != nil && !s.opts.Run.MatchString(name)) {
		return Finding{}, false
	}
	return Finding{Kind: Orphan,
		File: filepath.Join(s.opts.goldenDir(), file),
		Msg:  fmt.Sprintf("%s with no fixture %s; %s", kind, filepath.Join(s.opts.fixturesDir(), name+".json"), s.opts.Commands.prune()),
	}, true
}

// goldenName splits a golden-directory file name into fixture name and kind.
func goldenName(file string) (name, kind string) {
	for _, k := range []struct{ suffix, kind string }{
		{".golden", "golden log"}, {".system.md", "system sidecar"}, {".tools.json", "tools sidecar"},
	} {
		if n, ok := strings.CutSuffix(file, k.suffix); ok {
			return n, k.kind
		}
	}
	return "", ""
}
