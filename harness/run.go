package harness

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"sync"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/app"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/wire"
)

// runResult is the outcome of running a fixture once.
type runResult struct {
	// Log is the full session log; for a reference run, nil until
	// fullLog joins it from live, which a replay that finds nothing wrong
	// at -shuffle 0 never needs.
	Log  []byte
	live *agent.Log // a reference run's log as the loop wrote it
	// Requests are the bodies a captured agent sent, in order; nil for a
	// reference run, whose requests are reqs.
	Requests [][]byte
	// reqs are the requests the reference agent's adapter received, in
	// order. They share the bytes of their header (see agent.Request), so
	// a run holds each header once however many steps it has.
	reqs []*agent.Request
	// templated is Log templated, when the run's log writer did it (a
	// captured run, and a reference run, whose log holds each header as
	// the assembler built it); nil means Template(Log).
	templated []byte
	// recorded are the replies a captured run served, recorded from the
	// upstream provider when it was a recording run.
	recorded []wire.Reply
	// headers are the headers of the log's request/header events, as the
	// loop logged them (see agent.Log.Headers); nil when only the log's
	// text has them.
	headers []agent.LoggedHeader
	// plugins are the fixture's plugins as this run registered them,
	// made canonical, for the later runs of the same replay.
	plugins *preparedPlugins
	// deps holds the tool dependencies in force at each step, as the
	// agent assembled them.
	deps map[[2]int]assembler.Deps
}

// lines gives the lines of the run's log as agent.Log.Lines does, without
// joining a reference run's log or writing its headers' bytes.
func (r *runResult) lines() iter.Seq2[[]byte, *assembler.Header] {
	if r.Log == nil && r.live != nil {
		return r.live.Lines()
	}
	lines := splitLines(r.fullLog())
	return func(yield func([]byte, *assembler.Header) bool) {
		for _, line := range lines {
			if !yield(line, nil) {
				return
			}
		}
	}
}

// sameLiveLog reports whether r and o are reference runs whose logs, as
// their loops wrote them and not yet joined, hold the same bytes (see
// agent.Log.Equal). False says nothing: the joined logs decide.
func (r *runResult) sameLiveLog(o *runResult) bool {
	return r.Log == nil && o.Log == nil && r.live != nil && o.live != nil && r.live.Equal(o.live)
}

// fullLog returns the run's full log, joining a reference run's on first
// use.
func (r *runResult) fullLog() []byte {
	if r.Log == nil && r.live != nil {
		r.Log = r.live.Bytes()
	}
	return r.Log
}

// checkRequests holds the requests the run's adapter received to its log
// (see agent.CheckRequests): a reference run's log as the loop wrote it,
// unless Log was set apart from it.
func (r *runResult) checkRequests() error {
	if r.Log == nil && r.live != nil {
		return agent.CheckLogRequests(r.live, r.reqs)
	}
	return agent.CheckRequests(r.Log, r.reqs)
}

// checkTrace is agent.CheckTrace of the run's log, read as checkRequests
// reads it.
func (r *runResult) checkTrace() error {
	if r.Log == nil && r.live != nil {
		return agent.CheckLogTrace(r.live, r.depsAt)
	}
	return agent.CheckTrace(r.Log, r.depsAt)
}

// depsAt gives the dependencies in force at a step; a step the run never
// reached gets those of the latest step before it.
func (r *runResult) depsAt(turn, step int) assembler.Deps {
	if d, ok := r.deps[[2]int{turn, step}]; ok {
		return d
	}
	var best [2]int
	var found assembler.Deps
	for k, d := range r.deps {
		if (k[0] < turn || (k[0] == turn && k[1] < step)) && (found == nil || k[0] > best[0] || (k[0] == best[0] && k[1] > best[1])) {
			best, found = k, d
		}
	}
	return found
}

// registration says how a run registers plugins and sections: as listed
// (nil, or no rng), shuffled by a seeded generator, and optionally from
// concurrent goroutines. Listeners always register in the listed order:
// their order is part of the scenario.
type registration struct {
	rng        *rand.Rand
	concurrent bool
	// plugins are the fixture's plugins with their tools made canonical
	// (nil: the run makes them), so that every run of one replay
	// registers the same prepared tools instead of canonicalising them
	// again.
	plugins *preparedPlugins
}

