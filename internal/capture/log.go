package capture

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// Event types of a captured log, beside request/header.
const (
	TypeRequestHeader = logformat.RequestHeader
	TypeRequest       = logformat.CaptureRequest
	TypeReply         = logformat.CaptureReply
)

// Header reasons of a captured log.
const (
	ReasonInitial = "initial"
	ReasonChange  = "change"
)

// RuleError reports the redaction rules that matched nothing in a run:
// every one of them, so that a scenario's dead rules are fixed in one go.
type RuleError struct {
	Unmatched []int // 0-based indexes in the scenario's redact list, in order
	Rules     []redact.Rule
	Format    wire.Format // of the run's requests
}

// problem says what is wrong with rule i: that it matched nothing, and
// why it cannot match where its path reaches no value of the run's
// format.
func (e *RuleError) problem(i int) string {
	msg := fmt.Sprintf("%s matched nothing in any request of this run", e.Rules[i])
	if why := e.Rules[i].Reaches(e.Format); why != nil {
		msg += ": " + why.Error()
	}
	return msg
}

// Error names every rule that matched nothing by its index.
func (e *RuleError) Error() string {
	return e.Describe(func(i int, problem string) string { return fmt.Sprintf("redact[%d]: %s", i, problem) })
}

// Describe is Error with the line of rule i made by line(i, problem): a
// caller that knows where the rules were written names the place.
func (e *RuleError) Describe(line func(i int, problem string) string) string {
	const why = "an explicit rule that matches nothing is an error"
	lines := make([]string, len(e.Unmatched))
	for k, i := range e.Unmatched {
		lines[k] = line(i, e.problem(i))
	}
	if len(lines) == 1 {
		return lines[0] + "; " + why
	}
	return fmt.Sprintf("%d redact rules matched nothing (%s):\n  %s", len(lines), why, strings.Join(lines, "\n  "))
}

// Built is what [BuildLog] writes.
type Built struct {
	// Log is the full captured log.
	Log []byte
	// Templated is Log with each header's system and tools replaced by
	// "<<system>>" and "<<tools>>": what a golden file holds. It is
	// written beside Log, where the header's parts are at hand, so a
	// header of any size costs nothing to template.
	Templated []byte
	// Bodies are the captured bodies after redaction, which [Rebuild]
	// must give back.
	Bodies [][]byte
}

// BuildLog redacts the captured bodies and writes the captured log.
func BuildLog(reqs []Request, replies []wire.Reply, rules []redact.Rule) (*Built, error) {
	// A first pass splits (after redaction) and finds the header events,
	// so that both logs are written into buffers of their final size: a
	// session whose large header changes often would otherwise spend more
	// on growing the log than on anything else.
	type entry struct {
		p      *wire.Parts
		reason string // of the header event before the request, or ""
	}
	entries := make([]entry, len(reqs))
	bodies := make([][]byte, len(reqs))
	hits := make([]int, len(rules))
	var inForce *wire.Parts
	var format wire.Format
	logLen, templatedLen := 0, 0
	for i, r := range reqs {
		body, p := r.Body, r.parts
		if len(rules) > 0 || p == nil {
			body = redact.Apply(r.Body, r.Format, rules, hits)
			// Views of the redacted body, which Built.Bodies keeps: the
			// parts of every request live until the log is written.
			var err error
			if p, err = wire.SplitShared(body, r.Format); err != nil {
				return nil, fmt.Errorf("request %d after redaction: %w", r.N, err)
			}
		}
		e := entry{p: p}
		// The parts are compared where they are: the header document
		// is written only when it changes.
		if inForce == nil || format != r.Format || !sameHeader(p, inForce) {
			e.reason = ReasonChange
			if inForce == nil {
				e.reason = ReasonInitial
			}
			inForce, format = p, r.Format
			logLen += eventSlack + p.HeaderLen()
			templatedLen += eventSlack + len(p.Config) + len(wire.SystemPlaceholder) + len(wire.ToolsPlaceholder)
		}
		n := 2*eventSlack + len(p.Rest) + len(r.Path) + len(p.Prefix) + len(p.Suffix) + 16*(len(p.Spaces)+len(p.HeaderSpaces))
		if i < len(replies) {
			n += replyLen(replies[i])
		}
		logLen, templatedLen = logLen+n, templatedLen+n
		entries[i], bodies[i] = e, body
	}
	var unmatched []int
	for i, n := range hits {
		if n == 0 {
			unmatched = append(unmatched, i)
		}
	}
	if unmatched != nil {
		return nil, &RuleError{Unmatched: unmatched, Rules: rules, Format: format}
	}
	log, templated := make([]byte, 0, logLen), make([]byte, 0, templatedLen)
	for i, r := range reqs {
		e := entries[i]
		if e.reason != "" {
			log = appendHeader(log, r.N, e.reason, r.Format, e.p)
			templated = appendHeader(templated, r.N, e.reason, r.Format, templatedParts(e.p))
		}
		start := len(log)
		log = appendRequest(log, r, e.p, true)
		if len(e.p.HeaderSpaces) > 0 {
			// The whitespace inside the header's values is the header's:
			// the templated log, which holds no system or tools, leaves
			// it out (the templating rule, harness.Template).
			templated = appendRequest(templated, r, e.p, false)
			start = len(log)
		}
		if i < len(replies) {
			log = appendReply(log, r.N, replies[i])
		}
		templated = append(templated, log[start:]...)
	}
	return &Built{Log: log, Templated: templated, Bodies: bodies}, nil
}

