package harness

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/app"
)

// Run is the outcome of running a fixture once.
type Run struct {
	Log      []byte   // the full session log
	Requests [][]byte // every request the adapter received, in order
}

// registration says how a run registers plugins and sections: as listed
// (nil), shuffled by a seeded generator, and optionally from concurrent
// goroutines. Listeners always register in the listed order: their order is
// part of the scenario.
type registration struct {
	rng        *rand.Rand
	concurrent bool
}

func newRegistration(seed uint64, concurrent bool) *registration {
	return &registration{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), concurrent: concurrent}
}

// apply runs the registration functions in this registration's order.
func (r *registration) apply(fns []func() error) error {
	if r != nil {
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

// turnScript plays the scripted replies of the current turn and records
// every request; a turn that fails before calling the adapter leaves its
// replies unplayed without shifting the next turn's.
type turnScript struct {
	cur      *agent.Scripted
	requests [][]byte
}

func (s *turnScript) Send(ctx context.Context, req *agent.Request) (agent.Reply, error) {
	s.requests = append(s.requests, req.Bytes())
	return s.cur.Send(ctx, req)
}

func (s *turnScript) RunTool(ctx context.Context, call agent.ToolCall) (agent.ToolResult, error) {
	return s.cur.RunTool(ctx, call)
}

// runFixture runs f once with the given registration (nil: as listed).
func runFixture(f *Fixture, reg *registration) (*Run, error) {
	row := f.Config
	script := &turnScript{}
	log := agent.NewLog()
	registered := map[string]bool{} // plugins registered so far, for resumes
	listening := map[int]bool{}     // listeners registered so far, by index
	var ag *agent.Agent

	register := func(plugins []Plugin) error {
		fns := make([]func() error, len(plugins))
		for i, p := range plugins {
			registered[p.Name] = true
			fns[i] = func() error { return ag.Service().AddProvider(p.Name, p.Tools...) }
		}
		return reg.apply(fns)
	}
	var hookErr error
	beforeStep := func(turn, step int) {
		var due []Plugin
		for _, p := range f.Plugins {
			if at := p.RegisterAt; at != nil && at.Turn == turn && at.Step == step && !registered[p.Name] {
				due = append(due, p)
			}
		}
		if err := register(due); err != nil && hookErr == nil {
			hookErr = err
		}
		for i, l := range f.Listeners {
			if at := l.RegisterAt; at != nil && at.Turn == turn && at.Step == step && !listening[i] {
				listening[i] = true
				ag.Service().AddListener(fmt.Sprintf("%s#%d", l.Op, i), l.listener())
			}
		}
	}
	// start builds a loop instance on the log and registers everything a
	// process would: sections, the plugins due so far, listeners.
	start := func() error {
		var err error
		ag, err = app.CLI(row, agent.Options{Adapter: script, Log: log, BeforeStep: beforeStep})
		if err != nil {
			return err
		}
		fns := make([]func() error, 0, len(f.Sections))
		for _, s := range f.Sections {
			fns = append(fns, func() error { return ag.Service().AddSection(s) })
		}
		if err := reg.apply(fns); err != nil {
			return err
		}
		var due []Plugin
		for _, p := range f.Plugins {
			if p.RegisterAt == nil || registered[p.Name] {
				due = append(due, p)
			}
		}
		if err := register(due); err != nil {
			return err
		}
		for i, l := range f.Listeners {
			if l.RegisterAt == nil || listening[i] {
				listening[i] = true
				ag.Service().AddListener(fmt.Sprintf("%s#%d", l.Op, i), l.listener())
			}
		}
		return nil
	}
	if err := start(); err != nil {
		return nil, fmt.Errorf("fixture %s: %w", f.Name, err)
	}
	for i, t := range f.Turns {
		if t.Resume {
			if err := start(); err != nil {
				return nil, fmt.Errorf("fixture %s: turn %d: resume: %w", f.Name, i+1, err)
			}
		}
		script.cur = agent.NewScripted(t.Replies...)
		for id, r := range t.ToolResults {
			script.cur.SetResult(id, agent.ToolResult{Output: r.Output, IsError: r.Error})
		}
		// A failed turn is part of the scenario: it is in the log.
		_ = ag.RunTurn(context.Background(), t.User)
		if hookErr != nil {
			return nil, fmt.Errorf("fixture %s: late registration: %w", f.Name, hookErr)
		}
	}
	return &Run{Log: log.Bytes(), Requests: script.requests}, nil
}
