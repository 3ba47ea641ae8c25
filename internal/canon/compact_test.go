package canon_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

// compactCases are JSON texts and what JavaScript's
// JSON.stringify(JSON.parse(text)) writes for them. Every expectation was
// written by hand from the ECMAScript rules (and is re-checked against Node
// by TestNodeDifferential when node is on PATH).
var compactCases = []struct {
	name, in, want string
}{
	// Whitespace and structure.
	{"whitespace", " \t\r\n{ \"a\" : [ 1 , 2 ] , \"b\" : { } } \n", `{"a":[1,2],"b":{}}`},
	{"empty object", `{}`, `{}`},
	{"empty array", `[ ]`, `[]`},
	{"nested empty", `[[],{},[{}]]`, `[[],{},[{}]]`},
	{"empty key and string", `{"":""}`, `{"":""}`},
	{"literals", `[true,false,null]`, `[true,false,null]`},

	// Strings: no HTML escaping, U+2028/U+2029 literal, shortest escapes.
	{"html chars literal", `"<a href=\"x\">&amp;</a>"`, `"<a href=\"x\">&amp;</a>"`},
	{"html chars escaped in source", `"\u003c\u003e\u0026"`, `"<>&"`},
	{"U+2028 U+2029 literal", "\"a\u2028b\u2029c\"", "\"a\u2028b\u2029c\""},
	{"U+2028 U+2029 escaped in source", `"\u2028\u2029"`, "\"\u2028\u2029\""},
	{"e acute escape", `"caf\u00e9"`, `"café"`},
	{"e acute upper-case escape", `"caf\u00E9"`, `"café"`},
	{"slash unescaped", `"a\/b"`, `"a/b"`},
	{"quote and backslash", `"\"\\"`, `"\"\\"`},
	{"short escapes", `"\b\f\n\r\t"`, `"\b\f\n\r\t"`},
	{"short escapes from \\u", `"\u0008\u000c\u000a\u000d\u0009"`, `"\b\f\n\r\t"`},
	{"control lower-case hex", `"\u001F\u0000\u000B\u0001"`, `"\u001f\u0000\u000b\u0001"`},
	{"DEL is literal", `"\u007f"`, "\"\x7f\""},
	{"replacement char literal", `"\ufffd"`, "\"\uFFFD\""},
	{"BOM char literal", `"\ufeff"`, "\"\uFEFF\""},
	{"escaped ASCII letter", `"\u0041\u0062"`, `"Ab"`},

	// Surrogates: pairs become the character, lone halves stay escaped.
	{"pair becomes literal", `"\ud83d\ude00"`, "\"\U0001F600\""},
	{"pair upper-case hex", `"\uD83D\uDE00"`, "\"\U0001F600\""},
	{"literal astral kept", "\"\U0001F600\"", "\"\U0001F600\""},
	{"lone high kept", `"\ud800"`, `"\ud800"`},
	{"lone high upper-case", `"\uD800"`, `"\ud800"`},
	{"lone low kept", `"\udc00"`, `"\udc00"`},
	{"low then high", `"\ude00\ud83d"`, `"\ude00\ud83d"`},
	{"high high low", `"\ud83d\ud83d\ude00"`, "\"\\ud83d\U0001F600\""},
	{"high then letter", `"\ud800x"`, `"\ud800x"`},
	{"high then short escape", `"\ud800\n"`, `"\ud800\n"`},
	{"high then BMP escape", `"\ud800\u0041"`, `"\ud800A"`},

	// Numbers: shortest round-trip double in JavaScript notation.
	{"1.0", `1.0`, `1`},
	{"-0", `-0`, `0`},
	{"-0.0", `-0.0`, `0`},
	{"0e5", `0e5`, `0`},
	{"1e21", `1e21`, `1e+21`},
	{"1E21", `1E21`, `1e+21`},
	{"1e+21", `1e+21`, `1e+21`},
	{"just below 1e21", `999999999999999900000`, `999999999999999900000`},
	{"rounds up to 1e21", `999999999999999999999`, `1e+21`},
	{"1e-7", `1e-7`, `1e-7`},
	{"1.5e-7", `1.5e-7`, `1.5e-7`},
	{"1e-6 is decimal", `1e-6`, `0.000001`},
	{"0.000001", `0.000001`, `0.000001`},
	{"1e-10", `1e-10`, `1e-10`},
	{"1e400 overflows", `1e400`, `null`},
	{"-1e400 overflows", `-1e400`, `null`},
	{"1e-400 underflows", `1e-400`, `0`},
	{"-1e-400 underflows", `-1e-400`, `0`},
	{"1e2", `1e2`, `100`},
	{"trailing zeros", `1.500`, `1.5`},
	{"0.1", `0.1`, `0.1`},
	{"123e-20", `123e-20`, `1.23e-18`},
	{"15 digits kept", `123456789012345`, `123456789012345`},
	{"-14 digits kept", `-12345678901234`, `-12345678901234`},
	{"2^53+1 rounds", `9007199254740993`, `9007199254740992`},
	{"20 digits", `12345678901234567890`, `12345678901234567000`},
	{"30 digits", `123456789012345678901234567890`, `1.2345678901234568e+29`},
	{"negative 17 digits", `-12345678901234567`, `-12345678901234568`},
	{"max double", `1.7976931348623157e308`, `1.7976931348623157e+308`},
	{"above max double", `1.7976931348623159e308`, `null`},
	{"min subnormal", `5e-324`, `5e-324`},
	{"below min subnormal", `2e-324`, `0`},
	{"min normal", `2.2250738585072014e-308`, `2.2250738585072014e-308`},
	{"0.1+0.2", `0.30000000000000004`, `0.30000000000000004`},
	{"exponent with plus", `1.25E+2`, `125`},
	{"big exponent digits", `1e0000000000000000000001`, `10`},

	// Keys: array indices first ascending, then insertion order.
	{"integer keys first", `{"b":1,"a":2,"1":3,"0":4}`, `{"0":4,"1":3,"b":1,"a":2}`},
	{"integer keys ascending numerically", `{"10":1,"9":2,"100":3}`, `{"9":2,"10":1,"100":3}`},
	{"largest array index", `{"4294967295":1,"4294967294":2}`, `{"4294967294":2,"4294967295":1}`},
	{"leading zero is a name", `{"01":1,"1":2}`, `{"1":2,"01":1}`},
	{"negative is a name", `{"-1":1,"0":2}`, `{"0":2,"-1":1}`},
	{"decimal is a name", `{"1.5":1,"2":2}`, `{"2":2,"1.5":1}`},
	{"escaped digit key", `{"a":2,"\u0031":1,"0":3}`, `{"0":3,"1":1,"a":2}`},
	{"nested integer keys", `{"x":{"b":0,"2":1,"1":2}}`, `{"x":{"1":2,"2":1,"b":0}}`},

	// Duplicate keys: first position, last value.
	{"duplicate keeps first position", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
	{"duplicate spelled differently", `{"a":1,"\u0061":2}`, `{"a":2}`},
	{"duplicate integer key", `{"x":0,"1":1,"1":2}`, `{"1":2,"x":0}`},
	{"duplicate with object value", `{"a":{"x":1,"x":2},"b":0,"a":{"y":[1,{"z":1,"z":2}]}}`, `{"a":{"y":[1,{"z":2}]},"b":0}`},
	{"triplicate", `{"k":1,"m":0,"k":2,"k":3}`, `{"k":3,"m":0}`},
	{"duplicate in nested array", `[{"a":1,"a":2},{"a":3}]`, `[{"a":2},{"a":3}]`},
	{"proto is an ordinary key", `{"__proto__":1,"a":2}`, `{"__proto__":1,"a":2}`},
}

func TestCompactJavaScriptEdgeCases(t *testing.T) {
	t.Parallel()
	for _, tc := range compactCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := canon.Compact(nil, []byte(tc.in))
			if err != nil {
				t.Fatalf("Compact(%q): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Errorf("Compact(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCompactAppendsToDst(t *testing.T) {
	t.Parallel()
	dst := []byte("prefix:")
	got, err := canon.Compact(dst, []byte(` [ 1.0 ] `))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "prefix:[1]" {
		t.Errorf("got %q, want %q", got, "prefix:[1]")
	}
	got, err = canon.Compact(dst, []byte(`[1,`))
	if err == nil {
		t.Fatal("Compact of a truncated array succeeded")
	}
	if string(got) != "prefix:" {
		t.Errorf("on error got %q, want dst unchanged %q", got, "prefix:")
	}
}

func TestValid(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{`0`, `"x"`, `{"a":[]}`, ` null `} {
		if !canon.Valid([]byte(ok)) {
			t.Errorf("Valid(%q) = false", ok)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `NaN`, "\"\xff\"", `'a'`} {
		if canon.Valid([]byte(bad)) {
			t.Errorf("Valid(%q) = true", bad)
		}
	}
}

// syntaxCases are texts JSON.parse rejects, with where the error must point.
var syntaxCases = []struct {
	name       string
	in         string
	offset     int
	line, col  int
	msgContain string
}{
	{"empty input", ``, 0, 1, 1, "unexpected end"},
	{"only spaces", "  \n ", 4, 2, 2, "unexpected end"},
	{"trailing comma in object", `{"a":1,}`, 7, 1, 8, "looking for object key"},
	{"trailing comma in array", `[1,]`, 3, 1, 4, "looking for beginning of value"},
	{"bad literal on line 2", "{\n  \"a\": tru\n}", 9, 2, 8, "expected true"},
	{"control char after accent", "\"é\x01\"", 3, 1, 3, "control character"},
	{"tab in string", "\"a\tb\"", 2, 1, 3, "control character"},
	{"truncated array", `[1,2`, 4, 1, 5, "unexpected end"},
	{"missing comma", `[1 2]`, 3, 1, 4, "after array element"},
	{"bad escape", `"\x"`, 1, 1, 2, `invalid escape \x`},
	{"short unicode escape", `"\u12"`, 1, 1, 2, `\u escape`},
	{"leading zero", `01`, 1, 1, 2, "after top-level value"},
	{"dot without digits", `1.`, 2, 1, 3, "after decimal point"},
	{"lone minus", `-`, 1, 1, 2, "expected digit"},
	{"exponent without digits", `1e+`, 3, 1, 4, "in exponent"},
	{"leading plus", `+1`, 0, 1, 1, "looking for beginning of value"},
	{"leading dot", `.5`, 0, 1, 1, "looking for beginning of value"},
	{"invalid UTF-8 in string", "\"ab\xff\"", 3, 1, 4, "UTF-8"},
	{"surrogate encoded in UTF-8", "\"\xed\xa0\x80\"", 1, 1, 2, "UTF-8"},
	{"missing colon", `{"a" 1}`, 5, 1, 6, "after object key"},
	{"missing comma in object", `{"a":1 "b":2}`, 7, 1, 8, "after object member"},
	{"unquoted key", `{a:1}`, 1, 1, 2, "object key"},
	{"single quotes", `'a'`, 0, 1, 1, "looking for beginning of value"},
	{"NaN", `NaN`, 0, 1, 1, "looking for beginning of value"},
	{"Infinity", `[Infinity]`, 1, 1, 2, "looking for beginning of value"},
	{"comment", "[1] // c", 4, 1, 5, "after top-level value"},
	{"byte order mark", "\uFEFF{}", 0, 1, 1, "0xef"},
	{"two values", `{} {}`, 3, 1, 4, "after top-level value"},
	{"unterminated string", `"abc`, 4, 1, 5, "unexpected end"},
	{"column counts characters", "[\"日本\", x]", 11, 1, 8, "looking for beginning of value"},
	{"CRLF lines", "[\r\n1,\r\n?]", 7, 3, 1, "looking for beginning of value"},
	{"vertical tab is not space", "\v1", 0, 1, 1, "looking for beginning of value"},
	{"nul", "nul", 0, 1, 1, "expected null"},
}

func TestCompactSyntaxErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range syntaxCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := canon.Compact(nil, []byte(tc.in))
			var se *canon.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Compact(%q) error = %v, want *SyntaxError", tc.in, err)
			}
			if se.Offset != tc.offset || se.Line != tc.line || se.Column != tc.col {
				t.Errorf("Compact(%q): offset %d line %d column %d, want offset %d line %d column %d (%v)",
					tc.in, se.Offset, se.Line, se.Column, tc.offset, tc.line, tc.col, se)
			}
			if !strings.Contains(se.Msg, tc.msgContain) {
				t.Errorf("Compact(%q): message %q does not contain %q", tc.in, se.Msg, tc.msgContain)
			}
			prefix := "line " + itoa(tc.line) + ", column " + itoa(tc.col) + ": "
			if !strings.HasPrefix(err.Error(), prefix) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), prefix)
			}
		})
	}
}

