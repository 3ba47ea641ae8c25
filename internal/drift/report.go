package drift

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteJSON writes r as one JSON object and a newline:
//
//	{"identical": bool, "first": {"index": N, "path": "...", "kinds": [...], ...} | null,
//	 "laterDiffering": N, "headers": {"a": N, "b": N},
//	 "notCompared": [{"member": "system"|"tools", "in": ["A"|"B", …]}, …],
//	 "cache": {"provider", "order", "headerTokens", …} | null,
//	 "cacheAt": {"segment": S, "offset": N}, "cacheNote": "…",
//	 "unusedRedactions": ["…", …]}
//
// The members of "first" are those of [Difference], those of "cache" of
// [github.com/headergold/headergold/internal/cost.Cache]; cacheAt, cacheNote and unusedRedactions are left out when
// empty.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// maxListed bounds the differences WriteText lists.
const maxListed = 10

// WriteText writes r for a person: the first differing header, where it
// is in both inputs, the tool lists, content and encoding details, the
// likely cause and the number of later differing headers.
func (r *Result) WriteText(w io.Writer) error {
	p := &printer{w: w}
	if r.Identical {
		p.f("identical: %d headers\n", r.Headers.A)
		p.notCompared(r.NotCompared)
		p.unused(r.UnusedRedactions)
		return p.err
	}
	d := r.First
	switch {
	case len(d.Kinds) == 1 && d.Path == "" && d.A.Line == 0:
		p.f("drift: header %d is only in B (%s line %d)\n", d.Index, d.B.File, d.B.Line)
		p.f("  kinds: %s\n", joinKinds(d.Kinds))
	case len(d.Kinds) == 1 && d.Path == "" && d.B.Line == 0:
		p.f("drift: header %d is only in A (%s line %d)\n", d.Index, d.A.File, d.A.Line)
		p.f("  kinds: %s\n", joinKinds(d.Kinds))
	default:
		path := d.Path
		if path == "" {
			path = "(layout)"
		}
		p.f("drift: header %d differs at %s\n", d.Index, path)
		p.f("  kinds: %s\n", joinKinds(d.Kinds))
		p.side("A", d.A)
		p.side("B", d.B)
	}
	if t := d.Tools; t != nil {
		p.f("  tools (%s):\n", toolLegend(t))
		p.f("    A: %s\n", markTools(t.A, t.Moved, t.Removed, "-"))
		p.f("    B: %s\n", markTools(t.B, t.Moved, t.Added, "+"))
	}
	if c := d.Content; c != nil {
		where := c.Path
		if c.Tool != "" && c.Field != "" {
			where = fmt.Sprintf("tool %q field %s (%s)", c.Tool, c.Field, c.Path)
		} else if c.Tool != "" {
			where = fmt.Sprintf("tool %q (%s)", c.Tool, c.Path)
		}
		if c.Strings {
			p.f("  content: %s, first difference at character %d\n", where, c.At)
			qa, qb := quote(c.A), quote(c.B)
			p.f("    A: %s\n", qa)
			p.f("    B: %s\n", qb)
			col := utf8.RuneCountInString(quote(prefixRunes(c.A, c.Cut))) - 1
			p.f("       %s^\n", strings.Repeat(" ", col))
		} else {
			p.f("  content: %s\n", where)
			p.f("    A: %s\n", orAbsent(c.A))
			p.f("    B: %s\n", orAbsent(c.B))
		}
	}
	if e := d.Encoding; e != nil {
		p.f("  encoding (%s): %s\n", e.Note, orRoot(e.Path))
		ba, bb := showBytes(e.A, e.B)
		p.f("    A byte %d: %s\n", e.OffsetA, ba)
		p.f("    B byte %d: %s\n", e.OffsetB, bb)
	}
	if len(d.Diffs) > 1 {
		p.f("  differences:\n")
		for i, x := range d.Diffs {
			if i == maxListed {
				break
			}
			line := fmt.Sprintf("    %-9s %s", x.Kind, orRoot(x.Path))
			if x.Tool != "" {
				line += fmt.Sprintf(" (%s)", x.Tool)
			}
			if x.Note != "" {
				line += ": " + x.Note
			}
			p.f("%s\n", line)
		}
		if more := len(d.Diffs) + d.MoreDiffs - maxListed; more > 0 {
			p.f("    … and %d more\n", more)
		}
	}
	if d.Cause != "" {
		p.f("  likely cause: %s\n", d.Cause)
	}
	for i, l := range r.CacheLines() {
		if i > 0 {
			l = "  " + l
		}
		p.f("  %s\n", l)
	}
	p.f("later headers differing: %d (headers: A %d, B %d)\n", r.LaterDiffering, r.Headers.A, r.Headers.B)
	p.notCompared(r.NotCompared)
	p.unused(r.UnusedRedactions)
	return p.err
}

