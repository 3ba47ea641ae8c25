package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

// readFile is the tool most scenarios register; its canonical bytes are
// spelled out in the expected lines below.
var readFile = tool("read_file", "Read a file.", `{ "type" : "object" }`)

const readFileJSON = `{"name":"read_file","description":"Read a file.","parameters":{"type":"object"}}`

func TestOneStepTextTurn(t *testing.T) {
	sc := agent.NewScripted(text("Hello."))
	a := newAgent(t, agent.Config{Persona: "You are terse.", Model: "m-1"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "Hi")

	wantBytes(t, "log", a.Log().Bytes(), jsonl(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"Hi"}}`,
		`{"type":"step/start","data":{"turn":1,"step":1}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m-1"},"system":"You are terse.","tools":[`+readFileJSON+`]}}}`,
		`{"type":"assistant/message","data":{"turn":1,"step":1,"text":"Hello."}}`,
		`{"type":"step/end","data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":"completed"}}`,
	))
	reqs := sc.Requests()
	if len(reqs) != 1 {
		t.Fatalf("adapter received %d requests, want 1", len(reqs))
	}
	wantBytes(t, "request", reqs[0],
		`{"config":{"model":"m-1"},"system":"You are terse.","tools":[`+readFileJSON+`],"messages":[{"role":"user","content":"Hi"}]}`)
	if sc.Remaining() != 0 {
		t.Errorf("%d scripted replies left", sc.Remaining())
	}
	assertRebuild(t, a.Log().Bytes(), reqs)
}

func TestTwoStepToolTurn(t *testing.T) {
	sc := agent.NewScripted(
		toolsReply(call("c1", "read_file", `{ "path" : "a.go" }`), call("c2", "read_file", "")),
		text("Done."),
	)
	sc.SetResult("c1", agent.ToolResult{Output: "package a\n"})
	// c2 has no scripted result: the scripted runner answers with an error
	// result, which the model sees; the turn goes on.
	a := newAgent(t, agent.Config{Model: "m-1"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "Read a.go")

	wantBytes(t, "log", a.Log().Bytes(), jsonl(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"Read a.go"}}`,
		`{"type":"step/start","data":{"turn":1,"step":1}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m-1"},"tools":[`+readFileJSON+`]}}}`,
		`{"type":"assistant/message","data":{"turn":1,"step":1,"toolCalls":[{"id":"c1","name":"read_file","arguments":{"path":"a.go"}},{"id":"c2","name":"read_file","arguments":{}}]}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"read_file","output":"package a\n"}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c2","name":"read_file","output":"no scripted result for call \"c2\"","error":true}}`,
		`{"type":"step/end","data":{"turn":1,"step":1}}`,
		`{"type":"step/start","data":{"turn":1,"step":2}}`,
		`{"type":"assistant/message","data":{"turn":1,"step":2,"text":"Done."}}`,
		`{"type":"step/end","data":{"turn":1,"step":2}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":"completed"}}`,
	))
	reqs := sc.Requests()
	if len(reqs) != 2 {
		t.Fatalf("adapter received %d requests, want 2", len(reqs))
	}
	hdr := `{"config":{"model":"m-1"},"tools":[` + readFileJSON + `]`
	wantBytes(t, "request 1", reqs[0], hdr+`,"messages":[{"role":"user","content":"Read a.go"}]}`)
	wantBytes(t, "request 2", reqs[1], hdr+`,"messages":[{"role":"user","content":"Read a.go"},`+
		`{"role":"assistant","toolCalls":[{"id":"c1","name":"read_file","arguments":{"path":"a.go"}},{"id":"c2","name":"read_file","arguments":{}}]},`+
		`{"role":"tool","callId":"c1","content":"package a\n"},`+
		`{"role":"tool","callId":"c2","content":"no scripted result for call \"c2\"","isError":true}]}`)
	assertRebuild(t, a.Log().Bytes(), reqs)
}

