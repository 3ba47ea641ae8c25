package canon

import (
	"strings"
	"unicode/utf8"
)

// DecodeString decodes the body of a JSON string (the bytes between its
// quotes), leniently: an unknown escape reads as its letter, a malformed
// \u escape or a lone surrogate as U+FFFD. starts[k] is the offset in raw
// of the source of text[k] (len(raw) for k == len(text)); the bytes of one
// decoded character share the offset of its escape or encoding. It serves
// code that edits decoded text and splices the result back into raw bytes.
func DecodeString(raw []byte) (text string, starts []int) {
	var b strings.Builder
	starts = make([]int, 0, len(raw)+1)
	put := func(r rune, at int) {
		n := b.Len()
		b.WriteRune(r)
		for range b.Len() - n {
			starts = append(starts, at)
		}
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			r, size := utf8.DecodeRune(raw[i:])
			put(r, i)
			i += size
			continue
		}
		if i+1 >= len(raw) {
			put(utf8.RuneError, i)
			break
		}
		switch e := raw[i+1]; e {
		case 'u':
			u, ok := hex4(raw, i+2)
			if !ok {
				put(utf8.RuneError, i)
				i += 2
				continue
			}
			n := 6
			if u >= 0xD800 && u < 0xDC00 {
				if lo, ok := hex4(raw, i+8); ok && i+7 < len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' && lo >= 0xDC00 && lo < 0xE000 {
					u = 0x10000 + (u-0xD800)<<10 + (lo - 0xDC00)
					n = 12
				}
			}
			put(u, i) // a lone surrogate becomes U+FFFD, as WriteRune does
			i += n
		default:
			put(rune(Unescape(e)), i)
			i += 2
		}
	}
	starts = append(starts, len(raw))
	return b.String(), starts
}
