package assembler_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// TestSameBytesRawFieldsOrderIgnoresRegistration: invalid UTF-8 bytes all
// write as U+FFFD, so tools whose raw name or description differ only in
// invalid bytes have equal canonical bytes. Tools() still shows the raw
// fields, so their order must come from those fields, not from which
// provider registered first.
func TestSameBytesRawFieldsOrderIgnoresRegistration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		a, b  assembler.Tool // a sorts first: "\xfe" < "\xff" bytewise
		field func(assembler.Tool) string
	}{
		{
			name:  "description",
			a:     assembler.Tool{Name: "read", Description: "R\xfe"},
			b:     assembler.Tool{Name: "read", Description: "R\xff"},
			field: func(t assembler.Tool) string { return t.Description },
		},
		{
			name:  "name",
			a:     assembler.Tool{Name: "read\xfe"},
			b:     assembler.Tool{Name: "read\xff"},
			field: func(t assembler.Tool) string { return t.Name },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, first := range []bool{true, false} {
				s := mustNew(t, assembler.Config{})
				if first {
					mustAdd(t, s, "pa", tc.a)
					mustAdd(t, s, "pb", tc.b)
				} else {
					mustAdd(t, s, "pb", tc.b)
					mustAdd(t, s, "pa", tc.a)
				}
				h := mustAssemble(t, s)
				if string(h.ToolJSON(0)) != string(h.ToolJSON(1)) {
					t.Fatalf("the two tools should have equal bytes: %s vs %s", h.ToolJSON(0), h.ToolJSON(1))
				}
				ts := h.Tools()
				got := []string{tc.field(ts[0]), tc.field(ts[1])}
				want := []string{tc.field(tc.a), tc.field(tc.b)}
				equalStrings(t, fmt.Sprintf("%s order (a registered first: %v)", tc.name, first), got, want)
			}
		})
	}
}

// TestReservedNameTwiceInOneProvider: a provider that registers the
// reserved name twice is named once, in the singular.
func TestReservedNameTwiceInOneProvider(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		providers []string
		want      string
	}{
		{[]string{"p"}, `tool name "<unlisted-tools>" is reserved for toolOrder (registered by provider "p")`},
		{[]string{"b", "a"}, `tool name "<unlisted-tools>" is reserved for toolOrder (registered by providers "a", "b")`},
	} {
		s := mustNew(t, assembler.Config{})
		for _, p := range tc.providers {
			mustAdd(t, s, p, tl(RestEntry), assembler.Tool{Name: RestEntry})
		}
		_, err := s.Assemble()
		if err == nil || err.Error() != tc.want {
			t.Errorf("providers %q each registering the reserved name twice:\n got %v\nwant %s", tc.providers, err, tc.want)
		}
	}
}

// TestToolOrderHoldsItsOwnCopy: NewToolOrder copies the names it is given,
// Names returns a copy, and a service's config is not shared with the
// order it was built from.
func TestToolOrderHoldsItsOwnCopy(t *testing.T) {
	t.Parallel()
	want := []string{"read", RestEntry}

	names := []string{"read", RestEntry}
	o := assembler.NewToolOrder(names...)
	names[0] = "write"
	equalStrings(t, "Names after changing NewToolOrder's argument", o.Names(), want)

	o.Names()[0] = "write"
	equalStrings(t, "Names after changing what Names returned", o.Names(), want)

	o = assembler.NewToolOrder("read", RestEntry)
	s := mustNew(t, assembler.Config{ToolOrder: o})
	o.Names()[0] = "write"
	s.Config().ToolOrder.Names()[0] = "write"
	equalStrings(t, "service config after changing the caller's order", s.Config().ToolOrder.Names(), want)
}

