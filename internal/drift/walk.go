package drift

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// walker finds and classifies every difference between two header
// documents, in document order.
type walker struct {
	a, b     *header
	diffs    []Diff
	total    int
	first    *Diff
	firstAt  []string
	kinds    map[Kind]bool
	content  *ContentDetail
	encoding *EncodingDetail
	tools    *ToolLists
	encToks  [2]string // the differing bytes of the first escaping difference
	// toolDepth is the length of the path of the tool being compared:
	// what follows it is the field inside the tool.
	toolDepth int
	// configContent is set by a difference of value (not of encoding) in
	// the config: what a provider reads differs there.
	configContent bool
}

// describe compares two headers that differ and describes the difference.
func describe(index int, a, b *header, nameA, nameB string) *Difference {
	w := &walker{a: a, b: b, kinds: map[Kind]bool{}, diffs: []Diff{}}
	ra, rb := gjson.Parse(string(a.doc)), gjson.Parse(string(b.doc))
	// One path stack for the whole walk, deep enough for any path.
	depth := max(nesting(a.doc), nesting(b.doc))
	w.value(make([]string, 0, depth+1), ra, rb, "")
	d := &Difference{
		Index:    index,
		A:        a.side(nameA),
		B:        b.side(nameB),
		Tools:    w.tools,
		Content:  w.content,
		Encoding: w.encoding,
		Diffs:    w.diffs,
	}
	if w.total > len(w.diffs) {
		d.MoreDiffs = w.total - len(w.diffs)
	}
	for _, k := range [...]Kind{Reorder, Added, Removed, Content, Encoding} {
		if w.kinds[k] {
			d.Kinds = append(d.Kinds, k)
		}
	}
	if w.first != nil {
		d.Path = w.first.Path
		d.A.Offset, d.B.Offset = w.first.OffsetA, w.first.OffsetB
		// A side the first difference is absent from (a tool removed)
		// is placed where a later difference at the same path is (the
		// tool added in its place), if one is.
		for _, x := range w.diffs {
			if x.Path == d.Path && d.A.Offset < 0 {
				d.A.Offset = x.OffsetA
			}
			if x.Path == d.Path && d.B.Offset < 0 {
				d.B.Offset = x.OffsetB
			}
		}
		d.A.WirePath, d.B.WirePath = a.wirePath(w.firstAt), b.wirePath(w.firstAt)
	} else {
		// The documents differ only in bytes no value covers.
		d.Kinds = []Kind{Encoding}
		d.Diffs = []Diff{{Kind: Encoding, Note: "whitespace", OffsetA: -1, OffsetB: -1}}
	}
	d.Cause = w.cause()
	d.configContent = w.configContent
	return d
}

// side locates h in the input called name, its offsets still unknown;
// the request's own place is filled in by the input (side.place).
func (h *header) side(name string) Side {
	s := Side{File: name, Line: h.line, Format: h.format, Reason: h.reason, HeaderTurn: h.turn, HeaderStep: h.step, Offset: -1}
	if h.format == FormatLog && h.wire != "" {
		s.HeaderRequest, s.Wire, s.HeaderTurn, s.HeaderStep = h.request, string(h.wire), 0, 0
	}
	return s
}

// emit records one difference at the path comps. Only the differences
// kept get their path written out, so that a header with very many
// differences deep down costs no more than the walk.
func (w *walker) emit(comps []string, d Diff) {
	w.kinds[d.Kind] = true
	w.total++
	if d.Kind != Encoding && len(comps) > 0 && comps[0] == "config" {
		w.configContent = true
	}
	if w.first != nil && len(w.diffs) >= MaxDiffs {
		return
	}
	d.Path = joinPath(comps)
	if w.first == nil {
		w.first = &d
		w.firstAt = slices.Clone(comps)
	}
	if len(w.diffs) < MaxDiffs {
		w.diffs = append(w.diffs, d)
	}
}

// offsets maps offsets in the two documents to the records.
func (w *walker) offsets(da, db int) (int, int) {
	return w.a.srcOffset(da), w.b.srcOffset(db)
}

// Value kinds finer than gjson's: objects and arrays apart.
const (
	vObject = iota + 10
	vArray
)

func kindOf(v gjson.Result) int {
	if v.Type == gjson.JSON {
		if v.IsArray() {
			return vArray
		}
		return vObject
	}
	return int(v.Type)
}

