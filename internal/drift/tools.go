package drift

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// toolName returns the name a tool is matched by: its name, function.name
// (OpenAI Chat) or custom.name, else its type (built-in tools), else its
// first member's key (Gemini built-ins), else "#i".
func toolName(t gjson.Result, i int) string {
	for _, p := range [...][]string{{"name"}, {"function", "name"}, {"custom", "name"}, {"type"}} {
		if v := wire.Lookup(t, p...); v.Type == gjson.String {
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

// unit is one tool as tools are matched: an element of the tools array,
// or, in Gemini's nested tools, one function declaration or one built-in
// tool of a tools entry.
type unit struct {
	val  gjson.Result
	path []string // below the tools array: "3", or "0", "functionDeclarations", "2"
	// valPath, when set, is where val is, when that is not path: a
	// Gemini entry of one built-in tool is the tool (path "0"), its
	// member's value the tool's value ("0", "googleSearch").
	valPath []string
	name    string
	// group and rank place the unit: its tools entry, and its place among
	// the units of that entry.
	group, rank int
}

// listUnits returns the elements of a tools array as units.
func listUnits(arr gjson.Result) (units []unit, groups []string) {
	i := 0
	arr.ForEach(func(_, t gjson.Result) bool {
		units = append(units, unit{val: t, path: []string{strconv.Itoa(i)}, name: toolName(t, i), group: i})
		i++
		return true
	})
	return units, nil
}

// geminiUnits flattens Gemini's tools: the function declarations of every
// entry, in order, each a unit, and every other member of an entry (a
// built-in tool, {"googleSearch":{}}) a unit named by its key, the
// members of an entry taken in key order, so that an entry of two
// built-in tools holds the same two tools in either key order. groups
// describes how the units are grouped into entries, one string per entry,
// so that two lists of the same tools grouped differently can be told.
func geminiUnits(arr gjson.Result) (units []unit, groups []string) {
	g := 0
	arr.ForEach(func(_, entry gjson.Result) bool {
		ms, _ := members(entry)
		if !entry.IsObject() {
			units = append(units, unit{val: entry, path: []string{strconv.Itoa(g)}, name: toolName(entry, g), group: g})
			groups = append(groups, "tool")
			g++
			return true
		}
		// Members of an entry in key order: their order in the entry is
		// an object's key order (an encoding), not an order of tools.
		slices.SortStableFunc(ms, func(x, y member) int { return strings.Compare(x.key.Str, y.key.Str) })
		var sig strings.Builder
		rank := 0
		for _, m := range ms {
			// The grouping is the value's: decoded keys, in key order,
			// and how many declarations each entry holds. Key spelling,
			// key order and duplicates are encodings, found by the walk.
			key := gjson.Escape(m.key.Str)
			if isDeclarations(m) {
				// functionDeclarations and function_declarations are one
				// protobuf field, which Gemini reads either way.
				sig.WriteString(`"functionDeclarations"`)
			} else {
				sig.WriteString(strconv.Quote(m.key.Str))
			}
			if !isDeclarations(m) {
				u := unit{val: m.val, path: []string{strconv.Itoa(g), key}, name: m.key.Str, group: g, rank: rank}
				if len(ms) == 1 {
					u.path, u.valPath = u.path[:1], u.path // the entry is the tool
				}
				units = append(units, u)
				rank++
				sig.WriteString(":tool,")
				continue
			}
			i := 0
			m.val.ForEach(func(_, d gjson.Result) bool {
				units = append(units, unit{val: d, path: []string{strconv.Itoa(g), key, strconv.Itoa(i)}, name: toolName(d, i), group: g, rank: rank})
				i++
				rank++
				return true
			})
			fmt.Fprintf(&sig, ":%d,", i)
		}
		groups = append(groups, sig.String())
		g++
		return true
	})
	return units, groups
}

// sameSpelling names the declarations of both sides' units
// functionDeclarations in their paths when the two sides spell that key
// differently, so that a path is the same whichever side is A; where they
// spell it alike, paths keep the inputs' spelling.
func sameSpelling(ua, ub []unit) {
	spellings := func(us []unit) map[string]bool {
		m := map[string]bool{}
		for _, u := range us {
			if len(u.path) == 3 {
				m[u.path[1]] = true
			}
		}
		return m
	}
	sa, sb := spellings(ua), spellings(ub)
	if maps.Equal(sa, sb) {
		return
	}
	for _, us := range [][]unit{ua, ub} {
		for i := range us {
			if len(us[i].path) == 3 {
				us[i].path = []string{us[i].path[0], "functionDeclarations", us[i].path[2]}
			}
		}
	}
}

// isDeclarations reports whether a member of a Gemini tools entry is its
// list of function declarations.
func isDeclarations(m member) bool {
	return (m.key.Str == "functionDeclarations" || m.key.Str == "function_declarations") && m.val.IsArray()
}

// earlier returns the path of whichever of two units comes first in its
// header (by entry, then place in it, then path), so that a difference
// between them is placed the same way whichever side is A.
func earlier(x, y unit) []string {
	switch {
	case x.group != y.group:
		if x.group < y.group {
			return x.path
		}
		return y.path
	case x.rank != y.rank:
		if x.rank < y.rank {
			return x.path
		}
		return y.path
	case joinPath(y.path) < joinPath(x.path):
		return y.path
	}
	return x.path
}

// at returns the path of a unit below the tools path comps.
func at(comps, path []string) []string { return append(comps, path...) }

// toolList compares two tool lists at comps ("tools"). Tools are matched by
// name (see matchTools); for Gemini, over the function declarations of
// every tools entry, flattened, while paths keep the nesting
// (tools.0.functionDeclarations.2). Unmatched tools are removed or added;
// matched tools outside a longest common order have moved (a reorder),
// or, for the same set of tools, the tools whose position changed when
// they are no more; matched tools are compared as values. Differences are
// emitted position by position, so the first one is the first position
// whose tool differs.
//
// a and b are the tools arrays; either may be absent (the zero Result).
func (w *walker) toolList(comps []string, a, b gjson.Result) {
	before := w.total
	gemini := w.a.wire == wire.Gemini && w.b.wire == wire.Gemini
	units := listUnits
	if gemini {
		units = geminiUnits
	}
	ua, groupsA := units(a)
	ub, groupsB := units(b)
	if gemini {
		sameSpelling(ua, ub)
	}
	na, nb := unitNames(ua), unitNames(ub)
	both := a.Exists() && b.Exists()
	matchA, matchB := matchTools(ua, ub, na, nb)
	if inOrder(matchA, len(nb)) {
		switch {
		case gemini && !slices.Equal(groupsA, groupsB):
			w.regrouped(comps, a, b, groupsA, groupsB)
		case both && !gemini:
			w.layout(comps, a, b, "")
		}
		for i := range ua {
			w.unit(comps, ua[i], ub[i])
		}
		if w.total == before && both && gemini {
			w.declarationsSpelling(comps, a, b)
		}
		if w.total == before && both {
			// Only the bytes around the tools differ: spacing, or for
			// Gemini the key order or spacing of a tools entry.
			w.value(comps, a, b, "")
		}
		return
	}
	if gemini && len(na) == len(nb) && !slices.Contains(matchA, -1) && !sameElements(groupsA, groupsB) {
		// The same tools, grouped into other entries: the order of the
		// tools of one entry is its key order, so the flattened order
		// says nothing of a move.
		w.regrouped(comps, a, b, groupsA, groupsB)
		for i, j := range matchA {
			w.unit(comps, ua[i], ub[j])
		}
		return
	}
	var seq, seqA []int // B positions of matched A tools, and their A positions
	for i, j := range matchA {
		if j >= 0 {
			seq = append(seq, j)
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
			lists.RemovedAt = append(lists.RemovedAt, i)
		case movedA[i]:
			lists.Moved = append(lists.Moved, n)
			lists.MovedA = append(lists.MovedA, i)
		}
	}
	for j, n := range nb {
		switch {
		case matchB[j] < 0:
			lists.Added = append(lists.Added, n)
			lists.AddedAt = append(lists.AddedAt, j)
		case movedB(j):
			lists.MovedB = append(lists.MovedB, j)
		}
	}
	if w.tools == nil {
		w.tools = lists
	}

	reordered := len(lists.Moved) > 0
	for i := range max(len(na), len(nb)) {
		removed, added := i < len(na) && matchA[i] < 0, i < len(nb) && matchB[i] < 0
		emitRemoved := func() {
			oa, _ := w.offsets(ua[i].val.Index, -1)
			w.emit(at(comps, ua[i].path), Diff{Kind: Removed, Tool: na[i], OffsetA: oa, OffsetB: -1})
		}
		emitAdded := func() {
			_, ob := w.offsets(-1, ub[i].val.Index)
			w.emit(at(comps, ub[i].path), Diff{Kind: Added, Tool: nb[i], OffsetA: -1, OffsetB: ob})
		}
		switch {
		case removed && added && joinPath(earlier(ua[i], ub[i])) != joinPath(ua[i].path):
			emitAdded()
			emitRemoved()
		case removed && added:
			emitRemoved()
			emitAdded()
		case removed:
			emitRemoved()
		case added:
			emitAdded()
		}
		if reordered && ((i < len(na) && movedA[i]) || (i < len(nb) && movedB(i))) {
			reordered = false // one reorder entry, at the first moved position
			da, db := -1, -1
			tool := ""
			var path []string
			if i < len(na) {
				da, tool, path = ua[i].val.Index, na[i], ua[i].path
			}
			if i < len(nb) {
				db = ub[i].val.Index
				if tool == "" || !movedA[i] {
					tool = nb[i]
				}
				if path == nil {
					path = ub[i].path
				} else {
					path = earlier(ua[i], ub[i])
				}
			}
			oa, ob := w.offsets(da, db)
			w.emit(at(comps, path), Diff{Kind: Reorder, Tool: tool, OffsetA: oa, OffsetB: ob})
		}
		if i < len(na) && matchA[i] >= 0 {
			w.unit(comps, ua[i], ub[matchA[i]])
		}
	}
}

// matchTools matches the tools of two lists along the cheapest edit
// script between them (see align), then what that left by name: a tool
// of a name that one tool on each side has, equal tools in order (one
// that moved), the rest at their own position, then in order. Values are
// equal when their canonical bytes are (key order ignored). So two
// same-named tools that swap places are a reorder, removing one of them
// removes that one, and adding or removing a tool moves none of the
// others, however many of them are equal. It returns each tool's match
// on the other side, -1 for none.
func matchTools(ua, ub []unit, na, nb []string) (matchA, matchB []int) {
	matchA, matchB = make([]int, len(na)), make([]int, len(nb))
	for i := range matchA {
		matchA[i] = -1
	}
	for j := range matchB {
		matchB[j] = -1
	}
	pair := func(i, j int) { matchA[i], matchB[j] = j, i }
	// The common head and tail, equal byte for byte, pair first. (A
	// Gemini built-in tool's value is the value of its key, so the name
	// is compared too.)
	lo, hiA, hiB := 0, len(na), len(nb)
	for lo < hiA && lo < hiB && na[lo] == nb[lo] && ua[lo].val.Raw == ub[lo].val.Raw {
		pair(lo, lo)
		lo++
	}
	for hiA > lo && hiB > lo && na[hiA-1] == nb[hiB-1] && ua[hiA-1].val.Raw == ub[hiB-1].val.Raw {
		hiA, hiB = hiA-1, hiB-1
		pair(hiA, hiB)
	}
	canonical := func(u unit) string {
		c, err := canon.AppendSorted([]byte(u.name+"\x00"), []byte(u.val.Raw))
		if err != nil {
			return u.name + "\x00" + u.val.Raw
		}
		return string(c)
	}
	valA, valB := make([]string, len(na)), make([]string, len(nb))
	for i := lo; i < hiA; i++ {
		valA[i] = canonical(ua[i])
	}
	for j := lo; j < hiB; j++ {
		valB[j] = canonical(ub[j])
	}
	same := func(i, j int) bool { return valA[i] == valB[j] }
	// A tool may be taken for one that changed only where its value is
	// one more often on its side than on the other: a tool with an equal
	// counterpart there moved, if anything.
	excess := map[string]int{}
	for i := lo; i < hiA; i++ {
		excess[valA[i]]++
	}
	for j := lo; j < hiB; j++ {
		excess[valB[j]]--
	}
	align(hiA-lo, hiB-lo, func(x, y int) (change, equal bool) {
		i, j := lo+x, lo+y
		if na[i] != nb[j] {
			return false, false
		}
		if same(i, j) {
			return false, true
		}
		return excess[valA[i]] > 0 && excess[valB[j]] < 0, false
	}, func(x, y int) { pair(lo+x, lo+y) })

	inB := map[string][]int{} // unmatched B tools by name, in order
	for j := lo; j < hiB; j++ {
		if matchB[j] < 0 {
			inB[nb[j]] = append(inB[nb[j]], j)
		}
	}
	inA := map[string]int{}
	for i := lo; i < hiA; i++ {
		if matchA[i] < 0 {
			inA[na[i]]++
		}
	}
	for _, pass := range []func(i, j int) bool{
		func(i, j int) bool { return inA[na[i]] == 1 && len(inB[na[i]]) == 1 },
		same,
		func(i, j int) bool { return i == j },
		func(int, int) bool { return true },
	} {
		for i := lo; i < hiA; i++ {
			if matchA[i] >= 0 {
				continue
			}
			for _, j := range inB[na[i]] {
				if matchB[j] < 0 && pass(i, j) {
					pair(i, j)
					break
				}
			}
		}
	}
	return matchA, matchB
}

// Costs of align's edit script: a tool taken for one that changed costs
// less than leaving both for later, so a tool whose description changed
// in place is a change, not a move.
const (
	costChange = 3
	costLeave  = 2
	// maxAlignCells bounds align's table: lists that differ over more
	// than that are matched by matchTools's later passes alone.
	maxAlignCells = 1 << 20
)

// align pairs, along an edit script of least cost, tools 0…n-1 of A with
// tools 0…m-1 of B. cmp says whether two tools are equal, which pairs
// them at no cost, or else whether one may be taken for the other
// changed, at costChange; a tool left unpaired costs costLeave. Among
// scripts of one cost it takes, from the end, a pair, then leaves A's
// tool. (Which of several equal tools is the one removed or added is not
// for it to say: they cannot be told apart.)
func align(n, m int, cmp func(x, y int) (change, equal bool), pair func(x, y int)) {
	rows, cols := n+1, m+1
	if n == 0 || m == 0 || rows*cols > maxAlignCells {
		return
	}
	// step returns the cost of pairing A's x-1 with B's y-1, or -1 where
	// they do not pair.
	step := func(x, y int) int32 {
		switch c, e := cmp(x-1, y-1); {
		case e:
			return 0
		case c:
			return costChange
		}
		return -1
	}
	cost := make([]int32, rows*cols)
	for x := range rows {
		for y := range cols {
			switch {
			case x == 0:
				cost[y] = int32(y * costLeave)
			case y == 0:
				cost[x*cols] = int32(x * costLeave)
			default:
				c := min(cost[(x-1)*cols+y], cost[x*cols+y-1]) + costLeave
				if s := step(x, y); s >= 0 {
					c = min(c, cost[(x-1)*cols+y-1]+s)
				}
				cost[x*cols+y] = c
			}
		}
	}
	for x, y := n, m; x > 0 && y > 0; {
		c := cost[x*cols+y]
		switch s := step(x, y); {
		case s >= 0 && c == cost[(x-1)*cols+y-1]+s:
			pair(x-1, y-1)
			x, y = x-1, y-1
		case c == cost[(x-1)*cols+y]+costLeave:
			x--
		default:
			y--
		}
	}
}

// inOrder reports whether every tool of A is matched with the tool at
// its own position in B, and B has no other: the same tools in the same
// order.
func inOrder(matchA []int, nb int) bool {
	if len(matchA) != nb {
		return false
	}
	for i, j := range matchA {
		if i != j {
			return false
		}
	}
	return true
}

func unitNames(us []unit) []string {
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.name
	}
	return names
}

// unit compares two matched tools, at the earlier of their paths.
func (w *walker) unit(comps []string, x, y unit) {
	for _, u := range []*unit{&x, &y} {
		if u.valPath != nil {
			u.path = u.valPath
		}
	}
	path := at(comps, earlier(x, y))
	outer := w.toolDepth
	w.toolDepth = len(path)
	w.value(path, x.val, y.val, x.name)
	w.toolDepth = outer
}

// declarationsSpelling records, for Gemini tools entries the same but for
// the spelling of their declarations' key (functionDeclarations against
// function_declarations), each such entry as an encoding difference.
func (w *walker) declarationsSpelling(comps []string, a, b gjson.Result) {
	key := func(entry gjson.Result) (member, bool) {
		ms, _ := members(entry)
		for _, m := range ms {
			if isDeclarations(m) {
				return m, true
			}
		}
		return member{}, false
	}
	for g := 0; ; g++ {
		ea, eb := a.Get(strconv.Itoa(g)), b.Get(strconv.Itoa(g))
		if !ea.Exists() || !eb.Exists() {
			return
		}
		ma, okA := key(ea)
		mb, okB := key(eb)
		if okA && okB && ma.key.Str != mb.key.Str {
			oa, ob := w.offsets(ma.key.Index, mb.key.Index)
			w.encodingDiff(child(child(comps, strconv.Itoa(g)), "functionDeclarations"), "", "key spelling", oa, ob, ma.key.Raw, mb.key.Raw)
		}
	}
}

// regrouped records that the same Gemini tools, in the same order, are
// grouped into tools entries another way, at the first entry that differs.
func (w *walker) regrouped(comps []string, a, b gjson.Result, groupsA, groupsB []string) {
	g := 0
	for g < len(groupsA) && g < len(groupsB) && groupsA[g] == groupsB[g] {
		g++
	}
	ea, eb := a.Get(strconv.Itoa(g)), b.Get(strconv.Itoa(g))
	da, db := -1, -1
	if ea.Exists() {
		da = ea.Index
	}
	if eb.Exists() {
		db = eb.Index
	}
	oa, ob := w.offsets(da, db)
	path := child(comps, strconv.Itoa(g))
	w.emit(path, Diff{Kind: Content, Note: "grouping", OffsetA: oa, OffsetB: ob})
	w.setContent(path, ea, eb, "")
}

// sameElements reports whether a and b hold the same strings as often,
// in any order.
func sameElements(a, b []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
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
