package assembler_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/headergold/headergold/internal/assembler"
)

// permutationSeed seeds the registration-order property test; a failure
// prints it with the iteration and the registration plan.
const permutationSeed = 0x5eed_2026

// propertyTools mixes shared names, byte-identical duplicates, names where
// UTF-16 and byte order disagree, and parameters whose canonical form
// differs from what was written.
func propertyTools() []assembler.Tool {
	p := func(s string) json.RawMessage { return json.RawMessage(s) }
	return []assembler.Tool{
		{Name: "read", Description: "Alpha.", Parameters: p(`{"type":"object"}`)},
		{Name: "read", Description: "Beta.", Parameters: p(`{"type":"object"}`)},
		{Name: "read", Description: "Alpha.", Parameters: p(`{"type":"object"}`), DependsOn: []string{"bash"}},
		{Name: "read"},
		{Name: "dup", Description: "Same."},
		{Name: "dup", Description: "Same."},
		{Name: "bash", Description: "Run.", Parameters: p(`{ "type" : "object", "properties" : { "cmd" : { "type" : "string" } } }`)},
		{Name: "write", Parameters: p(`{"b":1,"a":2}`)},
		{Name: "write", Parameters: p(`{"a":2,"b":1}`)},
		{Name: "schema", Parameters: p(`{"d":"\u00e9\u003c","n":1.0,"z":-0,"1":true}`)},
		{Name: "\uFF61x", Description: "halfwidth"},
		{Name: "\U0001F600x", Description: "emoji"},
		{Name: "é"},
		{Name: "job_kill"}, {Name: "job_list"}, {Name: "job_output", Idempotent: true},
		{Name: "a"}, {Name: "aB"}, {Name: "ab"}, {Name: "Read"}, {Name: "read_file"},
	}
}

var propertySections = []assembler.Section{
	{ID: "rules", Order: 10, Text: "Rules."},
	{ID: "env", Order: 10, Text: "Env."},
	{ID: "zeta", Order: -1, Text: "First."},
}

// registrationPlan is one way of registering propertyTools.
type registrationPlan struct {
	providers [][]assembler.Tool // in registration order
	sections  []int              // section i registers after providers[sections[i]-1] (0: first)
}

func (p registrationPlan) String() string {
	var b strings.Builder
	for i, ts := range p.providers {
		fmt.Fprintf(&b, "p%d[", i)
		for j, t := range ts {
			if j > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "%+q/%s", t.Name, t.Description)
		}
		b.WriteString("] ")
	}
	fmt.Fprintf(&b, "sections after %v", p.sections)
	return b.String()
}

func randomPlan(r *rand.Rand, ts []assembler.Tool) registrationPlan {
	k := 1 + r.IntN(6)
	plan := registrationPlan{providers: make([][]assembler.Tool, k)}
	for _, i := range r.Perm(len(ts)) {
		p := r.IntN(k)
		plan.providers[p] = append(plan.providers[p], ts[i])
	}
	for range propertySections {
		plan.sections = append(plan.sections, r.IntN(k+1))
	}
	return plan
}

