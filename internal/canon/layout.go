package canon

// IndentTokens appends valid JSON text src in the layout of
// JSON.stringify(value, null, indent), like [Indent], but keeps every
// string and number token as written in src: only the whitespace between
// tokens changes. A sidecar of a captured header uses it, so an
// escaping-only difference between two agents still shows there. src is
// not validated; give it valid JSON.
func IndentTokens(dst, src []byte, indent string) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, indent...)
		}
	}
	// next returns the first byte after i that is not whitespace.
	next := func(i int) int {
		for i < len(src) && isSpaceByte(src[i]) {
			i++
		}
		return i
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case isSpaceByte(c):
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, len(src)-1)
			dst = append(dst, src[i:j+1]...)
			i = j
		case c == '{' || c == '[':
			dst = append(dst, c)
			if k := next(i + 1); k < len(src) && (src[k] == '}' || src[k] == ']') {
				dst = append(dst, src[k])
				i = k
				continue
			}
			depth++
			newline()
		case c == '}' || c == ']':
			depth--
			newline()
			dst = append(dst, c)
		case c == ',':
			dst = append(dst, ',')
			newline()
		case c == ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
