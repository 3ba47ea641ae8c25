package goagent_test

import (
	"fmt"
	"regexp"

	"github.com/headergold/headergold/examples/goagent"
	"github.com/headergold/headergold/harness"
)

// Pin a Go agent: hand goagent.Run to the harness. In a test this is the
// one call of the examples module's TestGolden,
//
//	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden", Agent: goagent.Run})
//
// which runs every scenario of fixtures/ (in-process through Run unless
// it has an agent.exec), with the repeat pass, against golden/. Here the
// same runs through the library API on the four pinned scenarios, one per
// API, against their committed golden files and sidecars.
func ExampleRun() {
	suite, err := harness.Load(harness.Options{
		Fixtures: "../fixtures",
		Golden:   "../golden",
		Run:      regexp.MustCompile(`^[a-z]+-trip$`),
		Agent:    goagent.Run,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range suite.Fixtures() {
		res := suite.Replay(f)
		fmt.Println(f.Name, f.Pin, res.Passed())
	}
	// Output:
	// anthropic-trip true true
	// chat-trip true true
	// gemini-trip true true
	// responses-trip true true
}
