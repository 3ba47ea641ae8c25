package assembler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// toolsSeed seeds the random tests of Tools; a failure prints the
// sequence number and its operations, so it can be replayed.
const toolsSeed = 0x7001_5eed

// toolsPool is the few names random tools take, so that random lists hold
// tools sharing a name, which is legal and what makes Index interesting.
var toolsPool = []string{"alpha", "beta", "gamma", "delta", "eps"}

// toolsQueries are the names Index is asked for: every name a random
// tool can have, and one none has.
var toolsQueries = append(slices.Clone(toolsPool), "absent")

// toolsRandTool returns a random valid tool. Its fields take few values,
// so two random tools are sometimes interchangeable, and its parameters
// are sometimes written in a non-canonical form.
func toolsRandTool(r *rand.Rand) Tool {
	t := Tool{
		Name:        toolsPool[r.IntN(len(toolsPool))],
		Description: [...]string{"", "One.", "Two."}[r.IntN(3)],
		Idempotent:  r.IntN(2) == 0,
	}
	switch r.IntN(5) {
	case 0: // no parameters
	case 1:
		t.Parameters = json.RawMessage(`{"type":"object"}`)
	case 2: // the canonical bytes of case 1, written differently
		t.Parameters = json.RawMessage(` { "type" : "object" } `)
	case 3:
		t.Parameters = json.RawMessage(fmt.Sprintf(`{"n":%d}`, r.IntN(3)))
	case 4:
		t.Parameters = json.RawMessage(`{"b":[1,true,null],"a":"x"}`)
	}
	switch r.IntN(3) {
	case 1:
		t.DependsOn = []string{"alpha"}
	case 2:
		t.DependsOn = []string{"beta", "gamma"}
	}
	return t
}

func toolsRandTools(r *rand.Rand, n int) []Tool {
	ts := make([]Tool, n)
	for i := range ts {
		ts[i] = toolsRandTool(r)
	}
	return ts
}

// toolsRecord makes t canonical as Insert does.
func toolsRecord(tb testing.TB, t Tool) *canonicalTool {
	tb.Helper()
	c, err := canonicalize(t, "listener")
	if err != nil {
		tb.Fatalf("canonicalize(%+v): %v", t, err)
	}
	return &c
}

func toolsRecords(tb testing.TB, ts ...Tool) []*canonicalTool {
	tb.Helper()
	out := make([]*canonicalTool, len(ts))
	for i, t := range ts {
		out[i] = toolsRecord(tb, t)
	}
	return out
}

// toolsScribble overwrites what a caller can still reach of tools it has
// handed over or been handed: bytes of Parameters, elements of DependsOn,
// and the fields of the copies themselves.
func toolsScribble(ts []Tool) {
	for i := range ts {
		for j := range ts[i].Parameters {
			ts[i].Parameters[j] = '#'
		}
		for j := range ts[i].DependsOn {
			ts[i].DependsOn[j] = "scribbled"
		}
		ts[i].Name = "scribbled"
		ts[i].Description = "scribbled"
		ts[i].Idempotent = !ts[i].Idempotent
	}
}

func toolsEqualTool(a, b Tool) bool {
	return a.Name == b.Name && a.Description == b.Description &&
		bytes.Equal(a.Parameters, b.Parameters) &&
		slices.Equal(a.DependsOn, b.DependsOn) && a.Idempotent == b.Idempotent
}

func toolsEqualRecord(a, b *canonicalTool) bool {
	return bytes.Equal(a.json(), b.json()) && toolsEqualTool(a.clone(), b.clone())
}

func toolsShow(c *canonicalTool) string {
	return fmt.Sprintf("%p %s dependsOn=%q idempotent=%v", c, c.json(), c.tool.DependsOn, c.tool.Idempotent)
}

// toolsModelSame is the definition same must agree with: equal lengths,
// and each pair of records with equal canonical bytes, DependsOn and
// Idempotent.
func toolsModelSame(a, b []*canonicalTool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i].json(), b[i].json()) ||
			!slices.Equal(a[i].tool.DependsOn, b[i].tool.DependsOn) ||
			a[i].tool.Idempotent != b[i].tool.Idempotent {
			return false
		}
	}
	return true
}

// toolsDeepCopy copies the contents of records, to show later that
// nothing wrote into them.
func toolsDeepCopy(recs []*canonicalTool) []canonicalTool {
	out := make([]canonicalTool, len(recs))
	for i, c := range recs {
		t := c.clone()
		out[i] = canonicalTool{tool: &t, params: t.Parameters, provider: c.provider}
		if c.alt != nil {
			out[i].alt = &altJSON{name: c.alt.name, description: c.alt.description, raw: slices.Clone(c.alt.raw)}
		}
	}
	return out
}

func toolsCheckContent(tb testing.TB, what string, recs []*canonicalTool, want []canonicalTool) {
	tb.Helper()
	for i := range recs {
		if !toolsEqualRecord(recs[i], &want[i]) || recs[i].provider != want[i].provider {
			tb.Errorf("%s: record %d now %s, was %s", what, i, toolsShow(recs[i]), toolsShow(&want[i]))
		}
	}
}

