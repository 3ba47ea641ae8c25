package harness

import (
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/tidwall/gjson"
)

// traceFailure checks a log's executed tool calls against the dependencies
// declared at each step; file names where the log lives, for the report.
func traceFailure(f *Fixture, file string, log []byte, deps agent.DepsAt) *Failure {
	return traceErrFailure(f, file, agent.CheckTrace(log, deps))
}

// traceErrFailure is the failure a trace check's error makes (nil for an
// error that is not a *agent.TraceError).
func traceErrFailure(f *Fixture, file string, err error) *Failure {
	var te *agent.TraceError
	if !errors.As(err, &te) {
		return nil
	}
	return &Failure{Check: CheckTrace, File: file, Line: te.Line,
		Msg: fmt.Sprintf("%s: call %q of %s ran before %s had completed successfully: it violates the declared edge %s",
			f.Name, te.CallID, te.Edge.From, te.Edge.To, te.Edge)}
}

// Batches of up to allOrdersUpTo calls are replanned in every order;
// larger ones in maxBatchPermutations seeded random orders.
const (
	allOrdersUpTo        = 6
	maxBatchPermutations = 720 // 6!
)

// checkBatches replans every tool-call batch of the log in every proposal
// order (or a seeded sample of them) under the fixture's policy and
// dependencies, and checks the plan: under reorder a topological order that
// keeps an already valid proposal as it is; under reject a refusal exactly
// when the proposal violates an edge.
func checkBatches(f *Fixture, file string, run *runResult, seed uint64) *Failure {
	policy := f.Config.DependencyPolicy
	if policy == "" {
		policy = agent.PolicyReorder
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	later := map[string]bool{} // firstViolation's set, kept from one order to the next
	n := 0
	for line, h := range run.lines() {
		n++
		if h != nil || !mayBe(line, agent.TypeAssistantMessage) {
			continue
		}
		ev := gjson.Parse(canon.View(line))
		if ev.Get("type").String() != agent.TypeAssistantMessage {
			continue
		}
		var names []string
		ev.Get("data.toolCalls").ForEach(func(_, c gjson.Result) bool {
			names = append(names, c.Get("name").String())
			return true
		})
		if len(names) < 2 {
			continue
		}
		deps := run.depsAt(int(ev.Get("data.turn").Int()), int(ev.Get("data.step").Int()))
		for proposal := range permutations(names, rng) {
			if msg := checkPlan(proposal, deps, policy, later); msg != "" {
				return &Failure{Check: CheckPermute, File: file, Line: n,
					Msg: fmt.Sprintf("%s: replanning the batch of line %d proposed as %v: %s", f.Name, n, proposal, msg)}
			}
		}
	}
	return nil
}

// checkPlan plans one proposal and returns what is wrong with the plan;
// later is firstViolation's set (nil: a new one).
func checkPlan(names []string, deps assembler.Deps, policy string, later map[string]bool) string {
	violation := firstViolation(names, deps, later)
	order, edge := agent.Plan(names, deps, policy)
	if policy == agent.PolicyReject {
		switch {
		case violation != nil && edge == nil:
			return fmt.Sprintf("runs although it violates %s", violation)
		case violation == nil && edge != nil:
			return fmt.Sprintf("refused for %s although no edge is violated", edge)
		}
		return ""
	}
	executed := make([]string, len(order))
	for i, j := range order {
		executed[i] = names[j]
	}
	if len(order) != len(names) {
		return fmt.Sprintf("the plan runs %d of %d calls", len(order), len(names))
	}
	if v := firstViolation(executed, deps, later); v != nil {
		return fmt.Sprintf("the plan %v runs %s before %s", executed, v.From, v.To)
	}
	if violation == nil {
		for i, j := range order {
			if i != j {
				return fmt.Sprintf("the plan %v reorders a proposal that violates no edge", executed)
			}
		}
	}
	return ""
}

// firstViolation returns the first edge a sequence of calls runs against:
// the first call with a later call of a tool it depends on, and the first
// such later call. It is the permutation pass's own account of the rule,
// not the agent's: it finds the call from the end, with the set of the
// tools called after each position, in time linear in the calls (a batch
// of 1,000 calls compared pairwise, in 720 orders, took seconds). later
// holds that set: a caller checking many orders passes one to reuse (it
// is cleared here), or nil.
func firstViolation(names []string, deps assembler.Deps, later map[string]bool) *agent.Edge {
	at := -1
	if later == nil {
		later = make(map[string]bool, len(names))
	}
	clear(later)
	for i := len(names) - 1; i >= 0; i-- {
		if slices.ContainsFunc(deps[names[i]], func(d string) bool { return later[d] }) {
			at = i
		}
		later[names[i]] = true
	}
	if at < 0 {
		return nil
	}
	a := names[at]
	i := slices.IndexFunc(names[at+1:], func(b string) bool { return deps.DependsOn(a, b) })
	return &agent.Edge{From: a, To: names[at+1+i]}
}

// permutations yields every order of names, or a seeded sample when there
// are more than allOrdersUpTo: one order at a time, in one array that the
// next order overwrites, so a batch of thousands of calls does not hold
// its 720 orders at once.
func permutations(names []string, rng *rand.Rand) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		cur := slices.Clone(names)
		if len(names) <= allOrdersUpTo {
			var rec func(k int) bool
			rec = func(k int) bool {
				if k == len(cur) {
					return yield(cur)
				}
				for i := k; i < len(cur); i++ {
					cur[k], cur[i] = cur[i], cur[k]
					if !rec(k + 1) {
						return false
					}
					cur[k], cur[i] = cur[i], cur[k]
				}
				return true
			}
			rec(0)
			return
		}
		for range maxBatchPermutations {
			copy(cur, names)
			rng.Shuffle(len(cur), func(i, j int) { cur[i], cur[j] = cur[j], cur[i] })
			if !yield(cur) {
				return
			}
		}
	}
}