// eventSlack bounds the bytes of an event line beside its variable parts.
const eventSlack = 128

// replyLen estimates the length of a reply as the log holds it.
func replyLen(r wire.Reply) int {
	n := len(r.Text)
	for _, c := range r.ToolCalls {
		n += eventSlack + len(c.ID) + len(c.Name) + len(c.Args())
	}
	return 2 * n // escapes
}

// sameHeader reports whether two bodies have the same header parts, byte
// for byte (absent and present differ).
func sameHeader(a, b *wire.Parts) bool {
	return bytes.Equal(a.Config, b.Config) && (a.System == nil) == (b.System == nil) && bytes.Equal(a.System, b.System) &&
		(a.Tools == nil) == (b.Tools == nil) && bytes.Equal(a.Tools, b.Tools)
}

// templatedParts returns parts whose header document has the templating rule
// of the golden logs applied: system and tools, where present, become
// their placeholders.
func templatedParts(p *wire.Parts) *wire.Parts {
	t := *p
	if t.System != nil {
		t.System = []byte(wire.SystemPlaceholder)
	}
	if t.Tools != nil {
		t.Tools = []byte(wire.ToolsPlaceholder)
	}
	return &t
}

func open(dst []byte, typ string, n int) []byte {
	dst = append(dst, `{"type":`...)
	dst = canon.AppendString(dst, typ)
	dst = append(dst, `,"data":{"request":`...)
	return canon.AppendInt(dst, int64(n))
}

func appendHeader(dst []byte, n int, reason string, f wire.Format, p *wire.Parts) []byte {
	dst = open(dst, TypeRequestHeader, n)
	dst = append(dst, `,"reason":`...)
	dst = canon.AppendString(dst, reason)
	dst = append(dst, `,"format":`...)
	dst = canon.AppendString(dst, string(f))
	dst = append(dst, `,"header":`...)
	dst = p.AppendHeader(dst)
	return append(dst, "}}\n"...)
}

