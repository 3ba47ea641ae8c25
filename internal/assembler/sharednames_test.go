package assembler_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/headergold/headergold/internal/assembler"
)

// TestSharedNamesAreAllKept: two providers registering a tool of the same
// name both keep it; ties are broken by canonical bytes, so which provider
// came first never shows.
func TestSharedNamesAreAllKept(t *testing.T) {
	t.Parallel()
	alpha := assembler.Tool{Name: "read", Description: "Alpha reader.", Parameters: json.RawMessage(`{"type":"object"}`)}
	beta := assembler.Tool{Name: "read", Description: "Beta reader.", Parameters: json.RawMessage(`{"type":"object"}`)}
	bare := assembler.Tool{Name: "read"} // {"name":"read"}: '}' sorts after ','
	// Canonical bytes, in the order they must appear.
	want := []string{
		`{"name":"read","description":"Alpha reader.","parameters":{"type":"object"}}`,
		`{"name":"read","description":"Beta reader.","parameters":{"type":"object"}}`,
		`{"name":"read"}`,
		`{"name":"write","description":"Tool write.","parameters":{"type":"object"}}`,
	}
	regs := []struct {
		provider string
		tool     assembler.Tool
	}{{"a", alpha}, {"b", beta}, {"c", bare}, {"d", tl("write")}}

	for _, perm := range [][]int{{0, 1, 2, 3}, {1, 0, 2, 3}, {2, 1, 0, 3}, {3, 2, 1, 0}, {1, 3, 0, 2}} {
		for _, cfg := range []assembler.Config{{}, withOrder(RestEntry)} {
			s := mustNew(t, cfg)
			for _, i := range perm {
				mustAdd(t, s, regs[i].provider, regs[i].tool)
			}
			h := mustAssemble(t, s)
			var got []string
			for i := range h.NumTools() {
				got = append(got, string(h.ToolJSON(i)))
			}
			equalStrings(t, fmt.Sprintf("tools registered in order %v, config %v", perm, cfg.ToolOrder), got, want)
		}
	}
}

// TestSharedNameListedPlacesAll: a listed name places every tool of that
// name at its position, in canonical-bytes order.
func TestSharedNameListedPlacesAll(t *testing.T) {
	t.Parallel()
	s := mustNew(t, withOrder("shell", RestEntry, "read"))
	mustAdd(t, s, "p1", assembler.Tool{Name: "read", Description: "Z"}, tl("bash"))
	mustAdd(t, s, "p2", tl("shell"), assembler.Tool{Name: "read", Description: "A"})
	mustAdd(t, s, "p3", assembler.Tool{Name: "shell", Description: "B"})
	h := mustAssemble(t, s)
	var got []string
	for i := range h.NumTools() {
		got = append(got, string(h.ToolJSON(i)))
	}
	want := []string{
		`{"name":"shell","description":"B"}`,
		`{"name":"shell","description":"Tool shell.","parameters":{"type":"object"}}`,
		`{"name":"bash","description":"Tool bash.","parameters":{"type":"object"}}`,
		`{"name":"read","description":"A"}`,
		`{"name":"read","description":"Z"}`,
	}
	equalStrings(t, "tools", got, want)
}

// TestIdenticalToolsFromTwoProviders: byte-identical tools are both kept.
func TestIdenticalToolsFromTwoProviders(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "one", tl("read"))
	mustAdd(t, s, "two", tl("read"))
	if n := mustAssemble(t, s).NumTools(); n != 2 {
		t.Fatalf("NumTools = %d, want 2 (never drop a tool)", n)
	}
}

// TestSameBytesDifferentMetadata: tools whose model-visible bytes are equal
// but whose harness metadata (DependsOn, Idempotent) differs still come out
// in one order, whichever registered first: Tools() is part of the header.
func TestSameBytesDifferentMetadata(t *testing.T) {
	t.Parallel()
	variants := []assembler.Tool{
		{Name: "read", Description: "Read."},
		{Name: "read", Description: "Read.", Idempotent: true},
		{Name: "read", Description: "Read.", DependsOn: []string{"open"}},
		{Name: "read", Description: "Read.", DependsOn: []string{"auth", "open"}},
		{Name: "read", Description: "Read.", DependsOn: []string{"auth"}, Idempotent: true},
	}
	var first []assembler.Tool
	perm := []int{0, 1, 2, 3, 4}
	for round := range 40 {
		s := mustNew(t, assembler.Config{})
		mustAdd(t, s, "open", tl("open"), tl("auth"))
		for _, i := range perm {
			mustAdd(t, s, "p"+itoa(i), variants[i])
		}
		got := mustAssemble(t, s).Tools()
		if first == nil {
			first = got
		} else if diff := cmp.Diff(first, got); diff != "" {
			t.Fatalf("round %d (registration %v): Tools() depends on registration order (-first +now):\n%s", round, perm, diff)
		}
		// Next permutation: rotate and swap to cover many orders.
		perm = append(perm[1:], perm[0])
		if round%3 == 0 {
			perm[1], perm[3] = perm[3], perm[1]
		}
	}
	if !slices.ContainsFunc(first, func(tool assembler.Tool) bool { return tool.Idempotent }) {
		t.Fatal("metadata lost")
	}
}
