package redact

import (
	"regexp"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

func TestPathRulesPerFormat(t *testing.T) {
	cases := []struct {
		f          wire.Format
		body, path string
		want       string
	}{
		{wire.Anthropic, `{"metadata":{"user_id":"u1"},"system":"s"}`, "config.metadata.user_id", `{"metadata":{"user_id":"X"},"system":"s"}`},
		{wire.Anthropic, `{"system":"s","messages":[]}`, "system", `{"system":"X","messages":[]}`},
		{wire.Anthropic, `{"system":[{"type":"text","text":"s"}]}`, "system.0.text", `{"system":[{"type":"text","text":"X"}]}`},
		{wire.OpenAIChat, `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`, "system.0.content", `{"messages":[{"role":"system","content":"X"},{"role":"user","content":"u"}]}`},
		{wire.OpenAIResponses, `{"instructions":"s","input":"i"}`, "system", `{"instructions":"X","input":"i"}`},
		{wire.Gemini, `{"systemInstruction":{"parts":[{"text":"s"}]}}`, "system.parts.0.text", `{"systemInstruction":{"parts":[{"text":"X"}]}}`},
		{wire.Gemini, `{"system_instruction":{"parts":[{"text":"s"}]}}`, "system.parts.0.text", `{"system_instruction":{"parts":[{"text":"X"}]}}`},
		{wire.Anthropic, `{"tools":[{"name":"a","description":"d"}]}`, "tools.0.description", `{"tools":[{"name":"a","description":"X"}]}`},
		{wire.Anthropic, `{"tools":[{"name":"a","description":"d"}]}`, "tools.0.input", `{"tools":[{"name":"a","description":"d"}]}`},
		// A non-leading system message is conversation, not header.
		{wire.OpenAIChat, `{"messages":[{"role":"user","content":"u"},{"role":"system","content":"s"}]}`, "system.1.content", `{"messages":[{"role":"user","content":"u"},{"role":"system","content":"s"}]}`},
		// The value may be anything; it becomes the string.
		{wire.Anthropic, `{"metadata":{"n":12.5}}`, "config.metadata.n", `{"metadata":{"n":"X"}}`},
	}
	for _, c := range cases {
		hits := make([]int, 1)
		got := Apply([]byte(c.body), c.f, []Rule{{Path: c.path, With: "X"}}, hits)
		if string(got) != c.want {
			t.Errorf("%s %s on %s = %s, want %s", c.f, c.path, c.body, got, c.want)
		}
		if wantHit := c.body != c.want; (hits[0] == 1) != wantHit {
			t.Errorf("%s %s: %d hits", c.f, c.path, hits[0])
		}
	}
}

func TestRegexRulesTouchValuesNotKeys(t *testing.T) {
	body := `{"/tmp/a":"/tmp/b and /tmp/c","x":["\/tmp\/d"],"n":1}`
	hits := make([]int, 1)
	got := Apply([]byte(body), wire.Anthropic, []Rule{{Regex: regexp.MustCompile(`/tmp/[a-z]`), With: "<T>"}}, hits)
	// The escaped \/ in the last value decodes to /tmp/d and is redacted
	// with the token written as JSON.stringify writes it.
	want := `{"/tmp/a":"<T> and <T>","x":["<T>"],"n":1}`
	if string(got) != want || hits[0] != 3 {
		t.Errorf("got %s (%d hits), want %s (3 hits)", got, hits[0], want)
	}
}

func TestRuleCheck(t *testing.T) {
	re := regexp.MustCompile("a")
	for _, c := range []struct {
		r  Rule
		ok bool
	}{
		{Rule{Path: "config.model"}, true}, {Rule{Path: "system"}, true}, {Rule{Path: "tools.3.name"}, true}, {Rule{Regex: re}, true},
		{Rule{}, false}, {Rule{Path: "config"}, false}, {Rule{Path: "messages.0"}, false}, {Rule{Path: "x", Regex: re}, false},
		{Rule{Path: "config..model"}, false}, {Rule{Path: "config.model."}, false}, {Rule{Path: ".config.model"}, false},
	} {
		if err := c.r.Check(); (err == nil) != c.ok {
			t.Errorf("%v.Check() = %v", c.r, err)
		}
	}
}