func (p registrationPlan) register(t *testing.T, s *assembler.Service) {
	t.Helper()
	addSections := func(after int) {
		for i, at := range p.sections {
			if at == after {
				if err := s.AddSection(propertySections[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	addSections(0)
	for i, ts := range p.providers {
		mustAdd(t, s, fmt.Sprintf("provider-%d", i), ts...)
		addSections(i + 1)
	}
}

type snapshot struct {
	bytes  string
	system string
	tools  []assembler.Tool
}

// equal is a fast exact comparison; cmp.Diff explains a difference.
func (s snapshot) equal(o snapshot) bool {
	if s.bytes != o.bytes || s.system != o.system || len(s.tools) != len(o.tools) {
		return false
	}
	for i, a := range s.tools {
		b := o.tools[i]
		if a.Name != b.Name || a.Description != b.Description || string(a.Parameters) != string(b.Parameters) ||
			!slices.Equal(a.DependsOn, b.DependsOn) || a.Idempotent != b.Idempotent {
			return false
		}
	}
	return true
}

func snap(h *assembler.Header) snapshot {
	return snapshot{string(h.Bytes()), h.System(), h.Tools()}
}

// TestRegistrationOrderIsUnobservable: 1,000 random permutations and random
// splits of the same tools across providers, with sections registered in
// between, give the same header bytes and the same Tools().
func TestRegistrationOrderIsUnobservable(t *testing.T) {
	t.Parallel()
	ts := propertyTools()
	configs := []assembler.Config{
		{Persona: "P", Model: "m"},
		{Persona: "P", Model: "m", ToolOrder: assembler.NewToolOrder("job_output", RestEntry, "read", "bash")},
	}
	// Anchor the reference to independently known facts.
	ref := make([]snapshot, len(configs))
	for i, cfg := range configs {
		s := mustNew(t, cfg)
		mustAdd(t, s, "all", ts...)
		for _, sec := range propertySections {
			if err := s.AddSection(sec); err != nil {
				t.Fatal(err)
			}
		}
		ref[i] = snap(mustAssemble(t, s))
	}
	if want := "First.\n\nP\n\nEnv.\n\nRules."; ref[0].system != want {
		t.Fatalf("system = %q, want %q", ref[0].system, want)
	}
	var names []string
	for _, tool := range ref[0].tools {
		names = append(names, tool.Name)
	}
	equalStrings(t, "reference order", names, []string{
		"Read", "a", "aB", "ab", "bash", "dup", "dup", "job_kill", "job_list", "job_output",
		"read", "read", "read", "read", "read_file", "schema", "write", "write", "é",
		"\U0001F600x", "\uFF61x",
	})
	if !strings.Contains(ref[0].bytes, `{"name":"write","parameters":{"a":2,"b":1}},{"name":"write","parameters":{"b":1,"a":2}}`) ||
		!strings.Contains(ref[0].bytes, `{"name":"schema","parameters":{"1":true,"d":"é<","n":1,"z":0}}`) {
		t.Fatalf("reference bytes lack the canonical tools: %s", ref[0].bytes)
	}

	r := rand.New(rand.NewPCG(permutationSeed, 0))
	for iter := range 1000 {
		plan := randomPlan(r, ts)
		for i, cfg := range configs {
			s := mustNew(t, cfg)
			plan.register(t, s)
			got := snap(mustAssemble(t, s))
			if got.equal(ref[i]) {
				continue
			}
			if diff := cmp.Diff(ref[i], got, cmp.AllowUnexported(snapshot{})); diff != "" {
				t.Fatalf("seed %#x iteration %d config %v: header depends on registration order\nplan: %v\n(-want +got):\n%s",
					permutationSeed, iter, cfg.ToolOrder, plan, diff)
			}
		}
	}
}

// TestConcurrentRegistration: providers and sections registered from
// concurrent goroutines, while other goroutines assemble, give the same
// header every time. Run under -race.
func TestConcurrentRegistration(t *testing.T) {
	t.Parallel()
	ts := propertyTools()
	cfg := assembler.Config{Persona: "P", Model: "m"}
	s := mustNew(t, cfg)
	mustAdd(t, s, "all", ts...)
	for _, sec := range propertySections {
		if err := s.AddSection(sec); err != nil {
			t.Fatal(err)
		}
	}
	want := string(mustAssemble(t, s).Bytes())

	const providers = 7
	for round := range 40 {
		s := mustNew(t, cfg)
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, providers+len(propertySections)+2)
		for p := range providers {
			var mine []assembler.Tool
			for i := p; i < len(ts); i += providers {
				mine = append(mine, ts[i])
			}
			wg.Go(func() {
				<-start
				if err := s.AddProvider(fmt.Sprintf("provider-%d", p), mine...); err != nil {
					errs <- err
				}
			})
		}
		for _, sec := range propertySections {
			wg.Go(func() {
				<-start
				if err := s.AddSection(sec); err != nil {
					errs <- err
				}
			})
		}
		done := make(chan struct{})
		var readers sync.WaitGroup
		for range 2 {
			readers.Go(func() {
				<-start
				for {
					// Mid-registration, "read" may be registered before the
					// "bash" it depends on: that Assemble fails, as it must.
					if _, err := s.Assemble(); err != nil && !strings.Contains(err.Error(), "which is not registered") {
						select {
						case errs <- err:
						default:
						}
						return
					}
					select {
					case <-done:
						return
					default:
					}
				}
			})
		}
		close(start)
		wg.Wait()
		close(done)
		readers.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
		if got := string(mustAssemble(t, s).Bytes()); got != want {
			t.Fatalf("round %d: concurrent registration changed the header\n got %s\nwant %s", round, got, want)
		}
	}
}
