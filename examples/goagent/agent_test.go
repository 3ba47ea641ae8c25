package goagent_test

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/goagent"
)

// TestConfigFromEnv: the variables are read as documented, and a value
// the agent cannot honour is an error naming the variable, not a silent
// default.
func TestConfigFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	c, err := goagent.ConfigFromEnv(env("AGENT", "gemini", "STREAM", "1", "PROMPT", "hi",
		"GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:1", "GOOGLE_API_KEY", "k"))
	if err != nil {
		t.Fatal(err)
	}
	want := goagent.Config{API: goagent.Gemini, Stream: true, Tools: goagent.OrderSorted, Prompt: "hi", BaseURL: "http://127.0.0.1:1", APIKey: "k"}
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"AGENT", "bedrock", "PROMPT", "hi"}, "AGENT"},
		{[]string{"AGENT", "anthropic"}, "PROMPT"},
		{[]string{"AGENT", "anthropic", "PROMPT", "hi", "STREAM", "yes"}, "STREAM"},
		{[]string{"AGENT", "anthropic", "PROMPT", "hi", "TOOLS", "random"}, "TOOLS"},
		{[]string{"AGENT", "gemini", "PROMPT", "hi", "TAG_SESSION", "1"}, "TAG_SESSION"},
	} {
		_, err := goagent.ConfigFromEnv(env(tc.env...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got error %v, want one naming %s", tc.env, err, tc.want)
		}
	}
}

// TestRegistry: the default order is by name and the same every time;
// the map order holds the same tools; a name registered twice is refused.
func TestRegistry(t *testing.T) {
	r := goagent.NewRegistry()
	names := func(ts []goagent.Tool) []string {
		out := make([]string, len(ts))
		for i, tl := range ts {
			out[i] = tl.Name
		}
		return out
	}
	sorted := names(r.List(goagent.OrderSorted))
	if len(sorted) < 4 || !slices.IsSorted(sorted) {
		t.Fatalf("sorted list %v: want at least 4 tools, by name", sorted)
	}
	mapped := names(r.List(goagent.OrderMap))
	slices.Sort(mapped)
	if !slices.Equal(mapped, sorted) {
		t.Errorf("map order holds %v, want the tools %v", mapped, sorted)
	}
	tl, _ := r.Lookup("get_weather")
	if err := r.Register(tl); err == nil {
		t.Error("registering get_weather twice succeeded")
	}
}

// TestSubprocessSendsWhatInProcessSends: the command and Run share their
// code, so one scenario run in-process and as `go run ./goagent/cmd/goagent`
// logs the same bytes: nothing in the agent depends on how it was started
// or on the machine's environment beyond the scenario's.
func TestSubprocessSendsWhatInProcessSends(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command with go run")
	}
	dir, err := filepath.Abs("..") // the examples module, where go run finds the command
	if err != nil {
		t.Fatal(err)
	}
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			env := map[string]string{"STREAM": "1"}
			suite, f := scenario(t, "weather", weatherScenario(api, env, 1), goagent.Run)
			outIn, res := suite.Check(f)
			if !res.Passed() {
				t.Fatalf("in-process: %v", res.Failures)
			}
			sub := weatherScenario(api, env, 1)
			agent := sub["agent"].(map[string]any)
			agent["exec"] = []string{"go", "run", "./goagent/cmd/goagent"}
			agent["dir"] = dir
			agent["timeout"] = "180s"
			suite, f = scenario(t, "weather", sub, nil) // no Agent: it must run as the subprocess
			outSub, res := suite.Check(f)
			if !res.Passed() {
				t.Fatalf("subprocess: %v", res.Failures)
			}
			if !bytes.Equal(outIn.Log, outSub.Log) {
				t.Errorf("the logs differ:\nin-process:\n%s\nsubprocess:\n%s", outIn.Log, outSub.Log)
			}
		})
	}
}
