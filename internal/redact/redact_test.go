package redact

import (
	"regexp"
	"strings"
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
		// A config path reaches config members only: in some format each
		// of these is the conversation, the system part, the tools or a
		// stream flag. An escaped dot is part of a key.
		{Rule{Path: "config.messages.0.content"}, false}, {Rule{Path: "config.system"}, false}, {Rule{Path: "config.tools.0.name"}, false},
		{Rule{Path: "config.input"}, false}, {Rule{Path: "config.contents"}, false}, {Rule{Path: "config.stream"}, false},
		{Rule{Path: "config.instructions"}, false}, {Rule{Path: "config.systemInstruction.parts"}, false},
		{Rule{Path: `config.messages\.x`}, true}, {Rule{Path: "config.metadata.messages"}, true},
		// A regex that can match the empty string would put its
		// replacement between every two characters: at a word boundary
		// too, though "\b" does not match "" itself.
		{Rule{Regex: regexp.MustCompile(`[0-9]*`)}, false}, {Rule{Regex: regexp.MustCompile(`\b`)}, false},
		{Rule{Regex: regexp.MustCompile(`(?m)^`)}, false}, {Rule{Regex: regexp.MustCompile(`x|`)}, false},
		{Rule{Regex: regexp.MustCompile(`(a*)(b?){2}`)}, false}, {Rule{Regex: regexp.MustCompile(`(?:\bid-)?[0-9]{0,4}`)}, false},
		{Rule{Regex: regexp.MustCompile(`[0-9]+`)}, true}, {Rule{Regex: regexp.MustCompile(`\bid-[0-9]*\b`)}, true},
		{Rule{Regex: regexp.MustCompile(`(a*b|c?d)+`)}, true}, {Rule{Regex: regexp.MustCompile(`/tmp/[A-Za-z0-9._-]+`)}, true},
	} {
		if err := c.r.Check(); (err == nil) != c.ok {
			t.Errorf("%v.Check() = %v", c.r, err)
		}
	}
}

// The system part of an OpenAI Chat body is its leading system and
// developer messages, as many as lead the list; the first other message
// and all after it are conversation, and the bare path "system" names no
// single value there.
func TestPathRulesOpenAIChatSystemPart(t *testing.T) {
	const (
		devSys = `{"messages":[{"role":"developer","content":"d"},{"role":"system","content":"s"},{"role":"user","content":"u"}]}`
		sysUsr = `{"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`
	)
	cases := []struct {
		body, path, want string
		hits             int
	}{
		{devSys, "system.0.content", `{"messages":[{"role":"developer","content":"X"},{"role":"system","content":"s"},{"role":"user","content":"u"}]}`, 1},
		{devSys, "system.1.content", `{"messages":[{"role":"developer","content":"d"},{"role":"system","content":"X"},{"role":"user","content":"u"}]}`, 1},
		// messages.2 is the user's: one past the leading system messages.
		{devSys, "system.2.content", devSys, 0},
		{sysUsr, "system.1.content", sysUsr, 0},
		{sysUsr, "system", sysUsr, 0},
		// A role written twice is the last one, as the provider reads it.
		{`{"messages":[{"role":"user","role":"system","content":"s"}]}`, "system.0.content", `{"messages":[{"role":"user","role":"system","content":"X"}]}`, 1},
		{`{"messages":[{"role":"system","role":"user","content":"u"}]}`, "system.0.content", `{"messages":[{"role":"system","role":"user","content":"u"}]}`, 0},
	}
	for _, c := range cases {
		hits := make([]int, 1)
		got := Apply([]byte(c.body), wire.OpenAIChat, []Rule{{Path: c.path, With: "X"}}, hits)
		if string(got) != c.want || hits[0] != c.hits {
			t.Errorf("%s on %s = %s (%d hits), want %s (%d hits)", c.path, c.body, got, hits[0], c.want, c.hits)
		}
	}
}

