package drift_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/headergold/headergold/internal/drift"
)

// Two hosts sent the same Anthropic request with their tools registered in
// another order. Anthropic renders the tools first, so all but the first
// bytes of the request are lost to the cache (on a request this small the
// provider caches nothing anyway, as the report says).
func ExampleCompare() {
	ci := `{"model":"claude-sonnet-4-6","system":"Be brief.","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"read","input_schema":{"type":"object"}},{"name":"write","input_schema":{"type":"object"}}]}`
	laptop := `{"model":"claude-sonnet-4-6","system":"Be brief.","messages":[{"role":"user","content":"hello"}],"tools":[{"name":"write","input_schema":{"type":"object"}},{"name":"read","input_schema":{"type":"object"}}]}`
	res, err := drift.Compare(
		drift.Source{Name: "ci.jsonl", Reader: strings.NewReader(ci + "\n")},
		drift.Source{Name: "laptop.jsonl", Reader: strings.NewReader(laptop + "\n")},
		drift.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Identical, res.First.Index, res.First.Path, res.First.Kinds)
	res.WriteText(os.Stdout)
	// Output:
	// false 1 tools.0 [reorder]
	// drift: request 1 differs at tools.0
	//   kinds: reorder
	//   A: ci.jsonl line 1 (anthropic), tools.0 at byte 103
	//   B: laptop.jsonl line 1 (anthropic), tools.0 at byte 106
	//   tools (* moved):
	//     A: *read, write
	//     B: write, *read
	//   likely cause: tool registration order: the same tools in another order (concurrent or map-ordered registration)
	//   cache: anthropic caches the prefix tools → system → messages; first difference in that order: tools byte 10 of 100
	//     header 30 tokens; kept 4 before the difference, lost 37 from it to the end of the request
	//     next request: 42.55 extra input-token equivalents (37 lost × (1.25 write − 0.1 read))
	//     minimum cacheable prefix 1024 tokens: the whole request (about 41) is below it, so the provider caches none of it, drift or not
	//     tokens: o200k_base (an estimate: not the model's own tokenizer); rates as of 2026-10-01, https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations
	// later requests differing: 0 (requests: A 1, B 1)
}
