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
//	{"identical": bool, "first": {"index": N, "request": N, "path": "...", "kinds": [...], ...} | null,
//	 "laterDiffering": N, "headers": {"a": N, "b": N}, "requests": {"a": N, "b": N},
//	 "countNote": "…",
//	 "notCompared": [{"member": "system"|"tools", "in": ["A"|"B", …]}, …],
//	 "cache": {"provider", "order", "headerTokens", …} | null,
//	 "cacheAt": {"segment": S, "offset": N}, "cacheNote": "…",
//	 "unusedRedactions": ["…", …]}
//
// The members of "first" are those of [Difference], those of "cache" of
// [github.com/headergold/headergold/internal/cost.Cache]; countNote,
// cacheAt, cacheNote and unusedRedactions are left out when empty.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// maxListed bounds the differences WriteText lists.
const maxListed = 10

// WriteText writes r for a person: the first pair of requests whose
// headers differ, where the requests and their headers are in both
// inputs, the tool lists, content and encoding details, the likely cause,
// the cost, and the number of later differing requests.
func (r *Result) WriteText(w io.Writer) error {
	p := &printer{w: w}
	logs := r.logs
	counts := fmt.Sprintf("requests: A %d, B %d", r.Requests.A, r.Requests.B)
	if logs {
		counts += fmt.Sprintf("; headers: A %d, B %d", r.Headers.A, r.Headers.B)
	}
	switch {
	case r.Identical:
		if logs {
			p.f("identical: %s, each pair under the same headers (headers: A %d, B %d)\n", plural(r.Requests.A, "request"), r.Headers.A, r.Headers.B)
		} else {
			// Said in so many words: a body's messages, and whatever
			// an agent sends in them (Codex CLI its instructions and
			// tools, as input items), may still differ.
			p.f("identical: %s, each pair with the same header (config, system, tools; the conversation is not compared)\n", plural(r.Requests.A, "request"))
		}
		p.notCompared(r.NotCompared)
		p.unused(r.UnusedRedactions)
		return p.err
	case r.First == nil:
		p.f("drift: %s\n", r.CountNote)
		p.f("(%s)\n", counts)
		p.notCompared(r.NotCompared)
		p.unused(r.UnusedRedactions)
		return p.err
	}
	d := r.First
	path := d.Path
	switch {
	case path == "" && len(d.hidden) > 0:
		path = "(what the template leaves out: " + strings.Join(d.hidden, ", ") + ")"
	case path == "":
		path = "(layout)"
	}
	p.f("drift: request %d differs at %s\n", d.Request, path)
	p.f("  kinds: %s\n", joinKinds(d.Kinds))
	p.side("A", d.Request, d.A)
	p.side("B", d.Request, d.B)
	if t := d.Tools; t != nil {
		p.f("  tools (%s):\n", toolLegend(t))
		p.f("    A: %s\n", markTools(t.A, t.MovedA, t.RemovedAt, "-"))
		p.f("    B: %s\n", markTools(t.B, t.MovedB, t.AddedAt, "+"))
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
			// Columns, not characters: CJK and emoji take two.
			col := displayWidth(quote(prefixRunes(c.A, c.Cut))) - 1
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
		for _, x := range []struct {
			side  string
			off   int
			bytes string
		}{{"A", e.OffsetA, ba}, {"B", e.OffsetB, bb}} {
			if x.off < 0 { // a member one side writes twice, the other once
				p.f("    %s: (absent)\n", x.side)
			} else {
				p.f("    %s byte %d: %s\n", x.side, x.off, x.bytes)
			}
		}
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
	if r.CountNote != "" {
		p.f("%s\n", r.CountNote)
	}
	p.f("later requests differing: %d (%s)\n", r.LaterDiffering, counts)
	p.notCompared(r.NotCompared)
	p.unused(r.UnusedRedactions)
	return p.err
}

// plural writes n and noun, with an "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
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

// side writes where one input's request and its header are: for a body,
// its line; for a session log, the request (its turn and step, or its
// captured number, and its line) and the header event in force (its
// index, line, reason and where it was logged).
func (p *printer) side(label string, request int, s Side) {
	var b strings.Builder
	if s.Format == FormatLog {
		fmt.Fprintf(&b, "  %s: %s request %d", label, s.File, request)
		switch {
		case s.Turn > 0 || s.Step > 0:
			fmt.Fprintf(&b, " (turn %d step %d, line %d)", s.Turn, s.Step, s.RequestLine)
		case s.Request > 0 && s.Request != request:
			fmt.Fprintf(&b, " (captured request %d, line %d)", s.Request, s.RequestLine)
		default:
			fmt.Fprintf(&b, " (line %d)", s.RequestLine)
		}
		fmt.Fprintf(&b, " under header %d (line %d", s.Header, s.Line)
		switch {
		case s.Wire != "":
			fmt.Fprintf(&b, ", log of %s requests", s.Wire)
			if s.Reason != "" {
				fmt.Fprintf(&b, ", %s at request %d", s.Reason, s.HeaderRequest)
			}
		case s.Reason != "":
			fmt.Fprintf(&b, ", %s at turn %d step %d", s.Reason, s.HeaderTurn, s.HeaderStep)
		}
		b.WriteString(")")
	} else {
		fmt.Fprintf(&b, "  %s: %s line %d", label, s.File, s.Line)
		if s.Format != "" {
			fmt.Fprintf(&b, " (%s)", s.Format)
		}
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

// markTools joins names, marking the moved ones (positions in moved)
// with "*" and those in only (removed from A or added to B) with mark.
// Positions, not names, are marked: of tools that share a name, the one
// that moved or is on one side only is the one marked.
func markTools(names []string, moved, only []int, mark string) string {
	out := make([]string, len(names))
	for i, n := range names {
		switch {
		case slices.Contains(only, i):
			out[i] = mark + n
		case slices.Contains(moved, i):
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