// child returns the path of key inside comps. Paths are one stack: comps
// has room for the deepest path of the walk, so a child is written in
// place, without copying its parent (copying made the walk's memory grow
// with the square of the depth). A path is therefore valid only until the
// next sibling's is made; whatever keeps one copies it.
func child(comps []string, key string) []string {
	return append(comps, key)
}

// value compares two values at comps; tool names the tool they are in.
func (w *walker) value(comps []string, a, b gjson.Result, tool string) {
	if a.Raw == b.Raw && (len(comps) > 0 || sameWireKeys(w.a, w.b)) {
		// (Two bodies may write the same document's members under other
		// keys: see wireKey.)
		return
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		w.contentDiff(comps, a, b, tool, "type")
		return
	}
	switch ka {
	case int(gjson.String):
		if a.Str == b.Str && sameText(a.Raw, b.Raw) {
			w.escaping(comps, a, b, tool)
		} else {
			w.contentDiff(comps, a, b, tool, "")
		}
	case int(gjson.Number):
		if sameNumber(a.Raw, b.Raw) {
			oa, ob := w.offsets(a.Index, b.Index)
			w.encodingDiff(comps, tool, "number spelling", oa, ob, a.Raw, b.Raw)
		} else {
			w.contentDiff(comps, a, b, tool, "")
		}
	case vObject:
		w.object(comps, a, b, tool)
	case vArray:
		w.array(comps, a, b, tool)
	}
}

// sameNumber reports whether two JSON numbers are the same value as
// JSON.parse reads them: the same double. canon writes a number too large
// for a double as null (JSON.stringify's Infinity), for both signs, so
// such numbers are told apart by sign, as JSON.parse gives Infinity or
// -Infinity. (No JSON number reads as NaN.)
func sameNumber(a, b string) bool {
	ca, errA := canon.Compact(nil, []byte(a))
	cb, errB := canon.Compact(nil, []byte(b))
	if errA != nil || errB != nil || !bytes.Equal(ca, cb) {
		return false
	}
	if string(ca) == "null" { // both overflow: ±Infinity
		return (a[0] == '-') == (b[0] == '-')
	}
	return true
}

// member is one member of an object as JSON.parse keeps it: the first
// occurrence of a key fixes its position, the last one its value.
type member struct {
	key  gjson.Result // the key of the first occurrence
	val  gjson.Result // the value of the last occurrence
	last gjson.Result // the key of the last occurrence
	// dropped holds the earlier occurrences of a key written more than
	// once, key and value, whose values JSON.parse discards.
	dropped []gjson.Result
}

// members returns the members of an object as JSON.parse reads them, in
// order, and whether any key is written more than once.
func members(v gjson.Result) ([]member, bool) {
	var ms []member
	var at map[string]int
	dup := false
	v.ForEach(func(k, val gjson.Result) bool {
		if at == nil {
			at = map[string]int{}
		}
		if i, seen := at[k.Str]; seen {
			m := &ms[i]
			m.dropped = append(m.dropped, occurrence(v, m.last, m.val))
			m.val, m.last = val, k
			dup = true
			return true
		}
		at[k.Str] = len(ms)
		ms = append(ms, member{key: k, val: val, last: k})
		return true
	})
	return ms, dup
}

// occurrence returns the bytes of one member of obj, from its key k to the
// end of its value val, as a result located in the document.
func occurrence(obj, k, val gjson.Result) gjson.Result {
	start, end := k.Index-obj.Index, val.Index-obj.Index+len(val.Raw)
	return gjson.Result{Type: gjson.JSON, Raw: obj.Raw[start:end], Index: k.Index}
}

// sameDropped reports whether two members drop the same earlier
// occurrences, byte for byte.
func sameDropped(a, b member) bool {
	return slices.EqualFunc(a.dropped, b.dropped, func(x, y gjson.Result) bool { return x.Raw == y.Raw })
}

