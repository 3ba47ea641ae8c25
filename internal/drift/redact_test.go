package drift

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestParseRedaction(t *testing.T) {
	for _, tt := range []struct {
		in, re, token string
		bad           bool
	}{
		{in: `/home/\w+=~`, re: `/home/\w+`, token: "~"},
		{in: `a=b=c`, re: `a=b`, token: "c"},
		{in: `x=`, re: `x`, token: ""},
		{in: `=x`, bad: true},
		{in: `nothing`, bad: true},
		{in: `(=x`, bad: true},
	} {
		r, err := ParseRedaction(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseRedaction(%q) accepted", tt.in)
			}
			continue
		}
		if err != nil || r.Pattern.String() != tt.re || r.Token != tt.token {
			t.Errorf("ParseRedaction(%q) = %v %q, %v; want %q %q", tt.in, r.Pattern, r.Token, err, tt.re, tt.token)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	red := func(s string) Redaction {
		r, err := ParseRedaction(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tt := range []struct {
		name, in, want string
		rs             []Redaction
	}{
		{"value, not key", `{"alice":"alice and \u003calice\u003e"}`, `{"alice":"X and \u003cX\u003e"}`, []Redaction{red("alice=X")}},
		{"escaped path", `{"cwd":"C:\\Users\\alice\\src"}`, `{"cwd":"<cwd>"}`, []Redaction{red(`C:\\Users\\[a-z]+\\src=<cwd>`)}},
		{"match over an escape", `["a\nb","a\u000ab"]`, `["-","-"]`, []Redaction{red("a\nb=-")}},
		{"token escaped", `{"s":"x"}`, `{"s":"\"q\"\n"}`, []Redaction{{Pattern: red("x=").Pattern, Token: "\"q\"\n"}}},
		{"in order", `{"s":"abc"}`, `{"s":"Z"}`, []Redaction{red("b=Y"), red("aYc=Z")}},
		{"surrogates kept", `{"s":"\ud83d\ude00 at 12:00"}`, `{"s":"\ud83d\ude00 at T"}`, []Redaction{red(`\d\d:\d\d=T`)}},
		{"spaces before colon", `{"a" : "a", "b":["a"]}`, `{"a" : "A", "b":["A"]}`, []Redaction{red("^a$=A")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(redactJSON([]byte(tt.in), tt.rs))
			if got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			if !gjson.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
		})
	}
}
