package assembler

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
)

// Tools is the tool list of an [Assembly], as a listener is handed it and
// returns it. It is immutable: its methods return new lists that share
// what they did not change. Handing the canonical order of any number of
// tools to a listener therefore copies nothing, and a list that comes
// back as it came, or changed the same way as at the last Assemble, is
// recognised without comparing every tool. The zero value is an empty
// list.
//
// Indexes are 0-based positions in the list; a method given one outside
// it panics, as indexing a slice does.
type Tools struct {
	segs []toolSeg
	n    int
}

// toolSeg is a run of the list: tools lo to hi of an array of tool
// records, in order or reversed.
type toolSeg struct {
	arr      *toolArray
	lo, hi   int
	reversed bool
}

// toolArray is an immutable array of tool records, with an index by name
// built on first use.
type toolArray struct {
	ts     []*canonicalTool
	once   sync.Once
	byName map[string][]int // positions in ts, ascending
}

func newToolArray(ts []*canonicalTool) *toolArray { return &toolArray{ts: ts} }

func (a *toolArray) positions(name string) []int {
	a.once.Do(func() {
		a.byName = make(map[string][]int, len(a.ts))
		for i, t := range a.ts {
			a.byName[t.tool.Name] = append(a.byName[t.tool.Name], i)
		}
	})
	return a.byName[name]
}

func (s toolSeg) len() int { return s.hi - s.lo }

// at returns the k-th record of the run.
func (s toolSeg) at(k int) *canonicalTool {
	if s.reversed {
		return s.arr.ts[s.hi-1-k]
	}
	return s.arr.ts[s.lo+k]
}

// split returns the first k records of the run and the rest.
func (s toolSeg) split(k int) (toolSeg, toolSeg) {
	a, b := s, s
	if s.reversed {
		a.lo, b.hi = s.hi-k, s.hi-k
	} else {
		a.hi, b.lo = s.lo+k, s.lo+k
	}
	return a, b
}

// NewTools makes a list of copies of ts, validated and made canonical as
// registration does: an empty name or invalid parameters JSON is an
// error. A listener that adds tools uses [Tools.Insert]; NewTools is for
// one that builds its list afresh.
func NewTools(ts ...Tool) (Tools, error) {
	return Tools{}.Insert(0, ts...)
}

// listOf is the list of records, sharing them.
func listOf(arr *toolArray) Tools {
	if len(arr.ts) == 0 {
		return Tools{}
	}
	return Tools{segs: []toolSeg{{arr: arr, hi: len(arr.ts)}}, n: len(arr.ts)}
}

// Len returns the number of tools.
func (l Tools) Len() int { return l.n }

// record returns the record at i.
func (l Tools) record(i int) *canonicalTool {
	l.check(i, l.n)
	for _, s := range l.segs {
		if i < s.len() {
			return s.at(i)
		}
		i -= s.len()
	}
	panic("unreachable")
}

func (l Tools) check(i, n int) {
	if i < 0 || i >= n {
		panic(fmt.Sprintf("assembler: tool index %d out of range [0:%d]", i, l.n))
	}
}

// At returns a copy of the tool at i: changing it changes nothing in the
// list.
func (l Tools) At(i int) Tool { return l.record(i).clone() }

// Name returns the name of the tool at i, without copying the tool.
func (l Tools) Name(i int) string { return l.record(i).tool.Name }

// Index returns the position of the first tool named name, or -1. It
// does not read every tool: a run of the canonical order finds a name by
// an index built once per registry state.
func (l Tools) Index(name string) int {
	off := 0
	for _, s := range l.segs {
		pos := s.arr.positions(name)
		best := -1
		for _, p := range pos {
			if p < s.lo || p >= s.hi {
				continue
			}
			k := p - s.lo
			if s.reversed {
				k = s.hi - 1 - p
			}
			if best < 0 || k < best {
				best = k
			}
		}
		if best >= 0 {
			return off + best
		}
		off += s.len()
	}
	return -1
}

// Slice returns copies of all the tools, in order.
func (l Tools) Slice() []Tool {
	out := make([]Tool, 0, l.n)
	for _, r := range l.records() {
		out = append(out, r.clone())
	}
	return out
}

// records returns the records in order.
func (l Tools) records() []*canonicalTool {
	out := make([]*canonicalTool, 0, l.n)
	for _, s := range l.segs {
		for k := range s.len() {
			out = append(out, s.at(k))
		}
	}
	return out
}

// cut returns the runs before position i and from it.
func (l Tools) cut(i int) (before, from []toolSeg) {
	if i < 0 || i > l.n {
		panic(fmt.Sprintf("assembler: tool position %d out of range [0:%d]", i, l.n))
	}
	for j, s := range l.segs {
		if i == 0 {
			return slices.Clip(l.segs[:j]), l.segs[j:]
		}
		if i < s.len() {
			a, b := s.split(i)
			before = append(slices.Clip(l.segs[:j]), a)
			from = append([]toolSeg{b}, l.segs[j+1:]...)
			return before, from
		}
		i -= s.len()
	}
	return slices.Clip(l.segs), nil
}

