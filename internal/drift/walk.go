package drift

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
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
}

// describe compares two headers that differ and describes the difference.
func describe(index int, a, b *header, nameA, nameB string) *Difference {
	w := &walker{a: a, b: b, kinds: map[Kind]bool{}, diffs: []Diff{}}
	ra, rb := gjson.Parse(string(a.doc)), gjson.Parse(string(b.doc))
	w.value(nil, ra, rb, "")
	d := &Difference{
		Index:    index,
		A:        Side{File: nameA, Line: a.line, Format: a.format, Reason: a.reason, Turn: a.turn, Step: a.step, Offset: -1},
		B:        Side{File: nameB, Line: b.line, Format: b.format, Reason: b.reason, Turn: b.turn, Step: b.step, Offset: -1},
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
		d.A.WirePath, d.B.WirePath = a.wirePath(w.firstAt), b.wirePath(w.firstAt)
	} else {
		// The documents differ only in bytes no value covers.
		d.Kinds = []Kind{Encoding}
		d.Diffs = []Diff{{Kind: Encoding, Note: "whitespace", OffsetA: -1, OffsetB: -1}}
	}
	d.Cause = w.cause()
	return d
}

// emit records one difference at the path comps.
func (w *walker) emit(comps []string, d Diff) {
	d.Path = joinPath(comps)
	w.kinds[d.Kind] = true
	w.total++
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

func child(comps []string, key string) []string {
	return append(slices.Clip(comps), key)
}

// value compares two values at comps; tool names the tool they are in.
func (w *walker) value(comps []string, a, b gjson.Result, tool string) {
	if a.Raw == b.Raw {
		return
	}
	ka, kb := kindOf(a), kindOf(b)
	if ka != kb {
		w.contentDiff(comps, a, b, tool, "type")
		return
	}
	switch ka {
	case int(gjson.String):
		if a.Str == b.Str {
			w.escaping(comps, a, b, tool)
		} else {
			w.contentDiff(comps, a, b, tool, "")
		}
	case int(gjson.Number):
		ca, _ := canon.Compact(nil, []byte(a.Raw))
		cb, _ := canon.Compact(nil, []byte(b.Raw))
		if bytes.Equal(ca, cb) {
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

type member struct{ key, val gjson.Result }

func members(v gjson.Result) []member {
	var ms []member
	v.ForEach(func(k, v gjson.Result) bool {
		ms = append(ms, member{k, v})
		return true
	})
	return ms
}

// object compares two objects member by member, in A's order.
func (w *walker) object(comps []string, a, b gjson.Result, tool string) {
	before := w.total
	ma, mb := members(a), members(b)
	queue := map[string][]int{}
	for j, m := range mb {
		queue[m.key.Str] = append(queue[m.key.Str], j)
	}
	matchA := make([]int, len(ma))
	matchedB := make([]bool, len(mb))
	for i, m := range ma {
		matchA[i] = -1
		if q := queue[m.key.Str]; len(q) > 0 {
			matchA[i], queue[m.key.Str] = q[0], q[1:]
			matchedB[q[0]] = true
		}
	}
	// The first place where the common keys come in another order.
	orderA, orderB := -1, -1
	j := 0
	for i := range ma {
		if matchA[i] < 0 {
			continue
		}
		for j < len(mb) && !matchedB[j] {
			j++
		}
		if matchA[i] != j {
			orderA, orderB = i, j
			break
		}
		j++
	}
	if orderA < 0 && len(ma) == len(mb) {
		w.layout(comps, a, b, tool)
	}
	root := len(comps) == 0
	for i, m := range ma {
		if i == orderA {
			ka, kb := m.key, mb[orderB].key
			oa, ob := w.offsets(ka.Index, kb.Index)
			w.encodingDiff(comps, tool, "key order", oa, ob, ka.Raw, kb.Raw)
		}
		at := child(comps, gjson.Escape(m.key.Str))
		if matchA[i] < 0 {
			if root && m.key.Str == "tools" && m.val.IsArray() {
				w.toolList(at, m.val.Array(), nil)
				continue
			}
			oa, _ := w.offsets(m.key.Index, -1)
			w.emit(at, Diff{Kind: Content, Tool: tool, Note: "removed member", OffsetA: oa, OffsetB: -1})
			w.setContent(at, m.val, gjson.Result{}, tool)
			continue
		}
		kb, vb := mb[matchA[i]].key, mb[matchA[i]].val
		if m.key.Raw != kb.Raw { // the same key, escaped another way
			w.escaping(at, m.key, kb, tool)
		}
		if root && m.key.Str == "tools" && m.val.IsArray() && vb.IsArray() {
			w.toolList(at, m.val.Array(), vb.Array())
			continue
		}
		w.value(at, m.val, vb, tool)
	}
	for j, m := range mb {
		if matchedB[j] {
			continue
		}
		at := child(comps, gjson.Escape(m.key.Str))
		if root && m.key.Str == "tools" && m.val.IsArray() {
			w.toolList(at, nil, m.val.Array())
			continue
		}
		_, ob := w.offsets(-1, m.key.Index)
		w.emit(at, Diff{Kind: Content, Tool: tool, Note: "added member", OffsetA: -1, OffsetB: ob})
		w.setContent(at, gjson.Result{}, m.val, tool)
	}
	if w.total == before {
		w.whitespace(comps, a, b, tool)
	}
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
	if tool != "" && len(comps) > 2 {
		c.Tool, c.Field = tool, joinPath(comps[2:])
	} else if tool != "" {
		c.Tool = tool
	}
	if a.Type == gjson.String && b.Type == gjson.String {
		k := commonPrefix(a.Str, b.Str)
		for k > 0 && !utf8.RuneStart(a.Str[k]) {
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
