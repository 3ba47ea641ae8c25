package exampletest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
)

// Answers runs every scenario of the fixtures directory once more, its
// agent.exec started by an in-process agent function (in dir, the
// directory the fixtures' agent.dir names) so that the test sees what the
// agent printed, which must be the text of the scenario's last reply and a
// line break. Each run's captured log must still be the committed golden
// file, byte for byte.
func Answers(t *testing.T, fixtures, golden, dir string) {
	t.Helper()
	dir, err := filepath.Abs(dir)
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