// toolsCheck reports how l differs from model, the records it should hold
// in order, through every reading method. A record in fresh is one the
// test made canonical itself for a tool the list made its own copy of: it
// must match by value. Every other record must be the very record of the
// model, as a list shares what it keeps. On success the fresh records of
// model are replaced by the list's, so that later checks demand those be
// kept too.
func toolsCheck(l Tools, model []*canonicalTool, fresh map[*canonicalTool]bool) error {
	if l.Len() != len(model) {
		return fmt.Errorf("Len() = %d, want %d", l.Len(), len(model))
	}
	recs := l.records()
	if len(recs) != len(model) {
		return fmt.Errorf("records() holds %d, want %d", len(recs), len(model))
	}
	for i, want := range model {
		got := recs[i]
		if fresh[want] {
			if !toolsEqualRecord(got, want) {
				return fmt.Errorf("records()[%d] = %s, want a copy of %s", i, toolsShow(got), toolsShow(want))
			}
		} else if got != want {
			return fmt.Errorf("records()[%d] = %s, want the record %s", i, toolsShow(got), toolsShow(want))
		}
		if name := l.Name(i); name != want.tool.Name {
			return fmt.Errorf("Name(%d) = %q, want %q", i, name, want.tool.Name)
		}
		if at := l.At(i); !toolsEqualTool(at, want.clone()) {
			return fmt.Errorf("At(%d) = %+v, want %+v", i, at, want.tool)
		}
	}
	s := l.Slice()
	if len(s) != len(model) {
		return fmt.Errorf("Slice() holds %d, want %d", len(s), len(model))
	}
	for i := range s {
		if !toolsEqualTool(s[i], model[i].clone()) {
			return fmt.Errorf("Slice()[%d] = %+v, want %+v", i, s[i], model[i].tool)
		}
	}
	for _, name := range toolsQueries {
		want := slices.IndexFunc(model, func(c *canonicalTool) bool { return c.tool.Name == name })
		if got := l.Index(name); got != want {
			return fmt.Errorf("Index(%q) = %d, want %d", name, got, want)
		}
	}
	for i, want := range model {
		if fresh[want] {
			model[i] = recs[i]
		}
	}
	return nil
}

// toolsPos returns a random insertion position of a list of n, the ends
// often.
func toolsPos(r *rand.Rand, n int) int {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return n
	}
	return r.IntN(n + 1)
}

// toolsIdx returns a random index of a list of n > 0, the ends often.
func toolsIdx(r *rand.Rand, n int) int {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return n - 1
	}
	return r.IntN(n)
}

