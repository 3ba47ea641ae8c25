package assembler

import (
	"bytes"
	"cmp"
	"fmt"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"
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

// sortKey is the whole key of a tool: its toolOrder position, its name and
// the tool. The canonical order is kept as flat keys (see flatKey); a
// sortKey is made only to order the keys whose leading fields tie, and it
// is the plain definition of the order that tests hold the flat keys to.
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
	// Only tools of one name get here (rare), so their bytes are made
	// to compare them.
	if c := bytes.Compare(a.t.json(), b.t.json()); c != 0 {
		return c
	}
	return compareRest(a.t.tool, b.t.tool)
}

// namePrefix packs the first eight bytes of name, big-endian, into an
// integer that orders two names as CompareUTF16 does whenever the integers
// differ (equal integers say nothing). It keeps the ASCII bytes up to the
// first other byte; the rest is padded with 0x00 when the name ends there,
// which sorts it before every longer name sharing those bytes, and with
// 0xFF when a non-ASCII character starts there, whose first UTF-16 code
// unit (U+FFFD for an invalid byte) is above every ASCII one. So at the
// first byte where two integers differ, either both names hold that ASCII
// byte, one name has ended, or one holds an ASCII byte and the other a
// character above U+007F: in each case the names compare as those bytes.
func namePrefix(name string) uint64 {
	if len(name) >= 8 {
		// Eight ASCII bytes, the common case, are the integer as they
		// are.
		w := uint64(name[0])<<56 | uint64(name[1])<<48 | uint64(name[2])<<40 | uint64(name[3])<<32 |
			uint64(name[4])<<24 | uint64(name[5])<<16 | uint64(name[6])<<8 | uint64(name[7])
		if w&0x8080808080808080 == 0 {
			return w
		}
	}
	var k uint64
	n := min(len(name), 8)
	for i := range n {
		c := name[i]
		if c >= utf8.RuneSelf {
			return (k+1)<<(8*(8-i)) - 1 // the bytes so far, then 0xFF to the end
		}
		k = k<<8 | uint64(c)
	}
	return k << (8 * (8 - n)) // a shift by 64 (n == 0) gives 0
}

// namePrefixes packs the first sixteen bytes of name into two integers
// that order two names as CompareUTF16 does whenever the pairs differ:
// p0 is namePrefix(name), and p1 is namePrefix of the rest of the name
// when its first eight bytes are ASCII (so that two names with the same
// p0 share those bytes and compare as their rests do), 0 otherwise. A
// name shorter than eight bytes has p1 0, the least, and a name with the
// same p0 is then at least as long (its p0 holds NUL bytes where the
// shorter one was padded).
func namePrefixes(name string) (p0, p1 uint64) {
	p0 = namePrefix(name)
	if len(name) < 8 || p0&0x8080808080808080 != 0 {
		return p0, 0 // short, or a non-ASCII byte in the first eight
	}
	return p0, namePrefix(name[8:])
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

// sortedKeys returns the keys of the tools in tools[from:] that rank
// keeps (it gives a tool's toolOrder position, or false to leave the tool
// out), in canonical order; a key's i indexes tools. The keys are
// pointer-free: the rank and the name's first sixteen bytes packed into
// two integers, with the index (see sortFlat), so the sort compares
// integers and moves no pointer, where moving a key that held the tool
// and its name would write two pointers that each go through a write
// barrier while the collector marks. Keys with equal leading fields are
// then sorted by the whole key.
func sortedKeys(tools []*canonicalTool, from int, rank func(*canonicalTool) (int, bool)) []flatKey {
	fl := make([]flatKey, 0, len(tools)-from)
	for i := from; i < len(tools); i++ {
		if r, ok := rank(tools[i]); ok {
			p0, p1 := namePrefixes(tools[i].tool.Name)
			fl = append(fl, flatKey{r, p0, p1, i})
		}
	}
	sortFlat(fl)
	for i := 0; i < len(fl); {
		j := i + 1
		for j < len(fl) && fl[j].sameLead(fl[i]) {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(fl[i:j], func(a, b flatKey) int { return compareKeys(a.key(tools), b.key(tools)) })
		}
		i = j
	}
	return fl
}

// key returns the whole sort key of f, whose i indexes tools.
func (f flatKey) key(tools []*canonicalTool) sortKey {
	t := tools[f.i]
	return sortKey{f.rank, t.tool.Name, t}
}

// compareFlat orders two keys as compareKeys orders their whole keys:
// leading fields that differ order them as the names do (see
// namePrefixes).
func compareFlat(tools []*canonicalTool, a, b flatKey) int {
	switch {
	case a.less(b):
		return -1
	case b.less(a):
		return 1
	}
	return compareKeys(a.key(tools), b.key(tools))
}

// mergeKeys merges a and b, each in canonical order with indexes into
// tools, into a new list; a's keys come first among equal ones.
func mergeKeys(tools []*canonicalTool, a, b []flatKey) []flatKey {
	out := make([]flatKey, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if compareFlat(tools, b[0], a[0]) < 0 {
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

// unknownNames reports listed names without a tool (listed[i] false);
// names gives the names of the tools there are, for the message.
func unknownNames(order ToolOrder, listed []bool, names iter.Seq[string]) error {
	var unknown []string
	for i, name := range order.names {
		if name != RestEntry && !listed[i] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	have := map[string]bool{}
	for name := range names {
		have[name] = true
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
