package assembler

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// cacheSeed seeds TestAssembleMatchesFromScratch; a failure prints it with
// the iteration and the operations so far.
const cacheSeed = 0xcace_2026

// fromScratch assembles the service's current registry the way Assemble
// did before it kept anything between calls: a full sort of every
// registered tool, copies of every tool for the listeners, and every tool
// the listeners return canonicalised again. The cached and incremental
// Assemble must agree with it on every registry state.
func fromScratch(s *Service) (*Header, error) {
	s.mu.Lock()
	registered := slices.Clone(s.tools)
	sections := append([]Section{{ID: PersonaSection, Order: 0, Text: s.cfg.Persona}}, s.sections...)
	listeners := slices.Clone(s.listeners)
	s.mu.Unlock()

	var reserved []string
	listed := make([]bool, len(s.cfg.ToolOrder.names))
	var keys []sortKey
	for _, t := range registered {
		if t.tool.Name == RestEntry {
			reserved = append(reserved, t.provider)
			continue
		}
		rank, ok := s.ranker.rank(t.tool.Name)
		if ok {
			listed[rank] = true
		}
		keys = append(keys, sortKey{rank: rank, name: t.tool.Name, t: t})
	}
	if len(reserved) > 0 {
		return nil, reservedNameError(reserved)
	}
	names := func(yield func(string) bool) {
		for _, k := range keys {
			if !yield(k.name) {
				return
			}
		}
	}
	if err := unknownNames(s.cfg.ToolOrder, listed, names); err != nil {
		return nil, err
	}
	slices.SortFunc(keys, compareKeys)
	sortSections(sections)
	tools := make([]*canonicalTool, len(keys))
	for i, k := range keys {
		tools[i] = k.t
	}
	if len(listeners) == 0 {
		return finish(s.cfg.Model, sections, tools, nil)
	}
	copies := make([]Tool, len(tools))
	for i, t := range tools {
		copies[i] = t.clone()
	}
	list, err := NewTools(copies...)
	if err != nil {
		return nil, err
	}
	a := Assembly{Sections: sections, Tools: list}
	for _, l := range listeners {
		var err error
		if a, err = l.fn(a); err != nil {
			return nil, fmt.Errorf("system-prompt/assemble listener %q: %w", l.name, err)
		}
	}
	// Every tool the listeners return made canonical again, from a copy.
	out := make([]*canonicalTool, a.Tools.Len())
	for i := range out {
		t := a.Tools.At(i)
		if t.Name == RestEntry {
			return nil, fmt.Errorf("tool name %q is reserved for toolOrder (added by a system-prompt/assemble listener)", RestEntry)
		}
		c, err := canonicalize(t, "listener")
		if err != nil {
			return nil, fmt.Errorf("system-prompt/assemble listeners: %w", err)
		}
		out[i] = &c
	}
	// The dependency graph: the registered tools and what the listeners
	// returned (copies of registered tools add no name and no edge).
	return finish(s.cfg.Model, a.Sections, out, append(slices.Clip(tools), out...))
}

// randomTool draws from few names (so names are shared), names whose
// UTF-16 and byte orders disagree, parameters written non-canonically,
// dependencies (some unknown, some cyclic) and the reserved name, rarely.
func randomTool(r *rand.Rand) Tool {
	names := []string{"read", "write", "bash", "a", "aB", "ab", "\uFF61x", "\U0001F600x", "é", "job_kill", "job_list"}
	t := Tool{Name: names[r.IntN(len(names))]}
	if r.IntN(200) == 0 {
		t.Name = RestEntry
	}
	if r.IntN(2) == 0 {
		t.Description = []string{"Alpha.", "Beta.", "<b>"}[r.IntN(3)]
	}
	switch r.IntN(4) {
	case 0:
		t.Parameters = json.RawMessage(`{"type":"object"}`)
	case 1:
		t.Parameters = json.RawMessage(`{ "b" : 1.0, "a" : "\u00e9" }`)
	case 2:
		t.Parameters = json.RawMessage(`{"a":"é","b":1}`)
	}
	if r.IntN(8) == 0 {
		t.DependsOn = []string{names[r.IntN(len(names))]}
	}
	t.Idempotent = r.IntN(5) == 0
	return t
}

