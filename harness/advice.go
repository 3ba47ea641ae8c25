package harness

import (
	"fmt"
	"slices"
)

// RecordAdvice says what to do about a failed replay's golden files, for
// cmd/replay and goldentest alike: record them when the golden log or a
// sidecar differs, unless a failed repeat or permutation pass means a
// record would refuse (it runs those passes before writing anything). It
// returns "" when there is nothing to record.
func RecordAdvice(res *Result, cmds Commands) string {
	has := func(checks ...Check) bool {
		return slices.ContainsFunc(res.Failures, func(f Failure) bool { return slices.Contains(checks, f.Check) })
	}
	switch {
	case has(CheckRepeat):
		return "the agent's runs differ, so record would refuse to write it: make its header deterministic first (the [repeat] failure says where it varies)"
	case has(CheckPermute):
		return "registration order is observable, so record would refuse to write it: fix the [permute] failure first"
	case has(CheckGolden, CheckSidecar):
		return "if the change is intended, " + cmds.record("^"+res.Fixture+"$")
	}
	return ""
}

// Verified says, for a passed replay of f, what its checks verified.
func Verified(f *Fixture, res *Result) string {
	what := "rebuild, golden"
	if f.Pin {
		what += ", sidecars"
	}
	if f.Captured() {
		n := res.Runs
		msg := fmt.Sprintf("%s match; %d run%s of the agent logged the same bytes", what, n, plural(n, "", "s"))
		if n > 1 {
			// What the runs varied: not what agent.env sets.
			msg += notVaried(variationOf(f, 1, 0))
		}
		return msg
	}
	n := max(0, res.Runs-1)
	return fmt.Sprintf("%s and %d permutation run%s match", what, n, plural(n, "", "s"))
}
