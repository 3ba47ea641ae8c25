package agent_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

// scribble overwrites every byte of b.
func scribble(b []byte) {
	for i := range b {
		b[i] = '#'
	}
}

// vandal is an adapter that records each request's bytes on arrival and
// then mutates everything it can reach: the Bytes() copy, the config, the
// tools' parameters, the messages' tool-call arguments, and the tool-call
// arguments of the replies it returned earlier (which it kept).
type vandal struct {
	*agent.Scripted
	seen     [][]byte
	returned []agent.Reply
	t        testing.TB
}

func (v *vandal) Send(ctx context.Context, req *agent.Request) (agent.Reply, error) {
	v.seen = append(v.seen, req.Bytes())

	scribble(req.Bytes())
	b := req.Bytes()
	scribble(b)
	scribble(req.Config())
	tools := req.Tools()
	for i := range tools {
		scribble(tools[i].Parameters)
		tools[i].Name = "renamed"
	}
	msgs := req.Messages()
	for i := range msgs {
		for j := range msgs[i].ToolCalls {
			scribble(msgs[i].ToolCalls[j].Arguments)
			msgs[i].ToolCalls[j].ID = "x"
		}
		msgs[i].Content = "changed"
	}
	for _, r := range v.returned {
		for _, c := range r.ToolCalls {
			scribble(c.Arguments)
		}
	}
	// Within one request, a second look sees the same bytes.
	if again := req.Bytes(); !bytes.Equal(again, v.seen[len(v.seen)-1]) {
		v.t.Errorf("request changed under the adapter: %s", again)
	}

	r, err := v.Scripted.Send(ctx, req)
	v.returned = append(v.returned, r) // kept, and scribbled on later
	return r, err
}

// mutatingRunner answers from the script, then scribbles on the call's
// arguments.
type mutatingRunner struct{ *agent.Scripted }

func (m mutatingRunner) RunTool(ctx context.Context, c agent.ToolCall) (agent.ToolResult, error) {
	r, err := m.Scripted.RunTool(ctx, c)
	scribble(c.Arguments)
	return r, err
}

// immutableScenario runs two turns with tool calls and parameters through
// the given adapter and runner.
func immutableScenario(t testing.TB, wrap func(*agent.Scripted) (agent.Adapter, agent.ToolRunner), extra ...func(*assembler.Service)) session {
	t.Helper()
	sc := agent.NewScripted(
		toolsReply(call("c1", "read_file", `{"path":"a.go"}`), call("c2", "read_file", `{"path":"b.go"}`)),
		text("read both"),
		toolsReply(call("c3", "read_file", `{"path":"c.go"}`)),
		text("done"),
	)
	for _, id := range []string{"c1", "c2", "c3"} {
		sc.SetResult(id, agent.ToolResult{Output: "content of " + id})
	}
	ad, tr := wrap(sc)
	a := newAgent(t, agent.Config{Persona: "P", Model: "m"}, agent.Options{Adapter: ad, Tools: tr})
	mustProvider(t, a.Service(), "fs", readFile, tool("stat", "Stat.", `{"type":"object","properties":{"p":{"type":"string"}}}`))
	for _, f := range extra {
		f(a.Service())
	}
	run(t, a, "read a and b")
	run(t, a, "read c")
	return session{log: a.Log().Bytes(), reqs: sc.Requests()}
}

func TestAdapterCannotChangeLogOrLaterRequests(t *testing.T) {
	control := immutableScenario(t, func(sc *agent.Scripted) (agent.Adapter, agent.ToolRunner) { return sc, sc })
	var v *vandal
	got := immutableScenario(t, func(sc *agent.Scripted) (agent.Adapter, agent.ToolRunner) {
		v = &vandal{Scripted: sc, t: t}
		return v, sc
	})
	sameSession(t, "mutating adapter", got, control)
	// What the adapter saw on arrival is what the control run dispatched.
	if len(v.seen) != len(control.reqs) {
		t.Fatalf("adapter saw %d requests, want %d", len(v.seen), len(control.reqs))
	}
	for i := range v.seen {
		if !bytes.Equal(v.seen[i], control.reqs[i]) {
			t.Errorf("request %d on arrival differs from the control run", i+1)
		}
	}
	assertRebuild(t, got.log, got.reqs)
}