// headerLine reads a request/header line laid out as appendHeader writes
// it: its format, and its header document as the line's last value. The
// header's own layout is for [wire.ReadHeader] to check, which finds it
// ending where the line's last "}}" begins or refuses it; ok is false for
// a line laid out otherwise.
func headerLine(line []byte) (f wire.Format, header []byte, ok bool) {
	const head, reason, format, hdr = `{"type":"` + TypeRequestHeader + `","data":{"request":`, `,"reason":"`, `,"format":"`, `,"header":`
	if !bytes.HasPrefix(line, []byte(head)) || !bytes.HasSuffix(line, []byte("}}")) {
		return "", nil, false
	}
	i := len(head)
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	// The reason and the format are plain words: no escapes.
	word := func(key string) ([]byte, bool) {
		if !bytes.HasPrefix(line[i:], []byte(key)) {
			return nil, false
		}
		i += len(key)
		n := bytes.IndexByte(line[i:], '"')
		if n < 0 || bytes.IndexByte(line[i:i+n], '\\') >= 0 {
			return nil, false
		}
		w := line[i : i+n]
		i += n + 1
		return w, true
	}
	if _, ok := word(reason); !ok {
		return "", nil, false
	}
	fw, ok := word(format)
	if !ok || !bytes.HasPrefix(line[i:], []byte(hdr)) {
		return "", nil, false
	}
	i += len(hdr)
	if i > len(line)-2 {
		return "", nil, false
	}
	return wire.Format(fw), line[i : len(line)-2], true
}

// appendRequest writes the capture/request event of a request split into
// p; a templated log's is without headerSpaces.
func appendRequest(dst []byte, r Request, p *wire.Parts, full bool) []byte {
	dst = open(dst, TypeRequest, r.N)
	dst = append(dst, `,"format":`...)
	dst = canon.AppendString(dst, string(r.Format))
	dst = append(dst, `,"path":`...)
	dst = canon.AppendString(dst, r.Path)
	dst = append(dst, `,"body":`...)
	dst = append(dst, p.Rest...)
	if p.Prefix != "" {
		dst = append(dst, `,"prefix":`...)
		dst = canon.AppendString(dst, p.Prefix)
	}
	if p.Suffix != "" {
		dst = append(dst, `,"suffix":`...)
		dst = canon.AppendString(dst, p.Suffix)
	}
	dst = appendSpaces(dst, "spaces", p.Spaces)
	if full {
		dst = appendSpaces(dst, logformat.MemberHeaderSpaces, p.HeaderSpaces)
	}
	return append(dst, "}}\n"...)
}

// appendSpaces writes a member [[AT,S],…], unless there is no space.
func appendSpaces(dst []byte, key string, spaces []wire.Space) []byte {
	if len(spaces) == 0 {
		return dst
	}
	dst = append(dst, ',')
	dst = canon.AppendString(dst, key)
	dst = append(dst, `:[`...)
	for i, s := range spaces {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '[')
		dst = canon.AppendInt(dst, int64(s.At))
		dst = append(dst, ',')
		dst = canon.AppendString(dst, s.Text)
		dst = append(dst, ']')
	}
	return append(dst, ']')
}

