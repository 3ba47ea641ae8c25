package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// randomDAG returns n tool names and dependencies that only point to
// lower-numbered tools, so the graph is acyclic.
func randomDAG(rng *rand.Rand, n int) ([]string, assembler.Deps) {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("t%02d", i)
	}
	deps := assembler.Deps{}
	for i := 1; i < n; i++ {
		for j := range i {
			if rng.IntN(4) == 0 {
				deps[names[i]] = append(deps[names[i]], names[j])
			}
		}
	}
	// Relabel so that "depends on a lower number" is not visible in names.
	perm := rng.Perm(n)
	relabel := func(s string) string {
		var i int
		fmt.Sscanf(s, "t%d", &i)
		return fmt.Sprintf("t%02d", perm[i])
	}
	out := assembler.Deps{}
	for k, v := range deps {
		for _, d := range v {
			out[relabel(k)] = append(out[relabel(k)], relabel(d))
		}
	}
	return names, out
}

// randomBatch proposes 1 to most calls of the named tools, repeats allowed.
func randomBatch(rng *rand.Rand, names []string, most int) []string {
	batch := make([]string, 1+rng.IntN(most))
	for i := range batch {
		batch[i] = names[rng.IntN(len(names))]
	}
	return batch
}

// violates reports whether a sequence runs some call before a call of a
// tool it depends on.
func violates(seq []string, deps assembler.Deps) bool {
	for i, a := range seq {
		for _, b := range seq[i+1:] {
			if deps.DependsOn(a, b) {
				return true
			}
		}
	}
	return false
}

// leastTopological is the reference for the reorder policy: among all
// orders of the batch that violate no edge, the one whose sequence of
// proposal indices is lexicographically least (brute force).
func leastTopological(batch []string, deps assembler.Deps) []int {
	idx := make([]int, len(batch))
	for i := range idx {
		idx[i] = i
	}
	var best []int
	var rec func(k int)
	rec = func(k int) {
		if k == len(idx) {
			seq := make([]string, len(idx))
			for i, j := range idx {
				seq[i] = batch[j]
			}
			if !violates(seq, deps) && (best == nil || slices.Compare(idx, best) < 0) {
				best = slices.Clone(idx)
			}
			return
		}
		for i := k; i < len(idx); i++ {
			idx[k], idx[i] = idx[i], idx[k]
			rec(k + 1)
			idx[k], idx[i] = idx[i], idx[k]
		}
	}
	rec(0)
	return best
}

// TestPlanProperties: random DAGs of up to 12 tools and random proposed
// batches (repeats allowed). Under reorder the plan is the least
// topological order by proposal index, which is the model's order whenever
// that violates nothing; under reject a violating batch gets no order and
// a non-violating one runs as proposed. No plan runs a dependent first.
func TestPlanProperties(t *testing.T) {
	const seed = 0x7001
	rng := rand.New(rand.NewPCG(seed, 0))
	for c := range 2000 {
		names, deps := randomDAG(rng, 1+rng.IntN(12))
		batch := randomBatch(rng, names, 7)
		fail := func(format string, args ...any) {
			t.Fatalf("case %d (seed %#x): batch %v deps %v: %s", c, seed, batch, deps, fmt.Sprintf(format, args...))
		}
		order, edge := agent.Plan(batch, deps, agent.PolicyReorder)
		if edge != nil {
			fail("reorder returned an edge %v", edge)
		}
		executed := make([]string, len(order))
		for i, j := range order {
			executed[i] = batch[j]
		}
		if violates(executed, deps) {
			fail("reorder plan %v runs a dependent before its dependency", executed)
		}
		if want := leastTopological(batch, deps); !slices.Equal(order, want) {
			fail("reorder plan %v, want the least topological order %v", order, want)
		}
		if !violates(batch, deps) && !slices.Equal(order, leastTopological(batch, assembler.Deps{})) {
			fail("a batch that violates nothing was reordered to %v", order)
		}
		rorder, redge := agent.Plan(batch, deps, agent.PolicyReject)
		switch {
		case violates(batch, deps) && (redge == nil || rorder != nil):
			fail("reject let a violating batch run: order %v", rorder)
		case violates(batch, deps) && !deps.DependsOn(redge.From, redge.To):
			fail("reject named %v, which is not a declared edge", redge)
		case !violates(batch, deps) && (redge != nil || len(rorder) != len(batch)):
			fail("reject refused a valid batch: %v", redge)
		}
	}
}

