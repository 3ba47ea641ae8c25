package agent_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/cputime"
)

// The benchmark scenario: one turn of 50 steps (49 tool-call replies, then
// text) against a header of 200 tools from 20 providers.
const (
	benchSteps = 50
	benchTools = 200
)

// benchProviders returns 20 providers of 10 tools each, with names in a
// scrambled (but fixed) registration order and realistic schemas.
func benchProviders() []provider {
	rng := rand.New(rand.NewPCG(1, 2))
	perm := rng.Perm(benchTools)
	provs := make([]provider, 0, benchTools/10)
	for p := range benchTools / 10 {
		pr := provider{name: fmt.Sprintf("plugin_%02d", p)}
		for _, i := range perm[p*10 : p*10+10] {
			pr.tools = append(pr.tools, assembler.Tool{
				Name:        fmt.Sprintf("tool_%03d", i),
				Description: fmt.Sprintf("Tool number %d: does one thing well, reads its arguments and returns text.", i),
				Parameters: []byte(fmt.Sprintf(`{"type":"object","properties":{"path":{"type":"string","description":"A path."},`+
					`"limit":{"type":"integer","minimum":1,"maximum":%d}},"required":["path"]}`, 100+i)),
			})
		}
		provs = append(provs, pr)
	}
	return provs
}

// benchScript returns the replies and tool results of the 50-step turn.
func benchScript() *agent.Scripted {
	sc := agent.NewScripted()
	for s := 1; s < benchSteps; s++ {
		id := fmt.Sprintf("call_%02d", s)
		sc.Push(toolsReply(call(id, fmt.Sprintf("tool_%03d", s*3), fmt.Sprintf(`{"path":"src/file_%02d.go","limit":%d}`, s, s))))
		sc.SetResult(id, agent.ToolResult{Output: strings.Repeat(fmt.Sprintf("line %d of the output\n", s), 4)})
	}
	sc.Push(text("All done."))
	return sc
}

// benchAgent builds the agent with every tool registered.
func benchAgent(tb testing.TB, provs []provider, sc *agent.Scripted) *agent.Agent {
	a := newAgent(tb, agent.Config{Persona: "You are a careful coding agent. " + strings.Repeat("Be precise. ", 20), Model: "m-1"},
		agent.Options{Adapter: sc, MaxSteps: benchSteps})
	for _, p := range provs {
		mustProvider(tb, a.Service(), p.name, p.tools...)
	}
	mustSection(tb, a.Service(), assembler.Section{ID: "rules", Order: 10, Text: strings.Repeat("Answer briefly. ", 30)})
	return a
}

// benchSession records the 50-step turn once.
func benchSession(tb testing.TB) (*agent.Agent, session) {
	sc := benchScript()
	a := benchAgent(tb, benchProviders(), sc)
	run(tb, a, "Refactor the package.")
	s := session{log: a.Log().Bytes(), reqs: sc.Requests()}
	if len(s.reqs) != benchSteps {
		tb.Fatalf("%d requests, want %d", len(s.reqs), benchSteps)
	}
	return a, s
}

// BenchmarkTurn runs the whole 50-step turn: time and log bytes per step.
func BenchmarkTurn(b *testing.B) {
	provs := benchProviders()
	var logLen int
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		sc := benchScript()
		a := benchAgent(b, provs, sc)
		b.StartTimer()
		run(b, a, "Refactor the package.")
		logLen = len(a.Log().Bytes())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchSteps), "ns/step")
	b.ReportMetric(float64(logLen)/benchSteps, "logB/step")
}

