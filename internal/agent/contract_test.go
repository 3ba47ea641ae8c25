package agent_test

import (
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// toolResults maps the call id of every tool/result event of log to its
// data object.
func toolResults(log []byte) map[string]gjson.Result {
	out := map[string]gjson.Result{}
	for _, ln := range splitLines(log) {
		if v := gjson.ParseBytes(ln); v.Get("type").String() == agent.TypeToolResult {
			out[v.Get("data.callId").String()] = v.Get("data")
		}
	}
	return out
}

// TestFailedCallCompletesNothing: a tool call whose result is an error has
// not completed successfully: a tool depending on it is refused, and an
// idempotent tool called again runs again instead of replaying the error.
// That holds in the instance that saw the failure and in a new instance
// resuming the log (which rebuilds what completed from the log).
func TestFailedCallCompletesNothing(t *testing.T) {
	for _, resume := range []bool{false, true} {
		sc := agent.NewScripted(
			toolsReply(call("c1", "auth", `{}`)), text("failed"),
			toolsReply(call("c2", "read", `{}`)), text("refused"),
			toolsReply(call("c3", "auth", `{}`)), text("ok"))
		sc.SetResult("c1", agent.ToolResult{Output: "denied", IsError: true})
		sc.SetResult("c2", agent.ToolResult{Output: "contents"})
		sc.SetResult("c3", agent.ToolResult{Output: "token"})
		register := func(a *agent.Agent) {
			mustProvider(t, a.Service(), "p",
				assembler.Tool{Name: "auth", Idempotent: true},
				assembler.Tool{Name: "read", DependsOn: []string{"auth"}})
		}
		a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
		register(a)
		run(t, a, "log in")
		if resume {
			a = newAgent(t, agent.Config{}, agent.Options{Adapter: sc, Log: a.Log()})
			register(a)
		}
		run(t, a, "read")
		run(t, a, "log in again")

		log := a.Log().Bytes()
		res := toolResults(log)
		if r := res["c2"]; !r.Get("error").Bool() || !strings.HasPrefix(r.Get("output").String(), "not run: read depends on auth") {
			t.Errorf("resume %v: c2 (read after a failed auth) = %s, want it refused", resume, r.Raw)
		}
		if r := res["c3"]; r.Get("output").String() != "token" || r.Get("replayed").Exists() || r.Get("error").Exists() {
			t.Errorf("resume %v: c3 (auth again after it failed) = %s, want it run, not replayed", resume, r.Raw)
		}
		if err := agent.CheckTrace(log, agent.Fixed(assembler.Deps{"read": {"auth"}})); err != nil {
			t.Errorf("resume %v: CheckTrace: %v", resume, err)
		}
	}
}

// TestIdempotentReplaysTheFirstResult: a tool that becomes idempotent
// after it ran twice with the same arguments replays the first of those
// results, not the latest.
func TestIdempotentReplaysTheFirstResult(t *testing.T) {
	sc := agent.NewScripted(
		toolsReply(call("c1", "get", `{"k":1}`)), text("one"),
		toolsReply(call("c2", "get", `{"k":1}`)), text("two"),
		toolsReply(call("c3", "get", `{"k":1}`)), text("three"))
	sc.SetResult("c1", agent.ToolResult{Output: "first"})
	sc.SetResult("c2", agent.ToolResult{Output: "second"})
	sc.SetResult("c3", agent.ToolResult{Output: "third"})
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "plain", assembler.Tool{Name: "get", Description: "Plain."})
	run(t, a, "1")
	run(t, a, "2")
	mustProvider(t, a.Service(), "cached", assembler.Tool{Name: "get", Description: "Cached.", Idempotent: true})
	run(t, a, "3")

	res := toolResults(a.Log().Bytes())
	if got := res["c2"].Get("output").String(); got != "second" {
		t.Fatalf("c2 output %q, want it run (not idempotent yet)", got)
	}
	if r := res["c3"]; r.Get("output").String() != "first" || !r.Get("replayed").Bool() {
		t.Errorf("c3 = %s, want the first result, replayed", r.Raw)
	}
}

