package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// Source is one input of [Compare].
type Source struct {
	// Name names the input in results and errors, typically its path.
	Name string
	// Reader yields the session log or request bodies.
	Reader io.Reader
}

// Options tune [Compare]. The zero value detects formats and redacts
// nothing.
type Options struct {
	// Format forces how every record is read; "" or FormatAuto detects.
	// A body with a certain mark of another wire format is refused
	// (see the package documentation).
	Format Format
	// Redact normalises volatile values in both inputs before comparing,
	// with the rules of a captured scenario's redact (see [ParseRedaction]).
	Redact []redact.Rule
	// MaxRecordSize lowers the size limit of one record (0 keeps
	// the package's MaxRecordSize; a larger value does not raise it).
	MaxRecordSize int
	// Model, when set, prices the drift as a request to this model
	// instead of the one the header names (config.model), for example
	// for Gemini bodies, which name theirs in the URL.
	Model string
	// NoCost leaves the cost of the drift out: Result.Cache stays nil.
	NoCost bool
}

// Compare reads the requests of a and b in order, pairs them by position
// (request 1 with request 1, …) and reports the first pair whose headers
// differ, how they differ and how many later pairs differ. A request body
// is its own header; a request of a session log is sent under the header
// in force (see the package documentation). A pair is compared only when
// the header of either side changed since the last pair compared, and
// byte-identical headers are not parsed. Every record of both inputs is
// validated, except an event line byte-identical to the other input's
// line read beside it; it returns an *InputError when an input cannot be
// read or a record is not what the input holds.
func Compare(a, b Source, opts Options) (*Result, error) {
	if opts.Format != "" {
		if _, err := ParseFormat(string(opts.Format)); err != nil {
			return nil, err
		}
	}
	for i, r := range opts.Redact {
		if err := r.Check(); err != nil {
			return nil, fmt.Errorf("redaction %d: %w", i+1, err)
		}
	}
	hits := make([]int, len(opts.Redact))
	sa, sb := newSide(a, opts, hits), newSide(b, opts, hits)
	sa.peer, sb.peer = sb, sa
	sa.keepCapture, sb.keepCapture = !opts.NoCost, !opts.NoCost
	res := &Result{NotCompared: []Hidden{}}
	c := comparison{res: res, a: sa, b: sb, opts: opts, lastA: -1, lastB: -1}
	for {
		if err := advance(sa, sb); err != nil {
			return nil, err
		}
		if sa.eof || sb.eof {
			break
		}
		sa.ready, sb.ready = false, false
		if err := c.pair(); err != nil {
			return nil, err
		}
	}
	// Requests on one side only: read (and validate) them to the end.
	// Nothing there is priced, so long capture/request events are dropped.
	sa.keepCapture, sb.keepCapture = false, false
	// A body there has no pair: it is read in its own format, or the
	// one its input's earlier bodies established, and judged in it.
	for _, s := range []*side{sa, sb} {
		for !s.eof {
			if s.ready {
				if err := s.checkShape(s.settleFormat(s.ownFormat(), "")); err != nil {
					return nil, err
				}
			}
			s.ready = false
			if err := s.step(); err != nil {
				return nil, err
			}
		}
	}
	for i, n := range hits {
		if n == 0 {
			res.UnusedRedactions = append(res.UnusedRedactions, opts.Redact[i].String())
		}
	}
	if sa.requests == 0 && sb.requests == 0 {
		return nil, fmt.Errorf("%s and %s: %w", sa.name, sb.name, ErrNothingToCompare)
	}
	for _, s := range []*side{sa, sb} {
		if s.rr.mode == modeUndecided { // not a line but blank ones
			// Most likely a file cut short or never written (a CI
			// artifact that failed to upload), not a log of no request:
			// under git bisect run, drift would mark the commit bad.
			return nil, fmt.Errorf("%s: %w", s.name, ErrEmptyInput)
		}
	}
	res.Headers = Counts{A: sa.count(), B: sb.count()}
	res.Requests = Counts{A: sa.requests, B: sb.requests}
	res.logs = sa.log == logYes || sb.log == logYes
	if na, nb := sa.requests, sb.requests; na != nb {
		res.CountNote = countNote(na, nb, res.First == nil)
		if res.First != nil {
			res.LaterDiffering += max(na, nb) - min(na, nb)
		}
	}
	res.Identical = res.First == nil && res.CountNote == ""
	return res, nil
}

