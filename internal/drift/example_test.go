package drift_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/headergold/headergold/internal/drift"
)

// Two hosts sent the same Anthropic request with their tools registered in
// another order.
func ExampleCompare() {
	ci := `{"model":"m","system":"Be brief.","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"read","input_schema":{"type":"object"}},{"name":"write","input_schema":{"type":"object"}}]}`
	laptop := `{"model":"m","system":"Be brief.","messages":[{"role":"user","content":"hello"}],"tools":[{"name":"write","input_schema":{"type":"object"}},{"name":"read","input_schema":{"type":"object"}}]}`
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
	// drift: header 1 differs at tools.0
	//   kinds: reorder
	//   A: ci.jsonl line 1 (anthropic), tools.0 at byte 87
	//   B: laptop.jsonl line 1 (anthropic), tools.0 at byte 90
	//   tools (* moved):
	//     A: *read, write
	//     B: write, *read
	//   likely cause: tool registration order: the same tools in another order (concurrent or map-ordered registration)
	// later headers differing: 0 (headers: A 1, B 1)
}