// TestListenerEditsTheSectionsItReturnedBefore: a listener that keeps the
// sections it returned and edits them in place before returning them
// again gets a header with the edit: the service compares against its own
// copy of the previous output, not against the listener's slice.
func TestListenerEditsTheSectionsItReturnedBefore(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Persona: "P"})
	mustAdd(t, s, "p", tl("read"))
	var kept []assembler.Section
	text := "one"
	s.AddListener("keeper", func(a assembler.Assembly) (assembler.Assembly, error) {
		if kept == nil {
			kept = append(a.Sections, assembler.Section{ID: "extra", Order: 5, Text: text})
		}
		kept[len(kept)-1].Text = text
		return assembler.Assembly{Sections: kept, Tools: a.Tools}, nil
	})
	if got := mustAssemble(t, s).System(); got != "P\n\none" {
		t.Fatalf("first system %q, want %q", got, "P\n\none")
	}
	text = "two"
	if got := mustAssemble(t, s).System(); got != "P\n\ntwo" {
		t.Fatalf("after the listener edited its kept sections: system %q, want %q", got, "P\n\ntwo")
	}
}

// TestUnknownToolsMessageBound: the known-tool list in the message holds
// at most 100 names; the 101st is counted, not listed.
func TestUnknownToolsMessageBound(t *testing.T) {
	t.Parallel()
	known := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("t%03d", i)
		}
		return out
	}
	for _, tc := range []struct {
		n          int
		suffix     string
		notListed  string // "" when every name is listed
		wantsCount bool
	}{
		{n: 100, suffix: `"t098", "t099"`},
		{n: 101, suffix: `"t098", "t099" and 1 more`, notListed: `"t100"`, wantsCount: true},
		{n: 102, suffix: `"t098", "t099" and 2 more`, notListed: `"t100"`, wantsCount: true},
	} {
		msg := (&assembler.UnknownToolsError{Unknown: []string{"x"}, Known: known(tc.n)}).Error()
		if !strings.HasPrefix(msg, `toolOrder names an unknown tool: "x"; known tools: "t000", "t001", `) {
			t.Errorf("%d known: message starts %.80q", tc.n, msg)
		}
		if !strings.HasSuffix(msg, tc.suffix) {
			t.Errorf("%d known: message ends %q, want it to end %q", tc.n, msg[len(msg)-40:], tc.suffix)
		}
		if tc.notListed != "" && strings.Contains(msg, tc.notListed) {
			t.Errorf("%d known: message lists %s, beyond the bound of 100", tc.n, tc.notListed)
		}
		if got := strings.Contains(msg, "more"); got != tc.wantsCount {
			t.Errorf("%d known: message counts the rest: %v, want %v", tc.n, got, tc.wantsCount)
		}
	}
}

// TestHeaderDepsWithoutRepeats: a dependency declared twice, by one tool
// or by two tools sharing a name, appears once, in declaration order.
func TestHeaderDepsWithoutRepeats(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "base", tl("auth"), tl("open"))
	mustAdd(t, s, "one", assembler.Tool{Name: "read", Description: "A.", DependsOn: []string{"open", "open"}})
	mustAdd(t, s, "two", assembler.Tool{Name: "read", Description: "B.", DependsOn: []string{"open", "auth"}})
	equalStrings(t, `Deps()["read"]`, mustAssemble(t, s).Deps()["read"], []string{"open", "auth"})
}

// TestHeaderDepsIsACopy: changing what Deps returned changes nothing in
// the header.
func TestHeaderDepsIsACopy(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "base", tl("open"))
	mustAdd(t, s, "fs", assembler.Tool{Name: "read", DependsOn: []string{"open"}})
	h := mustAssemble(t, s)
	h.Deps()["read"][0] = "changed"
	equalStrings(t, `Deps()["read"] after changing a copy`, h.Deps()["read"], []string{"open"})
	if !h.Deps().DependsOn("read", "open") {
		t.Error(`Deps().DependsOn("read", "open") = false after changing a copy`)
	}
}