// TestToolsAgainstModel applies random operations to lists and to a plain
// slice of records, and checks after each that the list reads as the
// slice does, that every list made on the way still reads as it did, and
// that same agrees with its definition on lists built alike, rebuilt,
// perturbed and unrelated.
func TestToolsAgainstModel(t *testing.T) {
	r := rand.New(rand.NewPCG(toolsSeed, 1))
	const sequences = 3000
	for seq := range sequences {
		n := r.IntN(25)
		base := toolsRecords(t, toolsRandTools(r, n)...)
		baseContent := toolsDeepCopy(base)
		model := slices.Clone(base)
		l := listOf(newToolArray(base))
		// twin is built from the same base by the same operations; alt
		// by the same operations, inserting sometimes other tools.
		twin, alt := l, l
		altModel := slices.Clone(model)

		var ops []string
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("seed %#x sequence %d, base of %d, after [%s]: %s",
				toolsSeed, seq, n, strings.Join(ops, ", "), fmt.Sprintf(format, args...))
		}
		if err := toolsCheck(l, model, nil); err != nil {
			fail("%v", err)
		}
		type state struct {
			l     Tools
			model []*canonicalTool
		}
		states := []state{{l, model}}

		for range 1 + r.IntN(8) {
			fresh := map[*canonicalTool]bool{}
			var next, nextTwin, nextAlt Tools
			var err, errTwin, errAlt error
			insert := func(pos int, ts []Tool, appendOp bool) {
				want := toolsRecords(t, ts...)
				for _, c := range want {
					fresh[c] = true
				}
				alts := slices.Clone(ts)
				for i := range alts {
					if r.IntN(2) == 0 {
						alts[i] = toolsRandTool(r)
					}
				}
				altWant := toolsRecords(t, alts...)
				if appendOp {
					next, err = l.Append(ts...)
					nextTwin, errTwin = twin.Append(ts...)
					nextAlt, errAlt = alt.Append(alts...)
				} else {
					next, err = l.Insert(pos, ts...)
					nextTwin, errTwin = twin.Insert(pos, ts...)
					nextAlt, errAlt = alt.Insert(pos, alts...)
				}
				// The lists hold copies: what the caller keeps is its own.
				toolsScribble(ts)
				toolsScribble(alts)
				model = slices.Insert(slices.Clone(model), pos, want...)
				altModel = slices.Insert(slices.Clone(altModel), pos, altWant...)
			}
			switch op := r.IntN(7); {
			case op <= 1:
				pos, k := toolsPos(r, l.Len()), 1+r.IntN(3)
				ops = append(ops, fmt.Sprintf("Insert(%d, %d tools)", pos, k))
				insert(pos, toolsRandTools(r, k), false)
			case op == 2:
				k := 1 + r.IntN(3)
				ops = append(ops, fmt.Sprintf("Append(%d tools)", k))
				insert(l.Len(), toolsRandTools(r, k), true)
			case op == 3 && l.Len() > 0:
				i := toolsIdx(r, l.Len())
				ops = append(ops, fmt.Sprintf("Remove(%d)", i))
				next, nextTwin, nextAlt = l.Remove(i), twin.Remove(i), alt.Remove(i)
				model = slices.Delete(slices.Clone(model), i, i+1)
				altModel = slices.Delete(slices.Clone(altModel), i, i+1)
			case op == 4 && l.Len() > 0:
				from, to := toolsIdx(r, l.Len()), toolsIdx(r, l.Len())
				ops = append(ops, fmt.Sprintf("Move(%d, %d)", from, to))
				next, nextTwin, nextAlt = l.Move(from, to), twin.Move(from, to), alt.Move(from, to)
				move := func(m []*canonicalTool) []*canonicalTool {
					c := m[from]
					return slices.Insert(slices.Delete(slices.Clone(m), from, from+1), to, c)
				}
				model, altModel = move(model), move(altModel)
			case op == 5:
				pos := toolsPos(r, l.Len())
				ops = append(ops, fmt.Sprintf("Insert(%d)", pos))
				next, err = l.Insert(pos)
				nextTwin, errTwin = twin.Insert(pos)
				nextAlt, errAlt = alt.Insert(pos)
			default:
				ops = append(ops, "Reverse()")
				next, nextTwin, nextAlt = l.Reverse(), twin.Reverse(), alt.Reverse()
				model = slices.Clone(model)
				slices.Reverse(model)
				altModel = slices.Clone(altModel)
				slices.Reverse(altModel)
			}
			if err != nil || errTwin != nil || errAlt != nil {
				fail("errors %v, %v, %v", err, errTwin, errAlt)
			}
			l, twin, alt = next, nextTwin, nextAlt
			if err := toolsCheck(l, model, fresh); err != nil {
				fail("%v", err)
			}

			if !l.same(twin) || !twin.same(l) {
				fail("not same as the list built alike")
			}
			want := toolsModelSame(model, altModel)
			if got := l.same(alt); got != want || alt.same(l) != got {
				fail("same(list with other inserted tools) = %v, %v, want %v", got, alt.same(l), want)
			}
			// The same tools, made canonical again, in one run.
			rebuilt := make([]*canonicalTool, len(model))
			for i, c := range model {
				rebuilt[i] = toolsRecord(t, c.clone())
			}
			if m := listOf(newToolArray(rebuilt)); !l.same(m) || !m.same(l) {
				fail("not same as its tools rebuilt")
			}
			if len(model) > 0 {
				perturbed := slices.Clone(model)
				perturbed[r.IntN(len(perturbed))] = toolsRecord(t, toolsRandTool(r))
				want := toolsModelSame(model, perturbed)
				m := listOf(newToolArray(perturbed))
				if got := l.same(m); got != want || m.same(l) != got {
					fail("same(perturbed %s) = %v, %v, want %v", toolsShow(perturbed[0]), got, m.same(l), want)
				}
			}
			old := states[r.IntN(len(states))]
			want = toolsModelSame(model, old.model)
			if got := l.same(old.l); got != want || old.l.same(l) != got {
				fail("same(earlier list) = %v, %v, want %v", got, old.l.same(l), want)
			}
			states = append(states, state{l, model})
		}

		// Every list made on the way reads as it did, record for record.
		for i, s := range states {
			if err := toolsCheck(s.l, s.model, nil); err != nil {
				fail("list %d of the sequence changed: %v", i, err)
			}
		}
		toolsCheckContent(t, fmt.Sprintf("sequence %d base", seq), base, baseContent)
		if t.Failed() {
			return
		}
	}
}

