package harness

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

// TestNewEdgeCaught adds a tool to an existing fixture's registry whose
// declaration puts a new edge between calls the golden log recorded in the
// other order: replay names the fixture, the recorded event and the edge,
// and the replanned run differs from the recording.
func TestNewEdgeCaught(t *testing.T) {
	opts := copyBundled(t)
	path := filepath.Join(opts.Fixtures, "idempotent-replay.json")
	b := readFile(t, path)
	// A second fetch_doc, from a new plugin, that depends on log_note.
	b = bytes.Replace(b, []byte(`"plugins": [`), []byte(`"plugins": [
    {"name": "audit", "tools": [{"name": "fetch_doc", "description": "Fetch a document, audited.", "dependsOn": ["log_note"]}]},`), 1)
	writeFile(t, path, string(b))
	fails := replayOne(t, mustLoad(t, opts), "idempotent-replay")
	f := failureWith(t, fails, CheckTrace, "idempotent-replay.golden", `call "c1" of fetch_doc ran before log_note`, "edge fetch_doc -> log_note")
	if f.Line != 6 {
		t.Errorf("line %d, want 6 (the first tool/result of the recording)", f.Line)
	}
	failureWith(t, fails, CheckGolden, "idempotent-replay.golden")
	// The new run itself respects the edge: it plans log_note first.
	s := mustLoad(t, opts)
	out, res := s.Check(s.Fixture("idempotent-replay"))
	for _, fail := range res.Failures {
		t.Errorf("the run with the new edge: %s", fail)
	}
	if !bytes.Contains(out.Log, []byte(`"proposed":["c1","c2"],"executed":["c2","c1"]`)) {
		t.Errorf("no tool/plan for the new edge:\n%s", out.Log)
	}
}

func TestTraceCheckOnRun(t *testing.T) {
	f, run := loadAndRun(t, "../fixtures", "depends-reorder")
	if tf := traceFailure(f, "x", run.fullLog(), run.depsAt); tf != nil {
		t.Fatalf("the bundled run violates its edges: %s", tf)
	}
	// The same events in the model's order would violate notify -> create_issue.
	swapped := bytes.Replace(run.fullLog(), []byte(`"callId":"c2","name":"create_issue"`), []byte(`"callId":"cX","name":"create_issue"`), 1)
	lines := bytes.SplitAfter(swapped, []byte("\n"))
	for i := range lines {
		if bytes.Contains(lines[i], []byte(`"callId":"cX"`)) {
			lines[i], lines[i+1] = lines[i+1], lines[i]
			break
		}
	}
	tf := traceFailure(f, "x", bytes.Join(lines, nil), run.depsAt)
	if tf == nil || !strings.Contains(tf.Msg, "edge notify -> create_issue") {
		t.Fatalf("trace failure = %v", tf)
	}
}

func TestCheckPlan(t *testing.T) {
	deps := assembler.Deps{"notify": {"create"}}
	for _, tc := range []struct {
		names  []string
		policy string
	}{
		{[]string{"notify", "create"}, agent.PolicyReorder},
		{[]string{"create", "notify"}, agent.PolicyReorder},
		{[]string{"notify", "x", "create", "notify"}, agent.PolicyReorder},
		{[]string{"notify", "create"}, agent.PolicyReject},
		{[]string{"create", "x", "notify"}, agent.PolicyReject},
	} {
		if msg := checkPlan(tc.names, deps, tc.policy, nil); msg != "" {
			t.Errorf("%v %s: %s", tc.names, tc.policy, msg)
		}
	}
	if v := firstViolation([]string{"x", "notify", "create"}, deps, nil); v == nil || v.String() != "notify -> create" {
		t.Errorf("firstViolation = %v", v)
	}
	seen := map[string]bool{}
	for p := range permutations([]string{"a", "b", "c", "d"}, nil) {
		seen[strings.Join(p, ",")] = true
	}
	if len(seen) != 24 {
		t.Errorf("%d distinct permutations of 4", len(seen))
	}
}

