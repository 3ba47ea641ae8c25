package cli_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// needAgents skips the test where the CLIs cannot run, and keeps what
// their wrappers make under $TMPDIR (a HOME and a working directory per
// run, which they remove themselves unless SIGKILLed) in the test's own
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
	exampletest.Answers(t, "fixtures", "golden", nil)
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
			{"regex": "<shell>[^<]*</shell>", "with": "<shell><<shell>></shell>"},
		},
		"replies": []map[string]string{{"text": "Hello."}},
	})
	repeat := exampletest.RepeatFailure(t, s, f)
	if repeat == nil {
		t.Fatal("8 runs of Codex CLI sent the same client_metadata bytes: its keys no longer follow a hash map, and this test shows nothing")
	}
	if want := "differs at config.client_metadata (kinds: encoding (key order))"; !strings.Contains(repeat.Msg, want) {
		t.Errorf("repeat failure %q does not say %q", repeat.Msg, want)
	}
}

// TestNothingLeavesTheMachine runs each scenario of fixtures/ once under
// strace, which logs every connect and datagram of the wrapper, the CLI
// and what they start: the only peer may be the fake provider on
// loopback. A name lookup (to port 53) or a connection to another address
// means a CLI reaches for the network (analytics, update checks, apps),
// which its wrapper must turn off. A lookup of a name first shows that
// strace sees one on this machine; where it does not, the test skips.
func TestNothingLeavesTheMachine(t *testing.T) {
	needAgents(t)
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not on PATH")
	}
	traced := func(log string, argv ...string) []string {
		return append([]string{strace, "-f", "-qq", "-e", "trace=connect,sendto,sendmmsg", "-o", log}, argv...)
	}
	control := filepath.Join(t.TempDir(), "control.log")
	argv := traced(control, "node", "-e", `require("dns").lookup("example.com", () => {})`)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v: %s", err, out)
	}
	if off := offMachine(t, control); len(off) == 0 {
		t.Skip("strace saw no name lookup of a node process on this machine: it cannot show what would leave it")
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := filepath.Glob(filepath.Join("fixtures", "*.json"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range entries {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			var fx map[string]any
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(data, &fx); err != nil {
				t.Fatal(err)
			}
			agent := fx["agent"].(map[string]any)
			var argv []string
			for _, a := range agent["exec"].([]any) {
				argv = append(argv, a.(string))
			}
			log := filepath.Join(t.TempDir(), "strace.log")
			agent["exec"], agent["dir"], fx["runs"] = traced(log, argv...), dir, 1
			delete(fx, "pin") // no golden here: the pin's sidecars would be a guard failure too
			s, f := exampletest.Scenario(t, name, fx)
			_, res := s.Check(f) // every check but the golden comparison
			for _, fl := range res.Failures {
				t.Errorf("%s", fl)
			}
			if off := offMachine(t, log); len(off) > 0 {
				t.Errorf("the CLI reached past loopback:\n%s", strings.Join(off, "\n"))
			}
		})
	}
}

// offMachine returns the lines of an strace log that send to or connect
// to anything but loopback or a local socket: a datagram to port 53 (a
// name lookup) or an Internet address other than 127.0.0.1 and ::1.
func offMachine(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var off []string
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(l, "htons(53)"), strings.Contains(l, "sin_addr=inet_addr(") && !strings.Contains(l, `inet_addr("127.0.0.1")`),
			strings.Contains(l, "sin6_addr") && !strings.Contains(l, `inet_pton(AF_INET6, "::1"`):
			off = append(off, l)
		}
	}
	return off
}
