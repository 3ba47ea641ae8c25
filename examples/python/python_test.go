package python_test

import (
	"slices"
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
	exampletest.Answers(t, "fixtures", "golden", nil)
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
	if pairs != 4 {
		t.Errorf("%d streamed scenarios with a twin, want 4", pairs)
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

// TestRepeatCatchesSetOrder runs the agent that lists its tools in the
// order of a set of their names: str hashes are salted per process, the
// repeat pass gives every run another PYTHONHASHSEED, and it must fail
// with check repeat, name the seed that varied and call the drift a
// reorder.
func TestRepeatCatchesSetOrder(t *testing.T) {
	exampletest.NeedPython(t)
	exampletest.NewRepeat(t, "set-order", 8,
		"python3", "agent/agent.py", "--api", "anthropic", "--tools-from-set", "--prompt", "Weather in Oslo?").
		MustFail(t, "PYTHONHASHSEED=")
}

// TestRepeatPassesSortedTools runs the same agent with its default, tools
// sorted by name: 20 runs out of 20, each with another PYTHONHASHSEED,
// give the same log.
func TestRepeatPassesSortedTools(t *testing.T) {
	exampletest.NeedPython(t)
	exampletest.NewRepeat(t, "sorted-tools", 20,
		"python3", "agent/agent.py", "--api", "anthropic", "--prompt", "Weather in Oslo?").
		MustPass(t)
}
