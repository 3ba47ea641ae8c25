package ts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// needNode skips the test where the agent cannot run.
func needNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH: the TypeScript agent cannot run; install Node.js and run npm ci in examples/ts/agent")
	}
	if _, err := os.Stat(filepath.Join("agent", "node_modules")); err != nil {
		t.Skip("examples/ts/agent/node_modules is missing: run npm ci in examples/ts/agent")
	}
}

// TestGolden replays every scenario of fixtures/ (each SDK, streaming and
// not, every reply shape) against its golden files, with the repeat pass.
func TestGolden(t *testing.T) {
	needNode(t)
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden"})
}

// TestAnswers runs every scenario of fixtures/ once more, its agent
// started by an in-process agent function instead of agent.exec, so that
// the test sees what the agent printed: the scripted final text, which
// proves that the SDK read the last reply (the earlier ones are echoed in
// the requests the golden files pin). The captured logs must also be the
// committed golden files, byte for byte.
func TestAnswers(t *testing.T) {
	needNode(t)
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := filepath.Glob(filepath.Join("fixtures", "*.json"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	tmp := t.TempDir()
	type scenario struct {
		argv   []string
		answer string
	}
	scenarios := map[string]scenario{}
	for _, file := range entries {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var fx map[string]json.RawMessage
		if err := json.Unmarshal(data, &fx); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var agent struct {
			Exec []string `json:"exec"`
		}
		var replies []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(fx["agent"], &agent); err != nil || len(agent.Exec) == 0 {
			t.Fatalf("%s: agent.exec: %v", file, err)
		}
		if err := json.Unmarshal(fx["replies"], &replies); err != nil || len(replies) == 0 {
			t.Fatalf("%s: replies: %v", file, err)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		scenarios[name] = scenario{argv: agent.Exec, answer: replies[len(replies)-1].Text}
		// The same scenario with an in-process agent and one run.
		fx["agent"] = json.RawMessage(`{}`)
		fx["runs"] = json.RawMessage(`1`)
		out, err := json.Marshal(fx)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tmp, name+".json"), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(ctx context.Context, s *harness.Session) error {
		sc, ok := scenarios[s.Scenario]
		if !ok {
			return fmt.Errorf("no scenario %s", s.Scenario)
		}
		cmd := exec.CommandContext(ctx, sc.argv[0], sc.argv[1:]...)
		cmd.Dir = dir
		cmd.Env = os.Environ()
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%v: %s", err, stderr.Bytes())
		}
		if got, want := stdout.String(), sc.answer+"\n"; got != want {
			return fmt.Errorf("the agent printed %q, want the scripted answer %q", got, want)
		}
		return nil
	}
	s, err := harness.Load(harness.Options{Fixtures: tmp, Golden: "golden", Agent: run})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Fixtures()) != len(scenarios) {
		t.Fatalf("loaded %d fixtures, want %d", len(s.Fixtures()), len(scenarios))
	}
	for _, f := range s.Fixtures() {
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			res := s.Replay(f)
			for _, fl := range res.Failures {
				t.Errorf("%s", fl)
			}
		})
	}
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
	tmp := t.TempDir()
	counter := filepath.Join(tmp, "runs.txt")
	fx := map[string]any{
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
	}
	data, err := json.MarshalIndent(fx, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	fixtures, golden := filepath.Join(tmp, "fixtures"), filepath.Join(tmp, "golden")
	for _, d := range []string{fixtures, golden} {
		// An empty golden directory: the golden file is missing (a
		// guard failure), the directory is not (which cannot test).
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(fixtures, name+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := harness.Load(harness.Options{Fixtures: fixtures, Golden: golden})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Fixture(name)
	if f == nil {
		t.Fatalf("fixture %s not loaded", name)
	}
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
	needNode(t)
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
	needNode(t)
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