// TestToolsImmutable shows that no list changes when what At or Slice
// returned, or what was handed to Insert or NewTools, is changed, nor when
// other lists are made from it.
func TestToolsImmutable(t *testing.T) {
	mk := func() []Tool {
		return []Tool{
			{Name: "a", Description: "A.", Parameters: json.RawMessage(`{"type":"object"}`), DependsOn: []string{"b"}},
			{Name: "b", Parameters: json.RawMessage(`{"n":1}`), DependsOn: []string{"a", "c"}, Idempotent: true},
			{Name: "a", Description: "Second a.", Parameters: json.RawMessage(`[1, 2]`), DependsOn: []string{"c"}},
			{Name: "c", Parameters: json.RawMessage(`{"x":{"y":null}}`)},
		}
	}
	base := toolsRecords(t, mk()...)
	l := listOf(newToolArray(base))

	in := mk()
	nt, err := NewTools(in...)
	if err != nil {
		t.Fatal(err)
	}
	extra := []Tool{{Name: "d", Parameters: json.RawMessage(`{"z":true}`), DependsOn: []string{"a"}}}
	ins, err := l.Insert(2, extra...)
	if err != nil {
		t.Fatal(err)
	}
	app, err := ins.Append(mk()[1])
	if err != nil {
		t.Fatal(err)
	}
	toolsScribble(in)
	toolsScribble(extra)

	lists := map[string]Tools{
		"original": l,
		"NewTools": nt,
		"Insert":   ins,
		"Append":   app,
		"Reverse":  app.Reverse(),
		"Remove":   app.Remove(1),
		"Move":     app.Reverse().Move(0, 4),
	}
	// Snapshot every list, then read and scribble on each in turn.
	recs := map[string][]*canonicalTool{}
	content := map[string][]canonicalTool{}
	for name, m := range lists {
		recs[name] = m.records()
		content[name] = toolsDeepCopy(recs[name])
	}
	// The tools handed over were copied when handed over.
	for i, c := range toolsRecords(t, mk()...) {
		if !toolsEqualRecord(nt.records()[i], c) {
			t.Errorf("NewTools: tool %d is %s after its input changed, want %s", i, toolsShow(nt.records()[i]), toolsShow(c))
		}
	}
	if want := toolsRecord(t, Tool{Name: "d", Parameters: json.RawMessage(`{"z":true}`), DependsOn: []string{"a"}}); !toolsEqualRecord(ins.records()[2], want) {
		t.Errorf("Insert: inserted tool is %s after its input changed, want %s", toolsShow(ins.records()[2]), toolsShow(want))
	}

	for name, m := range lists {
		for i := range m.Len() {
			at := []Tool{m.At(i)}
			toolsScribble(at)
		}
		toolsScribble(m.Slice())
		for other, o := range lists {
			what := fmt.Sprintf("after scribbling on what %s returned, %s", name, other)
			if got := o.records(); !slices.Equal(got, recs[other]) {
				t.Errorf("%s holds other records", what)
			}
			toolsCheckContent(t, what, o.records(), content[other])
			for i := range o.Len() {
				if !toolsEqualTool(o.At(i), content[other][i].clone()) || o.Name(i) != content[other][i].tool.Name {
					t.Errorf("%s: At(%d) = %+v, want %+v", what, i, o.At(i), content[other][i].tool)
				}
			}
			s := o.Slice()
			for i := range s {
				if !toolsEqualTool(s[i], content[other][i].clone()) {
					t.Errorf("%s: Slice()[%d] = %+v, want %+v", what, i, s[i], content[other][i].tool)
				}
			}
		}
	}
	if len(base) != 4 || l.Len() != 4 || !slices.Equal(l.records(), base) {
		t.Errorf("the original list now holds %d records, want its 4", l.Len())
	}
}

// toolsBig returns a list of n records of distinct canonical bytes whose
// names repeat every 1000.
func toolsBig(tb testing.TB, n int) (Tools, []*canonicalTool) {
	tb.Helper()
	recs := make([]*canonicalTool, n)
	for i := range recs {
		recs[i] = toolsRecord(tb, Tool{
			Name:        fmt.Sprintf("t%d", i%1000),
			Description: fmt.Sprintf("Tool %d.", i),
			Parameters:  json.RawMessage(`{"type":"object"}`),
		})
	}
	return listOf(newToolArray(recs)), recs
}

// TestToolsSameBuiltAlike shows that two lists built from one large base
// by the same operations are same, and by the structural path: the
// element-wise comparison reads records() of both lists, which allocates,
// whereas comparing runs does not. (No timing is measured.)
func TestToolsSameBuiltAlike(t *testing.T) {
	const n = 50_000
	base, recs := toolsBig(t, n)
	build := func(ins Tool) Tools {
		l := base.Move(10, 40_000).Remove(123)
		l, err := l.Insert(777, ins)
		if err != nil {
			t.Fatal(err)
		}
		return l.Reverse().Move(49_000, 3).Remove(n / 2)
	}
	x := Tool{Name: "x", Parameters: json.RawMessage(`{"type":"object"}`), DependsOn: []string{"t1"}}
	a, b := build(x), build(x)
	if !a.same(b) || !b.same(a) {
		t.Fatal("lists built alike are not same")
	}
	var same bool
	if allocs := testing.AllocsPerRun(10, func() { same = a.same(b) }); allocs != 0 || !same {
		t.Errorf("same of lists built alike = %v with %v allocations, want true with 0", same, allocs)
	}
	if !base.same(base) || !base.same(listOf(newToolArray(recs))) {
		t.Error("a list is not same as itself")
	}

	// Built alike but for the tool inserted: the aligned runs are
	// compared element by element, and that one differs.
	y := x
	y.Idempotent = true
	if c := build(y); a.same(c) || c.same(a) {
		t.Error("lists built alike but for one inserted tool's Idempotent are same")
	}
	// Built alike but for where one tool was moved: the records differ.
	d := base.Move(10, 40_001).Remove(123)
	d, _ = d.Insert(777, x)
	d = d.Reverse().Move(49_000, 3).Remove(n / 2)
	if a.same(d) || d.same(a) {
		t.Error("lists with one tool moved elsewhere are same")
	}
	if want := toolsModelSame(a.records(), d.records()); want {
		t.Error("the model finds the lists with one tool moved elsewhere same")
	}
}

