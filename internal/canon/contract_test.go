package canon_test

import (
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

// TestCompactEdgeCasesMore: more JSON.stringify(JSON.parse(text)) results,
// worked out by hand from the ECMAScript rules.
func TestCompactEdgeCasesMore(t *testing.T) {
	t.Parallel()
	// A wide object (map path from the 17th member on) whose duplicate is
	// a key first seen after the map was built: first position, last value.
	var wide strings.Builder
	var wantWide strings.Builder
	wide.WriteByte('{')
	wantWide.WriteByte('{')
	for i := range 20 {
		if i > 0 {
			wide.WriteByte(',')
			wantWide.WriteByte(',')
		}
		wide.WriteString(`"k` + itoa(i) + `":1`)
		if i == 18 {
			wantWide.WriteString(`"k18":2`)
		} else {
			wantWide.WriteString(`"k` + itoa(i) + `":1`)
		}
	}
	wide.WriteString(`,"k18":2}`)
	wantWide.WriteByte('}')

	for _, tc := range []struct{ name, in, want string }{
		{"wide object, duplicate of a late key", wide.String(), wantWide.String()},
		// \uE000 is not a low surrogate: \uD800 stays a lone high
		// surrogate (escaped) and U+E000 is written literally.
		{"high surrogate before U+E000", `"\ud800\ue000"`, "\"\\ud800\ue000\""},
		{"high surrogate before U+DFFF", `"\ud800\udfff"`, "\"\U000103FF\""},
	} {
		got, err := canon.Compact(nil, []byte(tc.in))
		if err != nil {
			t.Errorf("%s: Compact: %v", tc.name, err)
			continue
		}
		if string(got) != tc.want {
			t.Errorf("%s: Compact(%.60q)\n got %q\nwant %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// TestIndentCutsAstralIndentByCodeUnits: JSON.stringify keeps the first 10
// UTF-16 code units of the gap; a character above U+FFFF takes two.
func TestIndentCutsAstralIndentByCodeUnits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ indent, kept string }{
		{strings.Repeat("\U0001F600", 6), strings.Repeat("\U0001F600", 5)},
		{"a" + strings.Repeat("\U0001F600", 5), "a" + strings.Repeat("\U0001F600", 4)}, // the 5th would need units 10 and 11
		{"\u00e9" + strings.Repeat("x", 10), "\u00e9" + strings.Repeat("x", 9)},
	} {
		got, err := canon.Indent(nil, []byte(`[1]`), tc.indent)
		if err != nil {
			t.Fatal(err)
		}
		if want := "[\n" + tc.kept + "1\n]"; string(got) != want {
			t.Errorf("Indent with gap %q\n got %q\nwant %q", tc.indent, got, want)
		}
	}
}

// TestIndentTokensEscapedQuote: an escaped quote does not end a string, so
// the commas and brackets after it inside the string are kept as text.
func TestIndentTokensEscapedQuote(t *testing.T) {
	t.Parallel()
	src := `{"a":"q\"x,[y]:","b\\":1}`
	want := "{\n  \"a\": \"q\\\"x,[y]:\",\n  \"b\\\\\": 1\n}"
	if got := string(canon.IndentTokens(nil, []byte(src), "  ")); got != want {
		t.Errorf("IndentTokens(%s)\n got %q\nwant %q", src, got, want)
	}
}

// TestAppendSorted: members of every object, at any depth and inside
// arrays, sorted by key; arrays keep their order; the values canonical.
func TestAppendSorted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{` { "z" : [ {"y":1,"x":2}, 3 ], "m" : {"d":1.0,"c":{"f":1,"e":2}} } `, `{"m":{"c":{"e":2,"f":1},"d":1},"z":[{"x":2,"y":1},3]}`},
		{`[3,1,2]`, `[3,1,2]`},
		{`{"b":0,"10":1,"9":2}`, `{"10":1,"9":2,"b":0}`}, // bytes: "1" < "9" < "b"
		{`"s"`, `"s"`},
	} {
		got, err := canon.AppendSorted([]byte("x:"), []byte(tc.in))
		if err != nil {
			t.Errorf("AppendSorted(%s): %v", tc.in, err)
			continue
		}
		if want := "x:" + tc.want; string(got) != want {
			t.Errorf("AppendSorted(%s)\n got %s\nwant %s", tc.in, got, want)
		}
	}
	if _, err := canon.AppendSorted(nil, []byte(`{"a":`)); err == nil {
		t.Error("AppendSorted accepted invalid JSON")
	}
}
