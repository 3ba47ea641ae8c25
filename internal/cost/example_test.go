package cost_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/headergold/headergold/internal/cost"
)

// A drift in the system prompt of a small OpenAI request: in OpenAI's
// order the system prompt comes first, so the tools after it are lost
// too, and the prefix kept is far under the 1024 tokens OpenAI caches.
func ExampleEstimate() {
	r := cost.Request{
		Format:   "openai-chat",
		Model:    "gpt-4o-mini",
		Tools:    []byte(`[{"type":"function","function":{"name":"get_weather"}}]`),
		System:   []byte(`[{"role":"system","content":"You are terse. Today is 2026-12-01."}]`),
		Messages: []byte(`[{"role":"user","content":"Weather in Oslo?"}]`),
	}
	// The date in the system prompt changed: its first differing byte.
	at := cost.Place{Segment: cost.System, Offset: len(`[{"role":"system","content":"You are terse. Today is 2026-12-0`)}
	c, err := cost.Estimate(r, at)
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(c); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "provider": "openai",
	//   "order": [
	//     "system",
	//     "tools",
	//     "messages"
	//   ],
	//   "headerTokens": 37,
	//   "keptTokens": 21,
	//   "lostTokens": 30,
	//   "tokenizer": "o200k_base",
	//   "estimate": false,
	//   "minCacheable": 1024,
	//   "belowMinimum": true,
	//   "writeMultiplier": 1,
	//   "readMultiplier": 0.5,
	//   "extraInputTokens": 15,
	//   "ratesAsOf": "2026-11-05",
	//   "source": "https://developers.openai.com/api/docs/pricing"
	// }
}

// RateFor tells which row of the table a model falls under.
func ExampleRateFor() {
	r, err := cost.RateFor("anthropic", "claude-haiku-4-5-20251001")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Provider, r.Family, r.Order, r.MinCacheable, r.Write, r.Write1h, r.Read)
	_, err = cost.RateFor("anthropic", "claude-opus-4-9")
	fmt.Println(err)
	// Output:
	// anthropic Claude Opus 4.6, Opus 4.5, Haiku 4.5 [tools system messages] 4096 1.25 2 0.1
	// cost: model "claude-opus-4-9" is not in the rate table (as of 2026-12-01); add a row with its source
}
