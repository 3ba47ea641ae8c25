package assembler

import (
	"bytes"
	"slices"
)

// The tool-order rule, in one place.
//
// With no toolOrder, tools sort by name in UTF-16 code-unit order. With a
// toolOrder, every registered tool named in the list takes the list's
// position, and every other tool takes the position of RestEntry, among which
// they sort by name. Tools that share a name are all kept and sorted by their
// canonical bytes, so which provider registered first never shows. The key
// (position, name, bytes) is a total order on distinct tools; identical
// tools are interchangeable, so the result is a function of the set of
// registered tools alone.

// ranker maps a tool name to its toolOrder position.
type ranker struct {
	pos  map[string]int
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

func (r ranker) rank(name string) int {
	if p, ok := r.pos[name]; ok {
		return p
	}
	return r.rest
}

// sortCanonical puts tools in canonical order in place.
func sortCanonical(tools []canonicalTool, r ranker) {
	type keyed struct {
		rank int
		t    *canonicalTool
	}
	keys := make([]keyed, len(tools))
	for i := range tools {
		keys[i] = keyed{r.rank(tools[i].tool.Name), &tools[i]}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		if c := CompareUTF16(a.t.tool.Name, b.t.tool.Name); c != 0 {
			return c
		}
		return bytes.Compare(a.t.bytes, b.t.bytes)
	})
	sorted := make([]canonicalTool, len(tools))
	for i, k := range keys {
		sorted[i] = *k.t
	}
	copy(tools, sorted)
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