// unused names the redactions that changed nothing.
func (p *printer) unused(rs []string) {
	if len(rs) > 0 {
		p.f("redactions that changed nothing: %s\n", strings.Join(rs, ", "))
	}
}

// notCompared says which members a templated log kept out of the
// comparison, for example "not compared: system, tools (templated in A)".
func (p *printer) notCompared(hs []Hidden) {
	if len(hs) == 0 {
		return
	}
	parts := make([]string, len(hs))
	same := true
	for i, h := range hs {
		parts[i] = h.Member
		same = same && slices.Equal(h.In, hs[0].In)
	}
	if same {
		p.f("not compared: %s (templated in %s)\n", strings.Join(parts, ", "), strings.Join(hs[0].In, " and "))
		return
	}
	for i, h := range hs {
		parts[i] = fmt.Sprintf("%s (templated in %s)", h.Member, strings.Join(h.In, " and "))
	}
	p.f("not compared: %s\n", strings.Join(parts, ", "))
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) side(label string, s Side) {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s: %s line %d", label, s.File, s.Line)
	if s.Format != "" {
		fmt.Fprintf(&b, " (%s", s.Format)
		switch {
		case s.Reason != "" && s.Wire != "":
			fmt.Fprintf(&b, " of %s requests, %s at request %d", s.Wire, s.Reason, s.Request)
		case s.Reason != "":
			fmt.Fprintf(&b, ", %s at turn %d step %d", s.Reason, s.Turn, s.Step)
		}
		b.WriteString(")")
	}
	switch {
	case s.Offset < 0:
		b.WriteString(", absent")
	case s.WirePath != "":
		fmt.Fprintf(&b, ", %s at byte %d", s.WirePath, s.Offset)
	default:
		fmt.Fprintf(&b, ", byte %d", s.Offset)
	}
	p.f("%s\n", b.String())
}

func joinKinds(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

func toolLegend(t *ToolLists) string {
	var parts []string
	if len(t.Moved) > 0 {
		parts = append(parts, "* moved")
	}
	if len(t.Removed) > 0 {
		parts = append(parts, "- removed")
	}
	if len(t.Added) > 0 {
		parts = append(parts, "+ added")
	}
	return strings.Join(parts, ", ")
}

// markTools joins names, marking moved ones with "*" and those in only
// (removed from A or added to B) with mark. Names repeat when tools share
// a name; each listed name marks one occurrence.
func markTools(names, moved, only []string, mark string) string {
	left := func(list []string) map[string]int {
		m := map[string]int{}
		for _, n := range list {
			m[n]++
		}
		return m
	}
	mv, on := left(moved), left(only)
	out := make([]string, len(names))
	for i, n := range names {
		switch {
		case on[n] > 0:
			on[n]--
			out[i] = mark + n
		case mv[n] > 0:
			mv[n]--
			out[i] = "*" + n
		default:
			out[i] = n
		}
	}
	return strings.Join(out, ", ")
}

// quote writes s as a Go string literal, keeping printable Unicode.
func quote(s string) string { return strconv.Quote(s) }

func prefixRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

func orRoot(path string) string {
	if path == "" {
		return "(header)"
	}
	return path
}

// showBytes shows two runs of raw JSON bytes, quoting both when either
// holds whitespace or control characters.
func showBytes(a, b string) (string, string) {
	space := func(r rune) bool { return r <= ' ' }
	if strings.ContainsFunc(a, space) || strings.ContainsFunc(b, space) || a == "" || b == "" {
		return strconv.Quote(a), strconv.Quote(b)
	}
	return a, b
}
