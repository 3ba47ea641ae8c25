package goldentest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// A test of your module that pins the fixtures of its testdata: each is a
// subtest, GOLDIE_UPDATE=1 go test records them, and a failure reads as
// cmd/replay's.
func ExampleTest() {
	testGolden := func(t *testing.T) { // func TestGolden(t *testing.T) in a _test.go file
		goldentest.Test(t, harness.Options{Fixtures: "testdata/fixtures", Golden: "testdata/golden"})
	}
	_ = testGolden
}

// Fixtures with an "agent" member and no "exec" run your Go agent in the
// test's process: it is given each format's base URL of the fake
// provider and an *http.Client; an agent on an official SDK points the
// SDK at them (for Anthropic, option.WithBaseURL(s.AnthropicBaseURL)
// and option.WithHTTPClient(s.HTTPClient)).
func ExampleTest_agent() {
	// Your agent's entry point, taking where its provider is.
	runAgent := func(ctx context.Context, baseURL string, client *http.Client) error { return nil }
	testGolden := func(t *testing.T) {
		goldentest.Test(t, harness.Options{
			Fixtures: "testdata/fixtures",
			Golden:   "testdata/golden",
			Agent: func(ctx context.Context, s *harness.Session) error {
				return runAgent(ctx, s.AnthropicBaseURL, s.HTTPClient)
			},
		})
	}
	_ = testGolden
}
