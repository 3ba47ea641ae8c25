package agent_test

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

var ctx = context.Background()

// jsonl joins hand-written event lines into a log: one line each, LF, final
// newline.
func jsonl(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// splitLines returns the lines of a log without their newlines.
func splitLines(log []byte) [][]byte {
	log = bytes.TrimSuffix(log, []byte("\n"))
	if len(log) == 0 {
		return nil
	}
	return bytes.Split(log, []byte("\n"))
}

// summarize turns every event into "type k=v …" with the key fields turn,
// step, reason, callId and message, in that order, when present.
func summarize(log []byte) []string {
	var out []string
	for _, ln := range splitLines(log) {
		v := gjson.ParseBytes(ln)
		s := v.Get("type").String()
		for _, k := range []string{"turn", "step", "reason", "callId", "message"} {
			if f := v.Get("data." + k); f.Exists() {
				s += " " + k + "=" + f.String()
			}
		}
		out = append(out, s)
	}
	return out
}

// wantSummary compares the event summary of log with want, line by line.
func wantSummary(t testing.TB, log []byte, want ...string) {
	t.Helper()
	got := summarize(log)
	if !slices.Equal(got, want) {
		t.Fatalf("events:\n  got  %s\n  want %s", strings.Join(got, "\n       "), strings.Join(want, "\n       "))
	}
}

// wantBytes compares text byte for byte and shows the first differing line.
func wantBytes(t testing.TB, what string, got []byte, want string) {
	t.Helper()
	if string(got) == want {
		return
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(want, "\n")
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			t.Fatalf("%s differs at line %d:\n  got  %s\n  want %s", what, i+1, gl, wl)
		}
	}
	t.Fatalf("%s differs:\n got %q\nwant %q", what, got, want)
}

// headers returns the data objects of the request/header events of log.
func headers(log []byte) []gjson.Result {
	var out []gjson.Result
	for _, ln := range splitLines(log) {
		if v := gjson.ParseBytes(ln); v.Get("type").String() == agent.TypeRequestHeader {
			out = append(out, v.Get("data"))
		}
	}
	return out
}

// toolNames lists the names of a header's (or request's) tools.
func toolNames(h gjson.Result) []string {
	var names []string
	for _, t := range h.Get("tools").Array() {
		names = append(names, t.Get("name").String())
	}
	return names
}

// dispatchPrefixes returns, for every step of log, the log prefix the
// step's request was built from: every line before the first
// assistant/message or step/end that follows its step/start. It is written
// here from the event format alone, not with the package's code.
func dispatchPrefixes(log []byte) [][]byte {
	var out [][]byte
	pending := false
	off := 0
	for _, ln := range splitLines(log) {
		typ := gjson.GetBytes(ln, "type").String()
		if pending && (typ == agent.TypeAssistantMessage || typ == agent.TypeStepEnd) {
			out = append(out, log[:off:off])
			pending = false
		}
		if typ == agent.TypeStepStart {
			pending = true
		}
		off += len(ln) + 1
	}
	return out
}

// assertRebuild checks the rebuild invariant twice over: CheckRebuild on
// the whole log, and Rebuild of every step's dispatch prefix against what
// the adapter received for that step.
func assertRebuild(t testing.TB, log []byte, received [][]byte) {
	t.Helper()
	if err := agent.CheckRebuild(log, received); err != nil {
		t.Fatalf("CheckRebuild: %v", err)
	}
	prefixes := dispatchPrefixes(log)
	if len(prefixes) != len(received) {
		t.Fatalf("log has %d dispatched steps, adapter received %d requests", len(prefixes), len(received))
	}
	for k, p := range prefixes {
		got, err := agent.Rebuild(p)
		if err != nil {
			t.Fatalf("step %d: Rebuild: %v", k+1, err)
		}
		if !bytes.Equal(got, received[k]) {
			t.Fatalf("step %d: rebuilt request differs from the one dispatched:\n rebuilt  %s\n received %s", k+1, got, received[k])
		}
		if !json.Valid(got) {
			t.Fatalf("step %d: rebuilt request is not valid JSON: %s", k+1, got)
		}
	}
}

// newAgent builds an agent around a scripted adapter or fails the test.
func newAgent(t testing.TB, cfg agent.Config, opts agent.Options) *agent.Agent {
	t.Helper()
	a, err := agent.New(cfg, opts)
	if err != nil {
		t.Fatalf("agent.New: %v", err)
	}
	return a
}

func mustProvider(t testing.TB, svc *assembler.Service, name string, tools ...assembler.Tool) {
	t.Helper()
	if err := svc.AddProvider(name, tools...); err != nil {
		t.Fatalf("AddProvider(%q): %v", name, err)
	}
}

func mustSection(t testing.TB, svc *assembler.Service, sec assembler.Section) {
	t.Helper()
	if err := svc.AddSection(sec); err != nil {
		t.Fatalf("AddSection(%q): %v", sec.ID, err)
	}
}

func tool(name, desc, params string) assembler.Tool {
	t := assembler.Tool{Name: name, Description: desc}
	if params != "" {
		t.Parameters = json.RawMessage(params)
	}
	return t
}

func call(id, name, args string) agent.ToolCall {
	return agent.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func toolsReply(calls ...agent.ToolCall) agent.Reply { return agent.Reply{ToolCalls: calls} }

func text(s string) agent.Reply { return agent.Reply{Text: s} }

// run runs one turn and fails the test on error.
func run(t testing.TB, a *agent.Agent, user string) {
	t.Helper()
	if err := a.RunTurn(ctx, user); err != nil {
		t.Fatalf("RunTurn(%q): %v", user, err)
	}
}

// reverse is a listener that reverses the tools.
func reverse(as assembler.Assembly) (assembler.Assembly, error) {
	as.Tools = as.Tools.Reverse()
	return as, nil
}

// sendOnly is an adapter that does not run tools.
type sendOnly struct{}

func (sendOnly) Send(context.Context, *agent.Request) (agent.Reply, error) {
	return agent.Reply{}, nil
}
