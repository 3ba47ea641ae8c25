package canon_test

import (
	"math"
	"testing"

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
