package cost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/headergold/headergold/internal/wire"
)

// The segments of a request, as [Place.Segment] and [Cache.Order] name them.
const (
	// Tools is the tool definitions.
	Tools = "tools"
	// System is the system prompt: Anthropic's system, OpenAI Chat's
	// leading system and developer messages, OpenAI Responses'
	// instructions, Gemini's systemInstruction.
	System = "system"
	// Messages is the conversation.
	Messages = "messages"
	// Config is every other member of the header (model, sampling,
	// tool_choice, response formats). It has no place in a render order:
	// a difference there is taken to invalidate the whole prefix.
	Config = "config"
)

// The providers of [Rate.Provider].
const (
	Anthropic = "anthropic" // Claude models
	OpenAI    = "openai"    // GPT models, in openai-chat and openai-responses alike
	Gemini    = "gemini"    // Gemini models
	DeepSeek  = "deepseek"  // DeepSeek models, served in the openai-chat and anthropic formats
)

// TableAsOf is when the table was last compiled; each row carries the date
// of the newest source it was checked against.
const TableAsOf = "2026-12-01"

// Rate is one row of the table of prompt-cache rules: for the models it
// matches, the order a provider renders a request in, the shortest prefix
// it caches and what cache writes and reads cost in units of the model's
// base input-token price.
type Rate struct {
	// Provider serves the models: Anthropic, OpenAI, Gemini or DeepSeek.
	Provider string
	// Family names the models in words, as the source does.
	Family string
	// Models are model-ID prefixes (see [RateFor] for how they match).
	Models []string
	// Order is the render order the cache prefix follows.
	Order []string
	// MinCacheable is the shortest prefix, in tokens, the provider
	// caches; 0 where the source documents none.
	MinCacheable int
	// Write is the price of a token written to the cache (5-minute
	// lifetime where the provider offers a choice); Write1h is the price
	// for a 1-hour lifetime, 0 where none is offered.
	Write, Write1h float64
	// Read is the price of a token read from the cache.
	Read float64
	// Estimate is false only where o200k_base is the models' own
	// tokenizer.
	Estimate bool
	// Source is the page the row was checked against; AsOf when.
	Source, AsOf string
	// Note says how the numbers were checked and what could not be.
	Note string
}

// Anthropic documents the render order; everyone else documents only that
// the cache matches an exact prefix of the rendered prompt.
var (
	anthropicOrder = []string{Tools, System, Messages}
	// openAIOrder: OpenAI's caching guide says tools and images must be
	// identical between requests and that a structured-output schema is a
	// prefix of the system message, but not where tool definitions sit
	// relative to the instructions. The one format OpenAI publishes
	// (harmony, for gpt-oss) renders the developer instructions first,
	// then the function tools, then the conversation.
	openAIOrder = []string{System, Tools, Messages}
	// otherOrder is assumed for Gemini and DeepSeek, whose documentation
	// gives no order at all.
	otherOrder = []string{System, Tools, Messages}
)

const (
	anthropicCaching = "https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations"
	anthropicPricing = "https://platform.claude.com/docs/en/about-claude/pricing"
	openAICaching    = "https://developers.openai.com/api/docs/guides/prompt-caching"
	openAIPricing    = "https://developers.openai.com/api/docs/pricing"
	geminiCaching    = "https://ai.google.dev/gemini-api/docs/caching"
	deepSeekPricing  = "https://api-docs.deepseek.com/quick_start/pricing"

	anthropicChecked = "Minimum from the page's \"Cache limitations\" list as quoted verbatim " +
		"(2026-07-28 and 2026-10-01) in public repositories; the section itself could not be " +
		"opened here. Write 1.25x (5 min) / 2x (1 h) and read 0.1x are the page's standard " +
		"multipliers. Counts are o200k_base estimates; Anthropic says Claude 4.7 and later " +
		"use a newer tokenizer that gives about 30% more tokens for the same text."
)