// advance steps both inputs, in step while neither has a request ready
// (so that two copies of a log are read line by line side by side, and a
// line is validated once), until each has a request ready or is at its
// end.
func advance(sa, sb *side) error {
	for !sa.ready && !sa.eof || !sb.ready && !sb.eof {
		if !sa.ready && !sa.eof {
			if err := sa.step(); err != nil {
				return err
			}
		}
		if !sb.ready && !sb.eof {
			if err := sb.step(); err != nil {
				return err
			}
		}
	}
	return nil
}

// count is the number of headers an input holds: its header events, or
// its bodies.
func (s *side) count() int {
	if s.log == logYes {
		return s.headers
	}
	return s.requests
}

// countNote says that the inputs hold different numbers of requests.
func countNote(na, nb int, sharedSame bool) string {
	count := func(n int, noun bool) string {
		switch {
		case n == 0:
			return "none"
		case !noun:
			return strconv.Itoa(n)
		case n == 1:
			return "1 request"
		}
		return fmt.Sprintf("%d requests", n)
	}
	note := fmt.Sprintf("A has %s, B has %s", count(na, true), count(nb, na == 0))
	if shared := min(na, nb); sharedSame && shared == 1 {
		note += "; the 1 they share has the same headers"
	} else if sharedSame && shared > 1 {
		note += fmt.Sprintf("; the %d they share have the same headers", shared)
	}
	return note
}

// comparison is the state of one Compare between pairs of requests.
type comparison struct {
	res  *Result
	a, b *side
	opts Options
	// lastA and lastB are the header indices of the last pair compared,
	// lastDiffers whether its headers differed: a pair under the same
	// headers differs as that one did, without a comparison.
	lastA, lastB int
	lastDiffers  bool
	compared     bool // a pair was compared (and parsed)
	templated    bool // a pair had members a template leaves out
	// docA and docB are what was compared of the last pair parsed (its
	// templated members left out), when known: a header change whose
	// compared part is the same as before changed something left out.
	docA, docB []byte
	docsKnown  bool
	// fullA and fullB are the whole headers of that pair (after
	// redaction), kept when a template left members out: a change one log
	// records is hidden drift only if its whole header did change.
	fullA, fullB []byte
}

// pair compares the ready requests of both inputs.
func (c *comparison) pair() error {
	sa, sb, res := c.a, c.b, c.res
	var fa, fb wire.Format
	if sa.log == logNo || sb.log == logNo {
		fa, fb = resolveFormats(sa, sb)
		if err := sa.checkShape(fa); err != nil {
			return err
		}
		if err := sb.checkShape(fb); err != nil {
			return err
		}
	}
	if sa.req.header == c.lastA && sb.req.header == c.lastB {
		if c.lastDiffers {
			res.LaterDiffering++
		}
		return nil
	}
	prevA, prevB := c.lastA, c.lastB
	c.lastA, c.lastB, c.lastDiffers = sa.req.header, sb.req.header, false
	res.compared++
	// Byte-identical headers are not parsed, except the first pair's: it
	// says what a templated log leaves out (NotCompared). Once a pair had
	// members left out, neither are those of a templated log, small by
	// being templated: what is compared of them must be known at the next
	// pair, where a change event on one side only is drift hidden by the
	// template (hiddenChange).
	// A captured log's request says under which keys its body held the
	// header's system and tools; they are bytes sent too.
	ka, kb := sa.captureKeys(), sb.captureKeys()
	if c.compared && !c.templated && ka == kb && bytes.Equal(sa.record(), sb.record()) {
		c.docsKnown = false
		// Not parsed, but a rule that would change it changed something:
		// it is not one "that changed nothing".
		if slices.Contains(sa.hits, 0) {
			if sa.log == logYes {
				sa.redactEvent(sa.record())
			} else {
				sa.redactBody(sa.record(), fa)
			}
		}
		return nil
	}
	c.compared = true
	ha, err := sa.header(fa)
	if err != nil {
		return err
	}
	hb, err := sb.header(fb)
	if err != nil {
		return err
	}
	ha, hb = ha.withKeys(ka), hb.withKeys(kb)
	fullA, fullB := ha, hb // before any member is left out
	hidden := templated(ha, hb)
	c.templated = c.templated || len(hidden) > 0
	if len(hidden) > 0 {
		ha, hb = ha.without(hidden), hb.without(hidden)
		res.NotCompared = mergeHidden(res.NotCompared, hidden)
	}
	var d *Difference
	same := bytes.Equal(ha.doc, hb.doc) && sameWireKeys(ha, hb)
	// priorB is B's previous whole header, when B records a header change
	// that A, templated, does not: what A's request was sent under is
	// known from it (see priorPricing). Copied only then: c.fullB is
	// reused below.
	var priorB []byte
	if same && c.docsKnown {
		d = hiddenChange(sa, sb, fullA, fullB, prevA, prevB, hidden, len(c.opts.Redact) > 0,
			bytes.Equal(c.docA, ha.doc), bytes.Equal(c.docB, hb.doc), !bytes.Equal(c.fullA, fullA.doc), !bytes.Equal(c.fullB, fullB.doc))
		if d != nil && d.changed == "B" && !c.opts.NoCost && len(c.fullB) > 0 && !hiddenIn(hidden, "B") {
			priorB = bytes.Clone(c.fullB)
		}
	}
	c.docA, c.docB, c.docsKnown = append(c.docA[:0], ha.doc...), append(c.docB[:0], hb.doc...), true
	c.fullA, c.fullB = c.fullA[:0], c.fullB[:0]
	if len(hidden) > 0 {
		c.fullA, c.fullB = append(c.fullA, fullA.doc...), append(c.fullB, fullB.doc...)
	}
	if same && d == nil {
		return nil
	}
	c.lastDiffers = true
	if res.First != nil {
		res.LaterDiffering++
		return nil
	}
	if d == nil {
		d = describe(sa.req.header, ha, hb, sa.name, sb.name)
	}
	d.Request = sa.req.n
	sa.place(&d.A, fullA)
	sb.place(&d.B, fullB)
	res.First = d
	sa.keepCapture, sb.keepCapture = false, false
	if !c.opts.NoCost {
		pa := sa.pricingOf(fullA)
		if priorB != nil {
			pa = priorPricing(fullB, priorB)
		}
		price(res, d, pa, sb.pricingOf(fullB), c.opts.Model)
	}
	return nil
}

