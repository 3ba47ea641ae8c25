package harness_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/headergold/headergold/harness"
)

// Pin the header of your own Go agent: give the harness a function that
// runs it against the session's fake provider. In a test of your module
// this is one call,
//
//	goldentest.Test(t, harness.Options{Fixtures: "testdata/fixtures", Golden: "testdata/golden", Agent: myagent.Run})
//
// and every fixture with an "agent" member and no exec runs through it;
// GOLDIE_UPDATE=1 records. Here the same is done through the library API
// on a scenario written on the spot.
func ExampleOptions_agent() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	fixtures, golden := filepath.Join(dir, "fixtures"), filepath.Join(dir, "golden")
	if err := os.Mkdir(fixtures, 0o755); err != nil {
		fmt.Println(err)
		return
	}
	err = os.WriteFile(filepath.Join(fixtures, "hello.json"), []byte(`{
  "description": "the agent says hello",
  "pin": true,
  "agent": {"env": {"PROMPT": "Say hello."}},
  "replies": [{"text": "Hello."}]
}`), 0o644)
	if err != nil {
		fmt.Println(err)
		return
	}

	// The agent: one Anthropic Messages request. A real agent would use
	// the official SDK: option.WithBaseURL(s.AnthropicBaseURL).
	agent := func(ctx context.Context, s *harness.Session) error {
		body := `{"model":"claude-x","max_tokens":64,"system":"Be kind.","tools":[{"name":"wave","input_schema":{"type":"object"}}],` +
			`"messages":[{"role":"user","content":"` + s.Getenv("PROMPT") + `"}]}`
		req, err := http.NewRequestWithContext(ctx, "POST", s.AnthropicBaseURL+"/v1/messages", strings.NewReader(body))
		if err != nil {
			return err
		}
		resp, err := s.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}

	opts := harness.Options{Fixtures: fixtures, Golden: golden, Agent: agent}
	suite, err := harness.Load(opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	changes, _, err := suite.Record(harness.RecordOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range changes {
		fmt.Println(c.Status, filepath.Base(c.File))
	}
	// Loaded again to read the golden files the record wrote.
	if suite, err = harness.Load(opts); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("replay passed:", suite.Replay(suite.Fixture("hello")).Passed())
	// Output:
	// created hello.golden
	// created hello.system.md
	// created hello.tools.json
	// replay passed: true
}
