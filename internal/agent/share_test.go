package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// manyTools returns n tools named prefix0, prefix1, …, each with the same
// description and parameters.
func manyTools(prefix string, n int) []assembler.Tool {
	tools := make([]assembler.Tool, n)
	for i := range tools {
		tools[i] = assembler.Tool{Name: fmt.Sprintf("%s%d", prefix, i), Description: strings.Repeat("Does a thing. ", 8),
			Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}
	}
	return tools
}

// shareAgent returns an agent over n tools whose script answers steps-1
// tool calls and then text, and its script.
func shareAgent(t testing.TB, n, steps int) (*Agent, *Scripted) {
	t.Helper()
	sc := NewScripted()
	for s := 1; s < steps; s++ {
		id := fmt.Sprintf("c%d", s)
		sc.Push(Reply{ToolCalls: []ToolCall{{ID: id, Name: "tool_0", Arguments: []byte(`{"n":1}`)}}})
		sc.SetResult(id, ToolResult{Output: "ok"})
	}
	sc.Push(Reply{Text: "done"})
	a, err := New(Config{Persona: "P", Model: "m"}, Options{Adapter: sc, MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Service().AddProvider("p", manyTools("tool_", n)...); err != nil {
		t.Fatal(err)
	}
	return a, sc
}

// TestRequestsShareTheHeader: the requests of the steps under one header
// hold the bytes the log holds for that header, not copies, and still
// rebuild byte for byte.
func TestRequestsShareTheHeader(t *testing.T) {
	t.Parallel()
	a, sc := shareAgent(t, 50, 10)
	if err := a.RunTurn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	reqs := sc.Received()
	if len(reqs) != 10 {
		t.Fatalf("%d requests", len(reqs))
	}
	var logged []byte
	for _, c := range a.log.chunks {
		if c.header != nil {
			logged = c.bytes()
		}
	}
	for i, r := range reqs {
		if !sameArray(r.headerBytes(), reqs[0].headerBytes()) {
			t.Fatalf("request %d holds its own copy of the header", i+1)
		}
	}
	if !sameArray(reqs[0].headerBytes(), logged) {
		t.Fatal("the requests' header is not the log's")
	}
	if err := CheckRequests(a.Log().Bytes(), reqs); err != nil {
		t.Fatal(err)
	}
	if err := CheckRebuild(a.Log().Bytes(), sc.Requests()); err != nil {
		t.Fatal(err)
	}
}

// TestCheckRequestsFindsTampering: a request whose header or conversation
// differs from its log prefix fails CheckRequests and CheckLogRequests at
// that step, whether or not the header is the same array as the step
// before's, or another assembled header; a copy with equal bytes passes,
// and so does another assembled header with the same bytes.
func TestCheckRequestsFindsTampering(t *testing.T) {
	t.Parallel()
	a, sc := shareAgent(t, 5, 6)
	if err := a.RunTurn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	log := a.Log().Bytes()
	assembled := func(n int) *assembler.Header {
		other, _ := shareAgent(t, n, 6)
		h, err := other.Service().Assemble()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	same, fewer := assembled(5), assembled(4)
	for _, tc := range []struct {
		name   string
		edit   func(r *Request) *Request
		failAt int // 0: passes
	}{
		{"equal copy", func(r *Request) *Request {
			return &Request{header: []byte(string(r.headerBytes())), messages: []byte(string(r.messages))}
		}, 0},
		{"header byte", func(r *Request) *Request {
			h := []byte(string(r.headerBytes()))
			h[len(h)-3] ^= 1
			return &Request{header: h, messages: r.messages}
		}, 4},
		{"message byte", func(r *Request) *Request {
			m := []byte(string(r.messages))
			m[len(m)-3] ^= 1
			return &Request{header: r.headerBytes(), messages: m}
		}, 4},
		// The conversation's first bytes, which the request before holds
		// too: the check compares only what a request appended when its
		// conversation starts with the last one's in the same memory,
		// and this copy does not.
		{"first message byte", func(r *Request) *Request {
			m := []byte(string(r.messages))
			m[2] ^= 1
			return &Request{header: r.headerBytes(), messages: m}
		}, 4},
		{"assembled alike", func(r *Request) *Request {
			return &Request{assembled: same, messages: r.messages}
		}, 0},
		{"assembled otherwise", func(r *Request) *Request {
			return &Request{assembled: fewer, messages: r.messages}
		}, 4},
	} {
		for _, check := range []struct {
			name string
			fn   func([]*Request) error
		}{
			{"CheckRequests", func(reqs []*Request) error { return CheckRequests(log, reqs) }},
			{"CheckLogRequests", func(reqs []*Request) error { return CheckLogRequests(a.Log(), reqs) }},
		} {
			reqs := sc.Received()
			reqs[3] = tc.edit(reqs[3])
			err := check.fn(reqs)
			var re *RebuildError
			switch {
			case tc.failAt == 0 && err != nil:
				t.Errorf("%s, %s: %v", check.name, tc.name, err)
			case tc.failAt > 0 && (!errors.As(err, &re) || re.Step != tc.failAt):
				t.Errorf("%s, %s: %v, want a rebuild error at step %d", check.name, tc.name, err, tc.failAt)
			}
		}
	}
	if err := CheckRequests(log, sc.Received()[:5]); err == nil {
		t.Error("a missing request passed")
	}
	if err := CheckRequests(log, append(sc.Received(), sc.Received()[0])); err == nil {
		t.Error("an extra request passed")
	}
}

// TestUnchangedHeaderCostsNothingPerStep: a turn of steps under one large
// header allocates, per step, far less than one copy of the header:
// nothing per step reads, copies or rebuilds it, and logging it shares its
// bytes.
func TestUnchangedHeaderCostsNothingPerStep(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 1 MB header")
	}
	const steps = 40
	a, _ := shareAgent(t, 5000, steps)
	h, err := a.Service().Assemble() // the sort and the header, before the turn
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := a.RunTurn(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// The header line shares the header's bytes; the rest is the
	// conversation.
	perStep := float64(after.TotalAlloc-before.TotalAlloc) / steps
	t.Logf("%.0f bytes allocated per step under a %d-byte header", perStep, h.Len())
	if perStep > float64(h.Len())/20 {
		t.Fatalf("%.0f bytes allocated per step under an unchanged %d-byte header", perStep, h.Len())
	}
}

// TestLogEqual: Log.Equal says what comparing the joined bytes says, for
// logs of runs over the same prepared providers registered in either
// order, over providers made again from the same tools, over other tools,
// with another reply, and against a parsed copy; and for two runs over
// the same providers it says so without writing their headers (it
// allocates far less than one header).
func TestLogEqual(t *testing.T) {
	provider := func(name string, ts []assembler.Tool) *assembler.Provider {
		p, err := assembler.NewProvider(name, ts...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p, q := provider("p", manyTools("a_", 100)), provider("q", manyTools("b_", 100))
	pAgain := provider("p", manyTools("a_", 100))
	run := func(answer string, ps ...*assembler.Provider) *Log {
		sc := NewScripted(Reply{ToolCalls: []ToolCall{{ID: "c1", Name: "a_0", Arguments: []byte(`{}`)}}}, Reply{Text: answer})
		sc.SetResult("c1", ToolResult{Output: "ok"})
		a, err := New(Config{Persona: "P", Model: "m"}, Options{Adapter: sc, MaxSteps: 4})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if err := a.Service().Register(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.RunTurn(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		return a.Log()
	}
	first, reordered := run("done", p, q), run("done", q, p)
	// The process's allocation count takes in whatever else runs (a
	// goroutine an earlier test left, the runtime's own): the least of
	// a few readings is Equal's.
	spent := uint64(math.MaxUint64)
	for range 5 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		equal := first.Equal(reordered)
		runtime.ReadMemStats(&after)
		if !equal {
			t.Fatal("two runs over the same providers, registered in either order: not Equal")
		}
		spent = min(spent, after.TotalAlloc-before.TotalAlloc)
	}
	var size int
	for _, c := range first.chunks {
		if c.header != nil {
			size = c.header.Len()
		}
	}
	if spent > uint64(size)/10 {
		t.Errorf("Equal of two runs over the same providers allocated %d bytes beside a %d-byte header", spent, size)
	}
	parsed, err := ParseLog(first.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		log  *Log
	}{
		{"the same providers, in either order", reordered},
		{"a provider made again from the same tools", run("done", pAgain, q)},
		{"one provider fewer", run("done", p)},
		{"another answer", run("done!", p, q)},
		{"a parsed copy", parsed},
		{"itself", first},
	} {
		want := bytes.Equal(first.Bytes(), tc.log.Bytes())
		if got := first.Equal(tc.log); got != want {
			t.Errorf("%s: Equal = %v, bytes equal %v", tc.name, got, want)
		}
		if got := tc.log.Equal(first); got != want {
			t.Errorf("%s, the other way: Equal = %v, bytes equal %v", tc.name, got, want)
		}
	}
}