func TestCompactNestingLimit(t *testing.T) {
	t.Parallel()
	ok := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	if _, err := canon.Compact(nil, []byte(ok)); err != nil {
		t.Fatalf("5000 levels: %v", err)
	}
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	_, err := canon.Compact(nil, []byte(deep))
	var se *canon.SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "nesting") {
		t.Fatalf("20000 levels: error %v, want a nesting *SyntaxError", err)
	}
}

func TestPosition(t *testing.T) {
	t.Parallel()
	src := []byte("ab\nçd\n\nx")
	for _, tc := range []struct{ off, line, col int }{
		{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 2}, {6, 2, 3}, {7, 3, 1}, {8, 4, 1}, {9, 4, 2}, {99, 4, 2},
	} {
		line, col := canon.Position(src, tc.off)
		if line != tc.line || col != tc.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", tc.off, line, col, tc.line, tc.col)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// wideObjects builds an object of n named members with one duplicate key at
// the end, and one of n array-index keys in descending order.
func wideObjects(n int) (named, indexed []byte) {
	var nb, ib strings.Builder
	nb.WriteByte('{')
	ib.WriteByte('{')
	for i := range n {
		if i > 0 {
			nb.WriteByte(',')
			ib.WriteByte(',')
		}
		nb.WriteString(`"k` + itoa(i) + `":1`)
		ib.WriteString(`"` + itoa(n-i) + `":1`)
	}
	nb.WriteString(`,"k7":2}`) // one duplicate at the very end
	ib.WriteByte('}')
	return []byte(nb.String()), []byte(ib.String())
}

// TestCompactWideObjects checks duplicate merging and index-key order on
// objects wide enough to take the map and sort paths.
func TestCompactWideObjects(t *testing.T) {
	t.Parallel()
	ln, li := wideObjects(16000)
	out, err := canon.Compact(nil, ln)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), `{"k0":1,"k1":1,`) || !strings.Contains(string(out), `,"k7":2,"k8":1,`) || strings.Count(string(out), `"k7"`) != 1 {
		t.Errorf("duplicate key not merged in place: %.80s…", out)
	}
	if out, err = canon.Compact(nil, li); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), `{"1":1,"2":1,"3":1,`) || !strings.HasSuffix(string(out), `,"15999":1,"16000":1}`) {
		t.Errorf("index keys not ascending: %.80s…", out)
	}
}

