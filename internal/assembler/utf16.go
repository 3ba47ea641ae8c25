package assembler

import (
	"math/bits"
	"unicode/utf8"
)

// CompareUTF16 compares a and b as JavaScript compares strings: by UTF-16
// code units, locale-free. It returns -1, 0 or +1 and allocates nothing.
// Invalid UTF-8 bytes count as U+FFFD each, as in []rune(s) and as
// [canon.AppendString] writes them, so the order agrees with the bytes a
// header carries.
//
// Go's string order is UTF-8 byte order, which equals code point order. The
// two orders disagree only where one string has a character in
// U+E000..U+FFFF and the other a character above U+FFFF at the first
// difference: UTF-16 writes the latter as a surrogate pair (0xD800..0xDFFF),
// which sorts before 0xE000. The common prefix is skipped eight bytes at a
// time; when the first differing bytes are both ASCII (or one string ends
// before an ASCII byte of the other) byte order is the answer, and otherwise the
// characters from the last character boundary on are decoded and compared
// as code units.
func CompareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := load64(a, i) ^ load64(b, i); x != 0 {
			i += bits.TrailingZeros64(x) >> 3
			goto differ
		}
	}
	for ; i < n; i++ {
		if a[i] != b[i] {
			goto differ
		}
	}
	// One string is a prefix of the other.
	switch {
	case len(a) == len(b):
		return 0
	case len(a) < len(b) && b[n] < utf8.RuneSelf:
		return -1
	case len(a) > len(b) && a[n] < utf8.RuneSelf:
		return 1
	}
	return compareFrom(a, b, n)

differ:
	// An ASCII byte is a character boundary in both strings, and the equal
	// bytes before it decode to the same code units.
	if ca, cb := a[i], b[i]; ca|cb < utf8.RuneSelf {
		if ca < cb {
			return -1
		}
		return 1
	}
	return compareFrom(a, b, i)
}

// load64 reads s[i:i+8] as a little-endian word (one load after the
// compiler combines the bytes).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// compareFrom compares a and b, which agree on their first i bytes, by
// decoding both from the character boundary at or before i.
func compareFrom(a, b string, i int) int {
	p := boundary(a, i)
	return compareRunes(a[p:], b[p:])
}

// boundary returns a position p <= i where decoding of s starts a character,
// with s[p:i] inside the prefix both strings share. A byte that is not a
// continuation byte always starts a character (a valid sequence holds only
// continuation bytes after its lead); if the three bytes before i are all
// continuation bytes, no sequence can span them and i itself, so i starts
// one.
func boundary(s string, i int) int {
	for p := i - 1; p >= 0 && p >= i-3; p-- {
		if !utf8.RuneStart(s[p]) {
			continue
		}
		return p
	}
	if i < 3 {
		return 0
	}
	return i
}

// compareRunes decodes a and b from a common character boundary and
// compares their UTF-16 code units.
func compareRunes(a, b string) int {
	for len(a) > 0 && len(b) > 0 {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua == ub { // two surrogate pairs with the same high half
				ua, ub = ra, rb
			}
			if ua < ub {
				return -1
			}
			return 1
		}
		a, b = a[na:], b[nb:]
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

// firstUnit returns the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}

// LessUTF16 reports whether a sorts before b in UTF-16 code-unit order.
func LessUTF16(a, b string) bool { return CompareUTF16(a, b) < 0 }