// runBatch runs one turn whose single reply is the batch, with tools from
// deps registered, and returns the log and the calls the runner saw.
func runBatch(t *testing.T, policy string, names []string, deps assembler.Deps, batch []string, completedFirst []string) ([]byte, []string) {
	t.Helper()
	var tools []assembler.Tool
	for _, n := range names {
		tools = append(tools, assembler.Tool{Name: n, DependsOn: deps[n]})
	}
	runner := &countingRunner{}
	script := agent.NewScripted()
	a, err := agent.New(agent.Config{Model: "m", DependencyPolicy: policy}, agent.Options{Adapter: script, Tools: runner})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Service().AddProvider("p", tools...); err != nil {
		t.Fatal(err)
	}
	var calls []agent.ToolCall
	for i, n := range batch {
		calls = append(calls, agent.ToolCall{ID: fmt.Sprintf("c%d", i), Name: n})
	}
	if len(completedFirst) > 0 {
		// A first turn completes these tools one per step.
		for i, n := range completedFirst {
			script.Push(agent.Reply{ToolCalls: []agent.ToolCall{{ID: fmt.Sprintf("p%d", i), Name: n}}})
		}
		script.Push(agent.Reply{Text: "ready"})
		if err := a.RunTurn(context.Background(), "prepare"); err != nil {
			t.Fatal(err)
		}
	}
	script.Push(agent.Reply{ToolCalls: calls}, agent.Reply{Text: "done"})
	runner.calls = nil
	if err := a.RunTurn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	return a.Log().Bytes(), runner.calls
}

type countingRunner struct {
	mu    sync.Mutex
	calls []string
}

func (r *countingRunner) RunTool(_ context.Context, c agent.ToolCall) (agent.ToolResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c.Name)
	return agent.ToolResult{Output: "ok " + c.ID}, nil
}

// TestLoopNeverRunsADependentFirst drives the loop itself with random DAGs
// and batches, some after a turn that completed a random set of tools.
func TestLoopNeverRunsADependentFirst(t *testing.T) {
	const seed = 0x7002
	rng := rand.New(rand.NewPCG(seed, 0))
	for c := range 1000 {
		names, deps := randomDAG(rng, 1+rng.IntN(12))
		batch := randomBatch(rng, names, 6)
		var first []string
		if rng.IntN(2) == 0 {
			// Complete a prefix-closed set: tools in dependency order.
			for _, n := range names {
				if rng.IntN(2) == 0 && !slices.ContainsFunc(deps[n], func(d string) bool { return !slices.Contains(first, d) }) {
					first = append(first, n)
				}
			}
		}
		policy := []string{agent.PolicyReorder, agent.PolicyReject}[c%2]
		log, ran := runBatch(t, policy, names, deps, batch, first)
		if err := agent.CheckTrace(log, agent.Fixed(deps)); err != nil {
			t.Fatalf("case %d (seed %#x) %s batch %v after %v: %v\n%s", c, seed, policy, batch, first, err, log)
		}
		if policy == agent.PolicyReject && violates(batch, deps) && len(ran) != 0 {
			t.Fatalf("case %d: reject ran %v from a violating batch %v", c, ran, batch)
		}
		// Every call gets exactly one result.
		if n := strings.Count(string(log), `"type":"tool/result","data":{"turn":`+fmt.Sprint(1+min(1, len(first)))); n != len(batch) {
			t.Fatalf("case %d: %d results for %d calls\n%s", c, n, len(batch), log)
		}
	}
}