func newRegistration(seed uint64, concurrent bool) *registration {
	return &registration{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), concurrent: concurrent}
}

// with returns r using the prepared plugins p (nil: the run makes them).
func (r *registration) with(p *preparedPlugins) *registration {
	r.plugins = p
	return r
}

// apply runs the registration functions in this registration's order.
func (r *registration) apply(fns []func() error) error {
	if r != nil && r.rng != nil {
		r.rng.Shuffle(len(fns), func(i, j int) { fns[i], fns[j] = fns[j], fns[i] })
	}
	if r == nil || !r.concurrent {
		for _, fn := range fns {
			if err := fn(); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() { errs[i] = fn() })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// preparedPlugins holds a fixture's plugins as providers made once for all
// the runs of a replay, by index in Fixture.Plugins; a plugin that cannot
// be made canonical keeps its error, which its registration returns, as
// AddProvider would.
type preparedPlugins struct {
	providers []*assembler.Provider
	errs      []error
}

// preparePlugins makes providers of f's plugins. Their tools are made
// canonical, each distinct parameters text once, when a header holding
// them is first read: the texts are those the load checked (a replay that
// reads no header, as one of a fixture that is not pinned, never does that
// work); a text put in the fixture since is checked now.
func preparePlugins(f *Fixture) *preparedPlugins {
	p := &preparedPlugins{providers: make([]*assembler.Provider, len(f.Plugins)), errs: make([]error, len(f.Plugins))}
	// One canonicalizer for all the plugins: tools sharing a schema text
	// share its parse.
	var c assembler.Canonicalizer
	for i, pl := range f.Plugins {
		p.providers[i], p.errs[i] = c.NewProviderFunc(pl.Name, len(pl.Tools), func(k int) (*assembler.Tool, bool) {
			t := (*assembler.Tool)(&pl.Tools[k])
			return t, f.checkedParams(i, k, t.Parameters)
		})
	}
	return p
}

// turnScript plays the scripted replies of the current turn and records
// every request; a turn that fails before calling the adapter leaves its
// replies unplayed without shifting the next turn's.
type turnScript struct {
	cur      *agent.Scripted
	requests []*agent.Request // immutable, sharing their header's bytes
}

func (s *turnScript) Send(ctx context.Context, req *agent.Request) (agent.Reply, error) {
	s.requests = append(s.requests, req)
	return s.cur.Send(ctx, req)
}

func (s *turnScript) RunTool(ctx context.Context, call agent.ToolCall) (agent.ToolResult, error) {
	return s.cur.RunTool(ctx, call)
}

// runner runs one fixture: the loop instances, the registrations a
// process makes when it starts and the late ones due before a step.
type runner struct {
	f          *Fixture
	reg        *registration
	plugins    *preparedPlugins
	script     *turnScript
	log        *agent.Log
	ag         *agent.Agent
	registered map[string]bool // plugins registered so far, re-registered on resume
	listening  map[int]bool    // listeners registered so far, by index
	deps       map[[2]int]assembler.Deps
	// header and headerDeps are the last header seen and its
	// dependencies: the assembler returns the same *Header while nothing
	// changed, and those steps share one copy of its dependencies.
	header     *assembler.Header
	headerDeps assembler.Deps
	err        error // the first failed late registration
}

// runFixture runs f once with the given registration (nil: as listed).
func runFixture(f *Fixture, reg *registration) (*runResult, error) {
	var plugins *preparedPlugins
	if reg != nil {
		plugins = reg.plugins
	}
	if plugins == nil {
		plugins = preparePlugins(f)
	}
	r := &runner{f: f, reg: reg, plugins: plugins, script: &turnScript{}, log: agent.NewLog(),
		registered: map[string]bool{}, listening: map[int]bool{}, deps: map[[2]int]assembler.Deps{}}
	if err := r.start(); err != nil {
		return nil, fmt.Errorf("fixture %s: %w", f.Name, err)
	}
	for i, t := range f.Turns {
		if t.Resume {
			if err := r.start(); err != nil {
				return nil, fmt.Errorf("fixture %s: turn %d: resume: %w", f.Name, i+1, err)
			}
		}
		r.script.cur = agent.NewScripted(agentReplies(t.Replies)...)
		for id, res := range t.ToolResults {
			r.script.cur.SetResult(id, agent.ToolResult{Output: res.Output, IsError: res.Error})
		}
		// A failed turn is part of the scenario: it is in the log.
		_ = r.ag.RunTurn(context.Background(), t.User)
		if r.err != nil {
			return nil, fmt.Errorf("fixture %s: late registration: %w", f.Name, r.err)
		}
	}
	res := &runResult{live: r.log, reqs: r.script.requests, plugins: plugins, deps: r.deps}
	if hs, ok := r.log.Headers(); ok {
		if hs == nil {
			hs = []agent.LoggedHeader{} // none, from the loop
		}
		res.headers = hs
	}
	if t, ok := r.log.AppendReplacingHeaders(nil, templatedHeader); ok {
		res.templated = t
	}
	return res, nil
}

// templatedHeader is h as [Template] leaves it in a log: the config as it
// is, the system text and the tool list replaced by their placeholders.
// The assembler writes a header's members in the order config, system,
// tools and leaves an empty system text or tool list out, which Template
// leaves out too; so a reference run's log is templated without reading
// its headers (TestRunTemplatesAsTemplate holds the two to the same bytes).
func templatedHeader(h *assembler.Header) []byte {
	b := append([]byte(`{"config":`), h.Config()...)
	if h.System() != "" {
		b = append(append(b, `,"system":`...), systemJSON...)
	}
	if h.NumTools() > 0 {
		b = append(append(b, `,"tools":`...), toolsJSON...)
	}
	return append(b, '}')
}

// start builds a loop instance on the log and registers what a process
// would when it starts: sections, the plugins and listeners due so far.
func (r *runner) start() error {
	ag, err := app.CLI(r.f.Config.row(), agent.Options{Adapter: r.script, Log: r.log,
		BeforeStep: r.beforeStep,
		OnHeader: func(turn, step int, h *assembler.Header) {
			if h != r.header {
				r.header, r.headerDeps = h, h.Deps()
			}
			r.deps[[2]int{turn, step}] = r.headerDeps
		}})
	if err != nil {
		return err
	}
	r.ag = ag
	fns := make([]func() error, 0, len(r.f.Sections))
	for _, s := range r.f.Sections {
		fns = append(fns, func() error { return ag.Service().AddSection(s.internal()) })
	}
	if err := r.reg.apply(fns); err != nil {
		return err
	}
	due := func(at *StepRef, seen bool) bool { return at == nil || seen }
	if err := r.registerPlugins(due); err != nil {
		return err
	}
	r.registerListeners(due)
	return nil
}

// beforeStep registers the plugins and listeners delayed to this step.
func (r *runner) beforeStep(turn, step int) {
	due := func(at *StepRef, seen bool) bool { return at != nil && at.Turn == turn && at.Step == step && !seen }
	if err := r.registerPlugins(due); err != nil && r.err == nil {
		r.err = err
	}
	r.registerListeners(due)
}

// registerPlugins registers, in this run's order, the plugins due says
// are due given their registerAt and whether they registered before.
func (r *runner) registerPlugins(due func(at *StepRef, seen bool) bool) error {
	var fns []func() error
	for i, p := range r.f.Plugins {
		if due(p.RegisterAt, r.registered[p.Name]) {
			r.registered[p.Name] = true
			prov, err := r.plugins.providers[i], r.plugins.errs[i]
			fns = append(fns, func() error {
				if err != nil {
					return err
				}
				return r.ag.Service().Register(prov)
			})
		}
	}
	return r.reg.apply(fns)
}

// registerListeners registers the due listeners in the listed order: their
// order is part of the scenario.
func (r *runner) registerListeners(due func(at *StepRef, seen bool) bool) {
	for i, l := range r.f.Listeners {
		if due(l.RegisterAt, r.listening[i]) {
			r.listening[i] = true
			r.ag.Service().AddListener(fmt.Sprintf("%s#%d", l.Op, i), l.listener())
		}
	}
}

// agentReplies converts scripted replies for the reference agent.
func agentReplies(rs []Reply) []agent.Reply {
	out := make([]agent.Reply, len(rs))
	for i, r := range rs {
		out[i].Text = r.Text
		for _, c := range r.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, agent.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
	}
	return out
}