// requestPaths returns the three ways to produce the 50 requests of the
// benchmark session, each checking the length of what it built
// (TestBenchScenario checks the bytes): live (Assemble plus
// AppendRequest on the projector already folded up to the step), rebuild
// from each step's prefix, and one fold over the whole log.
func requestPaths(tb testing.TB) (live, prefix, fold func()) {
	a, s := benchSession(tb)
	svc := a.Service()
	prefixes := dispatchPrefixes(s.log)
	folded := make([]agent.Projector, len(prefixes))
	for k, p := range prefixes {
		for _, ln := range splitLines(p) {
			if err := folded[k].Apply(ln); err != nil {
				tb.Fatal(err)
			}
		}
	}
	lines := splitLines(s.log)
	live = func() {
		for k := range folded {
			h, err := svc.Assemble()
			if err != nil {
				tb.Fatal(err)
			}
			req, err := folded[k].AppendRequest(nil)
			if err != nil || h.Len() == 0 || len(req) != len(s.reqs[k]) {
				tb.Fatal("live request differs", err)
			}
		}
	}
	prefix = func() {
		for k, p := range prefixes {
			req, err := agent.Rebuild(p)
			if err != nil || len(req) != len(s.reqs[k]) {
				tb.Fatal("rebuilt request differs", err)
			}
		}
	}
	fold = func() {
		var p agent.Projector
		k := 0
		pending := false
		for _, ln := range lines {
			if pending && (bytes.HasPrefix(ln, []byte(`{"type":"assistant/message"`)) || bytes.HasPrefix(ln, []byte(`{"type":"step/end"`))) {
				req, err := p.AppendRequest(nil)
				if err != nil || len(req) != len(s.reqs[k]) {
					tb.Fatal("rebuilt request differs", err)
				}
				k++
				pending = false
			}
			pending = pending || bytes.HasPrefix(ln, []byte(`{"type":"step/start"`))
			if err := p.Apply(ln); err != nil {
				tb.Fatal(err)
			}
		}
		if k != benchSteps {
			tb.Fatalf("fold built %d requests", k)
		}
	}
	return live, prefix, fold
}

// BenchmarkRebuildVsLive runs the three paths interleaved, one pass of
// each per iteration, and reports the process CPU time of each, per step,
// and the ratios. Interleaving and CPU time keep the ratios steady on a
// shared machine, where separate wall-clock benchmarks drift apart.
func BenchmarkRebuildVsLive(b *testing.B) {
	live, prefix, fold := requestPaths(b)
	var spent [3]time.Duration
	for b.Loop() {
		for i, f := range [3]func(){live, prefix, fold} {
			t0 := cputime.Process()
			f()
			spent[i] += cputime.Process() - t0
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*benchSteps) }
	b.ReportMetric(per(spent[0]), "live-cpu-ns/step")
	b.ReportMetric(per(spent[1]), "prefix-cpu-ns/step")
	b.ReportMetric(per(spent[2]), "fold-cpu-ns/step")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "prefix/live")
	b.ReportMetric(float64(spent[2])/float64(spent[0]), "fold/live")
}

// BenchmarkRequest compares building a step's request live with rebuilding
// it from the log. All figures are per step, averaged over the 50 steps.
//
//   - live: what the loop does before each dispatch, Assemble() plus
//     AppendRequest on the Projector already folded up to the step.
//   - rebuild-prefix: Rebuild of the step's own log prefix, from scratch
//     (what a single-request check costs; grows with the prefix).
//   - rebuild-fold: one Projector fold over the whole log, building every
//     step's request at its dispatch point (what replay's rebuild check
//     costs per step).
//   - checkrebuild: CheckRebuild over the whole log, comparing every
//     request.
func BenchmarkRequest(b *testing.B) {
	live, prefix, fold := requestPaths(b)
	_, s := benchSession(b)
	perStep := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchSteps), "ns/step")
	}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"live", live},
		{"rebuild-prefix", prefix},
		{"rebuild-fold", fold},
		{"checkrebuild", func() {
			if err := agent.CheckRebuild(s.log, s.reqs); err != nil {
				b.Fatal(err)
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.f()
			}
			perStep(b)
		})
	}
}

