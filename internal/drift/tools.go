package drift

import (
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
)

// toolName returns the name a tool is matched by: its name, function.name
// (OpenAI Chat) or custom.name, else its type (built-in tools), else its
// first member's key (Gemini built-ins), else "#i".
func toolName(t gjson.Result, i int) string {
	for _, p := range [...][]string{{"name"}, {"function", "name"}, {"custom", "name"}, {"type"}} {
		if v := lookup(t, p...); v.Type == gjson.String {
			return v.Str
		}
	}
	name := ""
	t.ForEach(func(k, _ gjson.Result) bool {
		name = k.Str
		return false
	})
	if name == "" {
		name = "#" + strconv.Itoa(i)
	}
	return name
}

func toolNames(ts []gjson.Result) []string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = toolName(t, i)
	}
	return names
}

// toolList compares two tool lists at comps ("tools"). Tools are matched by
// name, the k-th tool of a name in A with the k-th of that name in B.
// Unmatched tools are removed or added; matched tools outside a longest
// common order have moved (a reorder), or, for the same set of tools, the
// tools whose position changed when they are no more; matched tools are compared as
// values. Differences are emitted position by position, so the first one
// is the first position whose tool differs.
//
// a and b are the tools arrays; either may be absent (the zero Result).
func (w *walker) toolList(comps []string, a, b gjson.Result) {
	before := w.total
	ta, tb := a.Array(), b.Array()
	na, nb := toolNames(ta), toolNames(tb)
	if slices.Equal(na, nb) {
		if a.Exists() && b.Exists() {
			w.layout(comps, a, b, "")
		}
		for i := range ta {
			w.value(child(comps, strconv.Itoa(i)), ta[i], tb[i], na[i])
		}
		if w.total == before && a.Exists() && b.Exists() {
			w.whitespace(comps, a, b, "")
		}
		return
	}
	queue := map[string][]int{}
	for j, n := range nb {
		queue[n] = append(queue[n], j)
	}
	matchA := make([]int, len(na))
	matchB := make([]int, len(nb))
	for j := range matchB {
		matchB[j] = -1
	}
	var seq, seqA []int // B positions of matched A tools, and their A positions
	for i, n := range na {
		matchA[i] = -1
		if q := queue[n]; len(q) > 0 {
			matchA[i], queue[n] = q[0], q[1:]
			matchB[q[0]] = i
			seq = append(seq, q[0])
			seqA = append(seqA, i)
		}
	}
	movedA := make([]bool, len(na))
	keep := increasing(seq)
	nMoved := 0
	for k, i := range seqA {
		movedA[i] = !keep[k]
		if movedA[i] {
			nMoved++
		}
	}
	// With the same tools on both sides, a swap reads better as the tools
	// whose position changed, when that marks no more tools than the
	// longest common order does.
	if len(seq) == len(na) && len(seq) == len(nb) {
		nPos := 0
		for i := range na {
			if matchA[i] != i {
				nPos++
			}
		}
		if nPos <= nMoved {
			for i := range na {
				movedA[i] = matchA[i] != i
			}
		}
	}
	movedB := func(j int) bool { return matchB[j] >= 0 && movedA[matchB[j]] }

	lists := &ToolLists{A: na, B: nb}
	for i, n := range na {
		switch {
		case matchA[i] < 0:
			lists.Removed = append(lists.Removed, n)
		case movedA[i]:
			lists.Moved = append(lists.Moved, n)
		}
	}
	for j, n := range nb {
		if matchB[j] < 0 {
			lists.Added = append(lists.Added, n)
		}
	}
	if w.tools == nil {
		w.tools = lists
	}

	reordered := len(lists.Moved) > 0
	for i := range max(len(na), len(nb)) {
		at := child(comps, strconv.Itoa(i))
		if i < len(na) && matchA[i] < 0 {
			oa, _ := w.offsets(ta[i].Index, -1)
			w.emit(at, Diff{Kind: Removed, Tool: na[i], OffsetA: oa, OffsetB: -1})
		}
		if i < len(nb) && matchB[i] < 0 {
			_, ob := w.offsets(-1, tb[i].Index)
			w.emit(at, Diff{Kind: Added, Tool: nb[i], OffsetA: -1, OffsetB: ob})
		}
		if reordered && ((i < len(na) && movedA[i]) || (i < len(nb) && movedB(i))) {
			reordered = false // one reorder entry, at the first moved position
			da, db := -1, -1
			tool := ""
			if i < len(na) {
				da, tool = ta[i].Index, na[i]
			}
			if i < len(nb) {
				db = tb[i].Index
				if tool == "" || !movedA[i] {
					tool = nb[i]
				}
			}
			oa, ob := w.offsets(da, db)
			w.emit(at, Diff{Kind: Reorder, Tool: tool, OffsetA: oa, OffsetB: ob})
		}
		if i < len(na) && matchA[i] >= 0 {
			w.value(at, ta[i], tb[matchA[i]], na[i])
		}
	}
}

// increasing marks a longest strictly increasing subsequence of seq.
func increasing(seq []int) []bool {
	keep := make([]bool, len(seq))
	if len(seq) == 0 {
		return keep
	}
	tails := []int{} // tails[l]: index in seq of the smallest tail of an increasing run of length l+1
	prev := make([]int, len(seq))
	for i, v := range seq {
		l, _ := slices.BinarySearchFunc(tails, v, func(t, v int) int { return seq[t] - v })
		if l > 0 {
			prev[i] = tails[l-1]
		} else {
			prev[i] = -1
		}
		if l == len(tails) {
			tails = append(tails, i)
		} else {
			tails[l] = i
		}
	}
	for i := tails[len(tails)-1]; i >= 0; i = prev[i] {
		keep[i] = true
	}
	return keep
}
