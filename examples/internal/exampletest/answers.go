package exampletest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/headergold/headergold/harness"
)

// Answers runs every scenario of the fixtures directory once more, its
// agent.exec started by an in-process agent function (in agent.dir, with
// agent.env and agent.timeout, as the harness would start and stop it) so
// that the test sees what the agent printed, which must be the text of the
// scenario's last reply and a line break. A scenario without agent.exec is
// run by answer, an in-process agent that returns its final text, which
// must be that reply's text (nil: every scenario must have an exec). Each
// run's captured log must still be the committed golden file, byte for
// byte.
//
// The text of the last reply is never sent back to the model, so the
// golden files cannot show whether an agent read it: only what it answers
// does.
func Answers(t *testing.T, fixtures, golden string, answer func(context.Context, *harness.Session) (string, error)) {
	t.Helper()
	fixtures, err := filepath.Abs(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := filepath.Glob(filepath.Join(fixtures, "*.json"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no fixtures in %s: %v", fixtures, err)
	}
	tmp := t.TempDir()
	type scenario struct {
		argv   []string
		dir    string
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
			Exec    []string          `json:"exec,omitempty"`
			Dir     string            `json:"dir,omitempty"`
			Env     map[string]string `json:"env,omitempty"`
			Timeout string            `json:"timeout,omitempty"`
		}
		var replies []struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(fx["agent"], &agent); err != nil || len(agent.Exec) == 0 && answer == nil {
			t.Fatalf("%s: agent.exec: %v", file, err)
		}
		if err := json.Unmarshal(fx["replies"], &replies); err != nil || len(replies) == 0 {
			t.Fatalf("%s: replies: %v", file, err)
		}
		dir := agent.Dir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(fixtures, dir)
		}
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		scenarios[name] = scenario{argv: agent.Exec, dir: dir, answer: replies[len(replies)-1].Text}
		// The same scenario with an in-process agent and one run; the
		// agent's environment and timeout stay the fixture's.
		agent.Exec, agent.Dir = nil, ""
		if fx["agent"], err = json.Marshal(agent); err != nil {
			t.Fatal(err)
		}
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
		if len(sc.argv) == 0 {
			got, err := answer(ctx, s)
			if err != nil {
				return err
			}
			if got != sc.answer {
				return fmt.Errorf("the agent answered %q, want the scripted answer %q", got, sc.answer)
			}
			return nil
		}
		cmd := exec.CommandContext(ctx, sc.argv[0], sc.argv[1:]...)
		cmd.Dir = sc.dir
		// What the harness gives a subprocess agent: the inherited
		// environment without the machine's other credentials, and the
		// session's variables on top.
		for _, kv := range os.Environ() {
			if k, _, _ := strings.Cut(kv, "="); !slices.Contains(s.Unset, k) {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		for k, v := range s.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		// The agent and whatever it starts go when the run ends: at its
		// timeout SIGTERM, then, 2 s later, SIGKILL (WaitDelay kills the
		// agent, killRest the rest of its group).
		killRest := inGroup(cmd)
		defer killRest()
		cmd.WaitDelay = 2 * time.Second
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
	s, err := harness.Load(harness.Options{Fixtures: tmp, Golden: golden, Agent: run})
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
