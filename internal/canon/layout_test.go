package canon

import "testing"

func TestIndentTokensKeepsTokens(t *testing.T) {
	src := `{"a\u003c" : [ 1.50 , "\u00e9\/", {} , [ ] ],"b":{"c":-0}}`
	want := "{\n  \"a\\u003c\": [\n    1.50,\n    \"\\u00e9\\/\",\n    {},\n    []\n  ],\n  \"b\": {\n    \"c\": -0\n  }\n}"
	if got := string(IndentTokens(nil, []byte(src), "  ")); got != want {
		t.Errorf("IndentTokens:\n%s\nwant:\n%s", got, want)
	}
	// On canonical input it is Indent.
	canonical := `{"x":[1,"y",{"z":null}],"e":{}}`
	a, err := Indent(nil, []byte(canonical), "  ")
	if err != nil {
		t.Fatal(err)
	}
	if b := IndentTokens(nil, []byte(canonical), "  "); string(a) != string(b) {
		t.Errorf("IndentTokens %s, Indent %s", b, a)
	}
}
