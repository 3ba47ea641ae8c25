package cost

import (
	"fmt"
	"math"
	"slices"
)

// Request is one provider request seen as the segments a provider
// renders, in the body's own bytes (for example the parts
// [github.com/headergold/headergold/internal/wire.Split] gives, and the
// body's conversation member for Messages). A segment the request does
// not have is nil.
type Request struct {
	// Format is the wire format: anthropic, openai-chat,
	// openai-responses or gemini.
	Format string
	// Model is the model ID the request names (for Gemini, the one in
	// the request path).
	Model string
	// Tools, System and Messages are the segments' bytes.
	Tools, System, Messages []byte
	// TTL is the cache lifetime the request asks for: "" or "5m" for
	// five minutes (Anthropic's default), "1h" for an hour, which only
	// providers with a 1-hour price accept.
	TTL string
}

// Place is where the first difference is: a segment (tools, system,
// config or messages) and a byte offset into that segment's bytes. The
// offset is ignored for config, which has no bytes in a [Request].
type Place struct {
	// Segment is Tools, System, Config or Messages.
	Segment string `json:"segment"`
	// Offset is the byte offset of the first differing byte in the
	// segment; the segment's length when the other side only adds to it.
	Offset int `json:"offset"`
	// Length is the segment's length in bytes on the side priced (the
	// next request); 0 for Config, which is not rendered.
	Length int `json:"length"`
}

// Cache is the cost of a drift; its JSON members are exactly: provider,
// order, headerTokens, keptTokens, lostTokens, tokenizer, estimate,
// minCacheable, belowMinimum, writeMultiplier, readMultiplier,
// extraInputTokens, ratesAsOf, source.
type Cache struct {
	// Provider serves the model (see [Rate.Provider]).
	Provider string `json:"provider"`
	// Order is the provider's render order.
	Order []string `json:"order"`
	// HeaderTokens is the tokens of tools and system.
	HeaderTokens int `json:"headerTokens"`
	// KeptTokens is the tokens before the first difference in render
	// order: the prefix that is still cached for the next request.
	KeptTokens int `json:"keptTokens"`
	// LostTokens is the tokens from the difference to the end of the
	// request, the conversation included when it was given: what the
	// next request must write to the cache again.
	LostTokens int `json:"lostTokens"`
	// Tokenizer is the vocabulary the counts come from.
	Tokenizer string `json:"tokenizer"`
	// Estimate is true unless Tokenizer is the model's own.
	Estimate bool `json:"estimate"`
	// MinCacheable is the provider's shortest cacheable prefix for the
	// model, in tokens; 0 where none is documented.
	MinCacheable int `json:"minCacheable"`
	// BelowMinimum is KeptTokens < MinCacheable: the prefix that is still
	// identical after the difference is too short for the provider to
	// cache at all, so the next request reads nothing from the cache.
	// ExtraInputTokens counts only LostTokens; in this case it understates
	// the cost by up to KeptTokens × (WriteMultiplier − ReadMultiplier).
	// With no documented minimum (MinCacheable 0) it is always false.
	BelowMinimum bool `json:"belowMinimum"`
	// WriteMultiplier and ReadMultiplier are the prices of a cache write
	// and a cache read, in units of the base input-token price.
	WriteMultiplier float64 `json:"writeMultiplier"`
	ReadMultiplier  float64 `json:"readMultiplier"`
	// ExtraInputTokens is LostTokens × (WriteMultiplier −
	// ReadMultiplier), rounded to hundredths: what the lost prefix adds
	// to the next request, in base input-token equivalents, against the
	// same request with nothing lost (written again instead of read).
	ExtraInputTokens float64 `json:"extraInputTokens"`
	// RatesAsOf and Source date and cite the rate row used.
	RatesAsOf string `json:"ratesAsOf"`
	Source    string `json:"source"`
}

// Estimate prices a drift of request r whose first difference is at: it
// takes the segments in the provider's render order and counts the tokens
// before and after the difference.
//
// Counts are of the body's JSON bytes, escapes and all, not of the text
// the provider renders from them (its chat template, tool formatting and
// special tokens are unknown), so even with the model's own tokenizer a
// count can differ from the billed one; the ratios between kept and lost
// are what the counts are good for. The tokens before a byte offset are
// those of the prefix bytes [0, offset) tokenized on their own; byte-pair
// encoding over a cut can differ by a token or so from the tokens of the
// whole text up to the same byte, so kept + lost may differ slightly from
// the tokens of the whole request. An offset inside a multi-byte UTF-8
// character counts from that character's first byte.
func Estimate(r Request, at Place) (*Cache, error) {
	rate, err := RateFor(r.Format, r.Model)
	if err != nil {
		return nil, err
	}
	write := rate.Write
	switch r.TTL {
	case "", "5m":
	case "1h":
		if rate.Write1h == 0 {
			return nil, fmt.Errorf("cost: %s (%s) offers no 1-hour cache lifetime", rate.Family, rate.Provider)
		}
		write = rate.Write1h
	default:
		return nil, fmt.Errorf("cost: unknown cache lifetime %q (want \"5m\" or \"1h\")", r.TTL)
	}
	seg := func(name string) []byte {
		switch name {
		case Tools:
			return r.Tools
		case System:
			return r.System
		}
		return r.Messages
	}
	cut := -1 // index in the render order of the differing segment
	switch at.Segment {
	case Config:
	case Tools, System, Messages:
		cut = slices.Index(rate.Order, at.Segment)
		if b := seg(at.Segment); at.Offset < 0 || at.Offset > len(b) {
			return nil, fmt.Errorf("cost: offset %d is outside the %s segment (%d bytes)", at.Offset, at.Segment, len(b))
		}
	default:
		return nil, fmt.Errorf("cost: unknown segment %q (want tools, system, config or messages)", at.Segment)
	}

	c := &Cache{
		Provider:        rate.Provider,
		Order:           slices.Clone(rate.Order),
		Tokenizer:       TokenizerName,
		Estimate:        rate.Estimate,
		MinCacheable:    rate.MinCacheable,
		WriteMultiplier: write,
		ReadMultiplier:  rate.Read,
		RatesAsOf:       rate.AsOf,
		Source:          rate.Source,
	}
	for i, name := range rate.Order {
		b := seg(name)
		switch {
		case cut < 0 || i > cut:
			n, err := CountTokens(b)
			if err != nil {
				return nil, err
			}
			c.LostTokens += n
			if name != Messages {
				c.HeaderTokens += n
			}
		case i < cut:
			n, err := CountTokens(b)
			if err != nil {
				return nil, err
			}
			c.KeptTokens += n
			if name != Messages {
				c.HeaderTokens += n
			}
		default: // the differing segment, cut at the offset
			off := runeStart(b, at.Offset)
			kept, err := CountTokens(b[:off])
			if err != nil {
				return nil, err
			}
			lost, err := CountTokens(b[off:])
			if err != nil {
				return nil, err
			}
			c.KeptTokens += kept
			c.LostTokens += lost
			if name != Messages {
				n := kept + lost
				if off > 0 && off < len(b) {
					// The header is the whole segment, not its two halves.
					if n, err = CountTokens(b); err != nil {
						return nil, err
					}
				}
				c.HeaderTokens += n
			}
		}
	}
	c.BelowMinimum = c.KeptTokens < c.MinCacheable
	c.ExtraInputTokens = math.Round(float64(c.LostTokens)*(c.WriteMultiplier-c.ReadMultiplier)*100) / 100
	return c, nil
}
