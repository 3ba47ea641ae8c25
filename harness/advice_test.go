package harness

import (
	"strings"
	"testing"
)

func TestRecordAdvice(t *testing.T) {
	cmds := Commands{Record: func(run string) string { return "record -run '" + run + "'" }}
	for _, c := range []struct {
		checks []Check
		want   string
	}{
		{nil, ""},
		{[]Check{CheckRebuild}, ""},
		{[]Check{CheckGolden}, "if the change is intended, record it: record -run '^x$'"},
		{[]Check{CheckSidecar, CheckGolden}, "if the change is intended, record it: record -run '^x$'"},
		// A record runs the repeat and permutation passes first, and
		// would refuse: advising it would send the user in a circle.
		{[]Check{CheckGolden, CheckRepeat}, "the agent's runs differ, so record would refuse to write it"},
		{[]Check{CheckPermute, CheckSidecar}, "registration order is observable, so record would refuse"},
	} {
		res := &Result{Fixture: "x"}
		for _, ch := range c.checks {
			res.Failures = append(res.Failures, Failure{Check: ch})
		}
		got := RecordAdvice(res, cmds)
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%v: %q, want %q", c.checks, got, c.want)
		}
	}
}

func TestVerified(t *testing.T) {
	ref, pinned, captured := &Fixture{}, &Fixture{Pin: true}, &Fixture{Agent: &AgentSpec{}}
	hashFixed := &Fixture{Agent: &AgentSpec{Exec: []string{"agent"}, Env: map[string]string{"PYTHONHASHSEED": "0"}}}
	for _, c := range []struct {
		f    *Fixture
		runs int
		want string
	}{
		{ref, 1, "rebuild, golden and 0 permutation runs match"},
		{pinned, 9, "rebuild, golden, sidecars and 8 permutation runs match"},
		{captured, 1, "rebuild, golden match; 1 run of the agent logged the same bytes"},
		{captured, 4, "rebuild, golden match; 4 runs of the agent logged the same bytes"},
		// What agent.env keeps fixed is said once there are two runs to
		// differ, and not for one.
		{hashFixed, 2, "rebuild, golden match; 2 runs of the agent logged the same bytes; " +
			"agent.env sets PYTHONHASHSEED=0, so the repeat pass does not vary it (0 turns Python's hash randomisation off)"},
		{hashFixed, 1, "rebuild, golden match; 1 run of the agent logged the same bytes"},
	} {
		if got := Verified(c.f, &Result{Runs: c.runs}); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

func TestWhoNamesTheAgent(t *testing.T) {
	f := &Fixture{Agent: &AgentSpec{Exec: []string{"node", "agent.mjs", "--prompt", "a b"}}}
	if got := who(f, captureRun{}); got != "agent [node agent.mjs --prompt 'a b']" {
		t.Errorf("subprocess: %q", got)
	}
	if got := who(f, captureRun{listen: true}); got != "the agent started elsewhere (-listen)" {
		t.Errorf("-listen: %q", got)
	}
	if got := who(&Fixture{Agent: &AgentSpec{}}, captureRun{}); got != "in-process agent" {
		t.Errorf("in-process: %q", got)
	}
}
