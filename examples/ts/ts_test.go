package ts_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// TestGolden replays every scenario of fixtures/ (each SDK, streaming and
// not, every reply shape) against its golden files, with the repeat pass.
func TestGolden(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden"})
}

// TestAnswers runs every scenario of fixtures/ once more and checks that
// the agent printed the scripted final text, which proves that the SDK
// read the last reply (the earlier ones are echoed in the requests the
// golden files pin); the captured logs must also be the committed golden
// files, byte for byte.
func TestAnswers(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	exampletest.Answers(t, "fixtures", "golden")
}

// repeatScenario writes a captured scenario with runs runs of the agent
// into a new fixtures directory and loads it. The agent is started
// through sh, which first appends a line to a file so that the test can
// count the runs that took place.
func repeatScenario(t *testing.T, name string, runs int, agentArgs ...string) (*harness.Suite, *harness.Fixture, string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	counter := filepath.Join(t.TempDir(), "runs.txt")
	s, f := exampletest.Scenario(t, name, map[string]any{
		"description": "the TypeScript agent's repeat pass",
		"agent": map[string]any{
			"exec": append([]string{"sh", "-c", `echo run >> "$RUN_COUNTER" && exec node agent/agent.mjs "$@"`, "sh"}, agentArgs...),
			"dir":  dir,
			"env":  map[string]string{"RUN_COUNTER": counter},
		},
		"runs": runs,
		"replies": []any{
			map[string]any{"toolCalls": []any{map[string]any{"id": "toolu_01", "name": "get_weather", "arguments": map[string]string{"city": "Oslo"}}}},
			map[string]any{"text": "12 °C and clear in Oslo."},
		},
	})
	return s, f, counter
}

// countRuns returns how many times the agent was started.
func countRuns(t *testing.T, counter string) int {
	t.Helper()
	data, err := os.ReadFile(counter)
	if err != nil {
		t.Fatalf("the agent never started: %v", err)
	}
	return strings.Count(string(data), "run\n")
}

// TestRepeatCatchesAsyncPlugins runs the agent whose plugins register
// after random delays: its tool list follows timing, and the repeat pass
// must fail with check repeat and name the drift a reorder.
func TestRepeatCatchesAsyncPlugins(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	const runs = 20
	s, f, counter := repeatScenario(t, "async-plugins", runs,
		"--api", "anthropic", "--async-plugins", "--prompt", "Weather in Oslo?")
	res := s.Replay(f)
	var repeat *harness.Failure
	for i, fl := range res.Failures {
		switch fl.Check {
		case harness.CheckRepeat:
			repeat = &res.Failures[i]
		case harness.CheckGuard:
			// No golden file in the temporary directory: expected.
		default:
			t.Errorf("unexpected failure: %s", fl)
		}
	}
	if repeat == nil {
		t.Fatalf("the repeat pass passed %d runs of an agent whose tool list follows timing; failures: %v", runs, res.Failures)
	}
	t.Logf("%s", repeat)
	for _, want := range []string{"differs from run 1", "(header 1)", "tools", "reorder"} {
		if !strings.Contains(repeat.Msg, want) {
			t.Errorf("repeat failure %q does not say %q", repeat.Msg, want)
		}
	}
	// The pass stops at the first differing run, and says which it was.
	m := regexp.MustCompile(`^run (\d+) `).FindStringSubmatch(repeat.Msg)
	if m == nil {
		t.Fatalf("repeat failure %q does not start with the run number", repeat.Msg)
	}
	n, _ := strconv.Atoi(m[1])
	if n < 2 || n > runs {
		t.Errorf("run %d is outside 2..%d", n, runs)
	}
	if got := countRuns(t, counter); got != n {
		t.Errorf("the agent started %d times; the failure names run %d", got, n)
	}
}

// TestRepeatPassesSortedPlugins runs the same agent with its default
// registration (plugins, then a sort by name): 20 runs out of 20 give
// the same log.
func TestRepeatPassesSortedPlugins(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	const runs = 20
	s, f, counter := repeatScenario(t, "sorted-plugins", runs,
		"--api", "anthropic", "--prompt", "Weather in Oslo?")
	out, res := s.Check(f) // every check but the golden comparison
	for _, fl := range res.Failures {
		t.Errorf("%s", fl)
	}
	if out == nil {
		t.Fatal("no outputs")
	}
	if got := countRuns(t, counter); got != runs {
		t.Errorf("the agent ran %d times, want %d", got, runs)
	}
	if n := len(out.Requests); n != 2 {
		t.Errorf("the agent sent %d generation requests, want 2 (a tool call, then the answer)", n)
	}
	if !strings.Contains(string(out.Log), `"request/header"`) {
		t.Errorf("the log has no request/header event:\n%s", out.Log)
	}
}
