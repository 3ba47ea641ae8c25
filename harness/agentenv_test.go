package harness

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// envAgentFixture is a captured scenario whose subprocess agent (sh -c)
// appends the GOMAXPROCS and PYTHONHASHSEED it got to $SEEN, one line a
// run, then sends one Anthropic request with curl, its two tools in
// another order from run $FLIP on (never when FLIP is empty). env is
// agent.env's members besides SEEN and FLIP.
func envAgentFixture(t *testing.T, seen, flip string, env map[string]string, runs int) string {
	t.Helper()
	script := `echo "GOMAXPROCS=$GOMAXPROCS PYTHONHASHSEED=$PYTHONHASHSEED" >> "$SEEN"
n=$(wc -l < "$SEEN")
a='{"name":"a","input_schema":{"type":"object"}}'
b='{"name":"b","input_schema":{"type":"object"}}'
tools="$a,$b"
if [ -n "$FLIP" ] && [ "$n" -ge "$FLIP" ]; then tools="$b,$a"; fi
curl -sS -f -o /dev/null -H 'content-type: application/json' \
  -d '{"model":"m","max_tokens":1,"tools":['"$tools"'],"messages":[{"role":"user","content":"hi"}]}' \
  "$ANTHROPIC_BASE_URL/v1/messages"`
	all := map[string]string{"SEEN": seen, "FLIP": flip}
	for k, v := range env {
		all[k] = v
	}
	agent, err := json.Marshal(map[string]any{"exec": []string{"sh", "-c", script}, "env": all})
	if err != nil {
		t.Fatal(err)
	}
	return `{"description": "a subprocess agent", "agent": ` + string(agent) + `, "runs": ` + strconv.Itoa(runs) + `,
  "replies": [{"text": "a"}]}`
}

// seenLines reads what each run of an envAgentFixture's agent got.
func seenLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestRepeatPassAgentEnvLabels: when agent.env sets GOMAXPROCS or
// PYTHONHASHSEED, a repeat failure's label shows the values the agent
// got, marked as agent.env's, and its message says the repeat pass does
// not vary them; a scenario that sets neither is reported as before.
func TestRepeatPassAgentEnvLabels(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	own := variationOf(&Fixture{Name: "x", Agent: &AgentSpec{Exec: []string{"sh"}}}, 2, 1).hashSeed
	cases := map[string]struct {
		env        map[string]string
		label      string // of run 2
		seen       string // what run 2's agent got
		notVaried  string // "" for none
		causes     string
		notInCause string
	}{
		"PYTHONHASHSEED=0": {map[string]string{"PYTHONHASHSEED": "0"},
			"run 2 (GOMAXPROCS=2, PYTHONHASHSEED=0 (agent.env)) differs from run 1",
			"GOMAXPROCS=2 PYTHONHASHSEED=0",
			"; agent.env sets PYTHONHASHSEED=0, so the repeat pass does not vary it (0 turns Python's hash randomisation off)",
			"(Go maps; Python hashing), thread and goroutine scheduling (which GOMAXPROCS varies)", "which PYTHONHASHSEED varies"},
		"GOMAXPROCS": {map[string]string{"GOMAXPROCS": "3"},
			"run 2 (GOMAXPROCS=3 (agent.env), PYTHONHASHSEED=" + strconv.FormatUint(own, 10) + ") differs from run 1",
			"GOMAXPROCS=3 PYTHONHASHSEED=" + strconv.FormatUint(own, 10),
			"; agent.env sets GOMAXPROCS=3, so the repeat pass does not vary it",
			"(Go maps; Python hashing, which PYTHONHASHSEED varies), thread and goroutine scheduling, or", "which GOMAXPROCS varies"},
		"both": {map[string]string{"GOMAXPROCS": "3", "PYTHONHASHSEED": "random"},
			"run 2 (GOMAXPROCS=3 (agent.env), PYTHONHASHSEED=random (agent.env)) differs from run 1",
			"GOMAXPROCS=3 PYTHONHASHSEED=random",
			"; agent.env sets GOMAXPROCS=3 and PYTHONHASHSEED=random, so the repeat pass does not vary them (with random, Python draws a seed of its own in each run, which -seed does not reproduce)",
			"(Go maps; Python hashing), thread and goroutine scheduling, or", "varies)"},
		"neither": {nil,
			"run 2 (GOMAXPROCS=2, PYTHONHASHSEED=" + strconv.FormatUint(own, 10) + ") differs from run 1",
			"GOMAXPROCS=2 PYTHONHASHSEED=" + strconv.FormatUint(own, 10),
			"",
			"(Go maps; Python hashing, which PYTHONHASHSEED varies), thread and goroutine scheduling (which GOMAXPROCS varies)", "agent.env"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			seen := filepath.Join(t.TempDir(), "seen")
			s, _ := capturedSuite(t, map[string]string{"x": envAgentFixture(t, seen, "2", c.env, 4)})
			_, res := s.Check(s.Fixture("x"))
			f := failureWith(t, res.Failures, CheckRepeat, c.label, "differs at tools", c.causes)
			if c.notVaried == "" {
				if strings.Contains(f.Msg, c.notInCause) {
					t.Errorf("message of a scenario without them mentions %s:\n%s", c.notInCause, f.Msg)
				}
			} else if !strings.HasSuffix(f.Msg, c.notVaried) {
				t.Errorf("message does not end with %q:\n%s", c.notVaried, f.Msg)
			} else if strings.Contains(strings.TrimSuffix(f.Msg, c.notVaried), c.notInCause) {
				t.Errorf("message says %q:\n%s", c.notInCause, f.Msg)
			}
			if got := seenLines(t, seen); len(got) != 2 || got[1] != c.seen {
				t.Errorf("the agent got %q, want run 2 to get %q", got, c.seen)
			}
			if got, want := s.Fixture("x").Seeded(), c.env["PYTHONHASHSEED"] == ""; got != want {
				t.Errorf("Seeded() = %v, want %v", got, want)
			}
		})
	}
}

