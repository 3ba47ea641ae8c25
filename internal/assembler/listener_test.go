package assembler_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

func names(ts assembler.Tools) []string {
	out := make([]string, ts.Len())
	for i := range out {
		out[i] = ts.Name(i)
	}
	return out
}

// TestFirstListenerSeesCanonicalOrder: the first listener gets tools and
// sections already in canonical order.
func TestFirstListenerSeesCanonicalOrder(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Persona: "P", ToolOrder: assembler.NewToolOrder("write", RestEntry)})
	mustAdd(t, s, "b", tools("read", "\uFF61", "write")...)
	mustAdd(t, s, "a", tools("\U0001F600", "bash")...)
	if err := s.AddSection(assembler.Section{ID: "z", Order: -5, Text: "Z"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddSection(assembler.Section{ID: "a", Order: 3, Text: "A"}); err != nil {
		t.Fatal(err)
	}
	var seenTools, seenSections []string
	s.AddListener("spy", func(a assembler.Assembly) (assembler.Assembly, error) {
		seenTools = names(a.Tools)
		for _, sec := range a.Sections {
			seenSections = append(seenSections, sec.ID)
		}
		return a, nil
	})
	h := mustAssemble(t, s)
	want := []string{"write", "bash", "read", "\U0001F600", "\uFF61"}
	equalStrings(t, "tools seen by the first listener", seenTools, want)
	equalStrings(t, "sections seen by the first listener", seenSections, []string{"z", "persona", "a"})
	equalStrings(t, "header tools", h.ToolNames(), want)
	if h.System() != "Z\n\nP\n\nA" {
		t.Errorf("system %q", h.System())
	}
}

// TestListenerOutputIsNotResorted: what listeners produce stays as they
// left it: added tools where they were put, reordered tools and sections
// in the listener's order.
func TestListenerOutputIsNotResorted(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Persona: "P"})
	mustAdd(t, s, "p", tools("b", "c", "d")...)
	if err := s.AddSection(assembler.Section{ID: "rules", Order: 10, Text: "R"}); err != nil {
		t.Fatal(err)
	}
	s.AddListener("append-a", func(a assembler.Assembly) (assembler.Assembly, error) {
		var err error
		a.Tools, err = a.Tools.Append(assembler.Tool{Name: "a", Parameters: json.RawMessage(` { "x" : 1.0 } `)})
		return a, err
	})
	s.AddListener("reverse-sections", func(a assembler.Assembly) (assembler.Assembly, error) {
		slices.Reverse(a.Sections)
		return a, nil
	})
	s.AddListener("move-b-to-end", func(a assembler.Assembly) (assembler.Assembly, error) {
		a.Tools = a.Tools.Move(a.Tools.Index("b"), a.Tools.Len()-1)
		return a, nil
	})
	h := mustAssemble(t, s)
	equalStrings(t, "tools", h.ToolNames(), []string{"c", "d", "a", "b"})
	if h.System() != "R\n\nP" {
		t.Errorf("system %q, want the listener's section order", h.System())
	}
	if got := string(h.ToolJSON(2)); got != `{"name":"a","parameters":{"x":1}}` {
		t.Errorf("listener-added tool not canonical: %s", got)
	}
}

// TestListenersRunInRegistrationOrder: each listener gets what the one
// before returned.
func TestListenersRunInRegistrationOrder(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "p", tl("base"))
	var calls []string
	for _, name := range []string{"first", "second", "third", "fourth"} {
		s.AddListener(name, func(a assembler.Assembly) (assembler.Assembly, error) {
			calls = append(calls, name+" saw "+strings.Join(names(a.Tools), ","))
			var err error
			a.Tools, err = a.Tools.Append(assembler.Tool{Name: name})
			return a, err
		})
	}
	h := mustAssemble(t, s)
	equalStrings(t, "calls", calls, []string{
		"first saw base",
		"second saw base,first",
		"third saw base,first,second",
		"fourth saw base,first,second,third",
	})
	equalStrings(t, "tools", h.ToolNames(), []string{"base", "first", "second", "third", "fourth"})
}

// TestListenerErrorIsWrapped: a failing listener fails Assemble with its
// name, the error stays inspectable, and later listeners do not run.
func TestListenerErrorIsWrapped(t *testing.T) {
	t.Parallel()
	sentinel := errors.New("vault locked")
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "p", tl("read"))
	s.AddListener("ok", func(a assembler.Assembly) (assembler.Assembly, error) { return a, nil })
	s.AddListener("secrets", func(a assembler.Assembly) (assembler.Assembly, error) {
		return a, sentinel
	})
	ranAfter := false
	s.AddListener("after", func(a assembler.Assembly) (assembler.Assembly, error) {
		ranAfter = true
		return a, nil
	})
	h, err := s.Assemble()
	if err == nil {
		t.Fatalf("Assemble = %v, want the listener's error", h.ToolNames())
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("error %v does not wrap the listener's error", err)
	}
	if want := `system-prompt/assemble listener "secrets": vault locked`; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if ranAfter {
		t.Error("a listener after the failing one ran")
	}
}

// TestListenerOutputIsValidated: a listener cannot smuggle the reserved
// name or invalid parameters into the header.
func TestListenerOutputIsValidated(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		add     assembler.Tool
		contain string
	}{
		{"reserved name", assembler.Tool{Name: RestEntry}, `"<unlisted-tools>" is reserved`},
		{"bad parameters", assembler.Tool{Name: "x", Parameters: json.RawMessage(`{"a":}`)}, `tool "x": parameters: line 1, column 6`},
		{"empty name", assembler.Tool{}, "empty name"},
	} {
		s := mustNew(t, assembler.Config{})
		s.AddListener("bad", func(a assembler.Assembly) (assembler.Assembly, error) {
			var err error
			a.Tools, err = a.Tools.Append(tc.add)
			return a, err
		})
		if _, err := s.Assemble(); err == nil || !strings.Contains(err.Error(), tc.contain) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.contain)
		}
	}
}

// TestListenerRemovesEverything: an empty result leaves system and tools
// out of the header.
func TestListenerRemovesEverything(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Persona: "P", Model: "m"})
	mustAdd(t, s, "p", tl("read"))
	s.AddListener("wipe", func(a assembler.Assembly) (assembler.Assembly, error) {
		return assembler.Assembly{}, nil
	})
	if got := string(mustAssemble(t, s).Bytes()); got != `{"config":{"model":"m"}}` {
		t.Errorf("Bytes = %s", got)
	}
}
