package drift

import (
	"fmt"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/cost"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// The event of a captured log that holds the rest of a request body: its
// conversation, with the header parts as placeholders.
const captureType = logformat.CaptureRequest

// pricing is what pricing the first differing header needs from one side,
// copied out of the record (whose buffer the reader reuses).
type pricing struct {
	wire   wire.Format // "" for a reference-agent log, which names none
	model  string
	tools  []byte // nil when the header has none
	system []byte
	// templated lists the members a golden log holds as placeholders.
	templated []string
	// conv is the conversation of the request, convKnown whether the
	// input holds it: a request body does, a captured log in the
	// request's capture/request event, a reference log never.
	conv      []byte
	convKnown bool
	// stored names the member of an OpenAI Responses request that
	// refers to a conversation the provider stores (previous_response_id,
	// conversation): its turns come before the input and are not in it.
	stored string
	// hourCache is set when the config asks for one-hour caching
	// (Anthropic's top-level cache_control, automatic caching).
	hourCache bool
	path      string // the request path of a captured request (Gemini names its model there)
	// assumed says what was taken for this side's header, when it is
	// not the side's own (see priorPricing).
	assumed string
}

// pricingOf is pricingOf(h) for the current request of this input, h
// the header it was sent under: a captured request's conversation is read
// from its capture/request event, the current record.
func (s *side) pricingOf(h *header) *pricing {
	p := pricingOf(h)
	if s.log == logYes && s.req.capture && s.req.held {
		p.captured(s.cur, s.curInfo.data)
	}
	return p
}

// pricingOf copies from h, before any member is left out of it, what
// pricing needs.
func pricingOf(h *header) *pricing {
	root := gjson.ParseBytes(h.doc)
	p := &pricing{wire: h.wire}
	if m := wire.Lookup(root, "config", "model"); m.Type == gjson.String {
		p.model = m.Str
	}
	p.hourCache = wire.Lookup(root, "config", "cache_control", "ttl").String() == "1h"
	for _, name := range []string{"system", "tools"} {
		v := wire.Lookup(root, name)
		if !v.Exists() {
			continue
		}
		if h.format == FormatLog && v.Raw == placeholders[name] {
			p.templated = append(p.templated, name)
			continue
		}
		if name == "system" {
			p.system = []byte(v.Raw)
		} else {
			p.tools = []byte(v.Raw)
		}
	}
	if h.format != FormatLog {
		// conversation copies what it keeps: a view of the rest will do.
		rest := gjson.Parse(canon.View(h.rest))
		p.conv, p.convKnown = conversation(rest, h.wire), true
		p.stored = storedConversation(rest, h.wire)
	}
	return p
}

// storedConversation names the member of a request's rest that refers to
// a conversation the provider keeps (OpenAI Responses), "" when none.
func storedConversation(rest gjson.Result, f wire.Format) string {
	if f != wire.OpenAIResponses {
		return ""
	}
	for _, m := range []string{"previous_response_id", "conversation"} {
		if v := wire.Lookup(rest, m); v.Exists() && v.Type != gjson.Null {
			return m
		}
	}
	return ""
}

// priorPricing is the pricing of A's side when A is a templated log that
// records no header change where B, whole, records one (hiddenChange):
// A's request was sent under the header before, which agreed with B's
// header before in every member A shows. That header of B, prior, is
// taken for A's: what B's change loses is then known from B's bytes
// alone. The conversation is not known from it, and is taken to be B's.
func priorPricing(b *header, prior []byte) *pricing {
	p := pricingOf(&header{format: FormatLog, wire: b.wire, doc: prior})
	p.assumed = "A's system and tools are templated: A's header is taken to be B's header before this change, which it matches in every member A shows"
	return p
}

// conversation returns the conversation members of the rest of a body
// (wire.Parts.Rest, or the body of a capture/request event) in format f,
// as one JSON array or value: what a provider renders after the header.
// An OpenAI Chat body's messages are without the placeholder standing for
// its leading system messages.
func conversation(rest gjson.Result, f wire.Format) []byte {
	var members []string
	switch f {
	case wire.Anthropic:
		members = []string{"messages"}
	case wire.OpenAIChat:
		msgs := wire.Lookup(rest, "messages")
		if !msgs.IsArray() {
			return nil
		}
		var out []byte
		msgs.ForEach(func(_, m gjson.Result) bool {
			if m.Raw == wire.SystemPlaceholder {
				return true
			}
			if out == nil {
				out = append(out, '[')
			} else {
				out = append(out, ',')
			}
			out = append(out, m.Raw...)
			return true
		})
		if out == nil {
			return []byte("[]")
		}
		return append(out, ']')
	case wire.OpenAIResponses:
		members = []string{"input", "previous_response_id", "conversation"}
	case wire.Gemini:
		members = []string{"contents"}
	}
	var out []byte
	for _, m := range members {
		if v := wire.Lookup(rest, m); v.Exists() {
			if out != nil {
				out = append(out, ',')
			}
			out = append(out, v.Raw...)
		}
	}
	return out
}

// captured reads the conversation of a captured request from its
// capture/request event src, a validated record whose data member is at
// data.
func (p *pricing) captured(src []byte, data span) {
	d := gjson.ParseBytes(src[data.start:data.end])
	f := wire.Format(wire.Lookup(d, "format").String())
	if f == "" {
		f = p.wire
	}
	p.conv, p.convKnown = conversation(wire.Lookup(d, "body"), f), true
	p.stored = storedConversation(wire.Lookup(d, "body"), f)
	p.path = wire.Lookup(d, "path").String()
}

// ttl returns the cache lifetime an Anthropic request asks for: "1h" when
// its top-level cache_control (automatic caching) or any cache_control
// breakpoint of its tools, system or messages (a tool result's blocks
// included) asks for an hour, else "" (five minutes).
func (p *pricing) ttl() string {
	if p.hourCache {
		return "1h"
	}
	paths := []struct {
		seg  []byte
		path string
	}{
		{p.tools, "#.cache_control.ttl"},
		{p.system, "#.cache_control.ttl"},
		{p.conv, "#.content.#.cache_control.ttl"},
		{p.conv, "#.content.#.content.#.cache_control.ttl"},
	}
	for _, x := range paths {
		if len(x.seg) == 0 || x.seg[0] != '[' {
			continue
		}
		if strings.Contains(gjson.GetBytes(x.seg, x.path).Raw, `"1h"`) {
			return "1h"
		}
	}
	return ""
}

// price prices the first difference d between the headers of A and B
// (SPEC §7) on res: B's request is the one sent next, A's the one whose
// prefix is cached. model, when set, overrides the model the request
// names. Whatever keeps it from a price is said in res.CacheNote, and so
// are the assumptions behind one.
func price(res *Result, d *Difference, a, b *pricing, model string) {
	var notes []string
	note := func(format string, args ...any) { notes = append(notes, fmt.Sprintf(format, args...)) }
	// fail says why there is no price, and only that.
	fail := func(format string, args ...any) { res.CacheNote = fmt.Sprintf(format, args...) }

	if hidden := templatedIn(a, b); hidden != "" {
		switch {
		case len(b.templated) > 0:
			fail("not priced: %s, so their tokens are unknown (compare full logs, record -o, for the cost)", hidden)
			return
		case !d.configContent:
			// Where B's request stops matching A's prefix is in what
			// A's template leaves out: which tool or which text, and so
			// how much is kept, is not in the input.
			fail("not priced: %s, so where B's request first differs from A's in render order is unknown: only a config of another value, which loses the whole prefix, is priced from B alone (compare full logs, record -o, for the cost)", hidden)
			return
		}
		// A config of another value loses the whole prefix, whatever A's
		// left-out members hold: B's bytes, all known, are the cost.
		note("%s, which a config of another value makes no matter: it loses the whole prefix, counted from B's bytes", hidden)
	}
	if a.assumed != "" {
		note("%s", a.assumed)
	}
	f := b.wire
	if f == "" {
		f = wire.Anthropic
		note("provider assumed: the log names no wire format (a reference-agent log), so the model's row decides; its header bytes are counted as the reference agent writes them")
	}
	if model == "" {
		model = b.model
		if model == "" && b.wire == wire.Gemini {
			model = wire.GeminiModel(b.path)
		}
	}
	if model == "" {
		if b.wire == wire.Gemini {
			fail("not priced: the request names no model (Gemini names it in the URL); give -model")
		} else {
			fail("not priced: the header names no model (config.model); give -model")
		}
		return
	}
	rate, err := cost.RateFor(string(f), model)
	if err != nil {
		fail("no rate for model %q: the rate table (as of %s) has no row for it", model, cost.TableAsOf)
		return
	}
	next := cost.Request{Format: string(f), Model: model, Tools: b.tools, System: b.system, Messages: b.conv}
	if rate.Provider == cost.Anthropic && rate.Write1h > 0 {
		next.TTL = b.ttl()
	}
	old := cost.Request{Format: string(f), Model: model, Tools: a.tools, System: a.system}
	if a.convKnown && b.convKnown {
		old.Messages = a.conv
		if old.Messages == nil {
			old.Messages = []byte{}
		}
	}
	// A provider parses the body: a config written with other bytes but
	// the same value (key order, number spelling) is no other prompt, and
	// loses nothing. Only a config of another value is taken to
	// invalidate the whole prefix.
	configEncoding := !d.configContent && (d.Path == "config" || strings.HasPrefix(d.Path, "config."))
	c, at, err := cost.EstimateDrift(old, next, d.configContent)
	if err != nil {
		fail("not priced: %v", err)
		return
	}
	res.cacheSizes = map[string]int{cost.Tools: len(b.tools), cost.System: len(b.system), cost.Messages: len(b.conv)}
	at.Length = res.cacheSizes[at.Segment]
	res.Cache, res.CacheAt = c, &at
	switch {
	case !b.convKnown:
		note("the conversation is not counted: the input does not hold it")
	case b.stored != "":
		note("the conversation the provider stores for %s is not counted: the input holds only what it adds, and the stored turns, rendered after the header, are lost too", b.stored)
	}
	if next.TTL == "1h" {
		note("a cache_control breakpoint asks for 1h: every lost token is priced as a 1-hour write")
	}
	switch {
	case configEncoding && c.LostTokens == 0:
		note("the config differs only in its encoding (%s): a provider parses the body, so the rendered prompt is the same and its cached prefix is kept", encodingNotes(d, "config"))
	case configEncoding:
		note("the config differs only in its encoding (%s), which a provider that parses the body does not see; the figures are for the first difference after it", encodingNotes(d, "config"))
		// The header's kinds may be encoding alone while the priced
		// place is in the conversation, which the header comparison
		// never reads: what the note says is of the priced segment.
		switch {
		case at.Segment == cost.Messages:
			note("that one is in the conversation (messages), which is not compared, so its kind is not known")
		case onlyEncoding(d.Kinds) || firstIn(d, at.Segment) != nil && firstIn(d, at.Segment).Kind == Encoding:
			note("that one is only of encoding too: this is what a byte-prefix cache would lose")
		}
	case onlyEncoding(d.Kinds):
		note("only the encoding differs: a provider that parses the body renders both sides alike, so this is what a byte-prefix cache would lose")
	case at.Segment != cost.Messages && at.Segment != cost.Config:
		// The header differs in content somewhere, but what is priced
		// is its first difference in render order, which may be of
		// encoding alone.
		if x := firstIn(d, at.Segment); x != nil && x.Kind == Encoding {
			note("the first difference in that order (%s at %s) is only of encoding: a provider that parses the body renders it alike and keeps the prefix up to the first difference of content, so this is what a byte-prefix cache would lose", encodingNote(x), x.Path)
		}
	}
	res.CacheNote = strings.Join(notes, "; ")
}

// templatedIn names the members a golden log holds as placeholders on
// either side, for example "system and tools are templated in A and B".
func templatedIn(a, b *pricing) string {
	var members, sides []string
	add := func(side string, p *pricing) {
		if len(p.templated) == 0 {
			return
		}
		sides = append(sides, side)
		for _, m := range p.templated {
			if !contains(members, m) {
				members = append(members, m)
			}
		}
	}
	add("A", a)
	add("B", b)
	if len(members) == 0 {
		return ""
	}
	verb := "is"
	if len(members) > 1 {
		verb = "are"
	}
	return fmt.Sprintf("%s %s templated in %s", strings.Join(members, " and "), verb, strings.Join(sides, " and "))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// encodingNotes lists the notes of d's encoding differences under the
// header member member ("key order, number spelling").
func encodingNotes(d *Difference, member string) string {
	var notes []string
	for _, x := range d.Diffs {
		if x.Kind == Encoding && (x.Path == member || strings.HasPrefix(x.Path, member+".")) && x.Note != "" && !contains(notes, x.Note) {
			notes = append(notes, x.Note)
		}
	}
	if len(notes) == 0 {
		return "encoding"
	}
	return strings.Join(notes, ", ")
}

func onlyEncoding(kinds []Kind) bool {
	return len(kinds) == 1 && kinds[0] == Encoding
}

// firstIn returns the difference of d under the header member member
// ("tools", "system") that comes first in the body, where that member's
// bytes are in the order they are rendered in: by offset in B, or in A
// when one of them is not in B (a removed member), as offsets in the two
// bodies do not compare. It returns nil when none is listed, when their
// order is not known (one of them only in A, another only in B), or when
// Diffs was cut short at MaxDiffs, as what was cut may come first.
func firstIn(d *Difference, member string) *Diff {
	if d.MoreDiffs > 0 {
		return nil
	}
	var in []*Diff
	inA, inB := true, true
	for i := range d.Diffs {
		if x := &d.Diffs[i]; x.Path == member || strings.HasPrefix(x.Path, member+".") {
			in = append(in, x)
			inA, inB = inA && x.OffsetA >= 0, inB && x.OffsetB >= 0
		}
	}
	var at func(*Diff) int
	switch {
	case len(in) == 0:
		return nil
	case inB:
		at = func(x *Diff) int { return x.OffsetB }
	case inA:
		at = func(x *Diff) int { return x.OffsetA }
	default:
		return nil
	}
	first := in[0]
	for _, x := range in[1:] {
		if at(x) < at(first) {
			first = x
		}
	}
	return first
}

// encodingNote is what x's note says of an encoding difference, or
// "encoding".
func encodingNote(x *Diff) string {
	if x.Note == "" {
		return "encoding"
	}
	return x.Note
}

// CacheLines returns the lines replay diff prints for the cost of the
// first differing header: those of [cost.Cache.Lines], then the note, or,
// when the drift could not be priced, one line saying why ("cache: no rate
// for model …"). It returns nil when the inputs are identical.
func (r *Result) CacheLines() []string {
	if r.First == nil {
		return nil
	}
	if r.Cache == nil {
		if r.CacheNote == "" {
			return nil
		}
		return []string{"cache: " + r.CacheNote}
	}
	lines := r.Cache.Lines(*r.CacheAt, r.cacheSizes)
	if r.CacheNote != "" {
		lines = append(lines, "note: "+r.CacheNote)
	}
	return lines
}