func TestToolRunnerCannotChangeLogOrLaterRequests(t *testing.T) {
	control := immutableScenario(t, func(sc *agent.Scripted) (agent.Adapter, agent.ToolRunner) { return sc, sc })
	got := immutableScenario(t, func(sc *agent.Scripted) (agent.Adapter, agent.ToolRunner) {
		return sc, mutatingRunner{sc}
	})
	sameSession(t, "mutating tool runner", got, control)
	if !bytes.Contains(got.log, []byte(`"arguments":{"path":"a.go"}`)) {
		t.Error("the log lost the call's arguments")
	}
	assertRebuild(t, got.log, got.reqs)
}

func TestRequestAccessorsReturnCopies(t *testing.T) {
	sc := agent.NewScripted(toolsReply(call("c1", "read_file", `{"path":"a.go"}`)), text("ok"))
	sc.SetResult("c1", agent.ToolResult{Output: "x", IsError: true})
	var got []*agent.Request
	a := newAgent(t, agent.Config{Persona: "P", Model: "m"}, agent.Options{Adapter: adapterFunc(func(ctx context.Context, r *agent.Request) (agent.Reply, error) {
		got = append(got, r)
		return sc.Send(ctx, r)
	}), Tools: sc})
	mustProvider(t, a.Service(), "fs", readFile)
	run(t, a, "go")

	r := got[1]
	if string(r.Config()) != `{"model":"m"}` || r.System() != "P" {
		t.Errorf("config %s, system %q", r.Config(), r.System())
	}
	tools := r.Tools()
	if len(tools) != 1 || tools[0].Name != "read_file" || string(tools[0].Parameters) != `{"type":"object"}` {
		t.Errorf("tools %+v", tools)
	}
	msgs := r.Messages()
	want := []agent.Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []agent.ToolCall{call("c1", "read_file", `{"path":"a.go"}`)}},
		{Role: "tool", Content: "x", CallID: "c1", IsError: true},
	}
	if len(msgs) != len(want) {
		t.Fatalf("%d messages, want %d", len(msgs), len(want))
	}
	for i := range want {
		g, w := msgs[i], want[i]
		if g.Role != w.Role || g.Content != w.Content || g.CallID != w.CallID || g.IsError != w.IsError || len(g.ToolCalls) != len(w.ToolCalls) {
			t.Errorf("message %d = %+v, want %+v", i, g, w)
			continue
		}
		for j := range w.ToolCalls {
			if g.ToolCalls[j].ID != w.ToolCalls[j].ID || string(g.ToolCalls[j].Arguments) != string(w.ToolCalls[j].Arguments) {
				t.Errorf("message %d call %d = %+v", i, j, g.ToolCalls[j])
			}
		}
	}
	before := r.Bytes()
	scribble(r.Config())
	scribble(tools[0].Parameters)
	scribble(msgs[1].ToolCalls[0].Arguments)
	if !bytes.Equal(r.Bytes(), before) || !bytes.Equal(r.Bytes(), sc.Requests()[1]) {
		t.Error("mutating accessor results changed the request")
	}
	// A header the service handed out is not changed by its consumer either.
	h, err := a.Service().Assemble()
	if err != nil {
		t.Fatal(err)
	}
	ht := h.Tools()
	scribble(ht[0].Parameters)
	scribble(h.Config())
	scribble(h.ToolJSON(0))
	h2, _ := a.Service().Assemble()
	if !h.Equal(h2) || !bytes.Contains(h.Bytes(), []byte(readFileJSON)) {
		t.Errorf("header changed under its consumer: %s", h.Bytes())
	}
}

// A listener that keeps what it was handed and scribbles on it at the next
// assembly changes neither the log nor the requests.
func TestListenerKeepingReferencesCannotChangeLog(t *testing.T) {
	scenario := func(keep bool) session {
		var kept []assembler.Tool
		return immutableScenario(t, func(sc *agent.Scripted) (agent.Adapter, agent.ToolRunner) {
			return sc, sc
		}, func(svc *assembler.Service) {
			svc.AddListener("keeper", func(as assembler.Assembly) (assembler.Assembly, error) {
				if keep {
					for _, t := range kept {
						scribble(t.Parameters)
					}
					kept = as.Tools.Slice() // copies: all a listener can keep of a tool
				}
				return as, nil
			})
		})
	}
	sameSession(t, "listener keeping references", scenario(true), scenario(false))
}

type adapterFunc func(context.Context, *agent.Request) (agent.Reply, error)

func (f adapterFunc) Send(ctx context.Context, r *agent.Request) (agent.Reply, error) {
	return f(ctx, r)
}
