package external

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// fixture is a reference-agent scenario written with the public types
// only: config with a tool order, a section, a plugin's tools, a
// listener, scripted replies, tool calls and results.
func fixture() harness.Fixture {
	return harness.Fixture{
		Description: "a fixture built in Go from another module",
		Pin:         true,
		Config: harness.Config{
			Persona:          "You are a careful coding agent.",
			Model:            "m-1",
			ToolOrder:        []string{"read_file", harness.UnlistedTools},
			DependencyPolicy: harness.PolicyReorder,
		},
		Sections: []harness.Section{{ID: "rules", Order: 10, Text: "Answer briefly."}},
		Plugins: []harness.Plugin{
			{Name: "fs", Tools: []harness.Tool{
				{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
				{Name: "list_dir", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object"}`), Idempotent: true},
			}},
			{Name: "sh", RegisterAt: &harness.StepRef{Turn: 1, Step: 2}, Tools: []harness.Tool{
				{Name: "shell", Description: "Run a command.", Parameters: json.RawMessage(`{"type":"object"}`), DependsOn: []string{"list_dir"}},
			}},
			// A plugin that registers no tools: its nil Tools must
			// marshal to what Load accepts (no member, not null).
			{Name: "none"},
		},
		Listeners: []harness.ListenerOp{
			{Op: "addTool", Schema: &harness.Tool{Name: "ask_user", Description: "Ask the user.", Parameters: json.RawMessage(`{"type":"object"}`)}},
			{Op: "appendSection", Section: &harness.Section{ID: "late", Order: 20, Text: "Be kind."}},
		},
		Turns: []harness.Turn{{
			User: "What is in this directory?",
			Replies: []harness.Reply{
				{ToolCalls: []harness.ToolCall{{ID: "c1", Name: "list_dir", Arguments: json.RawMessage(`{"path":"."}`)}}},
				{Text: "Two files."},
			},
			ToolResults: map[string]harness.ToolResult{"c1": {Output: "a.go\nb.go"}},
		}},
	}
}

// captured is a captured scenario run by an in-process Go agent.
func captured() harness.Fixture {
	return harness.Fixture{
		Description: "an in-process agent built in Go from another module",
		Pin:         true,
		Agent:       &harness.AgentSpec{Env: map[string]string{"PROMPT": "Say hello."}},
		Redact:      []harness.Redaction{{Path: "config.metadata.user_id", With: "<<user>>"}},
		Replies:     []harness.Reply{{Text: "Hello."}},
	}
}

// agent sends one Anthropic Messages request, as an SDK pointed at the
// session's base URL would.
func agent(ctx context.Context, s *harness.Session) error {
	body := `{"model":"claude-x","max_tokens":64,"metadata":{"user_id":"u-` + s.Scenario + `"},"system":"Be kind.",` +
		`"tools":[{"name":"wave","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"` + s.Getenv("PROMPT") + `"}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.AnthropicBaseURL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := s.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// write writes fixtures as NAME.json files in dir, as a user's generator
// would.
func write(t *testing.T, dir string, fixtures map[string]harness.Fixture) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, f := range fixtures {
		b, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestFixturesBuiltInGo(t *testing.T) {
	dir := t.TempDir()
	opts := harness.Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Agent: agent}
	write(t, opts.Fixtures, map[string]harness.Fixture{"built": fixture(), "hello": captured()})

	suite, err := harness.Load(opts)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	changes, failed, err := suite.Record(harness.RecordOptions{})
	for _, r := range failed {
		t.Errorf("record: %s: %v", r.Fixture, r.Failures)
	}
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	created := map[string]bool{}
	for _, c := range changes {
		if c.Status != harness.Created {
			t.Errorf("%s: %s, want %s", c.File, c.Status, harness.Created)
		}
		created[filepath.Base(c.File)] = true
	}
	for _, name := range []string{"built.golden", "built.system.md", "built.tools.json", "hello.golden", "hello.system.md", "hello.tools.json"} {
		if !created[name] {
			t.Errorf("record did not create %s (created %v)", name, created)
		}
	}

	// The recorded files replay, through go test as a user's TestGolden
	// would run them.
	t.Run("TestGolden", func(t *testing.T) { goldentest.Test(t, opts) })

	// The pin holds the header's content: the tool order and a tool's
	// description are in the sidecar, and editing the description fails
	// the replay at the sidecar.
	tools, err := os.ReadFile(filepath.Join(opts.Golden, "built.tools.json"))
	if err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(string(tools), `"read_file"`), strings.Index(string(tools), `"list_dir"`); i < 0 || j < 0 || i > j {
		t.Errorf("built.tools.json does not list read_file first, as the tool order says:\n%s", tools)
	}
	edited := fixture()
	edited.Plugins[0].Tools[0].Description = "Read one file."
	write(t, opts.Fixtures, map[string]harness.Fixture{"built": edited})
	suite, err = harness.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	res := suite.Replay(suite.Fixture("built"))
	var sidecar bool
	for _, f := range res.Failures {
		sidecar = sidecar || f.Check == harness.CheckSidecar
	}
	if !sidecar {
		t.Errorf("a tool description edited in a pinned fixture: failures %v, want a %s failure", res.Failures, harness.CheckSidecar)
	}
}
