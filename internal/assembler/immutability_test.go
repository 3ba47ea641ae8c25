package assembler_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// wantImmutable is the header every step of the immutability tests must
// still produce, byte for byte.
const wantImmutable = `{"config":{"model":"m"},"system":"P","tools":[` +
	`{"name":"open"},` +
	`{"name":"read","description":"Read.","parameters":{"type":"object","required":["path"]}}]}`

func scribble(b []byte) {
	for i := range b {
		b[i] = 'X'
	}
}

// immutableService registers tools from buffers the caller keeps, and
// returns those buffers.
func immutableService(t *testing.T) (*assembler.Service, []assembler.Tool) {
	t.Helper()
	s := mustNew(t, assembler.Config{Persona: "P", Model: "m"})
	in := []assembler.Tool{
		{Name: "read", Description: "Read.", Parameters: []byte(`{"type":"object","required":["path"]}`), DependsOn: []string{"open"}},
		{Name: "open"},
	}
	mustAdd(t, s, "fs", in...)
	return s, in
}

// TestInputsAreCopied: changing what was passed to AddProvider afterwards
// changes nothing.
func TestInputsAreCopied(t *testing.T) {
	t.Parallel()
	s, in := immutableService(t)
	scribble(in[0].Parameters)
	in[0].DependsOn[0] = "mutated"
	in[0].Name = "mutated"
	in[1] = assembler.Tool{Name: "other"}

	h := mustAssemble(t, s)
	if got := string(h.Bytes()); got != wantImmutable {
		t.Fatalf("Bytes after mutating inputs:\n got %s\nwant %s", got, wantImmutable)
	}
	if deps := h.Tools()[1].DependsOn; len(deps) != 1 || deps[0] != "open" {
		t.Errorf("DependsOn = %q, want [open]", deps)
	}
}

// TestHeaderIsImmutable: scribbling over everything an accessor returns
// leaves the header, and the next header, unchanged.
func TestHeaderIsImmutable(t *testing.T) {
	t.Parallel()
	s, _ := immutableService(t)
	h := mustAssemble(t, s)

	scribble(h.Bytes())
	scribble(h.Config())
	scribble(h.ToolJSON(0))
	scribble(h.ToolJSON(1))
	scribble(h.AppendJSON(make([]byte, 0, 4096)))
	ts := h.Tools()
	for i := range ts {
		scribble(ts[i].Parameters)
		for j := range ts[i].DependsOn {
			ts[i].DependsOn[j] = "mutated"
		}
		ts[i].DependsOn = append(ts[i].DependsOn[:0:0], "appended")
		ts[i].Name = "mutated"
	}
	ts[0] = assembler.Tool{Name: "replaced"}
	tn := h.ToolNames()
	tn[0], tn[1] = "mutated", "mutated"

	for _, hh := range []*assembler.Header{h, mustAssemble(t, s)} {
		if got := string(hh.Bytes()); got != wantImmutable {
			t.Fatalf("Bytes:\n got %s\nwant %s", got, wantImmutable)
		}
		if got := string(hh.Config()); got != `{"model":"m"}` {
			t.Errorf("Config = %s", got)
		}
		equalStrings(t, "ToolNames", hh.ToolNames(), []string{"open", "read"})
		if got := string(hh.ToolJSON(0)); got != `{"name":"open"}` {
			t.Errorf("ToolJSON(0) = %s", got)
		}
		read := hh.Tools()[1]
		if string(read.Parameters) != `{"type":"object","required":["path"]}` || len(read.DependsOn) != 1 || read.DependsOn[0] != "open" {
			t.Errorf("Tools()[1] = %+v", read)
		}
	}
}

// TestAppendJSONDoesNotAlias: appending to a buffer with spare capacity
// and then writing past the header does not reach the header.
func TestAppendJSONDoesNotAlias(t *testing.T) {
	t.Parallel()
	s, _ := immutableService(t)
	h := mustAssemble(t, s)
	buf := h.AppendJSON(nil)
	buf = append(buf[:1], "garbage"...)
	_ = buf
	if got := string(h.Bytes()); got != wantImmutable {
		t.Fatalf("Bytes = %s", got)
	}
}

