package canon_test

import (
	"errors"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

// indentCases are what JSON.stringify(JSON.parse(in), null, indent) writes,
// worked out by hand from the ECMAScript SerializeJSONObject rules.
var indentCases = []struct {
	name, in, indent, want string
}{
	{"nested", `{"a":[1,{"b":[]},{}],"c":"x, y: {z}"}`, "  ",
		"{\n  \"a\": [\n    1,\n    {\n      \"b\": []\n    },\n    {}\n  ],\n  \"c\": \"x, y: {z}\"\n}"},
	{"empty array", ` [ ] `, "  ", `[]`},
	{"empty object", `{ }`, "  ", `{}`},
	{"scalar string", `"s"`, "  ", `"s"`},
	{"scalar number canonical", `1.0`, "  ", `1`},
	{"escaped quote and trailing backslash", `["a\\",":\"{","\\\""]`, "  ",
		"[\n  \"a\\\\\",\n  \":\\\"{\",\n  \"\\\\\\\"\"\n]"},
	{"canonical first", `{"b":1,"0":2,"b":3}`, "  ", "{\n  \"0\": 2,\n  \"b\": 3\n}"},
	{"tab", `{"a":{"b":1}}`, "\t", "{\n\t\"a\": {\n\t\t\"b\": 1\n\t}\n}"},
	{"four spaces", `[[1]]`, "    ", "[\n    [\n        1\n    ]\n]"},
	{"empty indent is compact", `{ "a" : [ 1 , { } ] }`, "", `{"a":[1,{}]}`},
	{"indent longer than 10 is cut to 10", `{"a":1}`, "abcdefghijklmn", "{\nabcdefghij\"a\": 1\n}"},
	{"string with brackets and commas", `{"k":"[{,:}]"}`, " ", "{\n \"k\": \"[{,:}]\"\n}"},
	{"unicode kept", `["\u00e9\u2028<"]`, "  ", "[\n  \"é\u2028<\"\n]"},
}

func TestIndent(t *testing.T) {
	t.Parallel()
	for _, tc := range indentCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canon.Indent(nil, []byte(tc.in), tc.indent)
			if err != nil {
				t.Fatalf("Indent(%q): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Errorf("Indent(%q, %q)\n got %q\nwant %q", tc.in, tc.indent, got, tc.want)
			}
		})
	}
}

func TestIndentAppendsAndKeepsDstOnError(t *testing.T) {
	t.Parallel()
	got, err := canon.Indent([]byte("x="), []byte(`[1]`), "  ")
	if err != nil {
		t.Fatal(err)
	}
	if want := "x=[\n  1\n]"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	got, err = canon.Indent([]byte("x="), []byte("[\n1,\n"), "  ")
	var se *canon.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %v, want *SyntaxError", err)
	}
	if se.Line != 3 || se.Column != 1 {
		t.Errorf("error at %d:%d, want 3:1", se.Line, se.Column)
	}
	if string(got) != "x=" {
		t.Errorf("on error got %q, want dst unchanged", got)
	}
}
