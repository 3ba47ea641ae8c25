package drift_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// Main is what `replay diff` runs. Here B is standard input: the same
// templated session log with another model in its config.
func ExampleMain() {
	golden := `{"type":"turn/start","data":{"turn":1}}
{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m-1"},"system":"<<system>>","tools":"<<tools>>"}}}
`
	dir, err := os.MkdirTemp("", "drift")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "golden.log")
	if err := os.WriteFile(path, []byte(golden), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	other := strings.Replace(golden, "m-1", "m-2", 1)
	var out strings.Builder
	code := drift.Main([]string{"-json", path, "-"}, strings.NewReader(other), &out, os.Stderr)
	var res struct {
		Identical bool
		First     struct {
			Index int
			Path  string
			Kinds []string
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("exit", code, res.Identical, res.First.Index, res.First.Path, res.First.Kinds)
	// Output:
	// exit 1 false 1 config.model [content]
}