// The replacement is written as a JSON string the way JSON.stringify
// writes it, for a path rule and a regex rule alike, so that a quote or a
// backslash in it keeps the body valid JSON (and < stays <).
func TestReplacementIsWrittenAsJSON(t *testing.T) {
	const with = `a"b\c<d` + "\n"
	hits := make([]int, 2)
	body := `{"metadata":{"user_id":"u1"},"system":"in /tmp/x now"}`
	got := Apply([]byte(body), wire.Anthropic, []Rule{
		{Path: "config.metadata.user_id", With: with},
		{Regex: regexp.MustCompile(`/tmp/[a-z]`), With: with},
	}, hits)
	want := `{"metadata":{"user_id":"a\"b\\c<d\n"},"system":"in a\"b\\c<d\n now"}`
	if string(got) != want || hits[0] != 1 || hits[1] != 1 {
		t.Errorf("got %s (hits %v), want %s (hits [1 1])", got, hits, want)
	}
}

// A regex rule sees each string's decoded text, but splices into its raw
// bytes: escapes before a match (\u00e9 is one character, é, and six raw
// bytes) and escaped quotes inside the string (which do not end it) keep
// their bytes as sent.
func TestRegexRulesKeepEscapesAroundMatches(t *testing.T) {
	re := regexp.MustCompile(`/tmp/[a-z]+`)
	for _, c := range []struct {
		body, want string
		hits       int
	}{
		{`{"s":"\u00e9\t/tmp/abc!"}`, `{"s":"\u00e9\t<T>!"}`, 1},
		{`{"s":"say \"/tmp/abc\" and \"/tmp/de\"","k":"/tmp/z"}`, `{"s":"say \"<T>\" and \"<T>\"","k":"<T>"}`, 3},
		{`{"s":"a\\","t":"/tmp/q"}`, `{"s":"a\\","t":"<T>"}`, 1},
		// A key stays a key with whitespace before its colon.
		{"{\n  \"/tmp/k\" :\t\"/tmp/v\"\n}", "{\n  \"/tmp/k\" :\t\"<T>\"\n}", 1},
	} {
		hits := make([]int, 1)
		got := Apply([]byte(c.body), wire.Anthropic, []Rule{{Regex: re, With: "<T>"}}, hits)
		if string(got) != c.want || hits[0] != c.hits {
			t.Errorf("on %s: got %s (%d hits), want %s (%d hits)", c.body, got, hits[0], c.want, c.hits)
		}
	}
}

// Apply adds to the counters it is given, so that one slice counts a
// rule's hits over every body of a run.
func TestApplyAddsToHits(t *testing.T) {
	hits := []int{5, 7}
	rules := []Rule{{Path: "system", With: "X"}, {Regex: regexp.MustCompile("q"), With: "Q"}}
	for range 2 {
		Apply([]byte(`{"system":"s","messages":[{"role":"user","content":"qq"}]}`), wire.Anthropic, rules, hits)
	}
	if hits[0] != 7 || hits[1] != 11 {
		t.Errorf("hits after two bodies = %v, want [7 11] (5+1+1 and 7+2+2)", hits)
	}
}

// A wildcard in a config path that reaches past the config's members
// (here the conversation) changes nothing; one that stays in the config
// redacts there.
func TestPathRulesConfigWildcardStaysInConfig(t *testing.T) {
	const body = `{"metadata":{"user_id":"u1"},"messages":[{"role":"user","content":"c"}]}`
	for path, want := range map[string]string{
		"config.mess*.0.content": body,
		"config.meta*.user_id":   `{"metadata":{"user_id":"X"},"messages":[{"role":"user","content":"c"}]}`,
	} {
		hits := make([]int, 1)
		if got := Apply([]byte(body), wire.Anthropic, []Rule{{Path: path, With: "X"}}, hits); string(got) != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
}

// Reaches says what to write instead of the bare path "system" for an
// OpenAI Chat body, where the system part is several messages, and has
// nothing to say where a path can match.
func TestReaches(t *testing.T) {
	if err := (Rule{Path: "system"}).Reaches(wire.OpenAIChat); err == nil || !strings.Contains(err.Error(), "system.0.content") {
		t.Errorf("system in openai-chat: %v", err)
	}
	for _, f := range wire.Formats {
		for _, r := range []Rule{{Path: "system.0.content"}, {Path: "config.model"}, {Regex: regexp.MustCompile("system")}} {
			if err := r.Reaches(f); err != nil {
				t.Errorf("%s in %s: %v", r, f, err)
			}
		}
		if err := (Rule{Path: "system"}).Reaches(f); (err != nil) != (f == wire.OpenAIChat) {
			t.Errorf("system in %s: %v", f, err)
		}
	}
}