// TestRepeatPassAgentEnvPassed: a passed repeat pass whose agent.env sets
// PYTHONHASHSEED says the pass did not vary it, and run 1's label (here
// of a failure after the pass) shows agent.env's values.
func TestRepeatPassAgentEnvPassed(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	seen := filepath.Join(t.TempDir(), "seen")
	s, _ := capturedSuite(t, map[string]string{"x": envAgentFixture(t, seen, "", map[string]string{"PYTHONHASHSEED": "0"}, 3)})
	f := s.Fixture("x")
	_, res := s.Check(f)
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %v", res.Failures)
	}
	want := "3 runs of the agent logged the same bytes; agent.env sets PYTHONHASHSEED=0, so the repeat pass does not vary it (0 turns Python's hash randomisation off)"
	if got := Verified(f, res); !strings.HasSuffix(got, want) {
		t.Errorf("Verified: %q, want it to end %q", got, want)
	}
	for i, l := range seenLines(t, seen) {
		if !strings.HasSuffix(l, " PYTHONHASHSEED=0") {
			t.Errorf("run %d got %s", i+1, l)
		}
	}

	// Without agent.env's: as before.
	seen = filepath.Join(t.TempDir(), "seen")
	s, _ = capturedSuite(t, map[string]string{"x": envAgentFixture(t, seen, "", nil, 3)})
	f = s.Fixture("x")
	if _, res = s.Check(f); len(res.Failures) > 0 {
		t.Fatalf("failures: %v", res.Failures)
	}
	if got, want := Verified(f, res), "rebuild, golden match; 3 runs of the agent logged the same bytes"; got != want {
		t.Errorf("Verified: %q, want %q", got, want)
	}
}

// TestCapturedAgentEnvFailureLabel: an agent failure's label shows the
// GOMAXPROCS and PYTHONHASHSEED the agent got, agent.env's marked so.
func TestCapturedAgentEnvFailureLabel(t *testing.T) {
	cases := map[string]struct {
		env   map[string]string
		label string
	}{
		"both":       {map[string]string{"PYTHONHASHSEED": "random", "GOMAXPROCS": "3"}, "run 1 (GOMAXPROCS=3 (agent.env), PYTHONHASHSEED=random (agent.env)):"},
		"hash seed":  {map[string]string{"PYTHONHASHSEED": "0"}, "run 1 (GOMAXPROCS=1, PYTHONHASHSEED=0 (agent.env)):"},
		"gomaxprocs": {map[string]string{"GOMAXPROCS": "3"}, "run 1 (GOMAXPROCS=3 (agent.env), PYTHONHASHSEED=1):"},
		"empty":      {map[string]string{"PYTHONHASHSEED": ""}, `run 1 (GOMAXPROCS=1, PYTHONHASHSEED="" (agent.env)):`},
		"neither":    {nil, "run 1 (GOMAXPROCS=1, PYTHONHASHSEED=1):"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			a := map[string]any{"exec": []string{"sh", "-c", `echo "got GOMAXPROCS=$GOMAXPROCS PYTHONHASHSEED=$PYTHONHASHSEED" >&2; exit 1`}}
			if c.env != nil {
				a["env"] = c.env // null would be refused
			}
			agent, err := json.Marshal(a)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := capturedSuite(t, map[string]string{"x": `{"description": "d", "agent": ` + string(agent) + `, "replies": [{"text": "a"}]}`})
			f := failureWith(t, s.Replay(s.Fixture("x")).Failures, CheckAgent, c.label, "exit status 1")
			v := variationOf(s.Fixture("x"), 1, 1)
			got := ""
			for _, x := range v.vars() {
				got += " " + x.name + "=" + x.value
			}
			if !strings.Contains(f.Msg, "got"+got) {
				t.Errorf("the label's values%s are not what the agent got:\n%s", got, f.Msg)
			}
			if strings.Contains(f.Msg, "not vary") {
				t.Errorf("run 1's failure speaks of the repeat pass:\n%s", f.Msg)
			}
		})
	}
}