func TestPluginRegistersBeforeStep2(t *testing.T) {
	sc := agent.NewScripted(toolsReply(call("c1", "read_file", `{}`)), text("ok"))
	sc.SetResult("c1", agent.ToolResult{Output: "x"})
	var a *agent.Agent
	a = newAgent(t, agent.Config{Persona: "P"}, agent.Options{Adapter: sc, BeforeStep: func(turn, step int) {
		if turn == 1 && step == 2 {
			mustProvider(t, a.Service(), "late", tool("grep", "Search.", ""))
		}
	}})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "go")

	log := a.Log().Bytes()
	wantSummary(t, log,
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"assistant/message turn=1 step=1",
		"tool/result turn=1 step=1 callId=c1",
		"step/end turn=1 step=1",
		"step/start turn=1 step=2",
		"request/header turn=1 step=2 reason=change",
		"assistant/message turn=1 step=2",
		"step/end turn=1 step=2",
		"turn/end turn=1 reason=completed",
	)
	wantBytes(t, "change header line", splitLines(log)[8],
		`{"type":"request/header","data":{"turn":1,"step":2,"reason":"change","header":{"config":{},"system":"P","tools":[{"name":"grep","description":"Search."},`+readFileJSON+`]}}}`)
	assertRebuild(t, log, sc.Requests())
}

func TestListenerReordersBetweenSteps(t *testing.T) {
	sc := agent.NewScripted(toolsReply(call("c1", "b", `{}`)), text("ok"))
	sc.SetResult("c1", agent.ToolResult{Output: "x"})
	reversed := false // switched by the test between step 1 and step 2
	var a *agent.Agent
	a = newAgent(t, agent.Config{Persona: "P", Model: "m"}, agent.Options{Adapter: sc, BeforeStep: func(turn, step int) {
		reversed = step == 2
	}})
	mustProvider(t, a.Service(), "p", tool("c", "", ""), tool("a", "", ""), tool("b", "", ""))
	a.Service().AddListener("flip", func(as assembler.Assembly) (assembler.Assembly, error) {
		if reversed {
			return reverse(as)
		}
		return as, nil
	})
	run(t, a, "go")

	log := a.Log().Bytes()
	hs := headers(log)
	if len(hs) != 2 {
		t.Fatalf("%d request/header events, want 2", len(hs))
	}
	if got := hs[1].Get("reason").String(); got != agent.ReasonChange {
		t.Errorf("reason of the reorder = %q, want change", got)
	}
	if got := toolNames(hs[0].Get("header")); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("step 1 tools %q, want [a b c]", got)
	}
	// The change is logged with the full header, not a delta.
	wantBytes(t, "change header", []byte(hs[1].Get("header").Raw),
		`{"config":{"model":"m"},"system":"P","tools":[{"name":"c"},{"name":"b"},{"name":"a"}]}`)
	wantSummary(t, log,
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"assistant/message turn=1 step=1",
		"tool/result turn=1 step=1 callId=c1",
		"step/end turn=1 step=1",
		"step/start turn=1 step=2",
		"request/header turn=1 step=2 reason=change",
		"assistant/message turn=1 step=2",
		"step/end turn=1 step=2",
		"turn/end turn=1 reason=completed",
	)
	assertRebuild(t, log, sc.Requests())
}

