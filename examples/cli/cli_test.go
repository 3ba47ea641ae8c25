package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// needAgents skips the test where the CLIs cannot run, and keeps what
// their wrappers make under $TMPDIR (a HOME and a working directory per
// run, which they remove themselves unless killed) in the test's own
// temporary directory.
func needAgents(t *testing.T) {
	t.Helper()
	exampletest.NeedNode(t, "cli")
	t.Setenv("TMPDIR", t.TempDir())
}

// TestGolden replays every scenario of fixtures/ against its golden files,
// with the repeat pass: what each CLI sends is pinned, and stays the same
// from run to run once the fixtures' redact rules have normalised its ids,
// dates and temporary paths.
func TestGolden(t *testing.T) {
	needAgents(t)
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden"})
}

// TestAnswers checks that each CLI printed the text of its last scripted
// reply: it read the fake provider's streamed responses to the end.
func TestAnswers(t *testing.T) {
	needAgents(t)
	exampletest.Answers(t, "fixtures", "golden", ".")
}

// TestRepeatCatchesCodexKeyOrder runs Codex CLI with its ids and times
// redacted but its client_metadata kept: that object's keys come out in
// hash-map order, which differs from process to process, and the repeat
// pass must say so (the same value in other bytes, a key order), not call
// it a changed value.
func TestRepeatCatchesCodexKeyOrder(t *testing.T) {
	needAgents(t)
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	s, f := exampletest.Scenario(t, "codex-order", map[string]any{
		"description": "Codex CLI with its client_metadata kept",
		"agent":       map[string]any{"exec": []string{"agent/codex.sh", "Say hello."}, "dir": dir},
		"runs":        8,
		"redact": []map[string]string{
			{"regex": "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "with": "<<uuid>>"},
			{"regex": `"turn_started_at_unix_ms":[0-9]+`, "with": `"turn_started_at_unix_ms":0`},
			{"regex": `[^\s"'<>]*/hg-cli\.[A-Za-z0-9]+`, "with": "<<tmp>>"},
			{"regex": "<current_date>[0-9-]+</current_date>", "with": "<current_date><<date>></current_date>"},
		},
		"replies": []map[string]string{{"text": "Hello."}},
	})
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
		t.Fatal("8 runs of Codex CLI sent the same client_metadata bytes: its keys no longer follow a hash map, and this test shows nothing")
	}
	t.Logf("%s", repeat)
	if want := "differs at config.client_metadata (kinds: encoding (key order))"; !strings.Contains(repeat.Msg, want) {
		t.Errorf("repeat failure %q does not say %q", repeat.Msg, want)
	}
}
