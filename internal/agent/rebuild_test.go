package agent_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

// session is one recorded run: the log and what the adapter received.
type session struct {
	log  []byte
	reqs [][]byte
}

// twoTurns runs a fixed scenario (two turns, three steps) with the given
// extra registrations, the way replay runs a fixture: a fresh agent each
// time.
func twoTurns(t testing.TB, register func(a *agent.Agent)) session {
	t.Helper()
	sc := agent.NewScripted(
		toolsReply(call("c1", "b", `{"x":1}`)), text("one"),
		text("two"),
	)
	sc.SetResult("c1", agent.ToolResult{Output: "out"})
	a := newAgent(t, agent.Config{Persona: "P", Model: "m"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "p", tool("a", "A.", ""), tool("b", "B.", `{"type":"object"}`), tool("c", "C.", ""))
	if register != nil {
		register(a)
	}
	run(t, a, "first")
	run(t, a, "second")
	s := session{log: a.Log().Bytes(), reqs: sc.Requests()}
	if len(s.reqs) != 3 {
		t.Fatalf("adapter received %d requests, want 3", len(s.reqs))
	}
	return s
}

func TestRebuildCatchesNondeterministicListener(t *testing.T) {
	// The counter outlives the agent, as a package-level variable in a
	// plugin would: the listener rotates the tools by one more on each
	// call, so the same scenario produces other bytes on the next run.
	calls := 0
	rotate := func(a *agent.Agent) {
		// Four tools, three assemblies per run: the rotation does not
		// come round to the same place on the next run.
		mustProvider(t, a.Service(), "q", tool("d", "D.", ""))
		a.Service().AddListener("rotate", func(as assembler.Assembly) (assembler.Assembly, error) {
			k := calls % as.Tools.Len()
			calls++
			for range k {
				as.Tools = as.Tools.Move(0, as.Tools.Len()-1)
			}
			return as, nil
		})
	}
	run1 := twoTurns(t, rotate)
	// Within one run the log and the requests agree: the loop builds
	// every request from its own log.
	assertRebuild(t, run1.log, run1.reqs)

	run2 := twoTurns(t, rotate)
	err := agent.CheckRebuild(run1.log, run2.reqs)
	var re *agent.RebuildError
	if !errors.As(err, &re) {
		t.Fatalf("CheckRebuild(run 1 log, run 2 requests) = %v, want a *RebuildError", err)
	}
	if re.Step != 1 || re.Line != 5 {
		t.Errorf("RebuildError names step %d line %d, want step 1 line 5", re.Step, re.Line)
	}
	if !strings.Contains(err.Error(), "step 1") {
		t.Errorf("message does not name the step: %v", err)
	}
	if !bytes.Equal(re.Got, run2.reqs[0]) || bytes.Equal(re.Want, re.Got) {
		t.Errorf("RebuildError does not carry the two requests")
	}
}

func TestRebuildNamesTheFirstDriftingStep(t *testing.T) {
	// A section whose text changes per process from step 2 on (a
	// timestamp, a counter): step 1 is reproducible, step 2 is not.
	clock := 0
	stamp := func(a *agent.Agent) {
		a.Service().AddListener("stamp", func(as assembler.Assembly) (assembler.Assembly, error) {
			if len(as.Sections) > 0 && clock%3 != 0 {
				as.Sections = append(as.Sections, assembler.Section{ID: "now", Text: fmt.Sprint("now: ", clock)})
			}
			clock++
			return as, nil
		})
	}
	run1 := twoTurns(t, stamp) // clock 0, 1, 2
	assertRebuild(t, run1.log, run1.reqs)
	run2 := twoTurns(t, stamp) // clock 3, 4, 5: step 1 matches, step 2 does not
	err := agent.CheckRebuild(run1.log, run2.reqs)
	var re *agent.RebuildError
	if !errors.As(err, &re) || re.Step != 2 {
		t.Fatalf("CheckRebuild = %v, want a *RebuildError for step 2", err)
	}
	if !strings.Contains(err.Error(), "step 2") {
		t.Errorf("message does not name the step: %v", err)
	}
}

func TestRebuildPassesDeterministicListener(t *testing.T) {
	rev := func(a *agent.Agent) { a.Service().AddListener("reverse", reverse) }
	run1 := twoTurns(t, rev)
	run2 := twoTurns(t, rev)
	if err := agent.CheckRebuild(run1.log, run2.reqs); err != nil {
		t.Fatalf("CheckRebuild across runs: %v", err)
	}
	if !bytes.Equal(run1.log, run2.log) {
		t.Error("two runs of a deterministic scenario logged different bytes")
	}
	assertRebuild(t, run1.log, run1.reqs)
	if names := toolNames(headers(run1.log)[0].Get("header")); !slices.Equal(names, []string{"c", "b", "a"}) {
		t.Errorf("tools %q, want the reversed [c b a]", names)
	}
}

func TestCheckRebuildDetectsTampering(t *testing.T) {
	s := twoTurns(t, nil)
	if err := agent.CheckRebuild(s.log, s.reqs); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, old, new string
		step           int
	}{
		// One byte of a tool in the request/header line.
		{"tool description", `"description":"B."`, `"description":"b."`, 1},
		// The tool result folded into step 2's messages.
		{"tool output", `"output":"out"`, `"output":"ouT"`, 2},
		// The user message of turn 2, which only step 3 sees.
		{"user message", `"content":"second"`, `"content":"Second"`, 3},
	} {
		if bytes.Count(s.log, []byte(tc.old)) != 1 {
			t.Fatalf("%s: %q does not occur exactly once in the log", tc.name, tc.old)
		}
		tampered := bytes.Replace(s.log, []byte(tc.old), []byte(tc.new), 1)
		err := agent.CheckRebuild(tampered, s.reqs)
		var re *agent.RebuildError
		if !errors.As(err, &re) || re.Step != tc.step {
			t.Errorf("%s: CheckRebuild = %v, want a *RebuildError for step %d", tc.name, err, tc.step)
		}
	}
}

