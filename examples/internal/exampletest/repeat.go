package exampletest

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
)

// Repeat is a captured scenario for the repeat pass: the agent argv, run
// runs times from the test package's directory, answering a weather
// question with one get_weather call. sh starts it, after appending a
// line to a file for each run, so that the test can count the runs that
// took place.
type Repeat struct {
	Suite   *harness.Suite
	Fixture *harness.Fixture
	runs    int
	counter string
}

// NewRepeat writes the scenario as fixtures/NAME.json of a new suite (see
// [Scenario]) and loads it.
func NewRepeat(t *testing.T, name string, runs int, argv ...string) *Repeat {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	counter := filepath.Join(t.TempDir(), "runs.txt")
	s, f := Scenario(t, name, map[string]any{
		"description": "the repeat pass over " + strings.Join(argv, " "),
		"agent": map[string]any{
			"exec": append([]string{"sh", "-c", `echo run >> "$RUN_COUNTER" && exec "$@"`, "sh"}, argv...),
			"dir":  dir,
			"env":  map[string]string{"RUN_COUNTER": counter},
		},
		"runs": runs,
		"replies": []any{
			map[string]any{"toolCalls": []any{map[string]any{"id": "toolu_01", "name": "get_weather", "arguments": map[string]string{"city": "Oslo"}}}},
			map[string]any{"text": "12 °C and clear in Oslo."},
		},
	})
	return &Repeat{Suite: s, Fixture: f, runs: runs, counter: counter}
}

// Runs returns how many times the agent was started.
func (r *Repeat) Runs(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile(r.counter)
	if err != nil {
		t.Fatalf("the agent never started: %v", err)
	}
	return strings.Count(string(data), "run\n")
}

// MustFail runs every check but the golden comparison, which must fail
// with check repeat alone, naming the run that differed (the pass stops
// there: the agent must have started that many times), a reorder of the
// tools of the first header, and each of wants. It returns the failure's
// message.
func (r *Repeat) MustFail(t *testing.T, wants ...string) string {
	t.Helper()
	repeat := RepeatFailure(t, r.Suite, r.Fixture)
	if repeat == nil {
		t.Fatalf("the repeat pass passed %d runs of %s", r.runs, r.Fixture.Name)
	}
	for _, want := range append([]string{"differs from run 1", "(header 1)", "tools", "reorder"}, wants...) {
		if !strings.Contains(repeat.Msg, want) {
			t.Errorf("repeat failure %q does not say %q", repeat.Msg, want)
		}
	}
	m := regexp.MustCompile(`^run (\d+) `).FindStringSubmatch(repeat.Msg)
	if m == nil {
		t.Fatalf("repeat failure %q does not start with the run number", repeat.Msg)
	}
	n, _ := strconv.Atoi(m[1])
	if n < 2 || n > r.runs {
		t.Errorf("run %d is outside 2..%d", n, r.runs)
	}
	if got := r.Runs(t); got != n {
		t.Errorf("the agent started %d times; the failure names run %d", got, n)
	}
	return repeat.Msg
}

// RepeatFailure runs every check of f but the golden comparison and
// returns its failure of check repeat, logged, or nil; any other failure
// fails the test.
func RepeatFailure(t *testing.T, s *harness.Suite, f *harness.Fixture) *harness.Failure {
	t.Helper()
	_, res := s.Check(f)
	var repeat *harness.Failure
	for i, fl := range res.Failures {
		if fl.Check == harness.CheckRepeat {
			repeat = &res.Failures[i]
			t.Logf("%s", repeat)
		} else {
			t.Errorf("unexpected failure: %s", fl)
		}
	}
	return repeat
}

// MustPass runs every check but the golden comparison, which must all
// pass, with every run started and two generation requests (the tool
// call, then the answer).
func (r *Repeat) MustPass(t *testing.T) {
	t.Helper()
	out, res := r.Suite.Check(r.Fixture)
	for _, fl := range res.Failures {
		t.Errorf("%s", fl)
	}
	if out == nil {
		t.Fatal("no outputs")
	}
	if got := r.Runs(t); got != r.runs {
		t.Errorf("the agent ran %d times, want %d", got, r.runs)
	}
	if n := len(out.Requests); n != 2 {
		t.Errorf("the agent sent %d generation requests, want 2 (a tool call, then the answer)", n)
	}
}
