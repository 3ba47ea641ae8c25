package frameworks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// TestGolden replays every scenario of fixtures/ (each framework, each
// wire format it speaks, streaming and not) against its golden files,
// with the repeat pass.
func TestGolden(t *testing.T) {
	exampletest.NeedNode(t, "frameworks")
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden"})
}

// TestAnswers checks that each agent printed the text of its last
// scripted reply: the framework's tool loop read every reply to the end.
func TestAnswers(t *testing.T) {
	exampletest.NeedNode(t, "frameworks")
	exampletest.Answers(t, "fixtures", "golden", nil)
}

// TestNoTraceLeavesTheMachine runs the OpenAI Agents SDK agent, whose
// code leaves tracing as the environment says, with a preload that
// refuses and logs every fetch to a host other than loopback: under the
// environment headergold gives a captured agent, it tries none. With
// tracing turned back on in agent.env, the same run tries to upload its
// trace to api.openai.com, which shows that the preload sees what the SDK
// sends.
func TestNoTraceLeavesTheMachine(t *testing.T) {
	exampletest.NeedNode(t, "frameworks")
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, tracing string
		sends         bool
	}{{"as given", "", false}, {"tracing on", "0", true}} {
		t.Run(c.name, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "nofetch.log")
			env := map[string]string{"NODE_OPTIONS": "--import " + filepath.Join(dir, "agent", "nofetch.mjs"), "NOFETCH_LOG": log}
			if c.tracing != "" {
				env["OPENAI_AGENTS_DISABLE_TRACING"] = c.tracing
			}
			s, f := exampletest.Scenario(t, "traces", map[string]any{
				"description": "the OpenAI Agents SDK agent with a fetch guard",
				"agent":       map[string]any{"exec": []string{"node", "agent/openai-agents.mjs", "--api", "responses", "--prompt", "Hi"}, "dir": dir, "env": env},
				"runs":        1,
				"replies":     []map[string]string{{"text": "Hello."}},
			})
			_, res := s.Check(f) // every check but the golden comparison
			for _, fl := range res.Failures {
				t.Errorf("%s", fl)
			}
			data, err := os.ReadFile(log)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			switch sent := string(data); {
			case c.sends && !strings.Contains(sent, "https://api.openai.com/"):
				t.Errorf("with tracing on, the agent tried to send %q, not its trace to api.openai.com: the guard or the SDK changed", sent)
			case !c.sends && sent != "":
				t.Errorf("the agent tried to send off the machine:\n%s", sent)
			}
		})
	}
}
