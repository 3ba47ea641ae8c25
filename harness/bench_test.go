package harness

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/cputime"
	"github.com/sebdah/goldie/v2"
)

// Every figure here is a ratio measured inside one benchmark: each
// iteration runs the variant and its baseline one after the other, so both
// see the same machine, however busy it is.

// timed runs f and adds its wall time to *d.
func timed(d *time.Duration, f func()) {
	start := time.Now()
	f()
	*d += time.Since(start)
}

// batch is how many times cpuTimed runs its function per reading: a
// reading costs about a microsecond, as much as a small fixture's golden
// file read, so it is spread over several runs.
const batch = 8

// cpuOnce runs f once and adds the process CPU time it took to *d, for
// functions that take milliseconds.
func cpuOnce(d *time.Duration, f func()) {
	start := cputime.Process()
	f()
	*d += cputime.Process() - start
}

// cpuTimed runs f batch times and adds the process CPU time it took to *d.
func cpuTimed(d *time.Duration, f func()) {
	start := cputime.Process()
	for range batch {
		f()
	}
	*d += cputime.Process() - start
}

func benchSuite(b *testing.B, shuffle int) *Suite {
	b.Helper()
	s, err := Load(Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: shuffle, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// benchFixture is a bundled reference fixture with its outputs (captured
// fixtures start a process per run; BenchmarkCapturedCompare covers their
// comparison layer).
type benchFixture struct {
	f      *Fixture
	out    *Outputs
	run    *runResult
	goldie func() // goldie's Assert on the fixture's golden files
}

// referenceFixtures returns the suite's reference fixtures, each checked
// once to get its outputs.
func referenceFixtures(b *testing.B, s *Suite) []*benchFixture {
	var out []*benchFixture
	for _, f := range s.Fixtures() {
		if f.Captured() {
			continue
		}
		o, res := s.Check(f)
		if !res.Passed() {
			b.Fatal(res.Failures)
		}
		run, err := runFixture(f, nil)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, &benchFixture{f: f, out: o, run: run, goldie: goldieAssert(b, s, f, o)})
	}
	return out
}

// goldieAssert returns goldie's Assert of f's outputs against its golden
// files (the golden log, and a pin's two sidecars), built once: the least a
// golden test on goldie does with the same bytes.
func goldieAssert(b *testing.B, s *Suite, f *Fixture, out *Outputs) func() {
	type file struct {
		g    *goldie.Goldie
		name string
		got  []byte
	}
	mk := func(path string, got []byte) file {
		dir, base := filepath.Split(path)
		name, suffix, _ := strings.Cut(base, ".")
		return file{goldie.New(b, goldie.WithFixtureDir(filepath.Clean(dir)), goldie.WithNameSuffix("."+suffix)), name, got}
	}
	files := []file{mk(s.goldenPath(f.Name), out.Golden)}
	if f.Pin {
		files = append(files, mk(s.systemPath(f.Name), out.System), mk(s.toolsPath(f.Name), out.Tools))
	}
	return func() {
		for _, fl := range files {
			fl.g.Assert(b, fl.name, fl.got)
		}
	}
}

// cleanBatch is cpuBatch on a collected heap after one untimed run of f
// (a collection leaves the caches cold). Without it, the collector's work
// for what one part left (in the process CPU time) lands in whichever part
// runs when it starts, so a figure would depend on the order the parts run
// in; with it, each part pays only for a collection its own runs start,
// which small parts rarely do: the figures leave the collector out alike.
func cleanBatch(f func()) time.Duration {
	runtime.GC()
	f()
	return cpuBatch(f)
}

// cpuBatch runs f batch times and returns the process CPU time it took.
func cpuBatch(f func()) time.Duration {
	var d time.Duration
	cpuTimed(&d, f)
	return d
}

// tally holds, for each fixture, the CPU time of the baseline and of each
// part, and each iteration's ratio of a part to the baseline, for one
// fixture and over all of them: a figure is the median of its ratios over
// the iterations, which one iteration that was preempted or collected in
// does not move.
type tally struct {
	base   []time.Duration
	parts  map[string][]time.Duration
	ratios map[string][][]float64 // part, fixture, iteration
	totals map[string][]float64   // part, iteration: all fixtures
	// this iteration so far, over all fixtures
	iterBase  time.Duration
	iterParts map[string]time.Duration
}

func newTally(fixtures int, names ...string) *tally {
	t := &tally{base: make([]time.Duration, fixtures), parts: map[string][]time.Duration{}, ratios: map[string][][]float64{},
		totals: map[string][]float64{}, iterParts: map[string]time.Duration{}}
	for _, n := range names {
		t.parts[n] = make([]time.Duration, fixtures)
		t.ratios[n] = make([][]float64, fixtures)
	}
	return t
}

// baseline records one iteration of the baseline on fixture i.
func (t *tally) baseline(i int, d time.Duration) time.Duration {
	t.base[i] += d
	t.iterBase += d
	return d
}

// add records one iteration of part on fixture i, against base, that
// iteration's baseline.
func (t *tally) add(part string, i int, d, base time.Duration) {
	t.parts[part][i] += d
	t.iterParts[part] += d
	t.ratios[part][i] = append(t.ratios[part][i], float64(d)/float64(max(base, time.Microsecond)))
}

// next ends an iteration over all fixtures.
func (t *tally) next() {
	for name, d := range t.iterParts {
		t.totals[name] = append(t.totals[name], float64(d)/float64(max(t.iterBase, time.Microsecond)))
	}
	t.iterBase = 0
	clear(t.iterParts)
}

// median returns the median of xs.
func median(xs []float64) float64 {
	xs = slices.Clone(xs)
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// fixture returns the median ratio of part on fixture i.
func (t *tally) fixture(part string, i int) float64 { return median(t.ratios[part][i]) }

// report reports, for each part, the median ratio of its time over all
// fixtures to the baseline's ("PART/goldie"), and for the parts in
// perFixture also the median fixture and the fixture where it costs most
// ("PART/goldie-median", "PART/goldie-worst").
func (t *tally) report(b *testing.B, perFixture ...string) {
	var total time.Duration
	for _, d := range t.base {
		total += d
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*batch), "goldie-ns/op")
	for name := range t.parts {
		b.ReportMetric(median(t.totals[name]), name+"/goldie")
	}
	for _, name := range perFixture {
		ratios := make([]float64, len(t.base))
		for i := range ratios {
			ratios[i] = t.fixture(name, i)
		}
		slices.Sort(ratios)
		b.ReportMetric(ratios[len(ratios)/2], name+"/goldie-median")
		b.ReportMetric(ratios[len(ratios)-1], name+"/goldie-worst")
	}
}

// log prints each fixture's ratios, with -test.v.
func (t *tally) log(fixtures []*benchFixture, names []string) {
	if !testing.Verbose() {
		return
	}
	for i, fx := range fixtures {
		line := fmt.Sprintf("%-20s goldie %6.1fµs/assert", fx.f.Name, float64(t.base[i].Nanoseconds())/float64(len(t.ratios[names[0]][i])*batch)/1e3)
		for _, n := range names {
			line += fmt.Sprintf("  %s %.2fx", n, t.fixture(n, i))
		}
		fmt.Println(line)
	}
}

// BenchmarkCompareLayer measures the comparison layer of a replay,
// CompareGolden on a run's outputs (read the golden files, compare, apply
// the guards), against goldie's Assert on the same golden bytes, for every
// bundled reference fixture, alternating the two.
func BenchmarkCompareLayer(b *testing.B) {
	s := benchSuite(b, -1)
	fixtures := referenceFixtures(b, s)
	runtime.GC() // not in the timing: what the setup left
	t := newTally(len(fixtures), "compare")
	for b.Loop() {
		for i, fx := range fixtures {
			g := t.baseline(i, cpuBatch(fx.goldie))
			t.add("compare", i, cpuBatch(func() {
				if fails := s.CompareGolden(fx.f, fx.out); len(fails) > 0 {
					b.Fatal(fails)
				}
			}), g)
		}
		t.next()
	}
	t.report(b, "compare")
	t.log(fixtures, []string{"compare"})
}

// BenchmarkReplayParts measures a whole replay at -shuffle 0 of every
// bundled reference fixture, and each of its parts on its own, against
// goldie's Assert on the fixture's golden bytes, alternating all of them,
// each from a collected heap (see cleanBatch):
//
//   - prepare: the fixture's plugins copied into providers (once per
//     replay), their tools to be made canonical when a header is first
//     read, in whichever part reads one;
//   - run: the scenario with those plugins (the agent loop, no network),
//     writing its log and, beside it, the templated log;
//   - rebuild: every request checked against its log prefix;
//   - trace: every executed tool call checked against the declared edges;
//   - outputs: what a record writes, from the run (a pin's sidecars);
//   - uniformity: the guard that runs the pin again for a fixture that
//     extends it without changing its header, and compares the headers;
//   - compare: the comparison layer, as in BenchmarkCompareLayer;
//   - replay: all of it, as replay -shuffle 0 and go test do it.
func BenchmarkReplayParts(b *testing.B) {
	s := benchSuite(b, -1)
	fixtures := referenceFixtures(b, s)
	names := []string{"prepare", "run", "rebuild", "trace", "outputs", "uniformity", "compare", "replay"}
	t := newTally(len(fixtures), names...)
	for b.Loop() {
		for i, fx := range fixtures {
			var prepared *preparedPlugins
			steps := map[string]func(){
				"prepare": func() { prepared = preparePlugins(fx.f) },
				"run": func() {
					if _, err := runFixture(fx.f, (&registration{}).with(prepared)); err != nil {
						b.Fatal(err)
					}
				},
				"rebuild": func() {
					if err := fx.run.checkRequests(); err != nil {
						b.Fatal(err)
					}
				},
				"trace": func() {
					if tf := traceErrFailure(fx.f, s.goldenPath(fx.f.Name), fx.run.checkTrace()); tf != nil {
						b.Fatal(tf)
					}
				},
				"outputs": func() {
					if _, err := outputs(fx.f, fx.run); err != nil {
						b.Fatal(err)
					}
				},
				"uniformity": func() {
					if fx.f.addsNothing() {
						res := &Result{}
						if s.checkUniformity(fx.f, fx.run, res); !res.Passed() {
							b.Fatal(res.Failures)
						}
					}
				},
				"compare": func() {
					if fails := s.CompareGolden(fx.f, fx.out); len(fails) > 0 {
						b.Fatal(fails)
					}
				},
				"replay": func() {
					if res := s.Replay(fx.f); !res.Passed() {
						b.Fatal(res.Failures)
					}
				},
			}
			g := t.baseline(i, cleanBatch(fx.goldie))
			for _, n := range names {
				t.add(n, i, cleanBatch(steps[n]), g)
			}
		}
		t.next()
	}
	t.report(b, "replay")
	t.log(fixtures, names)
}

// BenchmarkPermutationPass measures what the permutation pass costs, for
// the bundled reference fixtures: one permutation run (seeded shuffled
// registration, concurrent every other time) against a run in the listed
// order, both registering plugins prepared once; and a replay with
// the default 8 permutation runs against one at -shuffle 0.
func BenchmarkPermutationPass(b *testing.B) {
	s0, s8 := benchSuite(b, -1), benchSuite(b, 0)
	fixtures := referenceFixtures(b, s0)
	runtime.GC() // not in the timing: what the setup left
	b.Run("run", func(b *testing.B) {
		var tListed, tShuffled time.Duration
		seed := uint64(0)
		for b.Loop() {
			for _, fx := range fixtures {
				seed++
				cpuTimed(&tListed, func() {
					if _, err := runFixture(fx.f, (&registration{}).with(fx.run.plugins)); err != nil {
						b.Fatal(err)
					}
				})
				cpuTimed(&tShuffled, func() {
					if _, err := runFixture(fx.f, newRegistration(seed, seed%2 == 0).with(fx.run.plugins)); err != nil {
						b.Fatal(err)
					}
				})
			}
		}
		b.ReportMetric(float64(tShuffled)/float64(tListed), "permutation/listed")
	})
	b.Run("pass", func(b *testing.B) {
		var t0, t8 time.Duration
		for b.Loop() {
			for _, fx := range fixtures {
				cpuTimed(&t0, func() {
					if res := s0.Replay(fx.f); !res.Passed() {
						b.Fatal(res.Failures)
					}
				})
				cpuTimed(&t8, func() {
					if res := s8.Replay(s8.Fixture(fx.f.Name)); !res.Passed() {
						b.Fatal(res.Failures)
					}
				})
			}
		}
		b.ReportMetric(float64(t8)/float64(t0), "shuffle8/shuffle0")
	})
}

// largeFixture writes a fixture with the given number of tools (in 20
// plugins, registered in shuffled name order) and the given number of
// steps, in turns of at most 25 (a tool call at each step of a turn but
// its last): a turn stops at the loop's 32-step limit.
func largeFixture(tools, steps int) []byte {
	var b strings.Builder
	b.WriteString(`{"description":"a large header over many steps","config":{"persona":"You operate many services.","model":"m-1"},"plugins":[`)
	const plugins = 20
	r := rand.New(rand.NewPCG(3, 4))
	perm := r.Perm(tools)
	for p := range plugins {
		if p > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"mcp-%02d","tools":[`, p)
		for k, i := range perm[p*tools/plugins : (p+1)*tools/plugins] {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"tool_%05d","description":"Operate object %d of the connected service and return its state.",`+
				`"parameters":{"type":"object","properties":{"id":{"type":"string","description":"The object id."},`+
				`"limit":{"type":"integer","minimum":1,"maximum":%d}},"required":["id"]}}`, i, i, 100+i%900)
		}
		b.WriteString(`]}`)
	}
	b.WriteString(`],"turns":[`)
	const perTurn = 25
	for first := 1; first <= steps; first += perTurn {
		last := min(first+perTurn-1, steps) // the turn's steps, numbered over all turns
		if first > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`{"user":"Check every service.","replies":[`)
		for s := first; s < last; s++ {
			fmt.Fprintf(&b, `{"toolCalls":[{"id":"c%d","name":"tool_%05d","arguments":{"id":"o-%d"}}]},`, s, (s*37)%tools, s)
		}
		b.WriteString(`{"text":"All services are fine."}],"toolResults":{`)
		for s := first; s < last; s++ {
			if s > first {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"c%d":"state of o-%d: ok"`, s, s)
		}
		b.WriteString(`}}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// largeSuite writes fixtures large-1 and large-100 (20,000 tools, one step
// and 100 steps) and their golden logs into a temporary directory.
func largeSuite(b *testing.B, tools int) Options {
	dir := b.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: DefaultShuffle, Seed: 1}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, steps := range []int{1, 100} {
		name := fmt.Sprintf("large-%d", steps)
		if err := os.WriteFile(filepath.Join(opts.Fixtures, name+".json"), largeFixture(tools, steps), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	s, err := Load(Options{Fixtures: opts.Fixtures, Golden: opts.Golden, Shuffle: -1})
	if err != nil {
		b.Fatal(err)
	}
	for _, f := range s.Fixtures() {
		out, _ := s.Check(f)
		if out == nil {
			b.Fatalf("%s does not run", f.Name)
		}
		if err := os.WriteFile(s.goldenPath(f.Name), out.Golden, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return opts
}

// BenchmarkLargeReplay measures a replay of a fixture with 20,000 tools
// over 100 steps against the same fixture over one step, both with the 8
// permutation runs, alternating the two (process CPU time); and the peak
// resident memory of a process that loads the suite and replays each (a
// child process running TestLargeReplayPeak, its VmHWM), where
// /proc/self/status has one.
func BenchmarkLargeReplay(b *testing.B) {
	opts := largeSuite(b, 20000)
	s, err := Load(opts)
	if err != nil {
		b.Fatal(err)
	}
	one, hundred := s.Fixture("large-1"), s.Fixture("large-100")
	replay := func(f *Fixture) {
		if res := s.Replay(f); !res.Passed() {
			b.Fatal(res.Failures)
		}
	}
	replay(one) // the heap grows to its working size before anything is timed
	replay(hundred)
	var t1, t100 time.Duration
	for b.Loop() {
		runtime.GC() // each pays for its own garbage, not the other's
		cpuOnce(&t1, func() { replay(one) })
		runtime.GC()
		cpuOnce(&t100, func() { replay(hundred) })
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(b.N) }
	b.ReportMetric(ms(t1), "1step-cpu-ms/op")
	b.ReportMetric(ms(t100), "100steps-cpu-ms/op")
	b.ReportMetric(float64(t100)/float64(t1), "100steps/1step")
	var peak [2]float64
	for i, name := range []string{"large-1", "large-100"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLargeReplayPeak$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "HEADERGOLD_PEAK_FIXTURES="+opts.Fixtures, "HEADERGOLD_PEAK_GOLDEN="+opts.Golden, "HEADERGOLD_PEAK_RUN="+name)
		outb, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("peak child for %s: %v\n%s", name, err, outb)
		}
		m := regexp.MustCompile(`peak-kB: (\d+)`).FindSubmatch(outb)
		if m == nil {
			b.Logf("no peak reading for %s (no /proc/self/status?)", name)
			return
		}
		kb, _ := strconv.ParseFloat(string(m[1]), 64)
		peak[i] = kb / 1024
	}
	b.ReportMetric(peak[0], "1step-peak-MB")
	b.ReportMetric(peak[1], "100steps-peak-MB")
}

// TestLargeReplayPeak is BenchmarkLargeReplay's child process: it loads the
// suite it is pointed at, replays one fixture with the 8 permutation runs,
// and prints the process's peak resident memory. Without its environment
// it does nothing.
func TestLargeReplayPeak(t *testing.T) {
	dir := os.Getenv("HEADERGOLD_PEAK_FIXTURES")
	if dir == "" {
		t.Skip("run by BenchmarkLargeReplay")
	}
	s, err := Load(Options{Fixtures: dir, Golden: os.Getenv("HEADERGOLD_PEAK_GOLDEN"), Shuffle: DefaultShuffle, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Fixture(os.Getenv("HEADERGOLD_PEAK_RUN"))
	if f == nil {
		t.Fatal("no such fixture")
	}
	if res := s.Replay(f); !res.Passed() {
		t.Fatal(res.Failures)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(status); m != nil {
		fmt.Printf("peak-kB: %s\n", m[1])
	}
}

// scaleFixture writes a fixture with n entries of one kind into dir and
// returns its name:
//
//   - turns: n turns, each calling a tool and scripting its result;
//   - calls: one turn whose reply calls a tool n times, one batch;
//   - sections: n prompt sections;
//   - plugins: n plugins of one tool each.
func scaleFixture(b *testing.B, dir, kind string, n int) string {
	var sections, plugins, turns []string
	plugin := `{"name": "p", "tools": [{"name": "lookup", "parameters": {"type": "object"}}]}`
	turn := `{"user": "Look it up.", "replies": [{"toolCalls": [{"id": "c1", "name": "lookup", "arguments": {"q": "x"}}]}, {"text": "Found."}], "toolResults": {"c1": "x"}}`
	switch kind {
	case "turns":
		plugins = []string{plugin}
		turns = slices.Repeat([]string{turn}, n)
	case "calls":
		plugins = []string{plugin}
		var calls, results []string
		for i := range n {
			calls = append(calls, fmt.Sprintf(`{"id": "c%d", "name": "lookup", "arguments": {"q": %d}}`, i, i))
			results = append(results, fmt.Sprintf(`"c%d": "x"`, i))
		}
		turns = []string{`{"user": "Look them up.", "replies": [{"toolCalls": [` + strings.Join(calls, ",\n") + `]}, {"text": "Found."}], "toolResults": {` + strings.Join(results, ",\n") + `}}`}
	case "sections":
		for i := range n {
			sections = append(sections, fmt.Sprintf(`{"id": "s%d", "order": %d, "text": "Section %d."}`, i, i, i))
		}
		plugins = []string{plugin}
		turns = []string{turn}
	case "plugins":
		for i := range n {
			plugins = append(plugins, fmt.Sprintf(`{"name": "p%d", "tools": [{"name": "t%d", "parameters": {"type": "object"}}]}`, i, i))
		}
		turns = []string{`{"user": "Hello.", "replies": [{"text": "Hello."}]}`}
	default:
		b.Fatalf("no fixture kind %q", kind)
	}
	fixture := `{"description": "Many ` + kind + `.", "config": {"persona": "p", "model": "m"},
"sections": [` + strings.Join(sections, ",\n") + `],
"plugins": [` + strings.Join(plugins, ",\n") + `],
"turns": [` + strings.Join(turns, ",\n") + `]}`
	name := fmt.Sprintf("%s-%d", kind, n)
	if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(fixture), 0o644); err != nil {
		b.Fatal(err)
	}
	return name
}

// BenchmarkScaling measures fixtures of 2,000 entries of one kind (turns,
// tool calls in one batch, prompt sections, plugins) against fixtures of
// 125, alternating the two, per entry:
//
//   - load: reading, decoding and validating the file;
//   - check: what a replay does before comparing (Suite.Check: the run,
//     every request against its log prefix, every tool call against the
//     declared edges, the 8 permutation runs and, for a batch, its
//     replanning in 720 orders), with the collector off, as a cold
//     Assemble is timed (see the assembler's benchmarks).
//
// Each of these once grew with the square of its entries: the turns'
// tool results were looked up from the top of the file, every request's
// whole conversation was compared, a batch was planned and checked by
// comparing every pair of calls, and a section's or plugin's id with every
// one before it (a batch of 4,000 calls took 180 s to replay).
func BenchmarkScaling(b *testing.B) {
	const small, large, loadRounds = 125, 2000, 10
	for _, kind := range []string{"turns", "calls", "sections", "plugins"} {
		b.Run(kind, func(b *testing.B) {
			dir := b.TempDir()
			names := [2]string{scaleFixture(b, dir, kind, small), scaleFixture(b, dir, kind, large)}
			s, err := Load(Options{Fixtures: dir, Golden: b.TempDir(), Shuffle: DefaultShuffle, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			var tLoad, tCheck [2]time.Duration
			for b.Loop() {
				// A load takes a fraction of a check: loadRounds of
				// them per check, alternated, so that the load figure
				// rests on as many readings as its noise needs.
				for range loadRounds {
					for i, name := range names {
						runtime.GC()
						cpuOnce(&tLoad[i], func() {
							if _, err := loadFixture(dir, name); err != nil {
								b.Fatal(err)
							}
						})
					}
				}
				for i, name := range names {
					runtime.GC()
					func() {
						defer debug.SetGCPercent(debug.SetGCPercent(-1))
						cpuOnce(&tCheck[i], func() {
							if _, res := s.Check(s.Fixture(name)); !res.Passed() {
								b.Fatal(res.Failures)
							}
						})
					}()
				}
			}
			perEntry := func(d [2]time.Duration) float64 {
				return (float64(d[1]) / large) / (float64(d[0]) / small)
			}
			b.ReportMetric(perEntry(tLoad), "load-large/small-per-entry")
			b.ReportMetric(perEntry(tCheck), "check-large/small-per-entry")
		})
	}
}

// BenchmarkCapturedCompare measures the comparison layer on a captured
// log with a 50 KB header and ten requests, each variant against two
// baselines run in the same loop:
//
//   - baseline: read the templated golden file and compare it with a
//     prebuilt templated log (bytes.Equal), the least a golden test does;
//
//   - full-golden: read a golden file holding the full log and compare
//     it with the run's log (bytes.Equal), what a golden test of the
//     captured log does without templating (issue 10's "reading it and
//     bytes.Equal").
//
//   - template: Template over the full log, then read and compare; the
//     general path, which must skip the whole tool list to template it.
//
//   - replay: what a replay of a captured scenario does, CompareGolden on
//     the outputs of a run; the capture's log writer templated the log
//     as it wrote it (that cost is inside BenchmarkCaptureOverhead).
func BenchmarkCapturedCompare(b *testing.B) {
	var tools []string
	for i := 0; len(strings.Join(tools, ",")) < 50<<10; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%03d","description":"%s","input_schema":{"type":"object"}}`, i, strings.Repeat("Does one careful thing. ", 16)))
	}
	var log []byte
	log = fmt.Appendf(log, `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"m","max_tokens":64},"system":"Be careful.","tools":[%s]}}}`+"\n", strings.Join(tools, ","))
	for n := 1; n <= 10; n++ {
		log = fmt.Appendf(log, `{"type":"capture/request","data":{"request":%d,"format":"anthropic","path":"/v1/messages","body":{"model":"<<config>>","max_tokens":"<<config>>","system":"<<system>>","tools":"<<tools>>","messages":[{"role":"user","content":"step %d"}]}}}`+"\n", n, n)
		log = fmt.Appendf(log, `{"type":"capture/reply","data":{"request":%d,"reply":{"text":"ok"}}}`+"\n", n)
	}
	golden, err := Template(log)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden")}
	os.Mkdir(opts.Fixtures, 0o755)
	os.Mkdir(opts.Golden, 0o755)
	os.WriteFile(filepath.Join(opts.Fixtures, "x.json"), []byte(`{"description":"d","agent":{},"replies":[{"text":"ok"}]}`), 0o644)
	file := filepath.Join(opts.Golden, "x.golden")
	if err := os.WriteFile(file, golden, 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := Load(opts)
	if err != nil {
		b.Fatal(err)
	}
	f := s.Fixture("x")
	out := &Outputs{Log: log, Golden: bytes.Clone(golden)}
	prebuilt := bytes.Clone(golden)
	baseline := func() {
		want, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(want, prebuilt) {
			b.Fatal("baseline differs", err)
		}
	}
	fullFile := filepath.Join(dir, "full.golden")
	if err := os.WriteFile(fullFile, log, 0o644); err != nil {
		b.Fatal(err)
	}
	fullGolden := func() {
		want, err := os.ReadFile(fullFile)
		if err != nil || !bytes.Equal(want, log) {
			b.Fatal("full-golden baseline differs", err)
		}
	}
	variants := map[string]func(){
		"template": func() {
			want, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			got, err := Template(log)
			if err != nil {
				b.Fatal(err)
			}
			if m := compareFile(file, want, got); m != nil {
				b.Fatal(m)
			}
		},
		"replay": func() {
			if fails := s.CompareGolden(f, out); len(fails) > 0 {
				b.Fatal(fails)
			}
		},
	}
	for _, name := range []string{"template", "replay"} {
		variant := variants[name]
		b.Run(name, func(b *testing.B) {
			var tVariant, tBase, tFull time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				baseline()
				tBase += time.Since(start)
				start = time.Now()
				variant()
				tVariant += time.Since(start)
				start = time.Now()
				fullGolden()
				tFull += time.Since(start)
			}
			b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "baseline-ns/op")
			b.ReportMetric(float64(tFull.Nanoseconds())/float64(b.N), "full-golden-ns/op")
			b.ReportMetric(float64(tVariant.Nanoseconds())/float64(b.N), "variant-ns/op")
			b.ReportMetric(float64(tVariant)/float64(tBase), "variant/baseline")
			b.ReportMetric(float64(tVariant)/float64(tFull), "variant/full-golden")
		})
	}
}

// TestLargeFixtureRunsItsSteps: the fixture BenchmarkLargeReplay replays
// runs the steps it says, every turn completed (a turn of more than the
// loop's step limit would stop at it, and a benchmark of "100 steps"
// would measure 32).
func TestLargeFixtureRunsItsSteps(t *testing.T) {
	for _, steps := range []int{1, 25, 26, 100} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "large.json"), string(largeFixture(40, steps)))
		s := mustLoad(t, Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: -1})
		out, res := s.Check(s.Fixture("large"))
		if !res.Passed() {
			t.Fatalf("%d steps: %v", steps, res.Failures)
		}
		if n := bytes.Count(out.Log, []byte(`{"type":"step/start"`)); n != steps {
			t.Errorf("%d steps: the log has %d", steps, n)
		}
		if bytes.Contains(out.Log, []byte(`"reason":"error"`)) {
			t.Errorf("%d steps: a turn failed", steps)
		}
	}
}
