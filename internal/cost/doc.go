// Package cost tells what a header drift costs in prompt caching: how
// many tokens of a request are still a cached prefix after its first
// difference, how many must be written to the cache again, and what that
// adds to the next request, in input-token equivalents.
//
// Providers cache by exact prefix of the prompt they render from a
// request, in their own render order. Anthropic documents that order as
// tools, then system, then messages, so a drift in the first tool loses
// nearly the whole prefix and a drift at the end of the system prompt
// almost nothing. OpenAI, Gemini and DeepSeek document exact-prefix
// matching but not where tool definitions are rendered; the table (see
// [Table]) says per row what each source does and does not say, and
// assumes system, tools, messages for them.
//
// # The rate table
//
// One dated table holds, per provider and model family, the render order,
// the minimum cacheable prefix and the cache write and read prices as
// multiples of the base input price, each row with its source URL, the
// date it was checked and a note on what could not be checked. Rates
// change: a model no row matches is an error, not a guess.
//
// # Tokens
//
// Counts come from the o200k_base vocabulary of
// github.com/tiktoken-go/tokenizer, compiled into the binary, so they
// work offline. It is the tokenizer of OpenAI's GPT-4o, GPT-4.1 and GPT-5
// models; for Claude, Gemini and DeepSeek, whose tokenizers are not
// public, it is an estimate and [Cache.Estimate] says so. The vocabulary
// is loaded on the first count, once per process.
//
// # Limits
//
// The counts are of the request body's JSON bytes, not of the provider's
// rendering; a difference in config is taken to invalidate everything,
// although Anthropic keeps the tools and system cache for some members
// (tool_choice, thinking); cache breakpoints, lookback windows and the
// provider's granularity (OpenAI's 128-token steps, DeepSeek's prefix
// units) are not modelled, and neither are long-prompt price tiers.
package cost