func TestDependencyEvents(t *testing.T) {
	names := []string{"create", "notify"}
	deps := assembler.Deps{"notify": {"create"}}
	log, ran := runBatch(t, agent.PolicyReorder, names, deps, []string{"notify", "create"}, nil)
	wantSummary(t, log,
		"turn/start turn=1", "user/message turn=1", "step/start turn=1 step=1", "request/header turn=1 step=1 reason=initial",
		"assistant/message turn=1 step=1", "tool/plan turn=1 step=1",
		"tool/result turn=1 step=1 callId=c1", "tool/result turn=1 step=1 callId=c0",
		"step/end turn=1 step=1", "step/start turn=1 step=2", "assistant/message turn=1 step=2", "step/end turn=1 step=2",
		"turn/end turn=1 reason=completed")
	if !slices.Equal(ran, []string{"create", "notify"}) {
		t.Errorf("ran %v", ran)
	}
	if !strings.Contains(string(log), `{"type":"tool/plan","data":{"turn":1,"step":1,"proposed":["c0","c1"],"executed":["c1","c0"]}}`) {
		t.Errorf("tool/plan line:\n%s", log)
	}

	log, ran = runBatch(t, agent.PolicyReject, names, deps, []string{"notify", "create"}, nil)
	if len(ran) != 0 || strings.Count(string(log), "edge notify -> create") != 2 || strings.Contains(string(log), "tool/plan") {
		t.Errorf("reject: ran %v\n%s", ran, log)
	}

	log, ran = runBatch(t, agent.PolicyReorder, names, deps, []string{"notify"}, nil)
	if len(ran) != 0 || !strings.Contains(string(log), `"output":"not run: notify depends on create, which has not completed successfully (edge notify -> create)","error":true`) {
		t.Errorf("missing dependency: ran %v\n%s", ran, log)
	}
	_, ran = runBatch(t, agent.PolicyReorder, names, deps, []string{"notify"}, []string{"create"})
	if !slices.Equal(ran, []string{"notify"}) {
		t.Errorf("dependency completed in an earlier turn: ran %v", ran)
	}
}

func TestDependencyChecksAtAssemble(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []assembler.Tool
		want  string
	}{
		{"cycle", []assembler.Tool{{Name: "a", DependsOn: []string{"b"}}, {Name: "b", DependsOn: []string{"c"}}, {Name: "c", DependsOn: []string{"a"}}},
			"tool dependencies form a cycle: a -> b -> c -> a"},
		{"self", []assembler.Tool{{Name: "a", DependsOn: []string{"a"}}}, "tool dependencies form a cycle: a -> a"},
		{"unknown", []assembler.Tool{{Name: "notify", DependsOn: []string{"create"}}},
			`tool "notify" depends on "create", which is not registered; known tools: "notify"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := agent.NewScripted(agent.Reply{Text: "never"})
			a, err := agent.New(agent.Config{}, agent.Options{Adapter: script})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Service().AddProvider("p", tc.tools...); err != nil {
				t.Fatal(err)
			}
			err = a.RunTurn(context.Background(), "x")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			wantSummary(t, a.Log().Bytes(), "turn/start turn=1", "user/message turn=1",
				"turn/end turn=1 reason=error message="+tc.want, "agent/error turn=1 message="+tc.want)
			if len(script.Requests()) != 0 {
				t.Error("the adapter was called")
			}
		})
	}
}

// TestIdempotentLedger: the ledger is keyed by tool and canonical
// arguments, key order ignored; another value, or a tool not declared
// idempotent, runs again; a resumed loop keeps the ledger.
func TestIdempotentLedger(t *testing.T) {
	runner := &countingRunner{}
	log := agent.NewLog()
	newAgent := func(replies ...agent.Reply) *agent.Agent {
		a, err := agent.New(agent.Config{}, agent.Options{Adapter: agent.NewScripted(replies...), Tools: runner, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Service().AddProvider("p", assembler.Tool{Name: "get", Idempotent: true}, assembler.Tool{Name: "put"}); err != nil {
			t.Fatal(err)
		}
		return a
	}
	call := func(id, name, args string) agent.ToolCall {
		return agent.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
	}
	a := newAgent(
		agent.Reply{ToolCalls: []agent.ToolCall{call("c1", "get", `{"a":1,"b":{"x":[1,2],"y":true}}`), call("c2", "put", `{"a":1}`)}},
		agent.Reply{ToolCalls: []agent.ToolCall{call("c3", "get", `{"b":{"y":true,"x":[1,2]},"a":1}`), call("c4", "put", `{"a":1}`)}},
		agent.Reply{ToolCalls: []agent.ToolCall{call("c5", "get", `{"a":2,"b":{"x":[1,2],"y":true}}`), call("c6", "get", `{"a":1,"b":{"x":[2,1],"y":true}}`)}},
		agent.Reply{Text: "done"})
	if err := a.RunTurn(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(runner.calls, []string{"get", "put", "put", "get", "get"}) {
		t.Errorf("ran %v, want c3 replayed and everything else run", runner.calls)
	}
	results := map[string]gjson.Result{}
	for _, ln := range splitLines(log.Bytes()) {
		if v := gjson.ParseBytes(ln); v.Get("type").String() == agent.TypeToolResult {
			results[v.Get("data.callId").String()] = v.Get("data")
		}
	}
	if r := results["c3"]; !r.Get("replayed").Bool() || r.Get("output").String() != "ok c1" {
		t.Errorf("c3 = %s, want the first result replayed", r.Raw)
	}
	for _, id := range []string{"c1", "c2", "c4", "c5", "c6"} {
		if results[id].Get("replayed").Exists() {
			t.Errorf("%s marked replayed", id)
		}
	}
	// A new loop instance resuming the log replays from the same ledger.
	runner.calls = nil
	b := newAgent(agent.Reply{ToolCalls: []agent.ToolCall{call("c7", "get", `{"b":{"x":[1,2],"y":true},"a":1}`)}}, agent.Reply{Text: "done"})
	if err := b.RunTurn(context.Background(), "again"); err != nil {
		t.Fatal(err)
	}
	if len(runner.calls) != 0 || !strings.Contains(string(log.Bytes()), `"callId":"c7","name":"get","output":"ok c1","replayed":true`) {
		t.Errorf("resumed: ran %v\n%s", runner.calls, log.Bytes())
	}
}

func TestUnknownDependencyPolicy(t *testing.T) {
	_, err := agent.New(agent.Config{DependencyPolicy: "shuffle"}, agent.Options{Adapter: agent.NewScripted()})
	if err == nil || !strings.Contains(err.Error(), `dependencyPolicy: unknown policy "shuffle"`) {
		t.Errorf("err = %v", err)
	}
}

func TestCheckTraceFindsViolation(t *testing.T) {
	log := jsonl(
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"notify","output":"posted"}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c2","name":"create","output":"#1"}}`)
	err := agent.CheckTrace([]byte(log), agent.Fixed(assembler.Deps{"notify": {"create"}}))
	var te *agent.TraceError
	if !errors.As(err, &te) || te.Line != 1 || te.CallID != "c1" || te.Edge != (agent.Edge{From: "notify", To: "create"}) {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "edge notify -> create") {
		t.Errorf("message %q", err)
	}
	// Errors and replays did not run; they never violate.
	ok := jsonl(
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"notify","output":"refused","error":true}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c2","name":"create","output":"#1"}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c3","name":"notify","output":"posted"}}`)
	if err := agent.CheckTrace([]byte(ok), agent.Fixed(assembler.Deps{"notify": {"create"}})); err != nil {
		t.Errorf("valid trace: %v", err)
	}
}

