package goagent_test

import (
	"strings"
	"testing"

	"github.com/headergold/headergold/examples/goagent"
)

// TestAwkwardReplies: replies whose bytes an SDK might re-encode when the
// agent sends them back — HTML characters, non-ASCII text, escaped quotes
// and line breaks, nested and empty arguments — go through every API,
// streaming and not. The agent loop must complete, and the harness's
// rebuild invariant must hold on what the SDK sent back.
func TestAwkwardReplies(t *testing.T) {
	for _, api := range apis {
		for _, stream := range []string{"0", "1"} {
			t.Run(string(api)+"/stream="+stream, func(t *testing.T) {
				t.Parallel()
				id := func(s string) string { return "call_" + s }
				if api == goagent.Anthropic {
					id = func(s string) string { return "toolu_" + s }
				}
				fx := map[string]any{
					"description": "replies with bytes an SDK may re-encode",
					"agent":       map[string]any{"env": map[string]any{"AGENT": string(api), "STREAM": stream, "PROMPT": "File a ticket <urgent> & check Zürich."}},
					"runs":        2,
					"replies": []any{
						map[string]any{
							"text": "Line one,\nline \"two\" <b>&amp;</b> — ünïcödé ✓",
							"toolCalls": []any{
								map[string]any{"id": id("a"), "name": "create_ticket", "arguments": map[string]any{
									"title": "Disk <90%> & \"quoted\"\ttab — Zürich ☃", "priority": "high"}},
								map[string]any{"id": id("b"), "name": "search_docs", "arguments": map[string]any{
									"query": "severity", "limit": 1, "filters": map[string]any{"tags": []any{"a", map[string]any{"deep": nil}}}}},
								map[string]any{"id": id("c"), "name": "get_timezone"},
							},
						},
						map[string]any{"text": "Done: <ok> & \u2028 separated."},
					},
				}
				suite, f := scenario(t, "awkward", fx, goagent.Run)
				out, res := suite.Check(f) // rebuild, repeat and agent checks
				for _, fl := range res.Failures {
					t.Errorf("%s", fl)
				}
				if out == nil {
					return
				}
				// The tool that got no arguments answered with an error
				// the model can read, rather than the agent failing.
				if !strings.Contains(string(out.Log), `unknown city`) {
					t.Errorf("the call without arguments did not reach the tool:\n%s", out.Log)
				}
			})
		}
	}
}