// stepAgent is an agent over n tools (from 20 providers, registered in a
// scrambled order) with one header logged, ready to run turns of
// stepsPerTurn steps under it.
func stepAgent(tb testing.TB, n int, listener bool) (*agent.Agent, *agent.Scripted) {
	sc := agent.NewScripted()
	a := newAgent(tb, agent.Config{Persona: "You are a careful coding agent.", Model: "m-1"}, agent.Options{Adapter: sc, MaxSteps: stepsPerTurn})
	rng := rand.New(rand.NewPCG(5, 6))
	perm := rng.Perm(n)
	for p := range 20 {
		var ts []assembler.Tool
		for _, i := range perm[p*n/20 : (p+1)*n/20] {
			ts = append(ts, tool(fmt.Sprintf("tool_%05d", i), "Operate object "+strconv.Itoa(i)+" of the service and return its state.",
				`{"type":"object","properties":{"id":{"type":"string","description":"The object id."}},"required":["id"]}`))
		}
		mustProvider(tb, a.Service(), fmt.Sprintf("plugin_%02d", p), ts...)
	}
	if listener {
		a.Service().AddListener("moveToEnd", func(as assembler.Assembly) (assembler.Assembly, error) {
			if i := as.Tools.Index("tool_00000"); i >= 0 {
				as.Tools = as.Tools.Move(i, as.Tools.Len()-1)
			}
			return as, nil
		})
	}
	pushTurn(sc)
	run(tb, a, "Start.") // logs the header
	return a, sc
}

// stepsPerTurn is the length of the turns BenchmarkUnchangedStep runs.
const stepsPerTurn = 10

// pushTurn scripts one turn of stepsPerTurn steps: tool calls, then text.
func pushTurn(sc *agent.Scripted) {
	for s := 1; s < stepsPerTurn; s++ {
		id := "c" + strconv.Itoa(s)
		sc.Push(toolsReply(call(id, "tool_00007", `{"id":"o-7"}`)))
		sc.SetResult(id, agent.ToolResult{Output: "state: ok"})
	}
	sc.Push(text("Done."))
}

// BenchmarkUnchangedStep measures the loop's cost per step (process CPU
// time) under an unchanged header at 50,000 tools against 1,000 tools,
// alternating a turn of 10 steps on each: assemble, recognise the header in force, build the
// request, dispatch it to a scripted adapter, log the reply and the tool
// result. Without listeners nothing of this reads the header; one
// listener, which runs at every step, is handed the shared tool list,
// finds its tool by name and moves it, and what it returns is recognised
// as its last output without reading every tool.
func BenchmarkUnchangedStep(b *testing.B) {
	for _, listener := range []bool{false, true} {
		name := "no-listener"
		if listener {
			name = "one-listener"
		}
		b.Run(name, func(b *testing.B) {
			small, ss := stepAgent(b, 1000, listener)
			large, sl := stepAgent(b, 50000, listener)
			runtime.GC() // not in the timing: what building the agents left
			// A step allocates the same few kilobytes at either size, and
			// a collection of the 50,000-tool heap, landing in a random
			// turn, would outweigh a thousand of them: leave the collector
			// out of both.
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			var tSmall, tLarge time.Duration
			for b.Loop() {
				pushTurn(ss)
				pushTurn(sl)
				for _, c := range []struct {
					a *agent.Agent
					d *time.Duration
				}{{small, &tSmall}, {large, &tLarge}} {
					start := cputime.Process()
					run(b, c.a, "Check.")
					*c.d += cputime.Process() - start
				}
			}
			if n := len(headers(large.Log().Bytes())); n != 1 {
				b.Fatalf("%d headers logged, want 1", n)
			}
			perStep := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N*stepsPerTurn) }
			b.ReportMetric(perStep(tSmall), "1k-ns/step")
			b.ReportMetric(perStep(tLarge), "50k-ns/step")
			b.ReportMetric(float64(tLarge)/float64(tSmall), "50k/1k")
		})
	}
}

// TestBenchScenario keeps the benchmark scenario honest: its log rebuilds
// every request and logs one header.
func TestBenchScenario(t *testing.T) {
	_, s := benchSession(t)
	assertRebuild(t, s.log, s.reqs)
	hs := headers(s.log)
	if len(hs) != 1 || len(hs[0].Get("header.tools").Array()) != benchTools {
		t.Fatalf("%d headers", len(hs))
	}
}