// An agent that times out after it was served every scripted reply is
// told so: it did not exit after its last answer.
func TestCapturedTimeoutAfterTheLastReply(t *testing.T) {
	// The timeout must come after curl has been served, which can take a
	// loaded machine longer than the 1s this had; the timeout ends the
	// scenario either way, so a longer one costs only its length.
	s := oneRequestThenSleep(t, "5s", `[{"text": "a"}]`)
	failureWith(t, s.Replay(s.Fixture("x")).Failures, CheckAgent,
		"every scripted reply had been served: the agent did not exit after its last answer", "timed out after 5s (agent.timeout)")
}

// oneRequestThenSleep returns a suite of one captured scenario, x, whose
// sh agent sends one request with curl and then sleeps 30s, under
// agent.timeout timeout, with the given replies (a JSON array). It skips
// the test where there is no curl.
func oneRequestThenSleep(t *testing.T, timeout, replies string) *Suite {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	script := `curl -sS -f -o /dev/null -H 'content-type: application/json' -d '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}' "$ANTHROPIC_BASE_URL/v1/messages" || exit 3; exec sleep 30`
	agent, err := json.Marshal(map[string]any{"exec": []string{"sh", "-c", script}, "timeout": timeout})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := capturedSuite(t, map[string]string{"x": `{"description": "d", "runs": 1, "agent": ` + string(agent) + `, "replies": ` + replies + `}`})
	return s
}

// TestRepeatPassLaterRunLabels: runs 3 and 4 get GOMAXPROCS 4 and 8, and a
// repeat failure there names the values that run's agent got.
func TestRepeatPassLaterRunLabels(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	for _, c := range []struct{ run, procs string }{{"3", "4"}, {"4", "8"}} {
		t.Run("run "+c.run, func(t *testing.T) {
			t.Parallel()
			seen := filepath.Join(t.TempDir(), "seen")
			s, _ := capturedSuite(t, map[string]string{"x": envAgentFixture(t, seen, c.run, nil, 4)})
			_, res := s.Check(s.Fixture("x"))
			got := seenLines(t, seen)
			n, _ := strconv.Atoi(c.run)
			if len(got) != n {
				t.Fatalf("the agent ran %d times (%q), want %d", len(got), got, n)
			}
			procs, seed, ok := strings.Cut(got[n-1], " PYTHONHASHSEED=")
			if !ok || procs != "GOMAXPROCS="+c.procs || seed == "" || seed == "1" {
				t.Fatalf("run %s's agent got %q, want GOMAXPROCS=%s and a hash seed of its own", c.run, got[n-1], c.procs)
			}
			failureWith(t, res.Failures, CheckRepeat, "run "+c.run+" (GOMAXPROCS="+c.procs+", PYTHONHASHSEED="+seed+") differs from run 1")
		})
	}
}

// An agent that times out with a scripted reply still unused is not told
// it had them all: the timeout alone is reported.
func TestCapturedTimeoutBeforeTheLastReply(t *testing.T) {
	s := oneRequestThenSleep(t, "2s", `[{"text": "a"}, {"text": "b"}]`)
	f := failureWith(t, s.Replay(s.Fixture("x")).Failures, CheckAgent, "timed out after 2s (agent.timeout)")
	if strings.Contains(f.Msg, "every scripted reply had been served") {
		t.Errorf("one of two replies was served, and the failure says every one was:\n%s", f.Msg)
	}
}

// A repeat failure outside the header (the conversation names the run's
// process) names the JSON path of the first difference, as the header's
// does.
func TestRepeatOutsideTheHeaderNamesItsPath(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	script := `curl -sS -f -o /dev/null -H 'content-type: application/json' -d '{"model":"m","max_tokens":1,"system":"S","messages":[{"role":"user","content":"pid '$$'"}]}' "$ANTHROPIC_BASE_URL/v1/messages"`
	agent, err := json.Marshal(map[string]any{"exec": []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := capturedSuite(t, map[string]string{"x": `{"description": "d", "runs": 2, "agent": ` + string(agent) + `, "replies": [{"text": "a"}]}`})
	_, res := s.Check(s.Fixture("x"))
	failureWith(t, res.Failures, CheckRepeat, "run 2", "at data.body.messages.0.content (the headers agree")
}