// table is the one dated table of prompt-cache rules. Rows are checked
// by a test each; keep one row per distinct set of numbers.
var table = []Rate{
	{
		Provider: Anthropic, Family: "Claude Fable 5.1, Mythos 5.1",
		Models:       []string{"claude-fable-5.1", "claude-mythos-5.1"},
		Order:        anthropicOrder,
		MinCacheable: 512, Write: 1.25, Write1h: 2, Read: 0.025,
		Estimate: true, Source: anthropicPricing, AsOf: "2026-10-01",
		Note: "Pricing footnote: cache hits on Fable 5.1 and Mythos 5.1 cost 0.025x the base " +
			"input price. " + anthropicChecked,
	},
	{
		Provider: Anthropic, Family: "Claude Opus 5.5",
		Models:       []string{"claude-opus-5.5"},
		Order:        anthropicOrder,
		MinCacheable: 512, Write: 1.25, Write1h: 2, Read: 0.05,
		Estimate: true, Source: anthropicPricing, AsOf: "2026-10-01",
		Note: "Model page: $4 input, $5 5-minute write, $8 1-hour write, $0.20 cache read " +
			"(0.05x). " + anthropicChecked,
	},
	{
		Provider: Anthropic, Family: "Claude Opus 5, Sonnet 5.5, Fable 5, Mythos 5",
		Models:       []string{"claude-opus-5", "claude-sonnet-5.5", "claude-fable-5", "claude-mythos-5"},
		Order:        anthropicOrder,
		MinCacheable: 512, Write: 1.25, Write1h: 2, Read: 0.1,
		Estimate: true, Source: anthropicCaching, AsOf: "2026-10-01",
		Note: "Sonnet 5.5's model page lists $0.20 cache reads on $2 input (0.1x); a third " +
			"party reports a cut to $0.10 (0.05x) from 2026-10-07, not confirmed here. " +
			anthropicChecked,
	},
	{
		Provider: Anthropic, Family: "Claude Opus 4.8, Sonnet 5, Sonnet 4.6, Sonnet 4.5, Opus 4.1, Opus 4, Sonnet 4",
		Models: []string{"claude-opus-4.8", "claude-sonnet-5", "claude-sonnet-4.6", "claude-sonnet-4.5",
			"claude-opus-4.1", "claude-opus-4", "claude-sonnet-4"},
		Order:        anthropicOrder,
		MinCacheable: 1024, Write: 1.25, Write1h: 2, Read: 0.1,
		Estimate: true, Source: anthropicCaching, AsOf: "2026-10-01",
		Note: anthropicChecked,
	},
	{
		Provider: Anthropic, Family: "Claude Mythos Preview, Opus 4.7, Haiku 3.5",
		Models:       []string{"claude-mythos-preview", "claude-opus-4.7", "claude-3-5-haiku", "claude-haiku-3.5"},
		Order:        anthropicOrder,
		MinCacheable: 2048, Write: 1.25, Write1h: 2, Read: 0.1,
		Estimate: true, Source: anthropicCaching, AsOf: "2026-10-01",
		Note: "Haiku 3.5 pricing: $0.80 input, $1 and $1.60 writes, $0.08 reads. " +
			anthropicChecked,
	},
	{
		Provider: Anthropic, Family: "Claude Opus 4.6, Opus 4.5, Haiku 4.5",
		Models:       []string{"claude-opus-4.6", "claude-opus-4.5", "claude-haiku-4.5"},
		Order:        anthropicOrder,
		MinCacheable: 4096, Write: 1.25, Write1h: 2, Read: 0.1,
		Estimate: true, Source: anthropicCaching, AsOf: "2026-10-01",
		Note: anthropicChecked,
	},
	{
		Provider: OpenAI, Family: "GPT-5.6 and later GPT-5 models",
		Models:       []string{"gpt-5.6", "gpt-5.7", "gpt-5.8", "gpt-5.9"},
		Order:        openAIOrder,
		MinCacheable: 1024, Write: 1.25, Read: 0.1,
		Estimate: false, Source: openAICaching, AsOf: "2026-11-05",
		Note: "Guide: caching starts at 1024 tokens; for GPT-5.6 models and later families " +
			"cache writes cost 1.25x the uncached input rate (the only lifetime is 30 minutes). " +
			"Pricing page: gpt-5.6-sol $5 input, $0.50 cached. tiktoken 0.14.0 maps every " +
			"gpt-5 name to o200k_base. Order: see the package doc.",
	},
	{
		Provider: OpenAI, Family: "GPT-5 to GPT-5.5",
		Models:       []string{"gpt-5", "gpt-5.1", "gpt-5.2", "gpt-5.3", "gpt-5.4", "gpt-5.5"},
		Order:        openAIOrder,
		MinCacheable: 1024, Write: 1, Read: 0.1,
		Estimate: false, Source: openAIPricing, AsOf: "2026-11-05",
		Note: "Guide: no fee for cache writes before GPT-5.6; hits count in 128-token steps. " +
			"Pricing page: cached input is a tenth of input on the GPT-5 models (gpt-5 $1.25 " +
			"and $0.125). tiktoken maps gpt-5 to o200k_base.",
	},
	{
		Provider: OpenAI, Family: "GPT-4.1",
		Models:       []string{"gpt-4.1"},
		Order:        openAIOrder,
		MinCacheable: 1024, Write: 1, Read: 0.25,
		Estimate: false, Source: openAIPricing, AsOf: "2026-11-05",
		Note: "Pricing page: gpt-4.1 $2 input, $0.50 cached. tiktoken maps gpt-4.1 to o200k_base.",
	},
	{
		Provider: OpenAI, Family: "GPT-4o",
		Models:       []string{"gpt-4o", "chatgpt-4o"},
		Order:        openAIOrder,
		MinCacheable: 1024, Write: 1, Read: 0.5,
		Estimate: false, Source: openAIPricing, AsOf: "2026-11-05",
		Note: "Pricing page: gpt-4o $2.50 input, $1.25 cached; gpt-4o-mini $0.15 and $0.075. " +
			"tiktoken maps gpt-4o to o200k_base.",
	},
	{
		Provider: Gemini, Family: "Gemini 2.5 Flash, 2.5 Pro",
		Models:       []string{"gemini-2.5-flash", "gemini-2.5-pro"},
		Order:        otherOrder,
		MinCacheable: 2048, Write: 1, Read: 0.1,
		Estimate: true, Source: geminiCaching, AsOf: "2026-10-13",
		Note: "Implicit caching minimums from the page (last updated 2026-10-13; earlier " +
			"versions said 1024 and 4096). Writes are billed at the standard input price and " +
			"hits at a 90% discount, as Google Cloud's context-cache overview states; the " +
			"Gemini API pricing page was not checked. No render order is documented.",
	},
	{
		Provider: Gemini, Family: "Gemini 3 and 3.x",
		Models: []string{"gemini-3", "gemini-3.1", "gemini-3.5", "gemini-3.6", "gemini-3.7",
			"gemini-3.8"},
		Order:        otherOrder,
		MinCacheable: 4096, Write: 1, Read: 0.1,
		Estimate: true, Source: geminiCaching, AsOf: "2026-10-13",
		Note: "The page lists 3.8, 3.6 and 3.5 Flash (3.7 Flash in July) and 3.1 Pro Preview " +
			"at 4096. Read 0.1x as Google Cloud states for implicit caching. No render order " +
			"is documented.",
	},
	{
		Provider: Gemini, Family: "Gemini 4",
		Models:       []string{"gemini-4"},
		Order:        otherOrder,
		MinCacheable: 4096, Write: 1, Read: 0.05,
		Estimate: true, Source: geminiCaching, AsOf: "2026-10-13",
		Note: "The page lists Gemini 4 Argon at 4096. Read 0.05x is a third party's reading " +
			"of the pricing page (Gemini 4 Neon $3 input, $0.15 cached; Hydrogen $1.50 and " +
			"$0.075), not checked against Google's page here.",
	},
	{
		Provider: DeepSeek, Family: "DeepSeek Flash (V4.1-Flash)",
		Models:       []string{"deepseek-flash", "deepseek-v4-flash"},
		Order:        otherOrder,
		MinCacheable: 0, Write: 1, Read: 0.02,
		Estimate: true, Source: deepSeekPricing, AsOf: "2026-10-27",
		Note: "Pricing page: cache hit $0.003, miss $0.15 off-peak ($0.006 and $0.30 peak), so a " +
			"write costs a miss. deepseek-v4-flash is a legacy name served by V4.1-Flash. The " +
			"caching guide (guides/kv_cache) documents no minimum: a hit needs a whole cached " +
			"prefix unit. No render order is documented.",
	},
	{
		Provider: DeepSeek, Family: "DeepSeek V4 Pro",
		Models:       []string{"deepseek-v4-pro"},
		Order:        otherOrder,
		MinCacheable: 0, Write: 1, Read: 1.0 / 30,
		Estimate: true, Source: deepSeekPricing, AsOf: "2026-10-27",
		Note: "Pricing page: cache hit $0.022, miss $0.66 off-peak (1/30). No minimum and no " +
			"render order are documented.",
	},
}