func TestUnchangedHeaderAcrossTurns(t *testing.T) {
	sc := agent.NewScripted(text("one"), text("two"))
	a := newAgent(t, agent.Config{Persona: "P"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "first")
	run(t, a, "second")

	log := a.Log().Bytes()
	wantSummary(t, log,
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"assistant/message turn=1 step=1",
		"step/end turn=1 step=1",
		"turn/end turn=1 reason=completed",
		"turn/start turn=2",
		"user/message turn=2",
		"step/start turn=2 step=1",
		"assistant/message turn=2 step=1",
		"step/end turn=2 step=1",
		"turn/end turn=2 reason=completed",
	)
	reqs := sc.Requests()
	wantBytes(t, "request of turn 2", reqs[1], `{"config":{},"system":"P","tools":[`+readFileJSON+`],"messages":[`+
		`{"role":"user","content":"first"},{"role":"assistant","content":"one"},{"role":"user","content":"second"}]}`)
	assertRebuild(t, log, reqs)
}

func TestResumedSession(t *testing.T) {
	sc := agent.NewScripted(text("one"), text("two"), text("three"), text("four"))
	cfg := agent.Config{Persona: "P", Model: "m"}
	a1 := newAgent(t, cfg, agent.Options{Adapter: sc})
	mustProvider(t, a1.Service(), "fs", readFile)
	run(t, a1, "first")

	// A second loop instance on the same log, with the same registrations:
	// its first header is logged in full as resume although it is
	// identical, and turns continue from 2.
	log := a1.Log()
	a2 := newAgent(t, cfg, agent.Options{Adapter: sc, Log: log})
	mustProvider(t, a2.Service(), "fs", readFile)
	run(t, a2, "second")
	run(t, a2, "third")

	// A third instance resumes a copy of the log, as another host would,
	// with one more tool: still resume, not change.
	copied, err := agent.ParseLog(log.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	a3 := newAgent(t, cfg, agent.Options{Adapter: sc, Log: copied})
	mustProvider(t, a3.Service(), "fs", readFile, tool("grep", "", ""))
	run(t, a3, "fourth")

	got := copied.Bytes()
	wantSummary(t, got,
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"assistant/message turn=1 step=1",
		"step/end turn=1 step=1",
		"turn/end turn=1 reason=completed",
		"turn/start turn=2",
		"user/message turn=2",
		"step/start turn=2 step=1",
		"request/header turn=2 step=1 reason=resume",
		"assistant/message turn=2 step=1",
		"step/end turn=2 step=1",
		"turn/end turn=2 reason=completed",
		"turn/start turn=3",
		"user/message turn=3",
		"step/start turn=3 step=1",
		"assistant/message turn=3 step=1",
		"step/end turn=3 step=1",
		"turn/end turn=3 reason=completed",
		"turn/start turn=4",
		"user/message turn=4",
		"step/start turn=4 step=1",
		"request/header turn=4 step=1 reason=resume",
		"assistant/message turn=4 step=1",
		"step/end turn=4 step=1",
		"turn/end turn=4 reason=completed",
	)
	hs := headers(got)
	if hs[0].Get("header").Raw != hs[1].Get("header").Raw {
		t.Errorf("the resume header should repeat the initial one byte for byte:\n%s\n%s", hs[0].Get("header").Raw, hs[1].Get("header").Raw)
	}
	if names := toolNames(hs[2].Get("header")); !slices.Equal(names, []string{"grep", "read_file"}) {
		t.Errorf("third instance's tools %q", names)
	}
	if log.Len() != 20 {
		t.Errorf("the original log grew to %d events after its copy was resumed, want 20", log.Len())
	}
	reqs := sc.Requests()
	// The resumed instance sees the conversation before it.
	if !strings.Contains(string(reqs[1]), `"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"one"},{"role":"user","content":"second"}]`) {
		t.Errorf("resumed request lacks the earlier conversation: %s", reqs[1])
	}
	assertRebuild(t, got, reqs)
}

// failedTurn is the balanced shape of a turn whose Assemble failed.
func failedTurn(turn, msg string) []string {
	return []string{
		"turn/start turn=" + turn,
		"user/message turn=" + turn,
		"turn/end turn=" + turn + " reason=error message=" + msg,
		"agent/error turn=" + turn + " message=" + msg,
	}
}

func TestUnknownToolOrderNameFailsBalanced(t *testing.T) {
	sc := agent.NewScripted(text("ok"))
	cfg := agent.Config{ToolOrder: assembler.NewToolOrder("shell", assembler.RestEntry)}
	a := newAgent(t, cfg, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)

	const msg = `toolOrder names an unknown tool: "shell"; known tools: "read_file"`
	for i := range 2 {
		err := a.RunTurn(ctx, "go")
		if err == nil || err.Error() != msg {
			t.Fatalf("turn %d: err = %v, want %q", i+1, err, msg)
		}
		var unknown *assembler.UnknownToolsError
		if !errors.As(err, &unknown) || !slices.Equal(unknown.Unknown, []string{"shell"}) {
			t.Errorf("turn %d: error %T does not carry the unknown names", i+1, err)
		}
		if n := len(sc.Requests()); n != 0 {
			t.Fatalf("turn %d: the adapter was called %d times", i+1, n)
		}
	}
	wantBytes(t, "log after two failed turns", a.Log().Bytes(), jsonl(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"go"}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":"error","message":"toolOrder names an unknown tool: \"shell\"; known tools: \"read_file\""}}`,
		`{"type":"agent/error","data":{"turn":1,"message":"toolOrder names an unknown tool: \"shell\"; known tools: \"read_file\""}}`,
		`{"type":"turn/start","data":{"turn":2}}`,
		`{"type":"user/message","data":{"turn":2,"content":"go"}}`,
		`{"type":"turn/end","data":{"turn":2,"reason":"error","message":"toolOrder names an unknown tool: \"shell\"; known tools: \"read_file\""}}`,
		`{"type":"agent/error","data":{"turn":2,"message":"toolOrder names an unknown tool: \"shell\"; known tools: \"read_file\""}}`,
	))

	// The tool registers between turns: the next turn succeeds, and its
	// header is the session's first.
	mustProvider(t, a.Service(), "exec", tool("shell", "", ""))
	run(t, a, "go")
	log := a.Log().Bytes()
	want := append(append(failedTurn("1", msg), failedTurn("2", msg)...),
		"turn/start turn=3",
		"user/message turn=3",
		"step/start turn=3 step=1",
		"request/header turn=3 step=1 reason=initial",
		"assistant/message turn=3 step=1",
		"step/end turn=3 step=1",
		"turn/end turn=3 reason=completed",
	)
	wantSummary(t, log, want...)
	if names := toolNames(headers(log)[0].Get("header")); !slices.Equal(names, []string{"shell", "read_file"}) {
		t.Errorf("tools %q, want toolOrder's [shell read_file]", names)
	}
	assertRebuild(t, log, sc.Requests())
}

func TestReservedToolNameFailsBalanced(t *testing.T) {
	sc := agent.NewScripted(text("ok"))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "bad", tool(assembler.RestEntry, "", ""))
	err := a.RunTurn(ctx, "go")
	if err == nil {
		t.Fatal("a tool named <unlisted-tools> was accepted")
	}
	// "<" stays literal in the log: no HTML escaping.
	wantBytes(t, "log", a.Log().Bytes(), jsonl(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"go"}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":"error","message":"tool name \"<unlisted-tools>\" is reserved for toolOrder (registered by provider \"bad\")"}}`,
		`{"type":"agent/error","data":{"turn":1,"message":"tool name \"<unlisted-tools>\" is reserved for toolOrder (registered by provider \"bad\")"}}`,
	))
	if len(sc.Requests()) != 0 {
		t.Error("the adapter was called")
	}
}

