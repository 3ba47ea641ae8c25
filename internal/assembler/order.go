package assembler

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// The tool-order rule, in one place.
//
// With no toolOrder, tools sort by name in UTF-16 code-unit order. With a
// toolOrder, every registered tool named in the list takes the list's
// position, and every other tool takes the position of RestEntry, among which
// they sort by name. Tools that share a name are all kept and sorted by their
// canonical bytes, so which provider registered first never shows. The key
// (position, name, bytes) is a total order on tools with distinct bytes;
// tools with equal bytes are ordered by their remaining fields (raw name and
// description, DependsOn, Idempotent), and tools equal in all of those are
// interchangeable, so the result is a function of the set of registered
// tools alone.

// ranker maps a tool name to its toolOrder position.
type ranker struct {
	pos  map[string]int // nil when the order is absent
	rest int
}

func newRanker(o ToolOrder) ranker {
	if !o.present {
		return ranker{}
	}
	r := ranker{pos: make(map[string]int, len(o.names))}
	for i, name := range o.names {
		if name == RestEntry {
			r.rest = i
		} else {
			r.pos[name] = i
		}
	}
	return r
}

// sortKey is a tool with its toolOrder position and name at hand, so the
// sort compares without chasing pointers for the common case.
type sortKey struct {
	rank int
	name string
	t    *canonicalTool
}

func compareKeys(a, b sortKey) int {
	if a.rank != b.rank {
		return cmp.Compare(a.rank, b.rank)
	}
	if c := CompareUTF16(a.name, b.name); c != 0 {
		return c
	}
	if c := bytes.Compare(a.t.bytes, b.t.bytes); c != 0 {
		return c
	}
	return compareRest(&a.t.tool, &b.t.tool)
}

// compareRest orders tools whose canonical bytes are equal by the fields the
// bytes do not show: raw name and description (invalid UTF-8 bytes all read
// as U+FFFD), then the harness metadata.
func compareRest(a, b *Tool) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	if c := strings.Compare(a.Description, b.Description); c != 0 {
		return c
	}
	if c := slices.Compare(a.DependsOn, b.DependsOn); c != 0 {
		return c
	}
	switch {
	case a.Idempotent == b.Idempotent:
		return 0
	case b.Idempotent:
		return -1
	}
	return 1
}

// rank returns the toolOrder position of a tool name and whether the list
// names it; unlisted names take the rest entry's position (0 when the
// order is absent).
func (r ranker) rank(name string) (int, bool) {
	if r.pos != nil {
		if p, ok := r.pos[name]; ok {
			return p, true
		}
	}
	return r.rest, false
}

// mergeKeys merges two lists sorted by compareKeys into a new one.
func mergeKeys(a, b []sortKey) []sortKey {
	out := make([]sortKey, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if compareKeys(b[0], a[0]) < 0 {
			out, b = append(out, b[0]), b[1:]
		} else {
			out, a = append(out, a[0]), a[1:]
		}
	}
	out = append(out, a...)
	return append(out, b...)
}

// reservedNameError names every provider that registered RestEntry, in
// code-unit order, so the message does not depend on registration order.
func reservedNameError(providers []string) error {
	slices.SortFunc(providers, CompareUTF16)
	providers = slices.Compact(providers)
	if len(providers) == 1 {
		return fmt.Errorf("tool name %q is reserved for toolOrder (registered by provider %q)", RestEntry, providers[0])
	}
	return fmt.Errorf("tool name %q is reserved for toolOrder (registered by providers %s)", RestEntry, quoteList(providers))
}

// unknownNames reports listed names without a tool (listed[i] false).
func unknownNames(keys []sortKey, order ToolOrder, listed []bool) error {
	var unknown []string
	for i, name := range order.names {
		if name != RestEntry && !listed[i] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	have := make(map[string]bool, len(keys))
	for _, k := range keys {
		have[k.name] = true
	}
	return &UnknownToolsError{Unknown: unknown, Known: knownNames(have)}
}

// sortSections orders sections by (order, id), ids in code-unit order.
func sortSections(secs []Section) {
	slices.SortFunc(secs, func(a, b Section) int {
		if a.Order != b.Order {
			if a.Order < b.Order {
				return -1
			}
			return 1
		}
		return CompareUTF16(a.ID, b.ID)
	})
}
