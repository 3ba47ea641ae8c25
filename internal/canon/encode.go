package canon

import (
	"math"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string the way JSON.stringify writes it.
// s is expected to be valid UTF-8; each invalid byte stands for U+FFFD (what
// JavaScript holds after decoding such bytes, and what []rune(s) gives) and
// is written as that character, literally, as JSON.stringify writes it.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		run := plainRun(s, i)
		dst = append(dst, s[i:run]...)
		i = run
		if i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			dst = appendRune(dst, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// StringBody returns what AppendString writes between the quotes for s.
// That is s itself, with no allocation, unless s holds a byte that needs
// escaping or is not valid UTF-8: a tool's name and description are
// almost always such strings, and a header written from them then copies
// them as they are.
func StringBody(s string) string {
	if plainRun(s, 0) == len(s) {
		return s // ASCII that needs no escape
	}
	b := AppendString(nil, s)
	if body := b[1 : len(b)-1]; string(body) != s {
		return string(body)
	}
	return s
}

// plainRun returns the end of the run of bytes from i that a JSON string
// holds as they are, in the text a parse reads and in the text
// AppendString writes: no quote, backslash, control or non-ASCII byte.
// It reads eight bytes at a time (the lowest flagged byte of a word is
// exact), then one at a time.
func plainRun[T ~string | ~[]byte](s T, i int) int {
	for i+8 <= len(s) {
		w := s[i : i+8]
		x := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
			uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		if m := specialBits(x) | x&0x8080808080808080; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
	for i < len(s) {
		if c := s[i]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	return i
}

// appendRune writes one character (or lone surrogate code unit) of a string
// body in JSON.stringify's spelling.
func appendRune(dst []byte, r rune) []byte {
	switch r {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if r < 0x20 || (r >= 0xD800 && r < 0xE000) {
		return append(dst, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
	}
	return utf8.AppendRune(dst, r)
}

// AppendFloat appends f as JavaScript's Number.prototype.toString writes it
// inside JSON: shortest round-trip digits, exponent form below 1e-6 and from
// 1e21, -0 as 0, and NaN or an infinity as null.
func AppendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		return append(dst, '0')
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Go writes e-07 where JavaScript writes e-7.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// AppendInt appends n in decimal, as JSON.stringify writes a safe integer.
func AppendInt(dst []byte, n int64) []byte {
	return strconv.AppendInt(dst, n, 10)
}

// InvalidUTF8 returns the offset of the first byte of b that does not
// start a valid UTF-8 encoding, or -1 when b is valid UTF-8, as JSON
// text must be.
func InvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}
