package harness

import (
	"bytes"
	"fmt"
	"github.com/headergold/headergold/internal/logformat"
	"strconv"
	"strings"
	"unicode/utf8"

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
	// Cache is, for a pinned fixture, what the drift of its first
	// differing header costs in prompt caching (SPEC §7): the lines
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
	// Kinds are, for a pinned fixture, the kinds of difference in its
	// first differing header as replay diff names them (reorder, added,
	// removed, content, encoding): a tool list that changed order says
	// reorder here, where the line diff above shows only a changed name.
	Kinds []string
	// Moved, Added and Removed name the tools that moved, appeared and
	// went in that header, when its tools differ in order or membership.
	Moved, Added, Removed []string
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
	if m != nil && m.Path == "" && m.Want != "" && m.Got != "" && strings.HasSuffix(file, ".system.md") {
		return systemMismatch(m, want)
	}
	return m
}

func compareBytes(file string, want, got []byte) *Mismatch {
	if bytes.Equal(want, got) {
		return nil
	}
	if i := bytes.Index(want, []byte("\r\n")); i >= 0 && !bytes.Contains(got, []byte("\r\n")) {
		line := 1 + bytes.Count(want[:i], []byte{'\n'})
		return &Mismatch{File: file, Line: line, Reason: "line endings are CRLF, not LF: the file was converted " +
			"(a checkout without `-text` in .gitattributes, or an editor); restore it from git or record it again"}
	}
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
				return docMismatch(file, i+1, want, got, wl[i], gl[i])
			}
			return lineMismatch(file, i+1, wl[i], gl[i])
		}
	}
	// Same lines, different bytes: only the final newline differs.
	return &Mismatch{File: file, Line: len(wl), Reason: "the final newline differs"}
}

func lineMismatch(file string, n int, want, got []byte) *Mismatch {
	at := commonPrefix(want, got)
	m := &Mismatch{File: file, Line: n, Want: window(want, at), Got: window(got, at)}
	if withinLimits(want) && withinLimits(got) && gjson.ValidBytes(want) && gjson.ValidBytes(got) {
		m.Event = eventType(want)
		m.Path = firstDiffPath(gjson.ParseBytes(want), gjson.ParseBytes(got), "")
		what := "line"
		if m.Event != "" {
			what = "event " + m.Event
		}
		if m.Path == "" {
			m.Reason = fmt.Sprintf("%s: same JSON value, different bytes at byte %d", what, at)
		} else {
			m.Reason = fmt.Sprintf("%s differs at %s", what, m.Path)
		}
		return m
	}
	m.Reason = fmt.Sprintf("line differs at byte %d", at)
	return m
}

// systemMismatch names the header whose system text differs in a
// NAME.system.md sidecar: each later header starts after a marker line.
func systemMismatch(m *Mismatch, want []byte) *Mismatch {
	header := 1
	for i, line := range splitLines(want) {
		if i+1 >= m.Line {
			break
		}
		if bytes.HasPrefix(line, []byte(markerPrefix)) {
			header++
		}
	}
	m.Path = "system"
	m.Reason = fmt.Sprintf("the system prompt of header %d differs: %s", header, m.Reason)
	return m
}

// docMismatch reports a difference inside one indented JSON document (a
// tools sidecar): the line, and the path in the whole document.
func docMismatch(file string, n int, want, got, wantLine, gotLine []byte) *Mismatch {
	at := commonPrefix(wantLine, gotLine)
	m := &Mismatch{File: file, Line: n, Want: window(wantLine, at), Got: window(gotLine, at)}
	m.Path = firstDiffPath(gjson.ParseBytes(want), gjson.ParseBytes(got), "")
	if m.Path == "" {
		m.Reason = "same JSON value, different layout"
	} else {
		m.Reason = "differs at " + m.Path
	}
	return m
}

// firstDiffPath returns the path of the first difference between a and b in
// document order ("" when they hold the same JSON value).
func firstDiffPath(a, b gjson.Result, path string) string {
	here := path
	if here == "" {
		here = "(root)"
	}
	switch {
	case a.IsObject() && b.IsObject():
		ak, bk := members(a), members(b)
		for i := 0; i < len(ak) || i < len(bk); i++ {
			switch {
			case i >= len(ak):
				return joinPath(path, gjson.Escape(bk[i].key))
			case i >= len(bk):
				return joinPath(path, gjson.Escape(ak[i].key))
			case ak[i].key != bk[i].key:
				return joinPath(path, gjson.Escape(ak[i].key))
			}
			if p := firstDiffPath(ak[i].val, bk[i].val, joinPath(path, gjson.Escape(ak[i].key))); p != "" {
				return p
			}
		}
		return ""
	case a.IsArray() && b.IsArray():
		av, bv := a.Array(), b.Array()
		for i := 0; i < len(av) || i < len(bv); i++ {
			p := joinPath(path, strconv.Itoa(i))
			if i >= len(av) || i >= len(bv) {
				return p
			}
			if d := firstDiffPath(av[i], bv[i], p); d != "" {
				return d
			}
		}
		return ""
	case a.Type != b.Type || a.IsObject() != b.IsObject() || a.IsArray() != b.IsArray():
		return here
	case a.Type == gjson.String:
		if a.Str != b.Str {
			return here
		}
	case a.Type == gjson.Number:
		if a.Num != b.Num {
			return here
		}
	}
	return ""
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
	if len(line) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		return strconv.Quote(string(line[:cut])) + "…"
	}
	return strconv.Quote(string(line))
}

// window shows line around byte offset at: the whole line when short,
// otherwise windowSize bytes each side, cut at character boundaries.
func window(line []byte, at int) string {
	if len(line) <= 2*windowSize+16 {
		return string(line)
	}
	lo, hi := max(0, at-windowSize), min(len(line), at+windowSize)
	for lo > 0 && !utf8.RuneStart(line[lo]) {
		lo--
	}
	for hi < len(line) && !utf8.RuneStart(line[hi]) {
		hi++
	}
	var b strings.Builder
	if lo > 0 {
		fmt.Fprintf(&b, "…(%d bytes)", lo)
	}
	b.Write(line[lo:hi])
	if hi < len(line) {
		fmt.Fprintf(&b, "(%d bytes)…", len(line)-hi)
	}
	return b.String()
}
