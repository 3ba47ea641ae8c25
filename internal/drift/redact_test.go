package drift

import (
	"regexp"
	"testing"

	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

func TestParseRedaction(t *testing.T) {
	for _, tt := range []struct {
		in, re, path, token string
		bad                 bool
	}{
		{in: `/home/\w+=~`, re: `/home/\w+`, token: "~"},
		{in: `a=b=c`, re: `a=b`, token: "c"},
		{in: `x=`, re: `x`, token: ""},
		{in: `regex:path:x=y`, re: `path:x`, token: "y"},
		{in: `path:config.metadata.user_id=<<user-id>>`, path: "config.metadata.user_id", token: "<<user-id>>"},
		{in: `path:system.0.text=a=b`, path: "system.0.text", token: "a=b"},
		{in: `path:tools.2.description=`, path: "tools.2.description", token: ""},
		{in: `=x`, bad: true},
		{in: `regex:=x`, bad: true},
		{in: `nothing`, bad: true},
		{in: `(=x`, bad: true},
		{in: `[0-9]*=#`, bad: true}, // it can match the empty string
		{in: `path:config.model`, bad: true},
		{in: `path:messages.0=x`, bad: true},
		{in: `path:config=x`, bad: true},
	} {
		r, err := ParseRedaction(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseRedaction(%q) accepted", tt.in)
			}
			continue
		}
		re := ""
		if r.Regex != nil {
			re = r.Regex.String()
		}
		if err != nil || re != tt.re || r.Path != tt.path || r.With != tt.token {
			t.Errorf("ParseRedaction(%q) = regex %q path %q with %q, %v; want %q %q %q", tt.in, re, r.Path, r.With, err, tt.re, tt.path, tt.token)
		}
	}
}

// TestRedactRecords: drift applies the rules through package redact, to
// a body as a captured scenario does and to a session-log event at its
// header's place, counting what each rule changed.
func TestRedactRecords(t *testing.T) {
	red := func(s string) redact.Rule {
		r, err := ParseRedaction(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tt := range []struct {
		name, in, want string
		log            bool
		rs             []redact.Rule
		hits           []int
	}{
		{"value, not key", `{"alice":"alice and \u003calice\u003e"}`, `{"alice":"X and \u003cX\u003e"}`, false, []redact.Rule{red("alice=X")}, []int{2}},
		{"escaped path", `{"cwd":"C:\\Users\\alice\\src"}`, `{"cwd":"<cwd>"}`, false, []redact.Rule{red(`C:\\Users\\[a-z]+\\src=<cwd>`)}, []int{1}},
		{"match over an escape", `["a\nb","a\u000ab"]`, `["-","-"]`, false, []redact.Rule{red("a\nb=-")}, []int{2}},
		{"token escaped", `{"s":"x"}`, `{"s":"\"q\"\n"}`, false, []redact.Rule{{Regex: red("x=").Regex, With: "\"q\"\n"}}, []int{1}},
		{"in order", `{"s":"abc"}`, `{"s":"Z"}`, false, []redact.Rule{red("b=Y"), red("aYc=Z")}, []int{1, 1}},
		{"surrogates kept", `{"s":"\ud83d\ude00 at 12:00"}`, `{"s":"\ud83d\ude00 at T"}`, false, []redact.Rule{red(`\d\d:\d\d=T`)}, []int{1}},
		{"spaces before colon", `{"a" : "a", "b":["a"]}`, `{"a" : "A", "b":["A"]}`, false, []redact.Rule{red("^a$=A")}, []int{2}},
		{"body path", `{"model":"m","metadata":{"user_id":"u-17"},"messages":[]}`, `{"model":"m","metadata":{"user_id":"<<user-id>>"},"messages":[]}`,
			false, []redact.Rule{red("path:config.metadata.user_id=<<user-id>>")}, []int{1}},
		{"body path missing", `{"model":"m","messages":[]}`, `{"model":"m","messages":[]}`,
			false, []redact.Rule{red("path:config.metadata.user_id=X")}, []int{0}},
		{"log path", `{"type":"request/header","data":{"header":{"config":{"metadata":{"user_id":"u-17"}},"tools":[]}}}`,
			`{"type":"request/header","data":{"header":{"config":{"metadata":{"user_id":"<<user-id>>"}},"tools":[]}}}`,
			true, []redact.Rule{red("path:config.metadata.user_id=<<user-id>>")}, []int{1}},
		{"log path of a tool", `{"type":"request/header","data":{"header":{"config":{},"tools":[{"name":"a","description":"d 1"}]}}}`,
			`{"type":"request/header","data":{"header":{"config":{},"tools":[{"name":"a","description":"D"}]}}}`,
			true, []redact.Rule{red("path:tools.0.description=D")}, []int{1}},
		{"log regex", `{"type":"request/header","data":{"header":{"system":"in /tmp/x1"}}}`,
			`{"type":"request/header","data":{"header":{"system":"in <<tmp>>"}}}`,
			true, []redact.Rule{red("/tmp/[a-z0-9]+=<<tmp>>")}, []int{1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &side{redact: tt.rs, hits: make([]int, len(tt.rs))}
			var got string
			if tt.log {
				got = string(s.redactEvent([]byte(tt.in)))
			} else {
				got = string(s.redactBody([]byte(tt.in), wire.Anthropic))
			}
			if got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			if !gjson.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			for i, n := range tt.hits {
				if s.hits[i] != n {
					t.Errorf("rule %d changed %d places, want %d", i+1, s.hits[i], n)
				}
			}
		})
	}
}

// A rule is "unused" only if it would change nothing compared: a record
// skipped because it is byte-identical on both sides still counts, in
// bodies and in logs.
func TestUnusedRedactionsCountSkippedRecords(t *testing.T) {
	bodies := `{"model":"m","system":"Alpha","messages":[]}` + "\n" + `{"model":"m","system":"Zeta","messages":[]}` + "\n"
	hdr := func(step int, system string) string {
		return `{"type":"request/header","data":{"turn":1,"step":` + itoa(step) + `,"reason":"change","header":{"config":{"model":"m"},"system":"` + system + `","tools":[]}}}` + "\n"
	}
	log := hdr(1, "Alpha") + hdr(2, "Zeta")
	for _, in := range []string{bodies, log} {
		rules := []redact.Rule{{Regex: regexp.MustCompile("Zeta"), With: "Q"}, {Regex: regexp.MustCompile("Nope"), With: "Q"}}
		res := compareBytes(t, []byte(in), []byte(in), Options{NoCost: true, Redact: rules})
		if !res.Identical || len(res.UnusedRedactions) != 1 || res.UnusedRedactions[0] != `regex "Nope"` {
			t.Errorf("unused %q, want only the rule that matches nothing", res.UnusedRedactions)
		}
	}
}
