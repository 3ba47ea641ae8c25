package harness_test

import (
	"fmt"
	"regexp"

	"github.com/headergold/headergold/harness"
)

// Replay the bundled fixtures the way cmd/replay does.
func ExampleSuite_Replay() {
	suite, err := harness.Load(harness.Options{
		Fixtures: "../fixtures",
		Golden:   "../golden",
		Run:      regexp.MustCompile(`^(text-turn|tool-turn)$`),
		Seed:     1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range suite.Fixtures() {
		res := suite.Replay(f)
		fmt.Println(f.Name, res.Passed())
	}
	// Output:
	// text-turn true
	// tool-turn true
}

// Template replaces a header's system text and tools with placeholders and
// leaves every other byte as it was.
func ExampleTemplate() {
	log := []byte(`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m-1"},"system":"Be brief.","tools":[{"name":"read_file"}]}}}` + "\n")
	out, err := harness.Template(log)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	fmt.Println(harness.IsTemplated(out))
	// Output:
	// {"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m-1"},"system":"<<system>>","tools":"<<tools>>"}}}
	// true
}

// Sidecars renders a pinned fixture's full headers for review.
func ExampleSidecars() {
	log := []byte(`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{},"system":"Be brief.","tools":[{"name":"read_file","parameters":{"type":"object"}}]}}}` + "\n")
	system, tools, err := harness.Sidecars(log)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(system))
	fmt.Print(string(tools))
	// Output:
	// Be brief.
	// {
	//   "initial": [
	//     {
	//       "name": "read_file",
	//       "parameters": {
	//         "type": "object"
	//       }
	//     }
	//   ],
	//   "changes": []
	// }
}