// randomListener returns a listener that is a pure function of what it is
// given, so the two assemblies of one state see the same outputs.
func randomListener(r *rand.Rand) (string, Listener) {
	name := []string{"read", "bash", "a", "é"}[r.IntN(4)]
	add := randomTool(r)
	switch r.IntN(7) {
	case 0:
		return "reverse", func(a Assembly) (Assembly, error) {
			a.Tools = a.Tools.Reverse()
			return a, nil
		}
	case 1:
		return "moveToEnd " + name, func(a Assembly) (Assembly, error) {
			n := 0
			for i := a.Tools.Index(name); i >= 0 && i < a.Tools.Len()-n; i = a.Tools.Index(name) {
				a.Tools = a.Tools.Move(i, a.Tools.Len()-1)
				n++
			}
			return a, nil
		}
	case 2:
		return "remove " + name, func(a Assembly) (Assembly, error) {
			for i := a.Tools.Index(name); i >= 0; i = a.Tools.Index(name) {
				a.Tools = a.Tools.Remove(i)
			}
			return a, nil
		}
	case 3:
		return "add " + add.Name, func(a Assembly) (Assembly, error) {
			var err error
			a.Tools, err = a.Tools.Append(add)
			return a, err
		}
	case 4:
		return "edit", func(a Assembly) (Assembly, error) {
			for i := range a.Tools.Len() {
				t := a.Tools.At(i)
				if p := t.Parameters; len(p) > 2 && p[0] == '{' {
					// Same length, still valid JSON: {"type":…} becomes {"tXpe":…}.
					if j := strings.Index(string(p), `"type"`); j >= 0 {
						p[j+2] = 'X'
					}
				}
				t.Description += "!"
				var err error
				if a.Tools, err = a.Tools.Replace(i, t); err != nil {
					return a, err
				}
			}
			return a, nil
		}
	case 5:
		return "append section", func(a Assembly) (Assembly, error) {
			a.Sections = append(a.Sections, Section{ID: "late", Order: 99, Text: "Late."})
			return a, nil
		}
	}
	return "identity", func(a Assembly) (Assembly, error) { return a, nil }
}

// TestAssembleMatchesFromScratch: on random registration sequences, with
// an Assemble after every registration (and sometimes two), the cached
// and incremental Assemble gives the bytes, tools, dependencies and errors
// of a from-scratch assembly of the same registry.
func TestAssembleMatchesFromScratch(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(cacheSeed, 0))
	configs := []Config{
		{Persona: "P", Model: "m"},
		{Persona: "P", Model: "m", ToolOrder: NewToolOrder("job_kill", RestEntry, "read", "bash")},
		{Model: "m", ToolOrder: NewToolOrder(RestEntry, "\uFF61x")},
	}
	for iter := range 300 {
		cfg := configs[iter%len(configs)]
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		for op := range 12 {
			switch k := r.IntN(10); {
			case k < 6:
				var ts []Tool
				for range r.IntN(6) {
					ts = append(ts, randomTool(r))
				}
				name := fmt.Sprintf("p%d", op)
				if err := s.AddProvider(name, ts...); err != nil {
					t.Fatal(err)
				}
				ops = append(ops, fmt.Sprintf("provider %s (%d tools)", name, len(ts)))
			case k < 8:
				id := fmt.Sprintf("s%d", op)
				if err := s.AddSection(Section{ID: id, Order: r.IntN(3) * 10, Text: "Text " + id}); err != nil {
					t.Fatal(err)
				}
				ops = append(ops, "section "+id)
			default:
				name, fn := randomListener(r)
				s.AddListener(name, fn)
				ops = append(ops, "listener "+name)
			}
			for range 1 + r.IntN(2) {
				got, gotErr := s.Assemble()
				want, wantErr := fromScratch(s)
				if msg := sameAssembly(got, gotErr, want, wantErr); msg != "" {
					t.Fatalf("seed %#x iteration %d config %v, after %s:\n%s", cacheSeed, iter, cfg.ToolOrder, strings.Join(ops, ", "), msg)
				}
			}
		}
	}
}