// Table returns a copy of the rate table, for listing it.
func Table() []Rate {
	out := make([]Rate, len(table))
	for i, r := range table {
		r.Models, r.Order = slices.Clone(r.Models), slices.Clone(r.Order)
		out[i] = r
	}
	return out
}

// RateFor returns the row for a model requested in a wire format.
//
// The model is compared in lower case, without any routing prefix up to
// the last "/" (OpenRouter's "anthropic/claude-sonnet-4.6"), and with "."
// and "-" treated alike, since Anthropic writes "claude-opus-4-5" where
// gateways write "claude-opus-4.5". A prefix matches when the model is the
// prefix, or goes on with "@", ":" or "[" (Vertex dates, variants, context
// sizes), or with "-" and anything but a single digit: that digit would be
// another version, so "claude-opus-4" does not match "claude-opus-4-9".
// The longest matching prefix wins. An unknown format, or a model no row
// matches, is an error: a guessed rate would be a wrong one.
func RateFor(format, model string) (Rate, error) {
	if _, err := wire.ParseFormat(format); err != nil {
		return Rate{}, fmt.Errorf("cost: %w", err)
	}
	m := normModel(model)
	if m == "" {
		return Rate{}, fmt.Errorf("cost: no model given for the %s request: the rates depend on it", format)
	}
	best, bestLen := -1, 0
	for i, r := range table {
		for _, p := range r.Models {
			p = normModel(p)
			if len(p) > bestLen && matchesPrefix(m, p) {
				best, bestLen = i, len(p)
			}
		}
	}
	if best < 0 {
		return Rate{}, fmt.Errorf("cost: model %q is not in the rate table (as of %s); add a row with its source", model, TableAsOf)
	}
	return table[best], nil
}

func normModel(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return strings.ReplaceAll(s, ".", "-")
}

func matchesPrefix(model, prefix string) bool {
	rest, ok := strings.CutPrefix(model, prefix)
	if !ok {
		return false
	}
	if rest == "" {
		return true
	}
	switch rest[0] {
	case '@', ':', '[':
		return true
	case '-':
		seg := rest[1:]
		if i := strings.IndexAny(seg, "-@:["); i >= 0 {
			seg = seg[:i]
		}
		return !(len(seg) == 1 && seg[0] >= '0' && seg[0] <= '9')
	}
	return false
}