// BenchmarkCompactWideObjects shows Compact is linear in object width:
// compare ns/op at 2,000 and 16,000 members (8x the input should cost
// about 8x, not 64x).
func BenchmarkCompactWideObjects(b *testing.B) {
	for _, n := range []int{2000, 16000} {
		named, indexed := wideObjects(n)
		b.Run(itoa(n), func(b *testing.B) {
			b.SetBytes(int64(len(named) + len(indexed)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := canon.Compact(nil, named); err != nil {
					b.Fatal(err)
				}
				if _, err := canon.Compact(nil, indexed); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Strings long enough to take the word-at-a-time path, with something
// that needs attention at every position, and indentation of every
// length: where the word checks and the byte loop hand over.
func TestCompactWordBoundaries(t *testing.T) {
	inserts := []struct{ in, out string }{
		{`\"`, `\"`}, {`\\`, `\\`}, {`\n`, `\n`}, {`\/`, `/`}, {`\u00e9`, "é"}, {`\ud83d\ude00`, "😀"},
		{"é", "é"}, {"😀", "😀"}, {"\x7f", "\x7f"}, {"~", "~"},
		{"\x01", ""}, {"\x1f", ""}, {"\xff", ""}, {"\xc3", ""}, {`\x`, ""}, // errors
	}
	text := strings.Repeat("abcdefgh", 5)
	for n := 0; n <= len(text); n++ {
		for at := 0; at <= n; at++ {
			for _, ins := range inserts {
				for _, indent := range []int{0, 1, 7, 8, 9, 16, 17} {
					pad := strings.Repeat(" ", indent)
					in := "{\n" + pad + `"k":` + pad + `"` + text[:at] + ins.in + text[at:n] + `"` + pad + "\n}"
					got, err := canon.Compact(nil, []byte(in))
					if ins.out == "" {
						if err == nil {
							t.Fatalf("Compact(%q) = %q, want an error", in, got)
						}
						continue
					}
					want := `{"k":"` + text[:at] + ins.out + text[at:n] + `"}`
					if err != nil || string(got) != want {
						t.Fatalf("Compact(%q) = %q, %v; want %q", in, got, err, want)
					}
				}
			}
		}
	}
	// A string that ends inside a word is an error, not a read past it.
	for n := range 20 {
		if _, err := canon.Compact(nil, []byte(`"`+text[:n])); err == nil {
			t.Fatalf("Compact of an unterminated string of %d bytes succeeded", n)
		}
	}
}