// FuzzPlan builds a DAG and a batch from the fuzzer's bytes (edges only
// point from higher to lower tool numbers, so the graph is acyclic) and
// checks the plan under both policies against the brute-force reference.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{5, 0b1011, 0b0110, 3, 1, 4, 0, 2})
	f.Add([]byte{2, 1, 0, 1, 0, 1})
	f.Add([]byte{12, 255, 255, 255, 255, 11, 10, 9, 8, 7, 6, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := 1 + int(data[0])%12
		data = data[1:]
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("t%d", i)
		}
		deps := assembler.Deps{}
		for i := 1; i < n && len(data) > 0; i++ {
			bits := data[0]
			data = data[1:]
			for j := 0; j < i && j < 8; j++ {
				if bits&(1<<j) != 0 {
					deps[names[i]] = append(deps[names[i]], names[j])
				}
			}
		}
		var batch []string
		for _, b := range data {
			if len(batch) == 7 {
				break
			}
			batch = append(batch, names[int(b)%n])
		}
		if len(batch) == 0 {
			return
		}
		order, _ := agent.Plan(batch, deps, agent.PolicyReorder)
		if want := leastTopological(batch, deps); !slices.Equal(order, want) {
			t.Fatalf("reorder %v deps %v: plan %v, want %v", batch, deps, order, want)
		}
		rorder, edge := agent.Plan(batch, deps, agent.PolicyReject)
		if violates(batch, deps) != (edge != nil) || (edge != nil && rorder != nil) {
			t.Fatalf("reject %v deps %v: order %v edge %v", batch, deps, rorder, edge)
		}
	})
}