func TestCheckRebuildDetectsCountMismatch(t *testing.T) {
	s := twoTurns(t, nil)
	// Fewer requests than dispatched steps.
	if err := agent.CheckRebuild(s.log, s.reqs[:2]); err == nil || !strings.Contains(err.Error(), "received only 2") {
		t.Errorf("two of three requests: err = %v", err)
	}
	// More requests than steps.
	extra := append(slices.Clone(s.reqs), s.reqs[2])
	if err := agent.CheckRebuild(s.log, extra); err == nil || !strings.Contains(err.Error(), "4 requests but the log has 3 steps") {
		t.Errorf("four requests: err = %v", err)
	}
	// No requests at all for a log with steps, and requests for an empty log.
	if err := agent.CheckRebuild(s.log, nil); err == nil {
		t.Error("no requests: CheckRebuild passed")
	}
	if err := agent.CheckRebuild(nil, s.reqs); err == nil {
		t.Error("empty log: CheckRebuild passed")
	}
	if err := agent.CheckRebuild(nil, nil); err != nil {
		t.Errorf("empty log, no requests: %v", err)
	}
}

func TestCheckRebuildChecksATruncatedLastStep(t *testing.T) {
	// A log that ends between a step's start and its dispatch (a crash, a
	// cut copy) still has that step's request in the prefix: a received
	// request for it must be compared, not waved through.
	s := twoTurns(t, nil)
	lines := splitLines(s.log)
	// Cut just after the step/start of step 3 (turn 2's only step).
	n := 0
	for i, ln := range lines {
		if bytes.Contains(ln, []byte(`"type":"step/start"`)) {
			n++
			if n == 3 {
				lines = lines[:i+1]
				break
			}
		}
	}
	cut := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := agent.CheckRebuild(cut, s.reqs); err != nil {
		t.Fatalf("truncated log, true requests: %v", err)
	}
	bad := slices.Clone(s.reqs)
	bad[2] = bytes.Replace(bad[2], []byte("second"), []byte("SECOND"), 1)
	var re *agent.RebuildError
	if err := agent.CheckRebuild(cut, bad); !errors.As(err, &re) || re.Step != 3 {
		t.Errorf("truncated log, wrong last request: err = %v, want a *RebuildError for step 3", err)
	}
	// Not yet dispatched: the log may be one step ahead of the adapter.
	if err := agent.CheckRebuild(cut, s.reqs[:2]); err != nil {
		t.Errorf("truncated log, step 3 not dispatched: %v", err)
	}
}

