package drift

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/headergold/headergold/internal/redact"
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

// Compare reads the headers of a and b in order, pairs them by index and
// reports the first pair that differs, how it differs and how many later
// pairs differ. Byte-identical records are not parsed. It returns an
// *InputError when an input cannot be read or a record it has to parse is
// invalid.
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
	res := &Result{NotCompared: []Hidden{}}
	for index := 1; ; index++ {
		errA, errB := sa.next(), sb.next()
		if errA != nil && errA != io.EOF {
			return nil, errA
		}
		if errB != nil && errB != io.EOF {
			return nil, errB
		}
		endA, endB := errA == io.EOF, errB == io.EOF
		if endA && endB {
			break
		}
		if endA || endB {
			more := sb
			if endB {
				more = sa
			}
			d := onlyOne(index, sa, sb, endA)
			if err := more.drain(); err != nil {
				return nil, err
			}
			d.Cause = fmt.Sprintf("the inputs hold different numbers of headers (A %d, B %d)", sa.count, sb.count)
			if res.First == nil {
				res.First = d
				if !opts.NoCost {
					in := "A"
					if endA {
						in = "B"
					}
					res.CacheNote = fmt.Sprintf("not priced: header %d is only in %s, so there is no request on the other side to compare its prefix with", index, in)
				}
			} else {
				res.LaterDiffering++
			}
			res.LaterDiffering += more.count - index
			break
		}
		// Byte-identical records are not parsed, except the first: it
		// fixes what the inputs are, and an input that is neither a
		// session log nor request bodies must not pass as identical.
		if index > 1 && bytes.Equal(sa.src, sb.src) {
			continue
		}
		ha, err := sa.header()
		if err != nil {
			return nil, err
		}
		hb, err := sb.header()
		if err != nil {
			return nil, err
		}
		fa, fb := ha, hb // before any member is left out
		if hidden := templated(ha, hb); len(hidden) > 0 {
			ha, hb = ha.without(hidden), hb.without(hidden)
			res.NotCompared = mergeHidden(res.NotCompared, hidden)
		}
		if bytes.Equal(ha.doc, hb.doc) {
			continue
		}
		if res.First == nil {
			res.First = describe(index, ha, hb, sa.name, sb.name)
			if !opts.NoCost {
				sa.pricing, sb.pricing = pricingOf(fa), pricingOf(fb)
			}
		} else {
			res.LaterDiffering++
		}
	}
	if sa.pricing != nil {
		price(res, res.First, sa.pricing, sb.pricing, opts.Model)
	}
	for i, n := range hits {
		if n == 0 {
			res.UnusedRedactions = append(res.UnusedRedactions, opts.Redact[i].String())
		}
	}
	if sa.count == 0 && sb.count == 0 {
		return nil, fmt.Errorf("%s and %s: %w", sa.name, sb.name, ErrNothingToCompare)
	}
	res.Headers = Counts{A: sa.count, B: sb.count}
	res.Identical = res.First == nil
	return res, nil
}

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

// onlyOne describes a header that exists in one input only.
func onlyOne(index int, sa, sb *side, endA bool) *Difference {
	d := &Difference{
		Index: index,
		A:     Side{File: sa.name, Offset: -1},
		B:     Side{File: sb.name, Offset: -1},
		Diffs: []Diff{},
	}
	if sa.log == logYes {
		d.A.Format = FormatLog
	}
	if sb.log == logYes {
		d.B.Format = FormatLog
	}
	if endA {
		d.Kinds = []Kind{Added}
		d.B.Line = sb.line
		d.Diffs = append(d.Diffs, Diff{Kind: Added, OffsetA: -1, OffsetB: 0})
		d.B.Offset = 0
	} else {
		d.Kinds = []Kind{Removed}
		d.A.Line = sa.line
		d.Diffs = append(d.Diffs, Diff{Kind: Removed, OffsetA: 0, OffsetB: -1})
		d.A.Offset = 0
	}
	return d
}