// AppendReply writes a reply as the log holds it.
func AppendReply(dst []byte, r wire.Reply) []byte {
	dst = append(dst, '{')
	if r.Text != "" {
		dst = append(dst, `"text":`...)
		dst = canon.AppendString(dst, r.Text)
	}
	if len(r.ToolCalls) > 0 {
		if r.Text != "" {
			dst = append(dst, ',')
		}
		dst = append(dst, `"toolCalls":[`...)
		for i, c := range r.ToolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"id":`...)
			dst = canon.AppendString(dst, c.ID)
			dst = append(dst, `,"name":`...)
			dst = canon.AppendString(dst, c.Name)
			dst = append(dst, `,"arguments":`...)
			dst = append(dst, c.Args()...)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendReply(dst []byte, n int, r wire.Reply) []byte {
	dst = open(dst, TypeReply, n)
	dst = append(dst, `,"reply":`...)
	dst = AppendReply(dst, r)
	return append(dst, "}}\n"...)
}

// Rebuild gives back every captured body of a full log, in order, each
// from the log prefix before it: the header in force and its
// capture/request event.
func Rebuild(log []byte) ([][]byte, error) {
	var out [][]byte
	err := eachRebuilt(log, func(body []byte) bool {
		out = append(out, bytes.Clone(body))
		return true
	})
	return out, err
}

// eachRebuilt rebuilds the bodies of a full log in order and hands each
// to fn, in a buffer reused for the next, until fn returns false.
func eachRebuilt(log []byte, fn func(body []byte) bool) error {
	var buf []byte
	var header *wire.Header
	var format wire.Format
	for n, line := range logformat.Lines(log) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		// Only request/header and capture/request lines matter; a view
		// of the line spares a copy of its header or body.
		if !bytes.Contains(line[:min(len(line), 40)], []byte(`"type":"request/header"`)) &&
			!bytes.Contains(line[:min(len(line), 40)], []byte(`"type":"capture/request"`)) {
			continue
		}
		if f, h, ok := headerLine(line); ok {
			// A line as appendHeader writes it: its header is read
			// without parsing the line around it.
			if header, ok = wire.ReadHeader(f, h); ok {
				format = f
				continue
			}
		}
		ev := gjson.Parse(canon.View(line))
		switch ev.Get("type").String() {
		case TypeRequestHeader:
			d := ev.Get("data")
			h := d.Get("header")
			if !h.IsObject() {
				return fmt.Errorf("log line %d: request/header without a header object", n)
			}
			format = wire.Format(d.Get("format").String())
			var err error
			if header, err = wire.ParseHeader(format, line[h.Index:h.Index+len(h.Raw)]); err != nil {
				return fmt.Errorf("log line %d: %w", n, err)
			}
		case TypeRequest:
			d := ev.Get("data")
			if header == nil {
				return fmt.Errorf("log line %d: a request before any request/header", n)
			}
			if f := wire.Format(d.Get("format").String()); f != format {
				return fmt.Errorf("log line %d: request in format %s under a %s header", n, f, format)
			}
			spaces := func(key string) []wire.Space {
				var out []wire.Space
				d.Get(key).ForEach(func(_, s gjson.Result) bool {
					out = append(out, wire.Space{At: int(s.Get("0").Int()), Text: s.Get("1").String()})
					return true
				})
				return out
			}
			fr := wire.Frame{Prefix: d.Get("prefix").String(), Suffix: d.Get("suffix").String(),
				Spaces: spaces("spaces"), HeaderSpaces: spaces(logformat.MemberHeaderSpaces)}
			rest := d.Get("body")
			body, err := header.AppendRebuild(buf[:0], line[rest.Index:rest.Index+len(rest.Raw)], fr)
			if err != nil {
				return fmt.Errorf("log line %d: %w", n, err)
			}
			buf = body
			if !fn(body) {
				return nil
			}
		}
	}
	return nil
}

// RebuildError reports a captured body that its log prefix does not give
// back.
type RebuildError struct {
	Request int // 1-based
	Offset  int // first differing byte, -1 when the counts differ
	Msg     string
}

// Error describes the failure.
func (e *RebuildError) Error() string {
	return fmt.Sprintf("request %d: %s", e.Request, e.Msg)
}

// CheckRebuild rebuilds every body of log and compares it with the body
// that was captured (after redaction).
func CheckRebuild(log []byte, bodies [][]byte) error {
	i := 0
	var bad *RebuildError
	err := eachRebuilt(log, func(got []byte) bool {
		if i >= len(bodies) {
			i++
			return true
		}
		if !bytes.Equal(got, bodies[i]) {
			k := 0
			for k < len(got) && k < len(bodies[i]) && got[k] == bodies[i][k] {
				k++
			}
			bad = &RebuildError{Request: i + 1, Offset: k, Msg: fmt.Sprintf("the body rebuilt from the log prefix differs from the captured one at byte %d", k)}
			return false
		}
		i++
		return true
	})
	switch {
	case err != nil:
		return err
	case bad != nil:
		return bad
	case i != len(bodies):
		return &RebuildError{Request: min(i, len(bodies)) + 1, Offset: -1, Msg: fmt.Sprintf("the log rebuilds %d bodies, %d were captured", i, len(bodies))}
	}
	return nil
}
