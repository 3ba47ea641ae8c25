package assembler

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// vouched hands NewProviderFunc the tools, each vouched for.
func vouched(tools []Tool) func(int) (*Tool, bool) {
	return func(i int) (*Tool, bool) { return &tools[i], true }
}

// bothProviders returns a provider of tools made canonical at once, and
// one of the same tools vouched for.
func bothProviders(t *testing.T, tools []Tool) (eager, deferred *Provider) {
	t.Helper()
	eager, err := NewProvider("p", tools...)
	if err != nil {
		t.Fatal(err)
	}
	var c Canonicalizer
	if deferred, err = c.NewProviderFunc("p", len(tools), vouched(tools)); err != nil {
		t.Fatal(err)
	}
	return eager, deferred
}

// assembleWith registers p in a new service and assembles once.
func assembleWith(t *testing.T, p *Provider) (*Header, error) {
	t.Helper()
	s, err := New(Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Register(p); err != nil {
		t.Fatal(err)
	}
	return s.Assemble()
}

// TestDeferredToolsMatchEager: tools vouched for, made canonical only when
// first read, give a header the bytes, length and tools that tools made
// canonical at once give it, whichever of them is read first.
func TestDeferredToolsMatchEager(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(cacheSeed, 7))
	assembled := 0
	for round := range 400 {
		tools := make([]Tool, 1+r.IntN(12))
		for i := range tools {
			tools[i] = randomTool(r)
			if r.IntN(6) == 0 {
				tools[i].Description = "say \"hi\"\n" // its JSON body differs from it
			}
		}
		eager, lazy := bothProviders(t, tools)
		want, werr := assembleWith(t, eager)
		got, gerr := assembleWith(t, lazy)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("round %d: error %v, want %v", round, gerr, werr)
		}
		if werr != nil {
			continue
		}
		assembled++
		first := round % 4
		switch first { // what the round reads first, which does the work
		case 0:
			_ = got.Len()
		case 1:
			_ = got.JSON()
		case 2:
			_ = got.Tools()
		case 3:
			_ = got.ToolJSON(0)
		}
		if got.JSON() != want.JSON() || got.Len() != want.Len() || got.Len() != len(got.JSON()) {
			t.Fatalf("round %d (read %d first): %d bytes %s\nwant %d bytes %s", round, first, got.Len(), got.JSON(), want.Len(), want.JSON())
		}
		if !reflect.DeepEqual(got.Tools(), want.Tools()) {
			t.Fatalf("round %d: tools %+v, want %+v", round, got.Tools(), want.Tools())
		}
		for i := range got.NumTools() {
			if string(got.ToolJSON(i)) != string(want.ToolJSON(i)) {
				t.Fatalf("round %d: tool %d %s, want %s", round, i, got.ToolJSON(i), want.ToolJSON(i))
			}
		}
		if !got.Equal(want) || !want.Equal(got) {
			t.Fatalf("round %d: the headers are not Equal", round)
		}
	}
	if assembled < 100 {
		t.Fatalf("only %d of 400 rounds assembled a header", assembled)
	}
}

// TestDeferredToolsWaitForAReader: what a run reads without reading a
// header's bytes (its tools' names, whether it offers a tool, whether two
// assemblies are the same header) makes no tool canonical; the first read
// of its length does, for all the provider's tools at once.
func TestDeferredToolsWaitForAReader(t *testing.T) {
	t.Parallel()
	tools := []Tool{
		{Name: "b", Parameters: json.RawMessage(`{ "type" : "object" }`)},
		{Name: "a", Description: "A.", Parameters: json.RawMessage("{\n  \"x\": 1.0\n}")},
		{Name: "c"},
	}
	var c Canonicalizer
	p, err := c.NewProviderFunc("p", len(tools), vouched(tools))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Register(p); err != nil {
		t.Fatal(err)
	}
	h1, err := s.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	h2, err := s.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	if !h1.Equal(h2) || !h1.Offers("a") || strings.Join(h1.ToolNames(), ",") != "a,b,c" || h1.NumTools() != 3 {
		t.Fatalf("header: %v", h1.ToolNames())
	}
	if len(c.params) != 0 || len(c.arena) != 0 {
		t.Fatalf("%d parameters texts made canonical before anything read them", len(c.params))
	}
	const want = `{"config":{"model":"m"},"tools":[{"name":"a","description":"A.","parameters":{"x":1}},{"name":"b","parameters":{"type":"object"}},{"name":"c"}]}`
	if n := h1.Len(); n != len(want) {
		t.Fatalf("Len %d, want %d", n, len(want))
	}
	if len(c.params) != 2 {
		t.Fatalf("%d parameters texts made canonical after Len, want both", len(c.params))
	}
	if h1.JSON() != want {
		t.Fatalf("JSON %s\nwant %s", h1.JSON(), want)
	}
	if string(tools[1].Parameters) != "{\n  \"x\": 1.0\n}" {
		t.Fatalf("the caller's text changed: %s", tools[1].Parameters)
	}
}

