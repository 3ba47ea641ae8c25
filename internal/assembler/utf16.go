package assembler

// CompareUTF16 compares a and b as JavaScript compares strings: by UTF-16
// code units, locale-free. It returns -1, 0 or +1 and allocates nothing.
//
// Go's string order is UTF-8 byte order, which equals code point order. The
// two orders disagree only where one string has a character in
// U+E000..U+FFFF and the other a character above U+FFFF at the first
// difference: UTF-16 writes the latter as a surrogate pair (0xD800..0xDFFF),
// which sorts before 0xE000. In UTF-8 those characters start with the bytes
// 0xEE/0xEF and 0xF0..0xF4 respectively, so comparing the first differing
// byte and flipping the result in exactly that case gives code-unit order.
func CompareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		switch {
		case len(a) < len(b):
			return -1
		case len(a) > len(b):
			return 1
		}
		return 0
	}
	// 0xEE/0xEF and 0xF0.. are lead bytes, so a difference between them is a
	// difference between whole characters: BMP above U+E000 against a
	// surrogate pair.
	ca, cb := a[i], b[i]
	if ca >= 0xEE && ca <= 0xEF && cb >= 0xF0 {
		return 1
	}
	if cb >= 0xEE && cb <= 0xEF && ca >= 0xF0 {
		return -1
	}
	if ca < cb {
		return -1
	}
	return 1
}

// LessUTF16 reports whether a sorts before b in UTF-16 code-unit order.
func LessUTF16(a, b string) bool { return CompareUTF16(a, b) < 0 }
