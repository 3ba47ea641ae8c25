package goagent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/headergold/headergold/examples/goagent"
	"github.com/headergold/headergold/harness"
)

// apis are the four APIs of the agent, each the value of AGENT.
var apis = []goagent.API{goagent.Anthropic, goagent.OpenAIChat, goagent.OpenAIResponses, goagent.Gemini}

// scenario writes fixture f as dir/fixtures/NAME.json and returns it
// loaded from a suite whose in-process agent is agent.
func scenario(t *testing.T, name string, f map[string]any, agent harness.AgentFunc) (*harness.Suite, *harness.Fixture) {
	t.Helper()
	dir := t.TempDir()
	fixtures := filepath.Join(dir, "fixtures")
	if err := os.Mkdir(fixtures, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fixtures, name+".json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	suite, err := harness.Load(harness.Options{Fixtures: fixtures, Golden: filepath.Join(dir, "golden"), Agent: agent})
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	fx := suite.Fixture(name)
	if fx == nil {
		t.Fatalf("the suite has no fixture %s", name)
	}
	return suite, fx
}

// weatherScenario is a two-request scenario: one tool call, then the
// answer. Both requests carry the tool list.
func weatherScenario(api goagent.API, env map[string]string, runs int) map[string]any {
	callID := "call_1"
	if api == goagent.Anthropic {
		callID = "toolu_1"
	}
	e := map[string]any{"AGENT": string(api), "PROMPT": "Weather in Oslo?"}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{
		"description": "weather in Oslo",
		"agent":       map[string]any{"env": e},
		"runs":        runs,
		"replies": []any{
			map[string]any{"toolCalls": []any{map[string]any{"id": callID, "name": "get_weather", "arguments": map[string]any{"city": "Oslo"}}}},
			map[string]any{"text": "12 °C and clear."},
		},
	}
}

// counting wraps the agent so a test can tell how many runs the harness
// made; the counter belongs to the test that made it.
func counting(n *atomic.Int64) harness.AgentFunc {
	return func(ctx context.Context, s *harness.Session) error {
		n.Add(1)
		return goagent.Run(ctx, s)
	}
}

// failures returns the failures of one check.
func failures(res *harness.Result, check harness.Check) []harness.Failure {
	var out []harness.Failure
	for _, f := range res.Failures {
		if f.Check == check {
			out = append(out, f)
		}
	}
	return out
}

// TestRepeatCatchesMapRegistration: the agent variant that lists its
// tools by ranging over a Go map sends another tool order from run to
// run, and the repeat pass of 20 runs reports it as check repeat with a
// reorder of the tool list, for every API.
func TestRepeatCatchesMapRegistration(t *testing.T) {
	for _, api := range apis {
		t.Run(string(api), func(t *testing.T) {
			t.Parallel()
			suite, f := scenario(t, "map-tools", weatherScenario(api, map[string]string{"TOOLS": "map"}, 20), goagent.Run)
			_, res := suite.Check(f)
			reps := failures(res, harness.CheckRepeat)
			if len(reps) == 0 {
				t.Fatalf("20 runs of the map-ordered tool list passed the repeat pass; failures: %v", res.Failures)
			}
			if len(reps) != len(res.Failures) {
				t.Errorf("want only repeat failures, got %v", res.Failures)
			}
			msg := reps[0].Msg
			// Gemini nests the declarations in tools[0].functionDeclarations;
			// the report must still see a reorder there, not a content change.
			for _, want := range []string{"differs from run 1", "tools", "reorder"} {
				if !strings.Contains(msg, want) {
					t.Errorf("repeat failure %q does not say %q", msg, want)
				}
			}
		})
	}
}

// TestRepeatPassesSortedRegistration: the default variant sorts its tools
// by name, and all 20 runs of the repeat pass agree, for every API and
// streaming or not. The counter proves the 20 runs happened.
func TestRepeatPassesSortedRegistration(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []string{"0", "1"} {
			t.Run(string(api)+"/stream="+stream, func(t *testing.T) {
				t.Parallel()
				var n atomic.Int64
				suite, f := scenario(t, "sorted-tools", weatherScenario(api, map[string]string{"STREAM": stream}, 20), counting(&n))
				_, res := suite.Check(f)
				if !res.Passed() {
					t.Fatalf("the sorted tool list failed: %v", res.Failures)
				}
				if got := n.Load(); got != 20 {
					t.Errorf("the agent ran %d times, want 20", got)
				}
			})
		}
	}
}