// TestDeferredToolsConcurrentFirstRead: several runs sharing a provider
// read their headers at once; one of them does the work, all see it done
// (go test -race checks the rest).
func TestDeferredToolsConcurrentFirstRead(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(cacheSeed, 8))
	tools := make([]Tool, 40)
	for i := range tools {
		tools[i] = randomTool(r)
		tools[i].Name, tools[i].DependsOn = fmt.Sprintf("t%02d", i), nil
	}
	eager, lazy := bothProviders(t, tools)
	want, err := assembleWith(t, eager)
	if err != nil {
		t.Fatal(err)
	}
	headers := make([]*Header, 8)
	for i := range headers {
		if headers[i], err = assembleWith(t, lazy); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	got := make([]string, len(headers))
	for i, h := range headers {
		wg.Go(func() {
			if i%2 == 0 {
				_ = h.Len()
			}
			got[i] = h.JSON()
		})
	}
	wg.Wait()
	for i, g := range got {
		if g != want.JSON() {
			t.Errorf("run %d: %s\nwant %s", i, g, want.JSON())
		}
	}
}

// TestDeferredBrokenPromisePanics: a text vouched for that is not JSON
// panics when first read, naming the provider, and at every read after
// that (a recovered panic does not leave a header that reads as empty); a
// text not vouched for is an error at once, as ever.
func TestDeferredBrokenPromisePanics(t *testing.T) {
	t.Parallel()
	tools := []Tool{{Name: "x", Parameters: json.RawMessage(`{"a":}`)}, {Name: "y", Parameters: json.RawMessage(`{"b":1}`)}}
	var c Canonicalizer
	if _, err := c.NewProviderFunc("plain", 1, func(i int) (*Tool, bool) { return &tools[i], false }); err == nil || !strings.Contains(err.Error(), `provider "plain": tool "x": parameters`) {
		t.Fatalf("unvouched invalid parameters: %v", err)
	}
	p, err := c.NewProviderFunc("vouching", len(tools), vouched(tools))
	if err != nil {
		t.Fatal(err)
	}
	h, err := assembleWith(t, p)
	if err != nil {
		t.Fatal(err)
	}
	reads := []struct {
		name string
		read func()
	}{
		{"JSON", func() { _ = h.JSON() }},
		{"JSON again", func() { _ = h.JSON() }},
		{"Len", func() { _ = h.Len() }},
		{"ToolJSON", func() { _ = h.ToolJSON(1) }},
		{"Tools", func() { _ = h.Tools() }},
	}
	for _, r := range reads {
		func() {
			defer func() {
				if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), `provider "vouching"`) {
					t.Errorf("%s: panic %v, want one naming the provider", r.name, v)
				}
			}()
			r.read()
		}()
	}
}

// TestDeferredCallbackMayReadHeaders: NewProviderFunc's callback may read
// a header whose deferred tools the same Canonicalizer made, which makes
// them canonical then.
func TestDeferredCallbackMayReadHeaders(t *testing.T) {
	t.Parallel()
	first := []Tool{{Name: "a", Parameters: json.RawMessage(`{ "type": "object" }`)}}
	var c Canonicalizer
	p, err := c.NewProviderFunc("first", 1, vouched(first))
	if err != nil {
		t.Fatal(err)
	}
	h, err := assembleWith(t, p)
	if err != nil {
		t.Fatal(err)
	}
	second := []Tool{{Name: "b", Parameters: json.RawMessage(`{"type":"object"}`)}}
	done := make(chan string, 1)
	go func() {
		var read string
		_, err := c.NewProviderFunc("second", 1, func(i int) (*Tool, bool) {
			read = h.JSON()
			return &second[i], false
		})
		if err != nil {
			read = err.Error()
		}
		done <- read
	}()
	select {
	case read := <-done:
		if want := `{"config":{"model":"m"},"tools":[{"name":"a","parameters":{"type":"object"}}]}`; read != want {
			t.Fatalf("read %s, want %s", read, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("NewProviderFunc still running after 10s: its callback's read of a header waits for a lock it holds")
	}
}