// object compares two objects member by member. Members are matched by
// decoded key; a key written more than once counts with its last value,
// as JSON.parse reads it, and its earlier occurrences are an encoding
// difference ("duplicate key") unless both sides drop the same bytes.
//
// The members are visited in a merge of both orders that does not depend
// on which side is A: of the next unvisited member of each side, the one at
// the lower position comes first (the lower key on a tie), so that
// comparing B with A reports the same first difference.
func (w *walker) object(comps []string, a, b gjson.Result, tool string) {
	before := w.total
	ma, dupA := members(a)
	mb, dupB := members(b)
	name := func(m member) string { return m.key.Str }
	if w.geminiConfig(comps) {
		name = func(m member) string { return camel(m.key.Str) }
	}
	index := make(map[string]int, len(mb))
	for j, m := range mb {
		index[name(m)] = j
	}
	matchA, matchB := make([]int, len(ma)), make([]int, len(mb))
	for j := range matchB {
		matchB[j] = -1
	}
	for i, m := range ma {
		matchA[i] = -1
		if j, ok := index[name(m)]; ok {
			matchA[i], matchB[j] = j, i
		}
	}
	// The first rank at which the common keys come in another order.
	orderA, orderB := -1, -1
	for i, j := 0, 0; i < len(ma) && j < len(mb); i, j = i+1, j+1 {
		for i < len(ma) && matchA[i] < 0 {
			i++
		}
		for j < len(mb) && matchB[j] < 0 {
			j++
		}
		if i < len(ma) && j < len(mb) && matchA[i] != j {
			orderA, orderB = i, j
			break
		}
	}
	if orderA >= 0 {
		ka, kb := ma[orderA].key, mb[orderB].key
		oa, ob := w.offsets(ka.Index, kb.Index)
		w.encodingDiff(comps, tool, "key order", oa, ob, ka.Raw, kb.Raw)
	} else if len(ma) == len(mb) && !dupA && !dupB {
		w.layout(comps, a, b, tool)
	}
	root := len(comps) == 0
	doneA, doneB := make([]bool, len(ma)), make([]bool, len(mb))
	for i, j := 0, 0; ; {
		for i < len(ma) && doneA[i] {
			i++
		}
		for j < len(mb) && doneB[j] {
			j++
		}
		if i == len(ma) && j == len(mb) {
			break
		}
		takeA := j == len(mb) || i < len(ma) && (i < j || i == j && name(ma[i]) <= name(mb[j]))
		switch {
		case takeA && matchA[i] < 0:
			doneA[i] = true
			w.onlyMember(child(comps, gjson.Escape(ma[i].key.Str)), ma[i], true, root, tool)
		case !takeA && matchB[j] < 0:
			doneB[j] = true
			w.onlyMember(child(comps, gjson.Escape(mb[j].key.Str)), mb[j], false, root, tool)
		default:
			x, y := i, matchA[i]
			if !takeA {
				x, y = matchB[j], j
			}
			doneA[x], doneB[y] = true, true
			// Two spellings of one Gemini field go by its JSON name,
			// whichever side is A; one spelling, by itself.
			key := ma[x].key.Str
			if key != mb[y].key.Str {
				key = name(ma[x])
			}
			w.bothMember(child(comps, gjson.Escape(key)), ma[x], mb[y], root, tool)
		}
	}
	if w.total == before {
		w.whitespace(comps, a, b, tool)
	}
}

// onlyMember records a member present in A only (inA) or in B only. At the
// root of the header, a tools list on one side only is its tools removed
// or added.
func (w *walker) onlyMember(at []string, m member, inA, root bool, tool string) {
	if root && m.key.Str == "tools" && m.val.IsArray() && len(m.val.Array()) > 0 {
		if inA {
			w.toolList(at, m.val, gjson.Result{})
		} else {
			w.toolList(at, gjson.Result{}, m.val)
		}
		return
	}
	if inA {
		oa, _ := w.offsets(m.key.Index, -1)
		w.emit(at, Diff{Kind: Content, Tool: tool, Note: "removed member", OffsetA: oa, OffsetB: -1})
		w.setContent(at, m.val, gjson.Result{}, tool)
		return
	}
	_, ob := w.offsets(-1, m.key.Index)
	w.emit(at, Diff{Kind: Content, Tool: tool, Note: "added member", OffsetA: -1, OffsetB: ob})
	w.setContent(at, gjson.Result{}, m.val, tool)
}