func sameAssembly(got *Header, gotErr error, want *Header, wantErr error) string {
	switch {
	case gotErr != nil || wantErr != nil:
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			return fmt.Sprintf("error %v, want %v", gotErr, wantErr)
		}
		return ""
	case got.Len() != len(got.bytes()):
		return fmt.Sprintf("Len %d of %d bytes: %s", got.Len(), len(got.bytes()), got.bytes())
	case string(got.bytes()) != string(want.bytes()):
		return fmt.Sprintf("bytes\n got %s\nwant %s", got.bytes(), want.bytes())
	case fmt.Sprint(got.Tools()) != fmt.Sprint(want.Tools()):
		return fmt.Sprintf("tools\n got %v\nwant %v", got.Tools(), want.Tools())
	case fmt.Sprint(got.Deps()) != fmt.Sprint(want.Deps()):
		return fmt.Sprintf("deps %v, want %v", got.Deps(), want.Deps())
	}
	for _, n := range want.ToolNames() {
		if got.Idempotent(n) != want.Idempotent(n) {
			return fmt.Sprintf("Idempotent(%q) = %v", n, got.Idempotent(n))
		}
	}
	return ""
}

// TestUnchangedRegistryReusesTheHeader: without listeners, an Assemble
// with nothing registered since the last one returns that header itself;
// with a listener that returns the same assembly, too. A registration
// makes a new header.
func TestUnchangedRegistryReusesTheHeader(t *testing.T) {
	t.Parallel()
	s, _ := New(Config{Model: "m"})
	if err := s.AddProvider("p", Tool{Name: "b"}, Tool{Name: "a"}); err != nil {
		t.Fatal(err)
	}
	h1, _ := s.Assemble()
	if h2, _ := s.Assemble(); h2 != h1 {
		t.Error("no registration since, but a new header")
	}
	if err := s.AddProvider("q", Tool{Name: "c"}); err != nil {
		t.Fatal(err)
	}
	h3, _ := s.Assemble()
	if h3 == h1 || string(h3.bytes()) != `{"config":{"model":"m"},"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}` {
		t.Fatalf("after a registration: %s", h3.bytes())
	}
	calls := 0
	s.AddListener("reverse", func(a Assembly) (Assembly, error) {
		calls++
		a.Tools = a.Tools.Reverse()
		return a, nil
	})
	h4, _ := s.Assemble()
	h5, _ := s.Assemble()
	if calls != 2 {
		t.Errorf("the listener ran %d times in two assemblies", calls)
	}
	if h5 != h4 || string(h4.bytes()) != `{"config":{"model":"m"},"tools":[{"name":"c"},{"name":"b"},{"name":"a"}]}` {
		t.Errorf("listener output unchanged, header %p then %p: %s", h4, h5, h5.bytes())
	}
}

// TestCanonicalizerRemembersParameters: a Canonicalizer shared by several
// providers gives every tool the bytes canonicalize gives it alone, parses
// a parameters text once, and still rejects an invalid one every time.
func TestCanonicalizerRemembersParameters(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(cacheSeed, 1))
	var c Canonicalizer
	for p := range 20 {
		var ts []Tool
		for range 10 {
			ts = append(ts, randomTool(r))
		}
		prov, err := c.NewProvider(fmt.Sprintf("p%d", p), ts...)
		if err != nil {
			t.Fatal(err)
		}
		for i, tool := range ts {
			want, err := canonicalize(tool, "p")
			if err != nil {
				t.Fatal(err)
			}
			if got := prov.tools[i]; string(got.json()) != string(want.json()) || string(got.params) != string(want.params) {
				t.Fatalf("provider %d tool %d: %s, want %s", p, i, got.json(), want.json())
			}
			if got := prov.tools[i]; got.size() != len(got.json()) {
				t.Fatalf("provider %d tool %d: size %d, but %d bytes: %s", p, i, got.size(), len(got.json()), got.json())
			}
		}
	}
	if len(c.params) > 3 {
		t.Errorf("%d parameters texts remembered, randomTool writes 3", len(c.params))
	}
	for range 2 {
		if _, err := c.NewProvider("bad", Tool{Name: "x", Parameters: []byte(`{"a":}`)}); err == nil {
			t.Fatal("invalid parameters accepted")
		}
	}
}