func TestListenerAddingReservedToolFailsBalanced(t *testing.T) {
	sc := agent.NewScripted(text("ok"))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	a.Service().AddListener("sneaky", func(as assembler.Assembly) (assembler.Assembly, error) {
		var err error
		as.Tools, err = as.Tools.Append(tool(assembler.RestEntry, "", ""))
		return as, err
	})
	if err := a.RunTurn(ctx, "go"); err == nil {
		t.Fatal("a listener-added <unlisted-tools> tool was accepted")
	}
	msg := `tool name "<unlisted-tools>" is reserved for toolOrder (added by a system-prompt/assemble listener)`
	wantSummary(t, a.Log().Bytes(), failedTurn("1", msg)...)
	if len(sc.Requests()) != 0 {
		t.Error("the adapter was called")
	}
}

func TestListenerErrorFailsBalanced(t *testing.T) {
	sc := agent.NewScripted(text("ok"))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	broken := true
	a.Service().AddListener("boom", func(as assembler.Assembly) (assembler.Assembly, error) {
		if broken {
			return as, errors.New("listener exploded")
		}
		return as, nil
	})
	const msg = `system-prompt/assemble listener "boom": listener exploded`
	for range 2 {
		if err := a.RunTurn(ctx, "go"); err == nil || err.Error() != msg {
			t.Fatalf("err = %v, want %q", err, msg)
		}
	}
	broken = false
	run(t, a, "go")
	log := a.Log().Bytes()
	want := append(append(failedTurn("1", msg), failedTurn("2", msg)...),
		"turn/start turn=3",
		"user/message turn=3",
		"step/start turn=3 step=1",
		"request/header turn=3 step=1 reason=initial",
		"assistant/message turn=3 step=1",
		"step/end turn=3 step=1",
		"turn/end turn=3 reason=completed",
	)
	wantSummary(t, log, want...)
	assertRebuild(t, log, sc.Requests())
}