func TestRebuildErrors(t *testing.T) {
	if _, err := agent.Rebuild(nil); err == nil {
		t.Error("Rebuild of an empty prefix (no header in force) succeeded")
	}
	_, err := agent.Rebuild([]byte(jsonl(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":"oops"}}`,
	)))
	if err == nil || !strings.HasPrefix(err.Error(), "line 2:") {
		t.Errorf("Rebuild of a header that is not an object: err = %v, want one naming line 2", err)
	}
	// A line that touches the request but lacks what the request needs
	// is an error, not a request with a hole in it.
	const hdr = `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{}}}}`
	for _, bad := range []string{
		`{"type":"user/message","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":7}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1"}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"output":"x"}}`,
	} {
		if req, err := agent.Rebuild([]byte(jsonl(hdr, bad))); err == nil || !strings.HasPrefix(err.Error(), "line 2:") {
			t.Errorf("Rebuild with %s: got %s, %v; want an error naming line 2", bad, req, err)
		}
	}
	// Lines the request does not depend on are ignored, whatever they hold.
	req, err := agent.Rebuild([]byte(jsonl(hdr, `{"type":"x/custom","data":{}}`, `{"type":"turn/end","data":{"turn":1,"reason":"completed"}}`)))
	if err != nil || string(req) != `{"config":{},"messages":[]}` {
		t.Errorf("Rebuild = %s, %v", req, err)
	}
}

func TestProjectorMatchesRebuild(t *testing.T) {
	s := twoTurns(t, nil)
	var p agent.Projector
	if p.Header() != nil {
		t.Error("zero Projector has a header")
	}
	for i, prefix := range dispatchPrefixes(s.log) {
		p = agent.Projector{}
		for _, ln := range splitLines(prefix) {
			if err := p.Apply(append(ln, '\n')); err != nil {
				t.Fatal(err)
			}
		}
		got, err := p.AppendRequest([]byte("keep:"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "keep:"+string(s.reqs[i]) {
			t.Errorf("step %d: AppendRequest = %s", i+1, got)
		}
		h := p.Header()
		h[0] = 'X' // a copy: the projector is unaffected
		if again, _ := p.AppendRequest(nil); !bytes.Equal(again, s.reqs[i]) {
			t.Errorf("step %d: mutating Header() changed the projection", i+1)
		}
	}
}

// A request/header line in another layout than the loop writes (members
// reordered, spaces) is still read.
func TestApplyReadsOtherLayouts(t *testing.T) {
	var p agent.Projector
	for _, line := range []string{
		`{ "data" : { "header" : {"config":{"model":"m"}} , "reason":"initial", "step":1, "turn":1 }, "type" : "request/header" }`,
		`{"data":{"content":"hi","turn":1},"type":"user/message"}`,
		`{"data":{"error":true,"output":"boom","callId":"c1"},"type":"tool/result"}`,
	} {
		if err := p.Apply([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := p.AppendRequest(nil)
	want := `{"config":{"model":"m"},"messages":[{"role":"user","content":"hi"},{"role":"tool","callId":"c1","content":"boom","isError":true}]}`
	if err != nil || string(got) != want {
		t.Errorf("request = %s, %v\nwant %s", got, err, want)
	}
}

// Neither Rebuild nor a Projector keeps a reference to the caller's bytes.
func TestRebuildAndProjectorCopy(t *testing.T) {
	s := twoTurns(t, nil)
	prefixes := dispatchPrefixes(s.log)
	last := slices.Clone(prefixes[len(prefixes)-1])
	req, err := agent.Rebuild(last)
	if err != nil {
		t.Fatal(err)
	}
	var p agent.Projector
	lines := splitLines(slices.Clone(last))
	for _, ln := range lines {
		if err := p.Apply(ln); err != nil {
			t.Fatal(err)
		}
	}
	scribble(last)
	for _, ln := range lines {
		scribble(ln)
	}
	want := s.reqs[len(s.reqs)-1]
	if !bytes.Equal(req, want) {
		t.Errorf("Rebuild's result changed with its input:\n%s", req)
	}
	if got, _ := p.AppendRequest(nil); !bytes.Equal(got, want) {
		t.Errorf("Projector's request changed with the lines it was given:\n%s", got)
	}
	logCopy := slices.Clone(s.log)
	if err := agent.CheckRebuild(s.log, s.reqs); err != nil || !bytes.Equal(s.log, logCopy) {
		t.Errorf("CheckRebuild: %v, or it changed the log", err)
	}
}