// TestToolsSameOneToolDiffers shows that lists of equal length differing
// in one tool's canonical bytes, DependsOn or Idempotent are not same,
// whether their runs align or not, and that other differences
// (Parameters written differently, the provider) do not count.
func TestToolsSameOneToolDiffers(t *testing.T) {
	mk := func() []Tool {
		return []Tool{
			{Name: "a", Parameters: json.RawMessage(`{"type":"object"}`)},
			{Name: "b", Description: "B.", Parameters: json.RawMessage(`{"n":1}`), DependsOn: []string{"a"}},
			{Name: "c", Idempotent: true},
		}
	}
	vary := []struct {
		name string
		same bool
		f    func(*Tool)
	}{
		{"name", false, func(t *Tool) { t.Name = "B" }},
		{"description", false, func(t *Tool) { t.Description = "Other." }},
		{"no description", false, func(t *Tool) { t.Description = "" }},
		{"parameters", false, func(t *Tool) { t.Parameters = json.RawMessage(`{"n":2}`) }},
		{"no parameters", false, func(t *Tool) { t.Parameters = nil }},
		{"dependsOn", false, func(t *Tool) { t.DependsOn = []string{"c"} }},
		{"no dependsOn", false, func(t *Tool) { t.DependsOn = nil }},
		{"more dependsOn", false, func(t *Tool) { t.DependsOn = []string{"a", "c"} }},
		{"idempotent", false, func(t *Tool) { t.Idempotent = true }},
		{"parameters spaced", true, func(t *Tool) { t.Parameters = json.RawMessage(" {\n \"n\" : 1 } ") }},
		{"nothing", true, func(*Tool) {}},
	}
	for _, v := range vary {
		t.Run(v.name, func(t *testing.T) {
			must := toolsMust(t)
			base := toolsRecords(t, mk()...)
			ts := mk()
			v.f(&ts[1])
			other := toolsRecords(t, ts...)
			if got := toolsModelSame(base, other); got != v.same {
				t.Fatalf("model same = %v, want %v", got, v.same)
			}
			l := listOf(newToolArray(base))
			// Against l (one run), "rebuilt" (one run) is compared run by
			// run and "removed and inserted" (three runs) element by
			// element; against l2 (three runs) the other way round.
			pairs := map[string]Tools{
				"rebuilt":              listOf(newToolArray(other)),
				"removed and inserted": must(l.Remove(1).Insert(1, ts[1])),
			}
			l2 := must(l.Remove(1).Insert(1, mk()[1]))
			for name, m := range pairs {
				if got := l.same(m); got != v.same || m.same(l) != got {
					t.Errorf("%s: same = %v, %v, want %v", name, got, m.same(l), v.same)
				}
				if got := l2.same(m); got != v.same || m.same(l2) != got {
					t.Errorf("%s against a list of 3 runs: same = %v, %v, want %v", name, got, m.same(l2), v.same)
				}
			}
			other[0].provider = "someone else"
			if m := listOf(newToolArray(other)); l.same(m) != v.same {
				t.Errorf("same depends on the provider")
			}
		})
	}
}

// toolsMust returns a function that returns a list, failing tb on an
// error, to be called with what Insert, Append or NewTools return.
func toolsMust(tb testing.TB) func(Tools, error) Tools {
	return func(l Tools, err error) Tools {
		tb.Helper()
		if err != nil {
			tb.Fatal(err)
		}
		return l
	}
}

// TestToolsSameDifferentHistory shows that lists of the same tools built
// by different operations are same.
func TestToolsSameDifferentHistory(t *testing.T) {
	must := toolsMust(t)
	r := rand.New(rand.NewPCG(toolsSeed, 2))
	recs := toolsRecords(t, toolsRandTools(r, 12)...)
	l := listOf(newToolArray(recs))
	x := Tool{Name: "x", Parameters: json.RawMessage(`{"type":"object"}`)}
	withX := must(l.Insert(5, x))
	xSpaced := x
	xSpaced.Parameters = json.RawMessage(`{ "type": "object" }`)
	cases := map[string]Tools{
		"Reverse twice":               l.Reverse().Reverse(),
		"Move and back":               l.Move(2, 9).Move(9, 2),
		"Move to itself":              l.Move(4, 4),
		"Move first to last and back": l.Move(0, 11).Move(11, 0),
		"Reverse, Move, Reverse, Move": l.Reverse().Move(0, 11).Reverse().
			Move(0, 11),
		"Remove and Insert the tool":  must(l.Remove(3).Insert(3, l.At(3))),
		"Remove first, Insert at 0":   must(l.Remove(0).Insert(0, l.At(0))),
		"Remove last, Append":         must(l.Remove(11).Append(l.At(11))),
		"NewTools":                    must(NewTools(l.Slice()...)),
		"Append in two":               must(must(Tools{}.Append(l.Slice()[:6]...)).Append(l.Slice()[6:]...)),
		"Insert with reversed halves": must(l.Remove(0).Reverse().Insert(11, l.At(0))).Reverse(),
	}
	for name, m := range cases {
		if !toolsModelSame(l.records(), m.records()) {
			t.Fatalf("%s: the model finds the lists different; the case is wrong", name)
		}
		if !l.same(m) || !m.same(l) {
			t.Errorf("%s: not same", name)
		}
	}
	if m := must(l.Insert(5, xSpaced)); !withX.same(m) || !m.same(withX) {
		t.Error("lists with x inserted, its parameters written differently, are not same")
	}
}

