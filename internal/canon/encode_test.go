package canon_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/headergold/headergold/internal/canon"
)

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{"<a>&b", `"<a>&b"`},
		{"q\"b\\s/", `"q\"b\\s/"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x1f\x7f", "\"\\u0000\\u001f\x7f\""},
		{"\u2028\u2029", "\"\u2028\u2029\""},
		{"é\U0001F600\uFFFF", "\"é\U0001F600\uFFFF\""},
		// An invalid byte is U+FFFD in JavaScript, which JSON.stringify
		// writes literally, exactly like a real U+FFFD.
		{"a\xffb", "\"a\uFFFDb\""},
		{"\xed\xa0\x80", "\"\uFFFD\uFFFD\uFFFD\""},
		{"\uFFFD", "\"\uFFFD\""},
	} {
		if got := canon.AppendString(nil, tc.in); string(got) != tc.want {
			t.Errorf("AppendString(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAppendStringMatchesCompact: a Go string and the JSON text that
// JavaScript reads as the same string canonicalise to the same bytes.
func TestAppendStringMatchesCompact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ goString, jsonText string }{
		{"\xff", `"\ufffd"`},
		{"a\u2028\x01", `"a\u2028\u0001"`},
		{"\U0001F600", `"\ud83d\ude00"`},
	} {
		fromGo := canon.AppendString(nil, tc.goString)
		fromJSON, err := canon.Compact(nil, []byte(tc.jsonText))
		if err != nil {
			t.Fatal(err)
		}
		if string(fromGo) != string(fromJSON) {
			t.Errorf("AppendString(%q) = %q but Compact(%s) = %q", tc.goString, fromGo, tc.jsonText, fromJSON)
		}
	}
}

func TestAppendFloat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1, "1"},
		{-1.5, "-1.5"},
		{1e21, "1e+21"},
		{1e20, "100000000000000000000"},
		{1e-6, "0.000001"},
		{1e-7, "1e-7"},
		{-2.5e-9, "-2.5e-9"},
		{1.5e-10, "1.5e-10"},
		{1e100, "1e+100"},
		{5e-324, "5e-324"},
		{0.30000000000000004, "0.30000000000000004"},
		{1.0 / 3, "0.3333333333333333"},
		{math.NaN(), "null"},
		{math.Inf(1), "null"},
		{math.Inf(-1), "null"},
	} {
		if got := canon.AppendFloat(nil, tc.in); string(got) != tc.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAppendInt(t *testing.T) {
	t.Parallel()
	if got := canon.AppendInt([]byte("n="), -42); string(got) != "n=-42" {
		t.Errorf("AppendInt = %q", got)
	}
}

// appendStringRef is AppendString by way of encoding/json: its string, made
// canonical by Compact, is the string JSON.stringify writes.
func appendStringRef(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	out, err := canon.Compact(nil, bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestAppendStringLong: strings long enough to be scanned eight bytes at a
// time, with a byte that needs care at every position of the word, the
// tail, or both.
func TestAppendStringLong(t *testing.T) {
	t.Parallel()
	for _, special := range []string{`"`, `\`, "\n", "\x00", "\x1f", "\x7f", "é", "\U0001F600", "\xff", "\u2028"} {
		for n := 0; n < 26; n++ {
			for at := 0; at <= n; at++ {
				s := strings.Repeat("a", at) + special + strings.Repeat("b", n-at)
				if got, want := string(canon.AppendString(nil, s)), appendStringRef(t, s); got != want {
					t.Fatalf("AppendString(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}

// TestStringBody holds StringBody to AppendString, and to returning its
// argument itself exactly when AppendString writes it unchanged: with a
// byte that needs care at every position of the word and the tail.
func TestStringBody(t *testing.T) {
	t.Parallel()
	for _, special := range []string{"", `"`, `\`, "\n", "\x00", "\x1f", "\x7f", "é", "\U0001F600", "\xff", "\xed\xa0\x80", "\u2028"} {
		for n := 0; n < 26; n++ {
			for at := 0; at <= n; at++ {
				checkStringBody(t, strings.Repeat("a", at)+special+strings.Repeat("b", n-at))
			}
		}
	}
}

// checkStringBody checks StringBody(s) against AppendString(s).
func checkStringBody(t *testing.T, s string) {
	t.Helper()
	quoted := string(canon.AppendString(nil, s))
	want := quoted[1 : len(quoted)-1]
	got := canon.StringBody(s)
	if got != want {
		t.Fatalf("StringBody(%q) = %q, want %q", s, got, want)
	}
	if same := len(s) > 0 && unsafe.StringData(got) == unsafe.StringData(s); same != (want == s && len(s) > 0) {
		t.Fatalf("StringBody(%q) returned its argument: %v, want %v", s, same, want == s)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("plain ascii text that runs past a word")
	f.Add("a\"b\\c\nd\x00e\x7ff\xffgé\U0001F600 and more text")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(canon.AppendString([]byte("x"), s)), "x"+appendStringRef(t, s); got != want {
			t.Fatalf("AppendString(%q) = %q, want %q", s, got, want)
		}
		checkStringBody(t, s)
	})
}

func TestInvalidUTF8(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", -1},
		{"plain ascii", -1},
		{"é and 😀", -1},
		{"ab\xffcd", 2},
		{"é\xc3", 2},         // cut at the end
		{"\xed\xa0\x80", 0},  // a surrogate's encoding is not UTF-8
		{"ok \xe2\x82", 3},   // cut inside a three-byte encoding
		{"\xef\xbf\xbd", -1}, // U+FFFD itself is valid
	} {
		if got := canon.InvalidUTF8([]byte(c.in)); got != c.want {
			t.Errorf("canon.InvalidUTF8(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