// hiddenIn reports whether a template leaves a member out on side.
func hiddenIn(hidden []Hidden, side string) bool {
	return slices.ContainsFunc(hidden, func(h Hidden) bool { return slices.Contains(h.In, side) })
}

// sameWireKeys reports whether two bodies write their system and tools
// under the same keys, where both are known (see walker.wireKey).
func sameWireKeys(a, b *header) bool {
	same := func(x, y string) bool { return x == "" || y == "" || x == y }
	return same(a.systemRaw, b.systemRaw) && same(a.toolsRaw, b.toolsRaw)
}

// hiddenChange reports a header change that one log records and the
// other does not, where what is compared of the two headers agrees
// because a templated log leaves the rest out: one side moved to a new
// header event for this request, with reason change (or, for a body, to
// a body of its own), whose compared part
// is what it was at the last pair (sameA, sameB), and the other did not
// move. A side that holds what the template leaves out shows whether
// its header changed: its whole header (after redaction) must differ from
// the last pair's (wholeA, wholeB), or the change was only in a redacted
// value. A templated side cannot show it: under a redaction, a change in
// a redacted value could explain its event, and it is not judged. It
// returns nil otherwise.
func hiddenChange(sa, sb *side, ha, hb *header, prevA, prevB int, hidden []Hidden, redacted, sameA, sameB, wholeA, wholeB bool) *Difference {
	if len(hidden) == 0 || prevA < 0 || prevB < 0 {
		return nil
	}
	movedA, movedB := sa.req.header != prevA, sb.req.header != prevB
	// A body is a header of its own, so its side moves at every request:
	// it moved to another header when its whole header changed.
	if ha.format != FormatLog {
		movedA = wholeA
	}
	if hb.format != FormatLog {
		movedB = wholeB
	}
	changed, unchanged, whole, side, other := ha, sameA, wholeA, "A", "B"
	if movedB {
		changed, unchanged, whole, side, other = hb, sameB, wholeB, "B", "A"
	}
	if movedA == movedB || changed.format == FormatLog && changed.reason != logformat.ReasonChange || !unchanged {
		return nil
	}
	if hiddenIn(hidden, side) {
		if redacted {
			return nil
		}
	} else if !whole {
		return nil
	}
	names := make([]string, len(hidden))
	for i, h := range hidden {
		names[i] = h.Member
	}
	d := &Difference{Index: sa.req.header, Kinds: []Kind{Content}, A: ha.side(sa.name), B: hb.side(sb.name), Diffs: []Diff{}, hidden: names, changed: side,
		Cause: fmt.Sprintf("%s's log records a header change here and %s's does not; what changed is in what a templated log leaves out (%s)",
			side, other, strings.Join(names, ", "))}
	return d
}