// TestToolsSameLength shows that lists of different lengths are not same,
// even when one starts with the other.
func TestToolsSameLength(t *testing.T) {
	must := toolsMust(t)
	recs := toolsRecords(t, toolsSmall("a"), toolsSmall("b"), toolsSmall("c"))
	l := listOf(newToolArray(recs))
	short := listOf(newToolArray(recs[:2]))
	one := must(NewTools(toolsSmall("a")))
	pairs := []struct {
		name string
		a, b Tools
	}{
		{"prefix", l, short},
		{"Remove", l, l.Remove(2)},
		{"Append", l, must(l.Append(toolsSmall("c")))},
		{"empty", Tools{}, one},
		{"empty reversed", Tools{}.Reverse(), one},
	}
	for _, p := range pairs {
		if p.a.same(p.b) || p.b.same(p.a) {
			t.Errorf("%s: lists of %d and %d are same", p.name, p.a.Len(), p.b.Len())
		}
	}
}

// toolsSmall returns a small valid tool named name.
func toolsSmall(name string) Tool {
	return Tool{Name: name, Description: "Tool " + name + ".", Parameters: json.RawMessage(`{"type":"object"}`)}
}

// TestToolsZeroValue shows that the zero value is a usable empty list.
func TestToolsZeroValue(t *testing.T) {
	var z Tools
	if z.Len() != 0 || len(z.Slice()) != 0 || len(z.records()) != 0 {
		t.Errorf("zero value: Len %d, Slice %v, records %v", z.Len(), z.Slice(), z.records())
	}
	for _, name := range []string{"a", ""} {
		if i := z.Index(name); i != -1 {
			t.Errorf("zero value: Index(%q) = %d, want -1", name, i)
		}
	}
	rev := z.Reverse()
	if rev.Len() != 0 || len(rev.Slice()) != 0 || rev.Index("a") != -1 || !rev.same(z) || !z.same(rev) {
		t.Errorf("zero value reversed: Len %d, Slice %v, Index %d, same %v", rev.Len(), rev.Slice(), rev.Index("a"), rev.same(z))
	}
	if nt, err := NewTools(); err != nil || nt.Len() != 0 || !nt.same(z) {
		t.Errorf("NewTools() = %d tools, %v; want an empty list", nt.Len(), err)
	}
	for name, start := range map[string]Tools{"zero": z, "reversed": rev} {
		a, err := start.Append(toolsSmall("a"), toolsSmall("b"))
		if err != nil {
			t.Fatal(err)
		}
		if a.Len() != 2 || a.Name(0) != "a" || a.Name(1) != "b" || a.Index("b") != 1 || !toolsEqualTool(a.At(0), toolsRecord(t, toolsSmall("a")).clone()) {
			t.Errorf("%s: Append(a, b) = %+v", name, a.Slice())
		}
		if r := a.Reverse(); r.Name(0) != "b" || r.Index("a") != 1 {
			t.Errorf("%s: Append(a, b).Reverse() = %+v", name, r.Slice())
		}
		i, err := start.Insert(0, toolsSmall("c"))
		if err != nil || i.Len() != 1 || i.Name(0) != "c" || i.Index("c") != 0 {
			t.Errorf("%s: Insert(0, c) = %+v, %v", name, i.Slice(), err)
		}
	}
	if z.Len() != 0 || z.segs != nil {
		t.Errorf("the zero value changed: %+v", z)
	}
}

