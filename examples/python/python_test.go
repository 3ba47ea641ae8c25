package python_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// TestGolden replays every scenario of fixtures/ (both formats, streaming
// and not, every reply shape) against its golden files, with the repeat
// pass: each run has another PYTHONHASHSEED.
func TestGolden(t *testing.T) {
	exampletest.NeedPython(t)
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden"})
}

// TestAnswers runs every scenario of fixtures/ once more and checks that
// the agent printed the scripted final text: it read the last reply,
// streamed or not, to the end.
func TestAnswers(t *testing.T) {
	exampletest.NeedPython(t)
	exampletest.Answers(t, "fixtures", "golden")
}

// TestStreamedHeadersArePinned holds each streamed scenario's headers to
// those of its twin that does not stream, which a sidecar pins: stream is
// no part of a header, so every header event must be the same bytes, and
// a header change on the streaming path alone cannot pass unseen.
func TestStreamedHeadersArePinned(t *testing.T) {
	exampletest.NeedPython(t)
	s, err := harness.Load(harness.Options{Fixtures: "fixtures", Golden: "golden"})
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, f := range s.Fixtures() {
		twin := s.Fixture(strings.TrimSuffix(f.Name, "-stream"))
		if twin == f || twin == nil {
			continue
		}
		pairs++
		t.Run(f.Name, func(t *testing.T) {
			if !twin.Pin {
				t.Fatalf("%s, the twin of %s, is not pinned", twin.Name, f.Name)
			}
			got, want := headerEvents(t, s, f), headerEvents(t, s, twin)
			if len(got) == 0 || !slices.Equal(got, want) {
				t.Errorf("the header events of %s:\n%s\ndiffer from those of %s:\n%s", f.Name, strings.Join(got, "\n"), twin.Name, strings.Join(want, "\n"))
			}
		})
	}
	if pairs != 2 {
		t.Errorf("%d streamed scenarios with a twin, want 2", pairs)
	}
}

// headerEvents runs f (every check but the golden comparison) and returns
// the request/header lines of its full log.
func headerEvents(t *testing.T, s *harness.Suite, f *harness.Fixture) []string {
	t.Helper()
	out, res := s.Check(f)
	for _, fl := range res.Failures {
		t.Errorf("%s", fl)
	}
	if out == nil {
		t.Fatalf("%s: no outputs", f.Name)
	}
	var lines []string
	for _, line := range strings.Split(string(out.Log), "\n") {
		if strings.HasPrefix(line, `{"type":"request/header"`) {
			lines = append(lines, line)
		}
	}
	return lines
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
		"description": "the Python agent's repeat pass",
		"agent": map[string]any{
			"exec": append([]string{"sh", "-c", `echo run >> "$RUN_COUNTER" && exec python3 agent/agent.py "$@"`, "sh"}, agentArgs...),
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

// TestRepeatCatchesSetOrder runs the agent that lists its tools in the
// order of a set of their names: str hashes are salted per process, the
// repeat pass gives every run another PYTHONHASHSEED, and it must fail
// with check repeat, name the seed that varied and call the drift a
// reorder.
func TestRepeatCatchesSetOrder(t *testing.T) {
	exampletest.NeedPython(t)
	const runs = 8
	s, f, counter := repeatScenario(t, "set-order", runs,
		"--api", "anthropic", "--tools-from-set", "--prompt", "Weather in Oslo?")
	_, res := s.Check(f) // every check but the golden comparison
	var repeat *harness.Failure
	for i, fl := range res.Failures {
		if fl.Check == harness.CheckRepeat {
			repeat = &res.Failures[i]
		} else {
			t.Errorf("unexpected failure: %s", fl)
		}
	}
	if repeat == nil {
		t.Fatalf("the repeat pass passed %d runs of an agent whose tool list follows a set's order", runs)
	}
	t.Logf("%s", repeat)
	for _, want := range []string{"differs from run 1", "PYTHONHASHSEED=", "(header 1)", "tools", "reorder"} {
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

// TestRepeatPassesSortedTools runs the same agent with its default, tools
// sorted by name: 20 runs out of 20, each with another PYTHONHASHSEED,
// give the same log.
func TestRepeatPassesSortedTools(t *testing.T) {
	exampletest.NeedPython(t)
	const runs = 20
	s, f, counter := repeatScenario(t, "sorted-tools", runs,
		"--api", "anthropic", "--prompt", "Weather in Oslo?")
	out, res := s.Check(f)
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
}
