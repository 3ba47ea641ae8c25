package assembler_test

import (
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/headergold/headergold/internal/assembler"
)

// refCompareUTF16 is the reference: convert both strings to UTF-16 the slow,
// obvious way (invalid bytes become U+FFFD, as in []rune(s)) and compare
// code units.
func refCompareUTF16(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	return slices.Compare(ua, ub)
}

// TestCompareUTF16Examples: explicit cases, several where JavaScript's order
// and Go's byte order disagree.
func TestCompareUTF16Examples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b       string
		want       int
		goDisagree bool // Go's < orders a and b the other way
	}{
		{"\uFF61", "\U0001F600", 1, true},
		{"\uE000", "\U00010000", 1, true},
		{"\uFFFF", "\U0010FFFF", 1, true},
		{"x\uFF61", "x\U0001F600", 1, true},
		{"\uFFFDa", "\U00010000", 1, true},
		{"\uD7FF", "\U00010000", -1, false}, // below the surrogates: same in both
		{"\uE000", "\uFFFF", -1, false},
		{"\U00010000", "\U0010FFFF", -1, false},
		{"\U0001F600", "\U0001F601", -1, false},
		{"\U0001F600", "\U0001F600x", -1, false},
		{"é", "z", 1, false},
		{"\uFF61a", "\uFF61b", -1, false},
		{"a", "a", 0, false},
		{"", "", 0, false},
		{"", "a", -1, false},
		{"read", "read_file", -1, false},
		{"read_file", "read", 1, false},
		{"job_kill", "job_list", -1, false},
		{"Read", "read", -1, false},
		{"read-file", "read_file", -1, false},
		{"\U0001F600", "\U0001F600", 0, false},
	} {
		got := assembler.CompareUTF16(tc.a, tc.b)
		if got != tc.want {
			t.Errorf("CompareUTF16(%+q, %+q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if back := assembler.CompareUTF16(tc.b, tc.a); back != -tc.want {
			t.Errorf("CompareUTF16(%+q, %+q) = %d, want %d", tc.b, tc.a, back, -tc.want)
		}
		if less := assembler.LessUTF16(tc.a, tc.b); less != (tc.want < 0) {
			t.Errorf("LessUTF16(%+q, %+q) = %v", tc.a, tc.b, less)
		}
		if goWant := tc.want; tc.goDisagree {
			if goLess := tc.a < tc.b; goLess != (goWant > 0) {
				t.Errorf("test case %+q vs %+q: Go's < does not disagree as claimed", tc.a, tc.b)
			}
		}
	}
}

// TestCompareUTF16Sort sorts names the way JavaScript's default sort does.
func TestCompareUTF16Sort(t *testing.T) {
	t.Parallel()
	names := []string{"\uFF61tool", "z", "\U0001F600tool", "a", "\uE000", "é", "A", "\U00010000"}
	slices.SortFunc(names, assembler.CompareUTF16)
	want := []string{"A", "a", "z", "é", "\U00010000", "\U0001F600tool", "\uE000", "\uFF61tool"}
	equalStrings(t, "sorted", names, want)

	byBytes := slices.Clone(names)
	sort.Strings(byBytes)
	if slices.Equal(byBytes, want) {
		t.Fatal("test data does not tell UTF-16 order from byte order")
	}
}

// edgeRunes are the characters around every boundary that matters for
// UTF-8 versus UTF-16 order.
var edgeRunes = []rune{
	0, 'A', 'a', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFF61, 0xFFFD, 0xFFFF,
	0x10000, 0x1F600, 0x10FFFF,
}

// edgeStrings returns every string of up to two edge runes, plus invalid
// UTF-8 pieces that JavaScript would read as U+FFFD.
func edgeStrings() []string {
	out := []string{""}
	for _, r := range edgeRunes {
		out = append(out, string(r))
		for _, r2 := range edgeRunes {
			out = append(out, string(r)+string(r2))
		}
	}
	return append(out, "\xff", "\xc3", "\xc3A", "\xc3\xa9", "\xed\xa0\x80", "\xf0\x9f\x98", "\xf0\x9f\x98\x80", "\x80\x80", "a\xffb")
}

// TestCompareUTF16AgainstReference compares every pair of edge strings.
func TestCompareUTF16AgainstReference(t *testing.T) {
	t.Parallel()
	strs := edgeStrings()
	for _, a := range strs {
		for _, b := range strs {
			if got, want := assembler.CompareUTF16(a, b), refCompareUTF16(a, b); got != want {
				t.Fatalf("CompareUTF16(%+q, %+q) = %d, reference %d", a, b, got, want)
			}
		}
	}
}

// FuzzCompareUTF16 compares CompareUTF16 with the reference on any pair
// of strings. Run with: go test -fuzz FuzzCompareUTF16 ./internal/assembler
func FuzzCompareUTF16(f *testing.F) {
	seeds := []string{
		"", "a", "read_file", "read", "\uD7FF", "\uE000", "\uFFFF", "\U00010000", "\U0010FFFF",
		"\uFF61", "\U0001F600", "job_\uFFFF", "job_\U00010000", "\xff", "\xc3", "\xc3\xa9",
	}
	for _, a := range seeds {
		for _, b := range seeds {
			f.Add(a, b)
		}
	}
	f.Add(strings.Repeat("x", 20)+"\uE000", strings.Repeat("x", 20)+"\U00010000")
	f.Fuzz(func(t *testing.T, a, b string) {
		got, want := assembler.CompareUTF16(a, b), refCompareUTF16(a, b)
		if got != want {
			t.Fatalf("CompareUTF16(%+q, %+q) = %d, reference %d", a, b, got, want)
		}
		if back := assembler.CompareUTF16(b, a); back != -got {
			t.Fatalf("not antisymmetric: CompareUTF16(%+q, %+q) = %d but reversed %d", a, b, got, back)
		}
	})
}

func TestCompareUTF16Allocates0(t *testing.T) {
	pairs := [][2]string{
		{"read_file", "read_files"}, {"job_output", "job_kill"}, {"\uFF61", "\U0001F600"},
		{"a\xffb", "a\uFFFDc"}, {strings.Repeat("tool_", 10) + "a", strings.Repeat("tool_", 10) + "b"},
	}
	sink := 0
	allocs := testing.AllocsPerRun(1000, func() {
		for _, p := range pairs {
			sink += assembler.CompareUTF16(p[0], p[1])
		}
	})
	if allocs != 0 {
		t.Errorf("CompareUTF16 allocates %v times per run, want 0", allocs)
	}
	_ = sink
}