// TestParseHeaderKeepsToolBytesAsGiven: a tool whose keys are not in the
// canonical layout keeps its bytes as given, so the header stays
// byte-faithful tool by tool, not only as a whole.
func TestParseHeaderKeepsToolBytesAsGiven(t *testing.T) {
	t.Parallel()
	const in = `{"config":{},"tools":[{"description":"D.","name":"read"},{"name":"write","description":"W."}]}`
	h, err := assembler.ParseHeader([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(h.Bytes()); got != in {
		t.Errorf("Bytes\n got %s\nwant %s", got, in)
	}
	for i, want := range []string{`{"description":"D.","name":"read"}`, `{"name":"write","description":"W."}`} {
		if got := string(h.ToolJSON(i)); got != want {
			t.Errorf("ToolJSON(%d) = %s, want %s", i, got, want)
		}
	}
	equalStrings(t, "ToolNames", h.ToolNames(), []string{"read", "write"})
}

// TestDepsOverRegisteredTools: the dependency graph is over the
// registered tools, whatever a listener hides, and the tools listeners
// add: a hidden tool another depends on is still registered, a cycle
// through a hidden tool is still spelled out, and a dependency that a
// listener-added tool declares on no tool is still an error.
func TestDepsOverRegisteredTools(t *testing.T) {
	t.Parallel()
	hide := func(name string) assembler.Listener {
		return func(a assembler.Assembly) (assembler.Assembly, error) {
			if i := a.Tools.Index(name); i >= 0 {
				a.Tools = a.Tools.Remove(i)
			}
			return a, nil
		}
	}
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "p", tl("x"), assembler.Tool{Name: "y", DependsOn: []string{"x"}})
	s.AddListener("hide-x", hide("x"))
	h := mustAssemble(t, s)
	equalStrings(t, "tools", h.ToolNames(), []string{"y"})
	equalStrings(t, `Deps()["y"]`, h.Deps()["y"], []string{"x"})

	s = mustNew(t, assembler.Config{})
	mustAdd(t, s, "p", assembler.Tool{Name: "a", DependsOn: []string{"b"}}, assembler.Tool{Name: "b", DependsOn: []string{"a"}}, tl("c"))
	s.AddListener("hide-b", hide("b"))
	if _, err := s.Assemble(); err == nil || err.Error() != "tool dependencies form a cycle: a -> b -> a" {
		t.Errorf("cycle through a hidden tool: %v", err)
	}

	s = mustNew(t, assembler.Config{})
	mustAdd(t, s, "p", tl("x"))
	s.AddListener("add-z", func(a assembler.Assembly) (assembler.Assembly, error) {
		var err error
		a.Tools, err = a.Tools.Insert(a.Tools.Len(), assembler.Tool{Name: "z", DependsOn: []string{"nowhere"}})
		return a, err
	})
	if _, err := s.Assemble(); err == nil || !strings.Contains(err.Error(), `tool "z" depends on "nowhere", which is not registered`) {
		t.Errorf("an added tool's unknown dependency: %v", err)
	}

	// A hidden tool registered after an assembly leaves the listeners'
	// output as it was, and is checked all the same: whether it fails
	// does not depend on when the service assembled before.
	for _, c := range []struct {
		tool assembler.Tool
		want string
	}{
		{assembler.Tool{Name: "c", DependsOn: []string{"c"}}, "tool dependencies form a cycle: c -> c"},
		{assembler.Tool{Name: "c", DependsOn: []string{"nope"}}, `tool "c" depends on "nope", which is not registered`},
	} {
		for _, warm := range []bool{false, true} {
			s = mustNew(t, assembler.Config{})
			mustAdd(t, s, "p", tl("a"))
			s.AddListener("hide-c", hide("c"))
			if warm {
				mustAssemble(t, s)
			}
			mustAdd(t, s, "late", c.tool)
			for range 2 { // and at every Assemble
				if _, err := s.Assemble(); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%v registered late (assembled before: %v), hidden: %v, want %q", c.tool, warm, err, c.want)
				}
			}
		}
	}
}