// TestRedactionMakesSessionTagRepeatable: with TAG_SESSION=1 the agent
// sends a fresh random id on every run. Without a redact rule the repeat
// pass sees the header's config change; with the rule of the committed
// anthropic-session-tag scenario it passes, and the log holds the
// placeholder instead of the id.
func TestRedactionMakesSessionTagRepeatable(t *testing.T) {
	tagged := map[string]string{"TAG_SESSION": "1"}

	t.Run("no-rule", func(t *testing.T) {
		suite, f := scenario(t, "tagged", weatherScenario(goagent.Anthropic, tagged, 4), goagent.Run)
		_, res := suite.Check(f)
		reps := failures(res, harness.CheckRepeat)
		if len(reps) == 0 {
			t.Fatalf("a random metadata.user_id passed the repeat pass: %v", res.Failures)
		}
		if !strings.Contains(reps[0].Msg, "config.metadata.user_id") {
			t.Errorf("repeat failure %q does not name config.metadata.user_id", reps[0].Msg)
		}
	})

	t.Run("rule", func(t *testing.T) {
		fx := weatherScenario(goagent.Anthropic, tagged, 4)
		fx["redact"] = []any{map[string]any{"path": "config.metadata.user_id", "with": "<<session-id>>"}}
		suite, f := scenario(t, "tagged", fx, goagent.Run)
		out, res := suite.Check(f)
		if !res.Passed() {
			t.Fatalf("redacted: %v", res.Failures)
		}
		if !strings.Contains(string(out.Log), `"metadata":{"user_id":"<<session-id>>"}`) {
			t.Errorf("the log does not hold the redacted user_id:\n%s", out.Log)
		}
		if strings.Contains(string(out.Log), "sess_") {
			t.Errorf("the session id leaked into the log:\n%s", out.Log)
		}
	})
}

// TestStepLimit: a model that never stops calling tools gets
// DefaultMaxSteps requests, and the agent fails with an error naming the
// limit rather than looping on.
func TestStepLimit(t *testing.T) {
	var replies []any
	for i := range goagent.DefaultMaxSteps {
		replies = append(replies, map[string]any{"toolCalls": []any{map[string]any{
			"id": "call_" + string(rune('a'+i)), "name": "get_timezone", "arguments": map[string]any{"city": "Oslo"}}}})
	}
	replies = append(replies, map[string]any{"text": "never read"})
	suite, f := scenario(t, "endless", map[string]any{
		"description": "a model that calls a tool on every step",
		"agent":       map[string]any{"env": map[string]any{"AGENT": "openai-chat", "PROMPT": "Time zone of Oslo?"}},
		"runs":        1,
		"replies":     replies,
	}, goagent.Run)
	_, res := suite.Check(f)
	agent := failures(res, harness.CheckAgent)
	if len(agent) != 1 {
		t.Fatalf("want one agent failure, got %v", res.Failures)
	}
	if want := "no answer after 8 steps"; !strings.Contains(agent[0].Msg, want) {
		t.Errorf("agent failure %q does not say %q", agent[0].Msg, want)
	}
}

// TestProviderErrorReachesAgent: a request past the script gets the fake
// provider's error response in that API's shape, and each SDK, streaming
// or not, hands its message to the agent, whose error says what the
// provider expected (not only the HTTP status).
func TestProviderErrorReachesAgent(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []string{"0", "1"} {
			t.Run(string(api)+"/stream="+stream, func(t *testing.T) {
				t.Parallel()
				fx := weatherScenario(api, map[string]string{"STREAM": stream}, 1)
				fx["replies"] = fx["replies"].([]any)[:1] // the answer is missing
				suite, f := scenario(t, "short", fx, goagent.Run)
				_, res := suite.Check(f)
				agent := failures(res, harness.CheckAgent)
				if len(agent) != 1 {
					t.Fatalf("want one agent failure, got %v", res.Failures)
				}
				// The harness appends its own account of the request
				// ("; HTTP request 2 …"); the agent's error comes first.
				own, _, _ := strings.Cut(agent[0].Msg, "; HTTP request")
				if !strings.Contains(own, "step 2") || !strings.Contains(own, "request 2 is past the script") {
					t.Errorf("the agent's error %q does not carry the provider's message", own)
				}
			})
		}
	}
}