// TestCheckTraceSkipsReplayedCalls: a replayed result did not run, so it
// never violates a dependency, even one declared after the first run.
func TestCheckTraceSkipsReplayedCalls(t *testing.T) {
	log := jsonl(
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"notify","output":"posted"}}`,
		`{"type":"tool/result","data":{"turn":2,"step":1,"callId":"c2","name":"notify","output":"posted","replayed":true}}`,
		`{"type":"tool/result","data":{"turn":2,"step":1,"callId":"c3","name":"create","output":"#1"}}`)
	deps := func(turn, _ int) assembler.Deps {
		if turn == 1 {
			return nil
		}
		return assembler.Deps{"notify": {"create"}}
	}
	if err := agent.CheckTrace([]byte(log), deps); err != nil {
		t.Errorf("CheckTrace: %v, want nil (the turn-2 notify was replayed, not run)", err)
	}
}

// TestToolCallWithoutIDEndsTurnBalanced: a reply whose tool call has no id
// fails the turn balanced, with no tool run.
func TestToolCallWithoutIDEndsTurnBalanced(t *testing.T) {
	runner := &countingRunner{}
	sc := agent.NewScripted(toolsReply(agent.ToolCall{Name: "read_file"}))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc, Tools: runner})
	mustProvider(t, a.Service(), "fs", readFile)
	err := a.RunTurn(ctx, "go")
	const msg = "adapter reply: tool call 0 has no id or name"
	if err == nil || err.Error() != msg {
		t.Fatalf("err = %v, want %q", err, msg)
	}
	wantSummary(t, a.Log().Bytes(),
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"step/end turn=1 step=1",
		"turn/end turn=1 reason=error message="+msg,
		"agent/error turn=1 message="+msg)
	if len(runner.calls) != 0 {
		t.Errorf("ran %v", runner.calls)
	}
}

// TestRegistrationThatChangesNoByteLogsNoHeader: a registration that
// leaves the header's bytes as they were (a section with no text) makes a
// new header object but no request/header event: only a header that
// differs from the one in force is logged.
func TestRegistrationThatChangesNoByteLogsNoHeader(t *testing.T) {
	sc := agent.NewScripted(text("one"), text("two"))
	a := newAgent(t, agent.Config{Persona: "P"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "first")
	mustSection(t, a.Service(), assembler.Section{ID: "empty", Order: 5})
	run(t, a, "second")
	log := a.Log().Bytes()
	if hs := headers(log); len(hs) != 1 {
		t.Fatalf("%d request/header events, want 1:\n%s", len(hs), log)
	}
	assertRebuild(t, log, sc.Requests())
}

// TestParseLogRejects: lines that are not events, and a log without its
// final newline, are errors naming the 1-based line.
func TestParseLogRejects(t *testing.T) {
	const ok = `{"type":"turn/start","data":{"turn":1}}`
	for _, tc := range []struct{ name, log, want string }{
		{"no final newline", ok + "\n" + ok, "line 2: no final newline"},
		{"empty type", ok + "\n" + `{"type":"","data":{}}` + "\n", `line 2: event has no string "type"`},
		{"type not a string", `{"type":1,"data":{}}` + "\n", `line 1: event has no string "type"`},
		{"data not an object", `{"type":"x","data":[]}` + "\n", `line 1: x event has no "data" object`},
	} {
		if _, err := agent.ParseLog([]byte(tc.log)); err == nil || err.Error() != tc.want {
			t.Errorf("%s: ParseLog error %v, want %q", tc.name, err, tc.want)
		}
	}
	if l, err := agent.ParseLog([]byte(ok + "\n" + ok + "\n")); err != nil || l.Len() != 2 {
		t.Errorf("valid log: %v", err)
	}
}

// TestLogPrefix: Prefix(n) is the first n events, each with its newline.
func TestLogPrefix(t *testing.T) {
	lines := []string{
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"hi"}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":"completed"}}`,
	}
	l, err := agent.ParseLog([]byte(jsonl(lines...)))
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n <= len(lines); n++ {
		want := ""
		if n > 0 {
			want = jsonl(lines[:n]...)
		}
		if got := string(l.Prefix(n)); got != want {
			t.Errorf("Prefix(%d)\n got %q\nwant %q", n, got, want)
		}
	}
}