// TestFirstViolationAgreesWithPlan holds the permutation pass's account of
// the first violated edge to the agent's, two implementations of one rule,
// on random batches of up to 60 calls (both sides of the agent's pairwise
// bound) over dependencies that may point at a tool itself or form cycles.
func TestFirstViolationAgreesWithPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(0xf1, 0))
	later := map[string]bool{} // reused, as the permutation pass reuses it
	for c := range 2000 {
		tools := 1 + rng.IntN(12)
		deps := assembler.Deps{}
		for a := range tools {
			for b := range tools {
				if rng.IntN(6) == 0 {
					deps[fmt.Sprint(a)] = append(deps[fmt.Sprint(a)], fmt.Sprint(b))
				}
			}
		}
		batch := make([]string, 1+rng.IntN(60))
		for i := range batch {
			batch[i] = fmt.Sprint(rng.IntN(tools))
		}
		_, edge := agent.Plan(batch, deps, agent.PolicyReject)
		if got := firstViolation(batch, deps, later); (got == nil) != (edge == nil) || (got != nil && *got != *edge) {
			t.Fatalf("case %d: batch %v deps %v: firstViolation %v, the agent's %v", c, batch, deps, got, edge)
		}
	}
}

func TestDependencyPolicyValidated(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p.json"), "{\n  \"description\": \"x\",\n  \"config\": {\"dependencyPolicy\": \"random\"},\n  \"turns\": [{\"user\": \"x\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n")
	_, err := loadFixture(dir, "p")
	if err == nil || !strings.Contains(err.Error(), `p.json:3:34: config.dependencyPolicy: unknown policy "random"`) {
		t.Errorf("err = %v", err)
	}
}

// TestTraceUsesTheDependenciesOfEachStep: an edge that a late plugin adds
// in turn 2 does not apply to a call made in turn 1.
func TestTraceUsesTheDependenciesOfEachStep(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "late-edge.json"), `{
  "description": "x gains a dependency on y in turn 2",
  "plugins": [
    {"name": "a", "tools": [{"name": "x"}, {"name": "y"}]},
    {"name": "b", "registerAt": {"turn": 2, "step": 1}, "tools": [{"name": "x", "description": "x, checked", "dependsOn": ["y"]}]}
  ],
  "turns": [
    {"user": "one", "replies": [{"toolCalls": [{"id": "c1", "name": "x"}]}, {"text": "ok"}], "toolResults": {"c1": "done"}},
    {"user": "two", "replies": [{"toolCalls": [{"id": "c2", "name": "x"}]}, {"text": "ok"}], "toolResults": {"c2": "done"}}
  ]
}`)
	s := mustLoad(t, Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), Shuffle: 2, Seed: 1})
	out, res := s.Check(s.Fixture("late-edge"))
	if !res.Passed() {
		t.Fatalf("failures: %v", res.Failures)
	}
	// Turn 1's x ran; turn 2's x was refused for want of y.
	if !bytes.Contains(out.Log, []byte(`"callId":"c1","name":"x","output":"done"}`)) ||
		!bytes.Contains(out.Log, []byte(`"callId":"c2","name":"x","output":"not run: x depends on y`)) {
		t.Errorf("log:\n%s", out.Log)
	}
}

// TestCheckBatchesReadsTheLiveLog: the batch check reads a reference run's
// log as the loop wrote it, without joining it, and reports what it
// reports from the joined log, at the same line: here a batch whose
// dependencies, injected after the run, form a cycle no plan satisfies.
func TestCheckBatchesReadsTheLiveLog(t *testing.T) {
	f, run := loadAndRun(t, "../fixtures", "depends-reorder")
	if bf := checkBatches(f, "x", run, 1); bf != nil {
		t.Fatalf("the bundled run: %s", bf)
	}
	for k := range run.deps {
		run.deps[k] = assembler.Deps{"create_issue": {"notify"}, "notify": {"create_issue"}}
	}
	live := checkBatches(f, "x", run, 1)
	if run.Log != nil {
		t.Error("the batch check joined the run's log")
	}
	run.Log = run.fullLog()
	joined := checkBatches(f, "x", run, 1)
	if live == nil || joined == nil || live.Line != joined.Line || live.Msg != joined.Msg {
		t.Fatalf("from the live log %v, from the joined log %v", live, joined)
	}
	if lines := splitLines(run.Log); live.Line < 1 || live.Line > len(lines) || !bytes.Contains(lines[live.Line-1], []byte(`"type":"assistant/message"`)) {
		t.Errorf("line %d is not an assistant message", live.Line)
	}
}