// resolveFormats returns the wire formats the current bodies are read in
// (for an input of bodies; "" for a log). A body whose detection is sure
// is read in its format (see body.detect); an ambiguous one in the format
// its input's earlier bodies were read in, else in that of the other
// input's paired record (its body's, or the format a captured log's
// header in force names), else in the detection's fallback, OpenAI Chat.
// With -format, every body is read in that format. A body's shape is
// judged in the format it is read in (side.checkShape).
func resolveFormats(sa, sb *side) (wire.Format, wire.Format) {
	fa, fb := sa.ownFormat(), sb.ownFormat()
	return sa.settleFormat(fa, fb), sb.settleFormat(fb, fa)
}

// ownFormat is the format the current record says it is read in, from
// its input alone: a sure body's, else the one the input's earlier bodies
// established; for a log, the format its header in force names, when the
// other input needs it to settle an ambiguous body.
func (s *side) ownFormat() wire.Format {
	switch {
	case s.log != logNo:
		return s.heldWireIfCaptured()
	case s.curInfo.sure:
		return s.curInfo.format
	}
	return s.established
}

// settleFormat returns the format the current body is read in, given
// its own (ownFormat) and the other input's paired record's ("" for
// none), and makes it what this input's bodies established; "" for a
// log.
func (s *side) settleFormat(f, other wire.Format) wire.Format {
	if s.log != logNo {
		return ""
	}
	if f == "" {
		f = other
	}
	if f == "" {
		return s.curInfo.format // the fallback; it establishes nothing
	}
	s.established = f
	return f
}

// checkShape judges the current body's shape in f, the format it is read
// in (see recInfo.shapeIn); nothing for a log.
func (s *side) checkShape(f wire.Format) error {
	if s.log != logNo {
		return nil
	}
	if err := s.curInfo.shapeIn(s.cur, f); err != nil {
		return s.errorAt(s.cur, s.curLine, err)
	}
	return nil
}

// heldWireIfCaptured is the wire format a log's header in force names,
// looked up only when the other input needs it to settle an ambiguous
// body.
func (s *side) heldWireIfCaptured() wire.Format {
	other := s.peer
	if other == nil || other.log != logNo || other.curInfo.sure || other.established != "" {
		return ""
	}
	return s.heldWire()
}

// place fills in where the request of this input is and the header it
// was sent under: its header index, the request's line, and its turn and
// step (a reference-agent log) or its captured request number.
func (s *side) place(sd *Side, h *header) {
	r := s.req
	sd.Header, sd.RequestLine = r.header, r.line
	if s.log != logYes {
		return
	}
	switch {
	case r.implicit:
		sd.Turn, sd.Step, sd.Request = h.turn, h.step, h.request
	case r.capture:
		sd.Request = r.n
		if r.held {
			var f [1]span
			if fields(s.cur, s.curInfo.data.start, []string{"request"}, f[:]) && f[0].end > 0 {
				sd.Request = int(gjson.ParseBytes(s.cur[f[0].start:f[0].end]).Int())
			}
		}
	default:
		sd.Turn, sd.Step = r.turn, r.step
	}
}

// ErrEmptyInput is the error (wrapped) of [Compare] when one input has
// no line but blank ones while the other has requests.
var ErrEmptyInput = errors.New("the input is empty (0 bytes, or blank lines only): nothing to compare the other input with (a file cut short, or an artifact that was never written?)")

// ErrNothingToCompare is the error (wrapped) of [Compare] when neither
// input holds a header: two empty inputs are not "identical", they are
// not a test at all.
var ErrNothingToCompare = errors.New("nothing to compare: neither input holds a header (a request/header event or a request body)")

// mergeHidden adds the members and sides of add to those of have.
func mergeHidden(have, add []Hidden) []Hidden {
	for _, x := range add {
		i := slices.IndexFunc(have, func(h Hidden) bool { return h.Member == x.Member })
		if i < 0 {
			have = append(have, Hidden{Member: x.Member, In: slices.Clone(x.In)})
			continue
		}
		for _, side := range x.In {
			if !slices.Contains(have[i].In, side) {
				have[i].In = append(have[i].In, side)
			}
		}
		slices.Sort(have[i].In)
	}
	return have
}