// bothMember compares a member present on both sides.
func (w *walker) bothMember(at []string, ma, mb member, root bool, tool string) {
	if !sameDropped(ma, mb) {
		w.duplicate(at, ma, mb, tool)
	}
	switch {
	case ma.key.Raw == mb.key.Raw:
	case ma.key.Str == mb.key.Str: // the same key, escaped another way
		w.escaping(at, ma.key, mb.key, tool)
	default: // a Gemini field in camelCase against snake_case
		oa, ob := w.offsets(ma.key.Index, mb.key.Index)
		w.encodingDiff(at, tool, "key spelling", oa, ob, ma.key.Raw, mb.key.Raw)
	}
	if root {
		w.wireKey(at, ma, mb)
	}
	if root && ma.key.Str == "tools" && ma.val.IsArray() && mb.val.IsArray() {
		w.toolList(at, ma.val, mb.val)
		return
	}
	w.value(at, ma.val, mb.val, tool)
}

// wireKey compares the keys two bodies write a header's system or tools
// member under, which the header document spells one way: the bytes sent
// differ when one escapes the key, or spells Gemini's field in snake_case
// (system_instruction against systemInstruction).
func (w *walker) wireKey(at []string, ma, mb member) {
	raw := func(h *header) string {
		switch ma.key.Str {
		case logformat.MemberSystem:
			return h.systemRaw
		case logformat.MemberTools:
			return h.toolsRaw
		}
		return ""
	}
	ka, kb := raw(w.a), raw(w.b)
	if ka == "" || kb == "" || ka == kb {
		return
	}
	// The document's key stands for the record's: offsets are the
	// record key's, and an escape's is counted from there.
	oa, ob := w.offsets(ma.key.Index, mb.key.Index)
	if gjson.Parse(ka).Str != gjson.Parse(kb).Str {
		w.encodingDiff(at, "", "key spelling", oa, ob, ka, kb)
		return
	}
	start := tokenStart(ka, commonPrefix(ka, kb))
	ta, tb := token(ka, start), token(kb, start)
	if w.encoding == nil {
		w.encToks = [2]string{ta, tb}
	}
	w.encodingDiff(at, "", "escaping", shift(oa, start), shift(ob, start), ta, tb)
}

// geminiConfig reports whether comps is the config of two Gemini bodies,
// whose members are protobuf fields that Gemini reads in camelCase or
// snake_case alike (generationConfig, generation_config). Only there:
// deeper down, a Struct or Value field (a schema's default, a call's
// args) holds data whose keys are no field names.
func (w *walker) geminiConfig(comps []string) bool {
	return len(comps) == 1 && comps[0] == logformat.MemberConfig &&
		w.a.sentAs() == Format(wire.Gemini) && w.b.sentAs() == Format(wire.Gemini)
}