func TestEmptySystemAndToolsAreAbsent(t *testing.T) {
	sc := agent.NewScripted(text("a"), text("b"))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	// An empty section adds nothing to the system text either.
	mustSection(t, a.Service(), assembler.Section{ID: "blank", Order: 5})
	run(t, a, "hi")

	log := a.Log().Bytes()
	wantBytes(t, "header line", splitLines(log)[3],
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{}}}}`)
	wantBytes(t, "request", sc.Requests()[0], `{"config":{},"messages":[{"role":"user","content":"hi"}]}`)

	// A listener that empties the tools and sections of a header that had
	// both gives the same bare header.
	sc2 := agent.NewScripted(text("a"))
	b := newAgent(t, agent.Config{Persona: "P", Model: "m"}, agent.Options{Adapter: sc2})
	mustProvider(t, b.Service(), "fs", readFile)
	b.Service().AddListener("strip", func(as assembler.Assembly) (assembler.Assembly, error) {
		return assembler.Assembly{}, nil
	})
	run(t, b, "hi")
	h := headers(b.Log().Bytes())[0].Get("header")
	if h.Raw != `{"config":{"model":"m"}}` {
		t.Errorf("stripped header = %s", h.Raw)
	}
	assertRebuild(t, log, sc.Requests())
	assertRebuild(t, b.Log().Bytes(), sc2.Requests())
}

func TestAdapterErrorEndsTurnBalanced(t *testing.T) {
	sc := agent.NewScripted() // no reply at all
	a := newAgent(t, agent.Config{Persona: "P"}, agent.Options{Adapter: sc})
	const msg = "adapter: scripted adapter: no reply left for this request"
	if err := a.RunTurn(ctx, "go"); err == nil || err.Error() != msg {
		t.Fatalf("err = %v, want %q", err, msg)
	}
	// The agent stays usable.
	sc.Push(text("back"))
	run(t, a, "again")
	log := a.Log().Bytes()
	wantBytes(t, "log", log, jsonl(
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"go"}}`,
		`{"type":"step/start","data":{"turn":1,"step":1}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{},"system":"P"}}}`,
		`{"type":"step/end","data":{"turn":1,"step":1}}`,
		`{"type":"turn/end","data":{"turn":1,"reason":"error","message":"adapter: scripted adapter: no reply left for this request"}}`,
		`{"type":"agent/error","data":{"turn":1,"message":"adapter: scripted adapter: no reply left for this request"}}`,
		`{"type":"turn/start","data":{"turn":2}}`,
		`{"type":"user/message","data":{"turn":2,"content":"again"}}`,
		`{"type":"step/start","data":{"turn":2,"step":1}}`,
		`{"type":"assistant/message","data":{"turn":2,"step":1,"text":"back"}}`,
		`{"type":"step/end","data":{"turn":2,"step":1}}`,
		`{"type":"turn/end","data":{"turn":2,"reason":"completed"}}`,
	))
	reqs := sc.Requests()
	if len(reqs) != 2 {
		t.Fatalf("adapter received %d requests, want 2 (the failed one counts)", len(reqs))
	}
	assertRebuild(t, log, reqs)
}

func TestStepLimitEndsTurnBalanced(t *testing.T) {
	loop := toolsReply(call("c", "read_file", `{}`))
	sc := agent.NewScripted(loop, loop, loop)
	sc.SetResult("c", agent.ToolResult{Output: "again"})
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc, MaxSteps: 2})
	mustProvider(t, a.Service(), "fs", readFile)
	const msg = "turn 1: step limit 2 reached"
	if err := a.RunTurn(ctx, "go"); err == nil || err.Error() != msg {
		t.Fatalf("err = %v, want %q", err, msg)
	}
	log := a.Log().Bytes()
	wantSummary(t, log,
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"assistant/message turn=1 step=1",
		"tool/result turn=1 step=1 callId=c",
		"step/end turn=1 step=1",
		"step/start turn=1 step=2",
		"assistant/message turn=1 step=2",
		"tool/result turn=1 step=2 callId=c",
		"step/end turn=1 step=2",
		"turn/end turn=1 reason=error message="+msg,
		"agent/error turn=1 message="+msg,
	)
	if sc.Remaining() != 1 {
		t.Errorf("%d replies left, want 1: the third step must not be dispatched", sc.Remaining())
	}
	assertRebuild(t, log, sc.Requests())
}