// toolsPanics reports an error unless f panics.
func toolsPanics(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// TestToolsOutOfRangePanics shows that every method given an index or
// position outside the list panics, as indexing a slice does, and leaves
// the list as it was.
func TestToolsOutOfRangePanics(t *testing.T) {
	must := toolsMust(t)
	l := listOf(newToolArray(toolsRecords(t, toolsSmall("a"), toolsSmall("b"), toolsSmall("c"))))
	// The same three tools in three runs, one reversed.
	multi := must(l.Remove(1).Reverse().Insert(1, toolsSmall("b"))).Reverse()
	x := toolsSmall("x")
	for name, l := range map[string]Tools{"one run": l, "three runs": multi, "empty": {}} {
		before := l.records()
		n := l.Len()
		toolsPanics(t, name+": Insert(-1, x)", func() { l.Insert(-1, x) })
		toolsPanics(t, name+": Insert(Len+1, x)", func() { l.Insert(n+1, x) })
		toolsPanics(t, name+": Insert(-1)", func() { l.Insert(-1) })
		toolsPanics(t, name+": Insert(Len+1)", func() { l.Insert(n + 1) })
		// The position is checked before the tools: a bad position with
		// an invalid tool panics too, rather than returning its error.
		toolsPanics(t, name+": Insert(Len+1, invalid)", func() { l.Insert(n+1, Tool{}) })
		toolsPanics(t, name+": Remove(-1)", func() { l.Remove(-1) })
		toolsPanics(t, name+": Remove(Len)", func() { l.Remove(n) })
		toolsPanics(t, name+": Move(-1, 0)", func() { l.Move(-1, 0) })
		toolsPanics(t, name+": Move(0, -1)", func() { l.Move(0, -1) })
		toolsPanics(t, name+": Move(Len, 0)", func() { l.Move(n, 0) })
		toolsPanics(t, name+": Move(0, Len)", func() { l.Move(0, n) })
		toolsPanics(t, name+": At(-1)", func() { l.At(-1) })
		toolsPanics(t, name+": At(Len)", func() { l.At(n) })
		toolsPanics(t, name+": Name(-1)", func() { l.Name(-1) })
		toolsPanics(t, name+": Name(Len)", func() { l.Name(n) })
		if l.Len() != n || !slices.Equal(l.records(), before) {
			t.Errorf("%s: changed by the calls that panicked", name)
		}
	}
}

// TestToolsInvalidInsert shows that inserting an invalid tool, alone or
// among valid ones, is an error and changes nothing.
func TestToolsInvalidInsert(t *testing.T) {
	recs := toolsRecords(t, toolsSmall("a"), toolsSmall("b"), toolsSmall("c"))
	l := listOf(newToolArray(recs))
	content := toolsDeepCopy(recs)
	invalid := map[string]Tool{
		"empty name":          {Name: "", Parameters: json.RawMessage(`{}`)},
		"truncated JSON":      {Name: "x", Parameters: json.RawMessage(`{"a":`)},
		"not JSON":            {Name: "x", Parameters: json.RawMessage(`not json`)},
		"two values":          {Name: "x", Parameters: json.RawMessage(`{} {}`)},
		"trailing comma":      {Name: "x", Parameters: json.RawMessage(`{"a":1,}`)},
		"single-quoted JSON":  {Name: "x", Parameters: json.RawMessage(`{'a':1}`)},
		"empty name, no JSON": {Name: ""},
	}
	for name, bad := range invalid {
		for _, pos := range []int{0, 1, 3} {
			for _, ts := range [][]Tool{{bad}, {toolsSmall("v"), bad}, {bad, toolsSmall("v")}} {
				what := fmt.Sprintf("%s: Insert(%d, %d tools)", name, pos, len(ts))
				got, err := l.Insert(pos, ts...)
				if err == nil {
					t.Errorf("%s: no error", what)
				}
				if got.Len() != 3 || !slices.Equal(got.records(), recs) {
					t.Errorf("%s: returned %+v, want the list unchanged", what, got.Slice())
				}
			}
		}
		if got, err := l.Append(toolsSmall("v"), bad); err == nil || !slices.Equal(got.records(), recs) {
			t.Errorf("%s: Append = %+v, %v; want the list unchanged and an error", name, got.Slice(), err)
		}
		if _, err := NewTools(toolsSmall("v"), bad); err == nil {
			t.Errorf("%s: NewTools: no error", name)
		}
		// A failed Replace keeps the tool it would have replaced.
		for i := range 3 {
			if got, err := l.Replace(i, bad); err == nil || !slices.Equal(got.records(), recs) {
				t.Errorf("%s: Replace(%d) = %+v, %v; want the list unchanged and an error", name, i, got.Slice(), err)
			}
		}
	}
	if !slices.Equal(l.records(), recs) {
		t.Error("the list changed")
	}
	toolsCheckContent(t, "after invalid inserts", recs, content)
}

// TestToolsInsertNothing shows that inserting no tools anywhere in the
// list returns it unchanged.
func TestToolsInsertNothing(t *testing.T) {
	must := toolsMust(t)
	l := must(listOf(newToolArray(toolsRecords(t, toolsSmall("a"), toolsSmall("b"), toolsSmall("c")))).Reverse().Insert(1, toolsSmall("d")))
	want := l.records()
	for pos := range l.Len() + 1 {
		got, err := l.Insert(pos)
		if err != nil || got.Len() != len(want) || !slices.Equal(got.records(), want) || !got.same(l) {
			t.Errorf("Insert(%d) = %+v, %v; want the list unchanged", pos, got.Slice(), err)
		}
	}
	if got, err := l.Append(); err != nil || !slices.Equal(got.records(), want) {
		t.Errorf("Append() = %+v, %v; want the list unchanged", got.Slice(), err)
	}
}

// TestToolsIndexReversedDuplicates shows that Index finds the first tool
// of a name in the list's order, however its runs are laid out, when
// several tools share the name.
func TestToolsIndexReversedDuplicates(t *testing.T) {
	must := toolsMust(t)
	a1 := Tool{Name: "a", Description: "First a."}
	a2 := Tool{Name: "a", Description: "Second a."}
	recs := toolsRecords(t, a1, toolsSmall("b"), a2, toolsSmall("c"))
	l := listOf(newToolArray(recs))
	cases := []struct {
		name string
		l    Tools
		want int
		rec  *canonicalTool // the record found, when kept
	}{
		{"a1 b a2 c", l, 0, recs[0]},
		{"reversed: c a2 b a1", l.Reverse(), 1, recs[2]},
		{"reversed twice", l.Reverse().Reverse(), 0, recs[0]},
		{"first moved last: b a2 c a1", l.Move(0, 3), 1, recs[2]},
		{"reversed, first removed: a2 b a1", l.Reverse().Remove(0), 0, recs[2]},
		{"reversed, second removed: c b a1", l.Reverse().Remove(1), 2, recs[0]},
		{"reversed run split: c a2 x b a1", must(l.Reverse().Insert(2, toolsSmall("x"))), 1, recs[2]},
		{"split run reversed: a1 b a2 x c, reversed", must(l.Insert(3, toolsSmall("x"))).Reverse(), 2, recs[2]},
		{"another a in front: a b a2 c", must(l.Remove(0).Insert(0, toolsSmall("a"))), 0, nil},
		{"no a: b c", l.Remove(0).Remove(1), -1, nil},
	}
	for _, c := range cases {
		if got := c.l.Index("a"); got != c.want {
			t.Errorf("%s: Index(a) = %d, want %d", c.name, got, c.want)
			continue
		}
		if c.rec != nil && c.l.record(c.want) != c.rec {
			t.Errorf("%s: Index(a) found %s, want %s", c.name, toolsShow(c.l.record(c.want)), toolsShow(c.rec))
		}
	}
}

// TestToolsConcurrentReads shows that many goroutines may read one list at
// once, the first Index of each run building its name index under
// sync.Once. Run with -race.
func TestToolsConcurrentReads(t *testing.T) {
	must := toolsMust(t)
	recs := make([]*canonicalTool, 2000)
	for i := range recs {
		recs[i] = toolsRecord(t, Tool{Name: fmt.Sprintf("n%d", i%300), Description: fmt.Sprint(i)})
	}
	l := must(listOf(newToolArray(recs)).Insert(500, toolsSmall("x"), toolsSmall("n7"), toolsSmall("y")))
	l = l.Reverse().Move(10, 1500).Remove(3)
	// Expected answers from the records alone, so no name index is
	// built before the goroutines start.
	model := l.records()
	var names []string
	for i := range 305 {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	names = append(names, "x", "y", "absent")
	reversed := slices.Clone(model)
	slices.Reverse(reversed)
	want, revWant := map[string]int{}, map[string]int{}
	for _, name := range names {
		named := func(c *canonicalTool) bool { return c.tool.Name == name }
		want[name] = slices.IndexFunc(model, named)
		revWant[name] = slices.IndexFunc(reversed, named)
	}

	const goroutines = 16
	start := make(chan struct{})
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			<-start
			for k := range names {
				name := names[(k*7+g*31)%len(names)]
				if got := l.Index(name); got != want[name] {
					t.Errorf("goroutine %d: Index(%q) = %d, want %d", g, name, got, want[name])
					return
				}
				i := (k*13 + g) % l.Len()
				if at := l.At(i); !toolsEqualTool(at, model[i].clone()) || l.Name(i) != model[i].tool.Name {
					t.Errorf("goroutine %d: At(%d) = %+v, want %+v", g, i, at, model[i].tool)
					return
				}
			}
			// A list made from the shared one shares its runs and their
			// name indexes.
			r := l.Reverse()
			for _, name := range names {
				if got := r.Index(name); got != revWant[name] {
					t.Errorf("goroutine %d: Reverse().Index(%q) = %d, want %d", g, name, got, revWant[name])
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
}

// TestToolsRunsMerge shows that edits which undo each other leave one run,
// so a list that comes back as it went is recognised by its runs alone.
func TestToolsRunsMerge(t *testing.T) {
	l, _ := toolsBig(t, 1000)
	for _, c := range []struct {
		name string
		got  Tools
	}{
		{"Move(i, i)", l.Move(500, 500)},
		{"Move there and back", l.Move(10, 900).Move(900, 10)},
		{"Reverse twice", l.Reverse().Reverse()},
		{"Move in a reversed list, back", l.Reverse().Move(3, 700).Move(700, 3).Reverse()},
	} {
		if len(c.got.segs) != 1 || c.got.segs[0] != l.segs[0] {
			t.Errorf("%s: %d runs %+v, want the one run of the list", c.name, len(c.got.segs), c.got.segs)
		}
	}
}
