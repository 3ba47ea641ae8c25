package assembler

import (
	"cmp"
	"math/rand/v2"
	"testing"
)

// checkPrefix fails when the name prefixes of a and b differ and order
// them otherwise than CompareUTF16 does.
func checkPrefix(t *testing.T, a, b string) {
	t.Helper()
	pa, pb := namePrefix(a), namePrefix(b)
	if pa == pb {
		return
	}
	if got, want := cmp.Compare(pa, pb), CompareUTF16(a, b); got != want {
		t.Fatalf("namePrefix orders %q (%#016x) and %q (%#016x) as %d, CompareUTF16 as %d", a, pa, b, pb, got, want)
	}
}

// TestNamePrefixExamples: the edges of the packing, each against
// CompareUTF16, and the pairs it must tell apart.
func TestNamePrefixExamples(t *testing.T) {
	names := []string{
		"", "a", "a\x00", "a\x00b", "ab", "abcdefgh", "abcdefghi", "abcdefg\x7f",
		"abé", "abc", "ab\x7f", "ab\xff", "ab\uFFFF", "ab\U0001F600", "é", "\x00",
		"\x7f", "\U0001F600", "\uE000", "search_release", "search_queue", "validate", "validate_x",
	}
	for _, a := range names {
		for _, b := range names {
			checkPrefix(t, a, b)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"ab", "abc"}, {"abc", "abé"}, {"ab\x7f", "abé"}, {"", "a"}, {"a", "é"}, {"search_q", "search_r"},
	} {
		if namePrefix(tc.a) >= namePrefix(tc.b) {
			t.Errorf("namePrefix(%q) = %#016x, want below namePrefix(%q) = %#016x", tc.a, namePrefix(tc.a), tc.b, namePrefix(tc.b))
		}
	}
	// Names that agree on their first eight bytes, or on their ASCII
	// bytes before a non-ASCII character, are left to CompareUTF16.
	for _, tc := range []struct{ a, b string }{{"abcdefgh1", "abcdefgh2"}, {"abé", "ab\U0001F600"}, {"a", "a\x00"}} {
		if namePrefix(tc.a) != namePrefix(tc.b) {
			t.Errorf("namePrefix(%q) = %#016x, namePrefix(%q) = %#016x, want equal", tc.a, namePrefix(tc.a), tc.b, namePrefix(tc.b))
		}
	}
}

// TestNamePrefixRandom: random short names over an alphabet of the bytes
// and characters where the packing changes its rule.
func TestNamePrefixRandom(t *testing.T) {
	alphabet := []string{"\x00", "\x01", "a", "b", "\x7f", "é", "\uE000", "\uFFFF", "\U00010000", "\U0001F600", "\xff", "\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	name := func() string {
		s := ""
		for range r.IntN(11) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for range 200000 {
		checkPrefix(t, name(), name())
	}
}

func FuzzNamePrefix(f *testing.F) {
	f.Add("ab", "abé")
	f.Add("abcdefgh", "abcdefgh\x00")
	f.Add("\U0001F600", "\uFF61")
	f.Fuzz(func(t *testing.T, a, b string) { checkPrefix(t, a, b) })
}
