package harness

import (
	"bytes"
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// Mismatch locates the first difference between an expected file and what
// a run produced.
type Mismatch struct {
	File   string // the expected file, e.g. golden/NAME.golden
	Line   int    // 1-based line of the first difference in File
	Event  string // event type at that line, for logs
	Path   string // JSON path of the first difference in document order, "" if not JSON
	Reason string // one line: what differs
	Want   string // the expected line, windowed around the difference
	Got    string // the produced line, windowed around the difference
	// Cache is, for a failure whose headers differ (a pin's golden file
	// or sidecar, another fixture's golden log, a permutation or repeat
	// run), what the drift of its first differing header costs in prompt
	// caching (SPEC §7): the lines
	// replay diff prints for it, the first starting "cache:".
	Cache []string
	// Cost is that cost as data, the "cache" object of replay diff
	// -json; nil when the drift was not priced (CostNote then says why,
	// if pricing was tried).
	Cost *CacheCost
	// CostAt is where in the provider's render order the first
	// difference is.
	CostAt *CachePlace
	// CostNote says why Cost is nil, or what its figures assume.
	CostNote string
	// Kinds are, for such a failure, the kinds of difference in its
	// first differing header as replay diff names them (reorder, added,
	// removed, content, encoding): a tool list that changed order says
	// reorder here, where the line diff above shows only a changed name.
	Kinds []string
	// Moved, Added and Removed name the tools that moved, appeared and
	// went in that header, when its tools differ in order or membership.
	Moved, Added, Removed []string

	// form is set when what differs is the form of the expected file
	// (CRLF line endings, a byte order mark, bytes that are not UTF-8)
	// rather than what it holds: no header drift to price or classify.
	form bool
}

// CacheCost is what a drift costs in prompt caching (SPEC §7): its JSON
// members are exactly those of the "cache" object of replay diff -json.
type CacheCost struct {
	Provider         string   `json:"provider"`         // who serves the model
	Order            []string `json:"order"`            // the provider's render order
	HeaderTokens     int      `json:"headerTokens"`     // tokens of tools and system
	KeptTokens       int      `json:"keptTokens"`       // before the first difference in render order
	LostTokens       int      `json:"lostTokens"`       // from it to the end of the request
	Tokenizer        string   `json:"tokenizer"`        // the vocabulary counted with
	Estimate         bool     `json:"estimate"`         // the tokenizer is not the model's own
	MinCacheable     int      `json:"minCacheable"`     // the shortest cacheable prefix, 0 if undocumented
	BelowMinimum     bool     `json:"belowMinimum"`     // KeptTokens < MinCacheable
	WriteMultiplier  float64  `json:"writeMultiplier"`  // a cache write, in base input prices
	ReadMultiplier   float64  `json:"readMultiplier"`   // a cache read, in base input prices
	ExtraInputTokens float64  `json:"extraInputTokens"` // LostTokens × (write − read)
	RatesAsOf        string   `json:"ratesAsOf"`        // the date of the rate row
	Source           string   `json:"source"`           // where the rate row comes from
}

// CachePlace is the first difference in render order: a segment (tools,
// system, config or messages) and the byte offset in it.
type CachePlace struct {
	Segment string `json:"segment"`
	Offset  int    `json:"offset"`
	Length  int    `json:"length"` // the segment's length in bytes, 0 for config
}

// String formats the mismatch as FILE:LINE: reason, then both sides.
func (m *Mismatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", m.File, m.Line, m.Reason)
	if m.Want != "" || m.Got != "" {
		fmt.Fprintf(&b, "\n  want: %s\n  got:  %s", m.Want, m.Got)
	}
	b.WriteString(m.cacheText())
	return b.String()
}

// cacheText is the kinds line and the cache lines, each on a line of its
// own, indented under the mismatch; "" when there are none.
func (m *Mismatch) cacheText() string {
	var b strings.Builder
	if len(m.Kinds) > 0 {
		b.WriteString("\n  kinds: " + strings.Join(m.Kinds, ", "))
		for _, t := range []struct {
			what  string
			names []string
		}{{"moved", m.Moved}, {"added", m.Added}, {"removed", m.Removed}} {
			if len(t.names) > 0 {
				fmt.Fprintf(&b, "; %s: %s", t.what, strings.Join(t.names, ", "))
			}
		}
	}
	for i, l := range m.Cache {
		b.WriteString("\n  ")
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(l)
	}
	return b.String()
}

// windowSize is how many bytes of context a long line shows on each side of
// its first difference.
const windowSize = 48

// compareFile compares produced bytes with the expected file's bytes and
// returns nil when they are equal. Lines are compared first, then, for JSON
// lines, members in document order.
func compareFile(file string, want, got []byte) *Mismatch {
	m := compareBytes(file, want, got)
	if m != nil && !m.form && m.Path == "" && m.Want != "" && m.Got != "" && strings.HasSuffix(file, ".system.md") {
		return systemMismatch(m, want, got)
	}
	return m
}

func compareBytes(file string, want, got []byte) *Mismatch {
	if bytes.Equal(want, got) {
		return nil
	}
	if m := formMismatch(file, want, got); m != nil {
		return m
	}
	names := sidesOf(file)
	wl, gl := splitLines(want), splitLines(got)
	for i := 0; i < len(wl) || i < len(gl); i++ {
		switch {
		case i >= len(wl):
			return &Mismatch{File: file, Line: len(wl) + 1, Event: eventType(gl[i]),
				Reason: fmt.Sprintf("the run produced %d more line(s) than the file has, first: %s", len(gl)-len(wl), eventLabel(gl[i])),
				Got:    window(gl[i], 0)}
		case i >= len(gl):
			return &Mismatch{File: file, Line: i + 1, Event: eventType(wl[i]),
				Reason: fmt.Sprintf("the run produced %d fewer line(s) than the file has, first missing: %s", len(wl)-len(gl), eventLabel(wl[i])),
				Want:   window(wl[i], 0)}
		case !bytes.Equal(wl[i], gl[i]):
			if len(wl) > 1 && withinLimits(want) && withinLimits(got) && gjson.ValidBytes(want) && gjson.ValidBytes(got) {
				return docMismatch(file, i+1, want, got, wl[i], gl[i], names)
			}
			return lineMismatch(file, i+1, wl[i], gl[i], names)
		}
	}
	// Same lines, different bytes: only the final newline differs.
	return &Mismatch{File: file, Line: len(wl), Reason: "the final newline differs"}
}

// utf8BOM is the byte order mark some editors write at the start of a
// UTF-8 file.
var utf8BOM = []byte("\xef\xbb\xbf")

// formMismatch reports an expected file whose form differs from what the
// run writes, whatever it holds: CRLF line endings, a byte order mark,
// bytes that are not UTF-8. The run writes none of these, so a line diff
// would only show invisible bytes; nil when the form is the run's.
func formMismatch(file string, want, got []byte) *Mismatch {
	const fix = "restore it from git or record it again"
	bom := bytes.HasPrefix(want, utf8BOM) && !bytes.HasPrefix(got, utf8BOM)
	crlf := bytes.Index(want, []byte("\r\n"))
	if bytes.Contains(got, []byte("\r\n")) {
		crlf = -1
	}
	switch {
	case bom && crlf >= 0:
		return &Mismatch{File: file, Line: 1, form: true, Reason: "the file starts with a UTF-8 byte order mark (bytes EF BB BF) " +
			"and its line endings are CRLF, not LF: an editor converted it; remove the mark and convert the line endings to LF, or " + fix}
	case bom:
		return &Mismatch{File: file, Line: 1, form: true, Reason: "the file starts with a UTF-8 byte order mark (bytes EF BB BF), " +
			"which the run never writes: an editor added it; remove it, or " + fix}
	case crlf >= 0:
		line := 1 + bytes.Count(want[:crlf], []byte{'\n'})
		return &Mismatch{File: file, Line: line, form: true, Reason: "line endings are CRLF, not LF: the file was converted " +
			"(a checkout without `-text` in .gitattributes, or an editor); " + fix}
	}
	if utf8.Valid(want) || !utf8.Valid(got) {
		return nil
	}
	at := canon.InvalidUTF8(want) // want is not valid: at >= 0
	start := bytes.LastIndexByte(want[:at], '\n') + 1
	n := 1 + bytes.Count(want[:start], []byte{'\n'})
	wl := splitLines(want)[n-1]
	m := &Mismatch{File: file, Line: n, Event: eventType(wl), Want: window(wl, at-start), form: true}
	where := ""
	if gl := splitLines(got); n <= len(gl) {
		m.Got = window(gl[n-1], at-start)
		// The path of the first difference, as the line diff would give
		// it: in the whole document (a tools sidecar), or in the line.
		a, b := want, got
		if !gjson.ValidBytes(a) || !gjson.ValidBytes(b) {
			a, b = wl, gl[n-1]
		}
		if withinLimits(a) && withinLimits(b) && gjson.ValidBytes(a) && gjson.ValidBytes(b) {
			if d := firstDiff(gjson.ParseBytes(a), gjson.ParseBytes(b), "", sidesOf(file)); d.path != "" {
				m.Path = d.path
				where = " (in " + d.path + ")"
			}
		}
	}
	m.Reason = fmt.Sprintf("the file is not valid UTF-8: byte %s at byte %d of the line%s, shown escaped; the run writes UTF-8 only: %s",
		escapeBytes(want[at:at+1]), at-start, where, fix)
	return m
}

// sides names the two sides of a comparison in its reasons: the expected
// file and what the run produced.
type sides struct{ want, got string }

// sidesOf names the sides of a comparison with file.
func sidesOf(file string) sides {
	switch {
	case file == "log":
		// Two runs of the same fixture (the permutation and repeat passes).
		return sides{"the first run", "this run"}
	case strings.HasSuffix(file, ".golden"):
		return sides{"the golden file", "the run"}
	case strings.HasSuffix(file, ".system.md"), strings.HasSuffix(file, ".tools.json"):
		return sides{"the sidecar", "the run"}
	}
	return sides{"the expected file", "the run"}
}

// lineMismatch reports a difference in one line, naming the sides in its
// reason.
func lineMismatch(file string, n int, want, got []byte, names sides) *Mismatch {
	at := commonPrefix(want, got)
	m := &Mismatch{File: file, Line: n, Want: window(want, at), Got: window(got, at)}
	if withinLimits(want) && withinLimits(got) && gjson.ValidBytes(want) && gjson.ValidBytes(got) {
		m.Event = eventType(want)
		d := firstDiff(gjson.ParseBytes(want), gjson.ParseBytes(got), "", names)
		m.Path = d.path
		what := "line"
		if m.Event != "" {
			what = "event " + m.Event
		}
		if m.Path == "" {
			// An escape, a number's form, spacing: still named by
			// the value whose bytes differ.
			m.Path = pathAtEither(want, got, at)
			m.Reason = fmt.Sprintf("%s: same JSON value, different bytes at %s (byte %d)", what, cmp.Or(m.Path, "(root)"), at)
		} else {
			m.Reason = fmt.Sprintf("%s differs at %s", what, d)
		}
		return m
	}
	m.Reason = fmt.Sprintf("line differs at byte %d", at)
	return m
}

// systemMismatch names the header whose system text differs in a
// NAME.system.md sidecar: each later header starts after a marker line,
// which names it (headers whose system text did not change have none).
func systemMismatch(m *Mismatch, want, got []byte) *Mismatch {
	m.Path = "system"
	// A marker line that differs is named as the marker of its header:
	// the run's number for it (the golden's when the run has none
	// there), not the header whose text ends before it.
	for _, doc := range [][]byte{got, want} {
		lines := splitLines(doc)
		if m.Line > len(lines) || !bytes.HasPrefix(lines[m.Line-1], []byte(markerPrefix)) {
			continue
		}
		n, ok := markerHeader(lines[m.Line-1])
		if !ok {
			n = sidecarHeader(lines, m.Line) + 1
		}
		m.Reason = fmt.Sprintf("the marker line of header %d differs: %s", n, m.Reason)
		return m
	}
	m.Reason = fmt.Sprintf("the system prompt of header %d differs: %s", sidecarHeader(splitLines(want), m.Line), m.Reason)
	return m
}

// sidecarHeader returns the header whose system text the 1-based line of a
// system sidecar's lines belongs to, from the marker lines before it.
func sidecarHeader(lines [][]byte, line int) int {
	header := 1
	for i, l := range lines {
		if i+1 >= line {
			break
		}
		if n, ok := markerHeader(l); ok {
			header = n
		} else if bytes.HasPrefix(l, []byte(markerPrefix)) {
			header++
		}
	}
	return header
}

// docMismatch reports a difference inside one indented JSON document (a
// tools sidecar): the line, and the path in the whole document.
func docMismatch(file string, n int, want, got, wantLine, gotLine []byte, names sides) *Mismatch {
	at := commonPrefix(wantLine, gotLine)
	m := &Mismatch{File: file, Line: n, Want: window(wantLine, at), Got: window(gotLine, at)}
	d := firstDiff(gjson.ParseBytes(want), gjson.ParseBytes(got), "", names)
	m.Path = d.path
	if m.Path == "" {
		m.Path = pathAtEither(want, got, commonPrefix(want, got))
		m.Reason = "same JSON value, different bytes at " + cmp.Or(m.Path, "(root)")
	} else {
		m.Reason = "differs at " + d.String()
	}
	return m
}

// pathAtEither returns the path of the value whose bytes first differ
// between want and got, off being the length of their common prefix. The
// two agree up to off; where one side's value ends there (1 against 1.0),
// only the other's holds the byte, so the deeper of the two paths is it.
func pathAtEither(want, got []byte, off int) string {
	a, b := pathAt(gjson.ParseBytes(want), off), pathAt(gjson.ParseBytes(got), off)
	if len(b) > len(a) {
		return b
	}
	return a
}

// pathAt returns the path of the innermost member or element of doc
// whose bytes (a member's key among them) hold the byte at offset off; ""
// when no member or element does.
func pathAt(doc gjson.Result, off int) string {
	path := ""
	for v := doc; v.IsObject() || v.IsArray(); {
		obj, i := v.IsObject(), 0
		var in gjson.Result
		v.ForEach(func(k, val gjson.Result) bool {
			start := val.Index
			if obj {
				start = k.Index
			}
			if off < start {
				return false // between members: in none
			}
			if off < val.Index+len(val.Raw) {
				in = val
				if obj {
					path = joinPath(path, gjson.Escape(k.String()))
				} else {
					path = joinPath(path, strconv.Itoa(i))
				}
				return false
			}
			i++
			return true
		})
		if !in.Exists() {
			break
		}
		v = in
	}
	return path
}

// diff is the first difference between two JSON values: its path, and,
// when a member or element is on one side only or members are in another
// order, a note that says so.
type diff struct{ path, note string }

// String is the path, then the note after a colon.
func (d diff) String() string {
	if d.note == "" {
		return d.path
	}
	return d.path + ": " + d.note
}

// firstDiff returns the first difference between a, the expected value,
// and b, the produced one, in document order (a zero diff when they hold
// the same JSON value). A member present on one side only is the first
// difference at its place, named by its own path; the members after it
// are not compared.
func firstDiff(a, b gjson.Result, path string, names sides) diff {
	here := path
	if here == "" {
		here = "(root)"
	}
	switch {
	case a.IsObject() && b.IsObject():
		ak, bk := members(a), members(b)
		inA, inB := memberKeys(ak), memberKeys(bk)
		for i := 0; i < len(ak) || i < len(bk); i++ {
			switch {
			case i >= len(ak):
				return diff{joinPath(path, gjson.Escape(bk[i].key)), "missing in " + names.want + ", present in " + names.got}
			case i >= len(bk):
				return diff{joinPath(path, gjson.Escape(ak[i].key)), "missing in " + names.got + ", present in " + names.want}
			case ak[i].key != bk[i].key:
				aPath, bPath := joinPath(path, gjson.Escape(ak[i].key)), joinPath(path, gjson.Escape(bk[i].key))
				switch {
				case inB[ak[i].key] && !inA[bk[i].key]:
					return diff{bPath, "missing in " + names.want + ", present in " + names.got}
				case !inB[ak[i].key] && inA[bk[i].key]:
					return diff{aPath, "missing in " + names.got + ", present in " + names.want}
				case !inB[ak[i].key]:
					return diff{aPath, fmt.Sprintf("missing in %s, which has %s in its place", names.got, bPath)}
				default:
					return diff{aPath, fmt.Sprintf("another member order: %s has %s here", names.got, bPath)}
				}
			}
			if d := firstDiff(ak[i].val, bk[i].val, joinPath(path, gjson.Escape(ak[i].key)), names); d.path != "" {
				return d
			}
		}
		return diff{}
	case a.IsArray() && b.IsArray():
		av, bv := a.Array(), b.Array()
		for i := 0; i < len(av) || i < len(bv); i++ {
			p := joinPath(path, strconv.Itoa(i))
			switch {
			case i >= len(av):
				return diff{p, "missing in " + names.want + ", present in " + names.got}
			case i >= len(bv):
				return diff{p, "missing in " + names.got + ", present in " + names.want}
			}
			if d := firstDiff(av[i], bv[i], p, names); d.path != "" {
				return d
			}
		}
		return diff{}
	case a.Type != b.Type || a.IsObject() != b.IsObject() || a.IsArray() != b.IsArray():
		return diff{path: here}
	case a.Type == gjson.String:
		if a.Str != b.Str {
			return diff{path: here}
		}
	case a.Type == gjson.Number:
		if a.Num != b.Num {
			return diff{path: here}
		}
	}
	return diff{}
}

func memberKeys(ms []member) map[string]bool {
	set := make(map[string]bool, len(ms))
	for _, m := range ms {
		set[m.key] = true
	}
	return set
}

type member struct {
	key string
	val gjson.Result
}

func members(v gjson.Result) []member {
	var out []member
	v.ForEach(func(k, val gjson.Result) bool {
		out = append(out, member{k.String(), val})
		return true
	})
	return out
}

func splitLines(b []byte) [][]byte {
	var lines [][]byte
	for _, line := range logformat.Lines(b) {
		lines = append(lines, bytes.TrimSuffix(line, []byte{'\n'}))
	}
	return lines
}

func commonPrefix(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

func eventType(line []byte) string { return gjson.GetBytes(line, "type").String() }

// eventLabel names a line: its event type, or, in a sidecar, the line
// itself, shortened.
func eventLabel(line []byte) string {
	if t := eventType(line); t != "" {
		return t
	}
	head, cut := headOf(string(line), 60)
	if cut {
		return strconv.Quote(head) + "…"
	}
	return strconv.Quote(head)
}

// headOf returns s, or when it is longer than most bytes its head, cut at
// a character boundary, and whether it was cut.
func headOf(s string, most int) (string, bool) {
	if len(s) <= most {
		return s, false
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut], true
}

// window shows line around byte offset at: the whole line when short,
// otherwise windowSize bytes each side, cut at character boundaries.
// Bytes that are not UTF-8, and control characters but tab, are shown
// escaped (\xff), so that neither reaches a terminal raw.
func window(line []byte, at int) string {
	if len(line) <= 2*windowSize+16 {
		return escapeBytes(line)
	}
	lo, hi := max(0, at-windowSize), min(len(line), at+windowSize)
	for lo > 0 && !utf8.RuneStart(line[lo]) && lo > at-windowSize-utf8.UTFMax {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) && hi < at+windowSize+utf8.UTFMax {
		hi++
	}
	var b strings.Builder
	if lo > 0 {
		fmt.Fprintf(&b, "…(%d bytes)", lo)
	}
	b.WriteString(escapeBytes(line[lo:hi]))
	if hi < len(line) {
		fmt.Fprintf(&b, "(%d bytes)…", len(line)-hi)
	}
	return b.String()
}

// escapeBytes returns b as text, with each byte that is not part of a
// UTF-8 encoding and each control character but tab written \xNN.
func escapeBytes(b []byte) string {
	clean := true
	for _, c := range b {
		if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return string(b)
	}
	var s strings.Builder
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20 && r != '\t', r == 0x7f:
			fmt.Fprintf(&s, "\\x%02x", b[i])
		default:
			s.Write(b[i : i+size])
		}
		i += size
	}
	return s.String()
}