func TestInvalidToolCallArgumentsEndTurnBalanced(t *testing.T) {
	sc := agent.NewScripted(toolsReply(call("c1", "read_file", `{"path":`)))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	err := a.RunTurn(ctx, "go")
	if err == nil || !strings.Contains(err.Error(), `tool call "c1": arguments`) {
		t.Fatalf("err = %v, want one naming the call's arguments", err)
	}
	log := a.Log().Bytes()
	got := summarize(log)
	want := []string{
		"turn/start turn=1",
		"user/message turn=1",
		"step/start turn=1 step=1",
		"request/header turn=1 step=1 reason=initial",
		"step/end turn=1 step=1",
	}
	if len(got) != 7 || !slices.Equal(got[:5], want) ||
		!strings.HasPrefix(got[5], "turn/end turn=1 reason=error message=") ||
		!strings.HasPrefix(got[6], "agent/error turn=1 message=") {
		t.Fatalf("events %q", got)
	}
	assertRebuild(t, log, sc.Requests())
}

func TestNewRejectsBadConfigAndOptions(t *testing.T) {
	sc := agent.NewScripted()
	for _, tc := range []struct {
		name string
		cfg  agent.Config
		opts agent.Options
		want string
	}{
		{"empty toolOrder", agent.Config{ToolOrder: assembler.NewToolOrder()}, agent.Options{Adapter: sc}, "toolOrder"},
		{"duplicate name", agent.Config{ToolOrder: assembler.NewToolOrder("a", assembler.RestEntry, "a")}, agent.Options{Adapter: sc}, `"a"`},
		{"no adapter", agent.Config{}, agent.Options{}, "no adapter"},
		{"no tool runner", agent.Config{}, agent.Options{Adapter: sendOnly{}}, "tool runner"},
	} {
		if _, err := agent.New(tc.cfg, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

func TestBeforeStepRunsBeforeEveryAssembly(t *testing.T) {
	sc := agent.NewScripted(toolsReply(call("c1", "t", `{}`)), text("one"), text("two"))
	var calls []string
	var a *agent.Agent
	a = newAgent(t, agent.Config{}, agent.Options{Adapter: sc, BeforeStep: func(turn, step int) {
		calls = append(calls, fmt.Sprintf("%d.%d", turn, step))
		// Registering at step 1 of turn 1 is in time for the first header.
		if turn == 1 && step == 1 {
			mustProvider(t, a.Service(), "early", tool("t", "", ""))
		}
	}})
	run(t, a, "go")
	run(t, a, "again")
	if want := []string{"1.1", "1.2", "2.1"}; !slices.Equal(calls, want) {
		t.Errorf("BeforeStep calls %q, want %q", calls, want)
	}
	hs := headers(a.Log().Bytes())
	if len(hs) != 1 || !slices.Equal(toolNames(hs[0].Get("header")), []string{"t"}) {
		t.Errorf("the tool registered before step 1 is not in the initial header")
	}
	assertRebuild(t, a.Log().Bytes(), sc.Requests())
}

func TestScriptedCopiesReplies(t *testing.T) {
	args := json.RawMessage(`{"a":1}`)
	r := toolsReply(agent.ToolCall{ID: "c", Name: "t", Arguments: args})
	sc := agent.NewScripted(r)
	sc.Push(r)
	scribble(args) // the caller's slice, after queueing
	for i := range 2 {
		got, err := sc.Send(ctx, &agent.Request{})
		if err != nil {
			t.Fatal(err)
		}
		if string(got.ToolCalls[0].Arguments) != `{"a":1}` {
			t.Fatalf("reply %d: arguments %s changed with the caller's slice", i+1, got.ToolCalls[0].Arguments)
		}
		scribble(got.ToolCalls[0].Arguments) // the played copy
	}
	if sc.Remaining() != 0 {
		t.Errorf("%d replies left", sc.Remaining())
	}
}

// TestResumeLiveLogAsParsedCopy: an instance resuming the log another
// instance wrote in this process (whose headers it takes as they were
// assembled) continues exactly as one resuming a parsed copy of that log
// (whose headers it reads from the text): same turn numbers, same header
// in force, same tool ledger, byte for byte.
func TestResumeLiveLogAsParsedCopy(t *testing.T) {
	script := func() *agent.Scripted {
		sc := agent.NewScripted(
			toolsReply(call("c1", "get", `{"k":1}`)), text("one"),
			toolsReply(call("c2", "get", `{"k":1}`)), text("two"))
		sc.SetResult("c1", agent.ToolResult{Output: "first"})
		sc.SetResult("c2", agent.ToolResult{Output: "second"})
		return sc
	}
	first := newAgent(t, agent.Config{Persona: "P"}, agent.Options{Adapter: script()})
	mustProvider(t, first.Service(), "cached", assembler.Tool{Name: "get", Description: "Cached.", Idempotent: true})
	run(t, first, "1")
	run(t, first, "2")

	resume := func(log *agent.Log) ([]byte, [][]byte) {
		sc := agent.NewScripted(toolsReply(call("c3", "get", `{"k":1}`)), text("three"))
		sc.SetResult("c3", agent.ToolResult{Output: "ran again"})
		a := newAgent(t, agent.Config{Persona: "P"}, agent.Options{Adapter: sc, Log: log})
		mustProvider(t, a.Service(), "cached", assembler.Tool{Name: "get", Description: "Cached.", Idempotent: true})
		run(t, a, "3")
		return log.Bytes(), sc.Requests()
	}
	copied, err := agent.ParseLog(first.Log().Bytes())
	if err != nil {
		t.Fatal(err)
	}
	wantLog, wantReqs := resume(copied)
	gotLog, gotReqs := resume(first.Log())
	wantBytes(t, "log resumed live", gotLog, string(wantLog))
	if len(gotReqs) != len(wantReqs) {
		t.Fatalf("%d requests resumed live, %d from the copy", len(gotReqs), len(wantReqs))
	}
	for i := range gotReqs {
		wantBytes(t, "request resumed live", gotReqs[i], string(wantReqs[i]))
	}
	if r := toolResults(gotLog)["c3"]; r.Get("output").String() != "first" || !r.Get("replayed").Bool() {
		t.Errorf("c3 = %s, want the first result replayed from the resumed ledger", r.Raw)
	}
	if got := summarize(gotLog)[len(summarize(gotLog))-1]; got != "turn/end turn=3 reason=completed" {
		t.Errorf("last event %q, want turn 3 completed", got)
	}
}

// TestUnofferedToolCallIsNotRun: a call to a tool the request did not
// offer (a misspelt name, a tool of another host) is answered with an
// error result and not run, even when a result was scripted for it; the
// other calls of the batch run.
func TestUnofferedToolCallIsNotRun(t *testing.T) {
	sc := agent.NewScripted(
		toolsReply(call("c1", "read_fil", `{"path":"a.go"}`), call("c2", "read_file", `{"path":"b.go"}`)),
		text("Done."),
	)
	sc.SetResult("c1", agent.ToolResult{Output: "ran anyway"})
	sc.SetResult("c2", agent.ToolResult{Output: "package b\n"})
	a := newAgent(t, agent.Config{Model: "m-1"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "Read")
	log := string(a.Log().Bytes())
	for _, want := range []string{
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"read_fil","output":"unknown tool read_fil: not among the tools of this request","error":true}}`,
		`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c2","name":"read_file","output":"package b\n"}}`,
	} {
		if !strings.Contains(log, want+"\n") {
			t.Errorf("log lacks\n%s\nlog:\n%s", want, log)
		}
	}
	if strings.Contains(log, "ran anyway") {
		t.Errorf("the unoffered tool ran:\n%s", log)
	}
	assertRebuild(t, a.Log().Bytes(), sc.Requests())

	// Past the first calls under one header its names are indexed: the
	// answer is the same.
	var calls []agent.ToolCall
	for i := range 12 {
		calls = append(calls, call(fmt.Sprintf("k%d", i), "read_file", `{"path":"a.go"}`))
	}
	calls = append(calls, call("k12", "read_fil", `{}`))
	sc = agent.NewScripted(toolsReply(calls...), text("Done."))
	sc.SetResult("k12", agent.ToolResult{Output: "ran anyway"})
	a = newAgent(t, agent.Config{Model: "m-1"}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "Read")
	log = string(a.Log().Bytes())
	if !strings.Contains(log, `"callId":"k12","name":"read_fil","output":"unknown tool read_fil: not among the tools of this request","error":true`) ||
		strings.Contains(log, "ran anyway") || strings.Contains(log, `"callId":"k11","name":"read_file","output":"unknown tool`) {
		t.Errorf("calls past the index:\n%s", log)
	}
}