// join returns the list of the runs, in order: empty runs left out, and
// runs that continue each other in one array merged, so that edits that
// undo each other leave as few runs as they found.
func join(n int, parts ...[]toolSeg) Tools {
	var segs []toolSeg
	for _, p := range parts {
		for _, s := range p {
			if s.len() == 0 {
				continue
			}
			if k := len(segs) - 1; k >= 0 && segs[k].arr == s.arr && segs[k].reversed == s.reversed {
				switch {
				case !s.reversed && segs[k].hi == s.lo:
					segs[k].hi = s.hi
					continue
				case s.reversed && segs[k].lo == s.hi:
					segs[k].lo = s.lo
					continue
				}
			}
			segs = append(segs, s)
		}
	}
	return Tools{segs: segs, n: n}
}

// Insert returns the list with copies of ts inserted at position i (0 to
// Len), validated and made canonical as registration does.
func (l Tools) Insert(i int, ts ...Tool) (Tools, error) {
	before, from := l.cut(i) // a bad position panics, whatever the tools
	if len(ts) == 0 {
		return l, nil
	}
	recs := make([]*canonicalTool, len(ts))
	for k, t := range ts {
		c, err := canonicalize(t, "listener")
		if err != nil {
			return l, err
		}
		recs[k] = &c
	}
	return join(l.n+len(ts), before, []toolSeg{{arr: newToolArray(recs), hi: len(recs)}}, from), nil
}

// Append returns the list with copies of ts added at the end.
func (l Tools) Append(ts ...Tool) (Tools, error) { return l.Insert(l.n, ts...) }

// Replace returns the list with a copy of t, validated and made canonical
// as registration does, in place of the tool at i: how a listener edits a
// tool it got from [Tools.At].
func (l Tools) Replace(i int, t Tool) (Tools, error) {
	l.check(i, l.n)
	m, err := l.Remove(i).Insert(i, t)
	if err != nil {
		return l, err
	}
	return m, nil
}

// Remove returns the list without the tool at i.
func (l Tools) Remove(i int) Tools {
	l.check(i, l.n)
	before, from := l.cut(i)
	rest := Tools{segs: from, n: l.n - i}
	_, after := rest.cut(1)
	return join(l.n-1, before, after)
}

// Move returns the list with the tool at from moved to position to of the
// result; the tool itself is kept, not copied.
func (l Tools) Move(from, to int) Tools {
	l.check(from, l.n)
	l.check(to, l.n)
	_, at := l.cut(from)
	one, _ := (Tools{segs: at, n: l.n - from}).cut(1)
	rest := l.Remove(from)
	before, after := rest.cut(to)
	return join(l.n, before, one, after)
}

// Reverse returns the list in reverse order.
func (l Tools) Reverse() Tools {
	segs := make([]toolSeg, len(l.segs))
	for i, s := range l.segs {
		s.reversed = !s.reversed
		segs[len(segs)-1-i] = s
	}
	return Tools{segs: segs, n: l.n}
}

// same reports whether l and m hold interchangeable tools in the same
// order. Runs of the same records compare in constant time, so a list
// built the same way as before costs a comparison of its runs, not of its
// tools.
func (l Tools) same(m Tools) bool {
	if l.n != m.n {
		return false
	}
	if len(l.segs) == len(m.segs) {
		aligned := true
		for i, s := range l.segs {
			t := m.segs[i]
			if s == t {
				continue
			}
			if s.len() != t.len() {
				aligned = false
				break
			}
			for k := range s.len() {
				if !interchangeable(s.at(k), t.at(k)) {
					return false
				}
			}
		}
		if aligned {
			return true
		}
	}
	a, b := l.records(), m.records()
	for i := range a {
		if !interchangeable(a[i], b[i]) {
			return false
		}
	}
	return true
}

// interchangeable reports whether two records make the same header and
// the same harness behaviour: the same canonical bytes and metadata.
func interchangeable(a, b *canonicalTool) bool {
	return a == b || sameJSON(a, b) &&
		slices.Equal(a.tool.DependsOn, b.tool.DependsOn) && a.tool.Idempotent == b.tool.Idempotent
}

// sameJSON reports whether two tools have the same canonical bytes: the
// same parts, as the canonical layout delimits each part unambiguously.
func sameJSON(a, b *canonicalTool) bool {
	if a.raw() != nil || b.raw() != nil {
		return bytes.Equal(a.json(), b.json())
	}
	an, ad := a.bodies()
	bn, bd := b.bodies()
	return an == bn && ad == bd && bytes.Equal(a.params, b.params)
}
