package canon

// Indent appends the JSON text src in the layout of
// JSON.stringify(value, null, indent): one member or element per line,
// "key": value with one space, and empty arrays and objects as [] and {}.
// As in JavaScript, only the first 10 UTF-16 code units of indent are used,
// and an empty indent gives the compact form. src is first made canonical,
// so any valid JSON text is accepted.
func Indent(dst, src []byte, indent string) ([]byte, error) {
	compact, err := Compact(nil, src)
	if err != nil {
		return dst, err
	}
	indent = cutIndent(indent)
	if indent == "" {
		return append(dst, compact...), nil
	}
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch c {
		case '"':
			j := i + 1
			for compact[j] != '"' {
				if compact[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, compact[i:j+1]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if close := compact[i+1]; close == '}' || close == ']' {
				dst = append(dst, close)
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, ',')
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst, nil
}

// maxIndent is JSON.stringify's limit on the gap string, in code units.
const maxIndent = 10

// cutIndent keeps the characters of indent that fit in maxIndent UTF-16
// code units. (JavaScript would keep half of a surrogate pair straddling
// the limit; such a gap cannot be written as valid UTF-8.)
func cutIndent(indent string) string {
	units := 0
	for i, r := range indent {
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > maxIndent {
			return indent[:i]
		}
		units += n
	}
	return indent
}