// camel is a protobuf field's JSON name: snake_case in lowerCamelCase.
func camel(key string) string {
	if !strings.Contains(key, "_") {
		return key
	}
	var b strings.Builder
	up := false
	for _, r := range key {
		switch {
		case r == '_':
			up = true
		case up:
			b.WriteRune(unicode.ToUpper(r))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// shift moves a known offset by n.
func shift(off, n int) int {
	if off < 0 {
		return off
	}
	return off + n
}

// array compares two arrays element by element.
func (w *walker) array(comps []string, a, b gjson.Result, tool string) {
	before := w.total
	ea, eb := a.Array(), b.Array()
	if len(ea) == len(eb) {
		w.layout(comps, a, b, tool)
	}
	for i := range max(len(ea), len(eb)) {
		at := child(comps, strconv.Itoa(i))
		switch {
		case i >= len(ea):
			_, ob := w.offsets(-1, eb[i].Index)
			w.emit(at, Diff{Kind: Content, Tool: tool, Note: "added element", OffsetA: -1, OffsetB: ob})
			w.setContent(at, gjson.Result{}, eb[i], tool)
		case i >= len(eb):
			oa, _ := w.offsets(ea[i].Index, -1)
			w.emit(at, Diff{Kind: Content, Tool: tool, Note: "removed element", OffsetA: oa, OffsetB: -1})
			w.setContent(at, ea[i], gjson.Result{}, tool)
		default:
			w.value(at, ea[i], eb[i], tool)
		}
	}
	if w.total == before {
		w.whitespace(comps, a, b, tool)
	}
}

// layout compares the bytes between the members (or elements) of two
// objects (arrays) with the same keys in the same order, and records a
// whitespace difference at comps when they differ, before any difference
// inside the members is looked for.
func (w *walker) layout(comps []string, a, b gjson.Result, tool string) {
	ga, gb := gaps(a), gaps(b)
	if len(ga) != len(gb) {
		return
	}
	for i := range ga {
		sa, sb := a.Raw[ga[i][0]:ga[i][1]], b.Raw[gb[i][0]:gb[i][1]]
		if sa == sb {
			continue
		}
		k := commonPrefix(sa, sb)
		ka, kb := ga[i][0]+k, gb[i][0]+k
		oa, ob := w.offsets(a.Index+ka, b.Index+kb)
		w.encodingDiff(comps, tool, "whitespace", oa, ob, snippet(a.Raw, ka), snippet(b.Raw, kb))
		return
	}
}

// gaps returns the spans of v.Raw between its keys and values.
func gaps(v gjson.Result) [][2]int {
	var spans [][2]int
	pos := 0
	cut := func(r gjson.Result) {
		start := r.Index - v.Index
		spans = append(spans, [2]int{pos, start})
		pos = start + len(r.Raw)
	}
	v.ForEach(func(k, val gjson.Result) bool {
		if v.IsObject() {
			cut(k)
		}
		cut(val)
		return true
	})
	return append(spans, [2]int{pos, len(v.Raw)})
}

// whitespace records that a and b hold equal members written with other
// spacing.
func (w *walker) whitespace(comps []string, a, b gjson.Result, tool string) {
	if a.Raw == b.Raw {
		return
	}
	k := commonPrefix(a.Raw, b.Raw)
	oa, ob := w.offsets(a.Index+k, b.Index+k)
	w.encodingDiff(comps, tool, "whitespace", oa, ob, snippet(a.Raw, k), snippet(b.Raw, k))
}

// duplicate records that a key is written more than once on one side, or
// on both with other discarded occurrences; the offsets point at the first
// discarded occurrence of each side (-1 when it has none).
func (w *walker) duplicate(comps []string, a, b member, tool string) {
	da, db := -1, -1
	var ba, bb string
	if len(a.dropped) > 0 {
		da, ba = a.dropped[0].Index, a.dropped[0].Raw
	}
	if len(b.dropped) > 0 {
		db, bb = b.dropped[0].Index, b.dropped[0].Raw
	}
	oa, ob := w.offsets(da, db)
	w.encodingDiff(comps, tool, "duplicate key", oa, ob, shorten(ba), shorten(bb))
}

// escaping records two strings with equal text and other escapes.
func (w *walker) escaping(comps []string, a, b gjson.Result, tool string) {
	k := commonPrefix(a.Raw, b.Raw)
	start := tokenStart(a.Raw, k)
	ta, tb := token(a.Raw, start), token(b.Raw, start)
	oa, ob := w.offsets(a.Index+start, b.Index+start)
	if w.encoding == nil {
		w.encToks = [2]string{ta, tb}
	}
	w.encodingDiff(comps, tool, "escaping", oa, ob, ta, tb)
}

func (w *walker) encodingDiff(comps []string, tool, note string, oa, ob int, ba, bb string) {
	w.emit(comps, Diff{Kind: Encoding, Tool: tool, Note: note, OffsetA: oa, OffsetB: ob})
	if w.encoding == nil {
		w.encoding = &EncodingDetail{Path: joinPath(comps), Note: note, OffsetA: oa, OffsetB: ob, A: ba, B: bb}
	}
}

func (w *walker) contentDiff(comps []string, a, b gjson.Result, tool, note string) {
	oa, ob := w.offsets(a.Index, b.Index)
	w.emit(comps, Diff{Kind: Content, Tool: tool, Note: note, OffsetA: oa, OffsetB: ob})
	w.setContent(comps, a, b, tool)
}

// window is how many characters a content window shows either side of the
// first difference.
const window = 40

// setContent keeps the first content difference for display.
func (w *walker) setContent(comps []string, a, b gjson.Result, tool string) {
	if w.content != nil {
		return
	}
	c := &ContentDetail{Path: joinPath(comps), At: -1}
	if tool != "" && len(comps) > w.toolDepth {
		c.Tool, c.Field = tool, joinPath(comps[w.toolDepth:])
	} else if tool != "" {
		c.Tool = tool
	}
	if a.Type == gjson.String && b.Type == gjson.String && a.Str != b.Str {
		// k may be the length of the shorter string (one is a prefix of
		// the other); back up to a character boundary of both.
		k := commonPrefix(a.Str, b.Str)
		for k > 0 && (k < len(a.Str) && !utf8.RuneStart(a.Str[k]) || k < len(b.Str) && !utf8.RuneStart(b.Str[k])) {
			k--
		}
		c.Strings = true
		c.At = utf8.RuneCountInString(a.Str[:k])
		c.A, c.Cut = textWindow(a.Str, k)
		c.B, _ = textWindow(b.Str, k)
	} else {
		c.A, c.B = shorten(a.Raw), shorten(b.Raw)
	}
	w.content = c
}

// textWindow returns up to window characters either side of byte k of s,
// marking cuts with "…", and the number of characters before k.
func textWindow(s string, k int) (string, int) {
	start := k
	for n := 0; start > 0 && n < window; n++ {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	end := k
	for n := 0; end < len(s) && n < window; n++ {
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	b.WriteString(s[start:k])
	cut := utf8.RuneCountInString(b.String())
	b.WriteString(s[k:end])
	if end < len(s) {
		b.WriteString("…")
	}
	return b.String(), cut
}

// shorten returns raw JSON cut to about 2*window bytes.
func shorten(raw string) string {
	if len(raw) <= 2*window {
		return raw
	}
	end := 2 * window
	for end > 0 && !utf8.RuneStart(raw[end]) {
		end--
	}
	return raw[:end] + "…"
}

// snippet returns a few bytes of raw from offset k.
func snippet(raw string, k int) string {
	end := min(len(raw), k+12)
	for end < len(raw) && !utf8.RuneStart(raw[end]) {
		end++
	}
	return raw[k:end]
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// tokenStart returns the start of the character or escape sequence of the
// JSON string raw (with quotes) that contains byte k.
func tokenStart(raw string, k int) int {
	i := 1
	for i < len(raw)-1 {
		n := tokenLen(raw, i)
		if i+n > k {
			return i
		}
		i += n
	}
	return min(k, len(raw))
}

// token returns the character or escape sequence at offset i of raw.
func token(raw string, i int) string {
	if i >= len(raw) {
		return ""
	}
	return raw[i : i+tokenLen(raw, i)]
}

// tokenLen returns the length of the character or escape sequence at
// offset i of the JSON string raw; a surrogate pair counts as one.
func tokenLen(raw string, i int) int {
	if raw[i] != '\\' {
		_, size := utf8.DecodeRuneInString(raw[i:])
		return size
	}
	if i+1 < len(raw) && raw[i+1] == 'u' && i+6 <= len(raw) {
		if u, err := strconv.ParseUint(raw[i+2:i+6], 16, 16); err == nil && u >= 0xD800 && u < 0xDC00 &&
			i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
			return 12
		}
		return 6
	}
	return min(2, len(raw)-i)
}

// sameText reports whether two JSON strings (raw, with quotes) hold the
// same text as JavaScript reads it. gjson decodes a lone surrogate escape
// to U+FFFD, so "\ud800" and "\ud801" look equal to it; JSON.parse keeps
// both code units, and so does this comparison.
func sameText(a, b string) bool {
	if !strings.Contains(a, `\u`) && !strings.Contains(b, `\u`) {
		return true // no escape can hide a surrogate
	}
	return jsText(a) == jsText(b)
}

// jsText decodes a JSON string (raw, with quotes) into its UTF-16 code
// units, written as a string of 16-bit values for comparison.
func jsText(raw string) string {
	if len(raw) < 2 {
		return raw
	}
	var units []uint16
	body := raw[1 : len(raw)-1]
	for i := 0; i < len(body); {
		if body[i] != '\\' {
			r, size := utf8.DecodeRuneInString(body[i:])
			units = utf16.AppendRune(units, r)
			i += size
			continue
		}
		if i+1 >= len(body) {
			break
		}
		if body[i+1] != 'u' || i+6 > len(body) {
			units = append(units, uint16(canon.Unescape(body[i+1])))
			i += 2
			continue
		}
		u, err := strconv.ParseUint(body[i+2:i+6], 16, 16)
		if err != nil {
			u = utf8.RuneError
		}
		units = append(units, uint16(u))
		i += 6
	}
	var b strings.Builder
	for _, u := range units {
		b.WriteByte(byte(u >> 8))
		b.WriteByte(byte(u))
	}
	return b.String()
}
