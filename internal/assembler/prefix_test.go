package assembler

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkPrefix fails when the name prefixes of a and b differ and order
// them otherwise than CompareUTF16 does.
func checkPrefix(t *testing.T, a, b string) {
	t.Helper()
	pa, pb := namePrefix(a), namePrefix(b)
	if pa != pb {
		if got, want := cmp.Compare(pa, pb), CompareUTF16(a, b); got != want {
			t.Fatalf("namePrefix orders %q (%#016x) and %q (%#016x) as %d, CompareUTF16 as %d", a, pa, b, pb, got, want)
		}
	}
	a0, a1 := namePrefixes(a)
	b0, b1 := namePrefixes(b)
	if a0 != pa || b0 != pb {
		t.Fatalf("namePrefixes gives p0 %#016x, %#016x; namePrefix %#016x, %#016x", a0, b0, pa, pb)
	}
	if a0 == b0 && a1 != b1 {
		if got, want := cmp.Compare(a1, b1), CompareUTF16(a, b); got != want {
			t.Fatalf("namePrefixes orders %q (p1 %#016x) and %q (p1 %#016x) as %d, CompareUTF16 as %d", a, a1, b, b1, got, want)
		}
	}
}

// TestNamePrefixExamples: the edges of the packing, each against
// CompareUTF16, and the pairs it must tell apart.
func TestNamePrefixExamples(t *testing.T) {
	names := []string{
		"", "a", "a\x00", "a\x00b", "ab", "abcdefgh", "abcdefghi", "abcdefg\x7f",
		"abé", "abc", "ab\x7f", "ab\xff", "ab\uFFFF", "ab\U0001F600", "é", "\x00",
		"\x7f", "\U0001F600", "\uE000", "search_release", "search_queue", "validate", "validate_x",
		"abcdefg\x00", "abcdefg\x00X", "abcdefg", "abcdefghé", "abcdefgh\U0001F600", "abcdefgh\uFF61",
		"validate_release", "validate_queue", "validate_release_notes", "abcdéfghij", "abcdéfghik",
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
		if r.IntN(2) == 0 {
			s = "abcdefg" // names that share their first bytes, to reach p1
		}
		for range r.IntN(19) {
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

// TestSortFlat: the introsort orders random keys by (rank, p0, p1) as a
// sort by those fields does, on inputs of every shape quicksort finds
// hard (sorted, reversed, all equal, few distinct values, organ pipe),
// and heapFlat alone does the same.
func TestSortFlat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	lead := func(ks []flatKey) []flatKey {
		out := slices.Clone(ks)
		for i := range out {
			out[i].i = 0
		}
		return out
	}
	byLead := func(a, b flatKey) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.p0, b.p0), cmp.Compare(a.p1, b.p1))
	}
	for _, n := range []int{0, 1, 2, 3, 12, 13, 50, 300, 5000} {
		for shape := range 6 {
			ks := make([]flatKey, n)
			for i := range ks {
				switch shape {
				case 0:
					ks[i] = flatKey{r.IntN(3), r.Uint64(), r.Uint64N(4), i}
				case 1:
					ks[i] = flatKey{0, uint64(i), 0, i}
				case 2:
					ks[i] = flatKey{0, uint64(n - i), 0, i}
				case 3:
					ks[i] = flatKey{1, 7, 7, i}
				case 4:
					ks[i] = flatKey{r.IntN(2), r.Uint64N(3), r.Uint64N(2), i}
				case 5:
					ks[i] = flatKey{0, uint64(min(i, n-i)), 0, i}
				}
			}
			want := slices.Clone(ks)
			slices.SortStableFunc(want, byLead)
			for name, sort := range map[string]func([]flatKey){"sortFlat": sortFlat, "heapFlat": heapFlat} {
				got := slices.Clone(ks)
				sort(got)
				if !slices.Equal(lead(got), lead(want)) {
					t.Fatalf("%s, n=%d shape %d: not in (rank, p0, p1) order", name, n, shape)
				}
				seen := make([]bool, n)
				for _, k := range got {
					if seen[k.i] {
						t.Fatalf("%s, n=%d shape %d: key %d twice", name, n, shape, k.i)
					}
					seen[k.i] = true
				}
			}
		}
	}
}

// TestSortedKeysAsCompareKeys: the sort of a registry's keys gives the
// order a sort by compareKeys alone gives, on random tools whose names
// share long prefixes, repeat, or hold non-ASCII characters, with and
// without ranks.
func TestSortedKeysAsCompareKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	stems := []string{"validate_", "validate_release_", "a", "abcdefg\x00", "é_", "search_r", "\U0001F600", ""}
	for round := range 200 {
		n := r.IntN(120)
		tools := make([]*canonicalTool, n)
		for i := range tools {
			name := stems[r.IntN(len(stems))] + fmt.Sprint(r.IntN(20))
			if name == "" {
				name = "x"
			}
			c, err := canonicalize(Tool{Name: name, Description: fmt.Sprint(r.IntN(3))}, "p")
			if err != nil {
				t.Fatal(err)
			}
			tools[i] = &c
		}
		ranks := round%2 == 1
		rank := func(ct *canonicalTool) (int, bool) {
			if !ranks {
				return 0, true
			}
			return len(ct.tool.Name) % 3, true
		}
		got := sortedKeys(tools, 0, rank)
		want := make([]sortKey, n)
		for i, ct := range tools {
			rk, _ := rank(ct)
			want[i] = sortKey{rank: rk, name: ct.tool.Name, t: ct}
		}
		slices.SortFunc(want, compareKeys)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d keys, want %d", round, len(got), len(want))
		}
		for i := range got {
			g, w := got[i].key(tools), want[i]
			if compareKeys(g, w) != 0 {
				t.Fatalf("round %d: key %d is %q (%s), want %q (%s)", round, i, g.name, g.t.json(), w.name, w.t.json())
			}
		}
	}
}