// TestListenerCannotReachTheRegistry: a listener that edits what it was
// given in place, keeps it, and edits it again after Assemble returned,
// changes neither that header nor the next one.
func TestListenerCannotReachTheRegistry(t *testing.T) {
	t.Parallel()
	s, _ := immutableService(t)
	var kept assembler.Assembly
	added := assembler.Tool{Name: "zz", Parameters: []byte(`{"k":"v"}`), DependsOn: []string{"read"}}
	calls := 0
	s.AddListener("vandal", func(a assembler.Assembly) (assembler.Assembly, error) {
		calls++
		if calls > 1 {
			return a, nil // later assemblies: leave everything alone
		}
		kept = a
		list, err := a.Tools.Append(added)
		return assembler.Assembly{Sections: a.Sections, Tools: list}, err
	})
	h1 := mustAssemble(t, s)
	want1 := wantImmutable[:len(wantImmutable)-2] + `,{"name":"zz","parameters":{"k":"v"}}]}`
	if got := string(h1.Bytes()); got != want1 {
		t.Fatalf("first header:\n got %s\nwant %s", got, want1)
	}

	// Now vandalise everything the listener was handed or handed back,
	// and every copy of a tool it can get.
	vandalise := func(ts ...assembler.Tool) {
		for _, t := range ts {
			scribble(t.Parameters)
			for j := range t.DependsOn {
				t.DependsOn[j] = "mutated"
			}
		}
	}
	for i := range kept.Tools.Len() {
		vandalise(kept.Tools.At(i))
	}
	vandalise(kept.Tools.Slice()...)
	for i := range kept.Sections {
		kept.Sections[i].Text = "mutated"
	}
	scribble(added.Parameters)
	added.DependsOn[0] = "mutated"

	if got := string(h1.Bytes()); got != want1 {
		t.Fatalf("first header changed after the fact:\n got %s\nwant %s", got, want1)
	}
	if deps := h1.Tools()[2].DependsOn; len(deps) != 1 || deps[0] != "read" {
		t.Errorf("listener-added DependsOn = %q", deps)
	}
	h2 := mustAssemble(t, s)
	if got := string(h2.Bytes()); got != wantImmutable {
		t.Fatalf("second header:\n got %s\nwant %s", got, wantImmutable)
	}
	if deps := h2.Tools()[1].DependsOn; len(deps) != 1 || deps[0] != "open" {
		t.Errorf("registry DependsOn = %q after a listener edited its copy", deps)
	}
}

// TestListenerInPlaceEditDoesNotLeak: a listener editing a copy of a tool
// in place and putting it back changes that assembly only, not what the
// next assembly starts from.
func TestListenerInPlaceEditDoesNotLeak(t *testing.T) {
	t.Parallel()
	s, _ := immutableService(t)
	first := true
	s.AddListener("in-place", func(a assembler.Assembly) (assembler.Assembly, error) {
		if first {
			first = false
			t := a.Tools.At(1)
			scribble(t.Parameters)
			t.Parameters = json.RawMessage(`{}`)
			t.DependsOn[0] = "mutated"
			var err error
			if a.Tools, err = a.Tools.Replace(1, t); err != nil {
				return a, err
			}
		}
		return a, nil
	})
	// The first assembly fails: its edited copy depends on "mutated".
	if _, err := s.Assemble(); err == nil || !strings.Contains(err.Error(), `"mutated"`) {
		t.Fatalf("first Assemble = %v, want the edited dependency rejected", err)
	}
	h := mustAssemble(t, s)
	if got := string(h.Bytes()); got != wantImmutable {
		t.Fatalf("second header:\n got %s\nwant %s", got, wantImmutable)
	}
	if deps := h.Tools()[1].DependsOn; deps[0] != "open" {
		t.Errorf("DependsOn = %q", deps)
	}
}

// TestServiceConfigIsACopy: the config a service returns cannot change the
// service.
func TestServiceConfigIsACopy(t *testing.T) {
	t.Parallel()
	s := mustNew(t, withOrder("read", RestEntry))
	names := s.Config().ToolOrder.Names()
	names[0] = "write"
	mustAdd(t, s, "p", tools("write", "read")...)
	equalStrings(t, "ToolNames", mustAssemble(t, s).ToolNames(), []string{"read", "write"})
}
