package cost

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// EstimateDrift prices the drift from old, the request whose prefix the
// provider has cached, to next, the request sent after it: it finds the
// first byte at which the two differ in the render order of next's rate
// row ([FirstDifference]) and estimates next's request there
// ([Estimate]). configChanged says that the header's config differs
// (model, sampling, tool_choice…), which is taken to invalidate the whole
// prefix. It returns the place it priced beside the cost.
func EstimateDrift(old, next Request, configChanged bool) (*Cache, Place, error) {
	rate, err := RateFor(next.Format, next.Model)
	if err != nil {
		return nil, Place{}, err
	}
	at := Place{Segment: Config}
	if !configChanged {
		at = FirstDifference(rate.Order, old, next)
	}
	c, err := Estimate(next, at)
	if err != nil {
		return nil, Place{}, err
	}
	return c, at, nil
}

// FirstDifference returns the first place, in the render order given,
// where the segments of next differ from those of old: the segment and
// the length of the bytes the two have in common at its start. A segment
// one side lacks (nil) differs at offset 0 from a non-empty one. Where old
// carries no conversation (nil Messages) it is taken to be next's, since
// there is nothing to compare it with. When nothing differs, the place is
// the end of the last segment in the order: nothing is lost.
func FirstDifference(order []string, old, next Request) Place {
	last := Place{Segment: Messages}
	for _, name := range order {
		a, b := segment(old, name), segment(next, name)
		if name == Messages && old.Messages == nil {
			a = b
		}
		last = Place{Segment: name, Offset: len(b)}
		if !bytes.Equal(a, b) {
			n := 0
			for n < len(a) && n < len(b) && a[n] == b[n] {
				n++
			}
			return Place{Segment: name, Offset: n}
		}
	}
	return last
}

// segment returns the bytes of the named segment of r.
func segment(r Request, name string) []byte {
	switch name {
	case Tools:
		return r.Tools
	case System:
		return r.System
	case Messages:
		return r.Messages
	}
	return nil
}

// Lines describes c for a person, priced at the place at (as
// [EstimateDrift] returns it) in a request whose segments had the sizes
// given by sizes (bytes per segment name; a missing name counts 0). The
// first line starts "cache:"; the others are meant to be indented under
// it. replay diff and a failing replay whose headers differ print these
// same lines.
func (c *Cache) Lines(at Place, sizes map[string]int) []string {
	var where string
	switch {
	case at.Segment == Config:
		where = "config (taken to invalidate the whole prefix)"
	case at.Segment == c.Order[len(c.Order)-1] && at.Offset == sizes[at.Segment] && c.LostTokens == 0:
		where = "none in the rendered segments"
	default:
		where = fmt.Sprintf("%s byte %d of %d", at.Segment, at.Offset, sizes[at.Segment])
	}
	lines := []string{
		fmt.Sprintf("cache: %s caches the prefix %s; first difference in that order: %s",
			c.Provider, strings.Join(c.Order, " → "), where),
		fmt.Sprintf("header %d tokens; kept %d before the difference, lost %d from it to the end of the request",
			c.HeaderTokens, c.KeptTokens, c.LostTokens),
		fmt.Sprintf("next request: %s extra input-token equivalents (%d lost × (%s write − %s read))",
			number(c.ExtraInputTokens), c.LostTokens, number(c.WriteMultiplier), number(c.ReadMultiplier)),
	}
	switch {
	case c.MinCacheable == 0:
		lines = append(lines, "minimum cacheable prefix: none documented")
	case c.KeptTokens+c.LostTokens < c.MinCacheable:
		lines = append(lines, fmt.Sprintf("minimum cacheable prefix %d tokens: the whole request (about %d) is below it, so the provider caches none of it, drift or not",
			c.MinCacheable, c.KeptTokens+c.LostTokens))
	case c.BelowMinimum:
		line := fmt.Sprintf("minimum cacheable prefix %d tokens: the %d kept are below it, so the next request reads none of it from the cache",
			c.MinCacheable, c.KeptTokens)
		// With nothing kept (a config change) there is nothing the
		// minimum takes away: "add up to 0" would only puzzle.
		if extra := math.Round(float64(c.KeptTokens)*(c.WriteMultiplier-c.ReadMultiplier)*100) / 100; extra != 0 {
			line += fmt.Sprintf(": add up to %s to the figure above", number(extra))
		}
		lines = append(lines, line)
	default:
		lines = append(lines, fmt.Sprintf("minimum cacheable prefix %d tokens: the %d kept are above it", c.MinCacheable, c.KeptTokens))
	}
	kind := "the model's own tokenizer"
	if c.Estimate {
		kind = "an estimate: not the model's own tokenizer"
	}
	lines = append(lines, fmt.Sprintf("tokens: %s (%s); rates as of %s, %s", c.Tokenizer, kind, c.RatesAsOf, c.Source))
	return lines
}

// number writes a multiplier or a token figure in its shortest form, to
// at most four significant digits after the point (1/30 as 0.03333).
func number(f float64) string {
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s)-i-1 > 4 {
		short := strconv.FormatFloat(f, 'g', 4, 64)
		if !strings.ContainsAny(short, "e") && len(short) < len(s) {
			return short
		}
	}
	return s
}
