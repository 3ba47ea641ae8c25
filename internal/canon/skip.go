package canon

import "bytes"

// SkipValue returns the offset just past the JSON value that starts at
// src[i] (after any whitespace), or -1 when src does not hold a complete
// value there. It checks only what it needs to find the end — brackets,
// string quotes and escapes — and jumps through strings with
// bytes.IndexByte, so it runs near memory speed on tool lists, which are
// mostly string text. Give it text already known to be valid JSON.
func SkipValue(src []byte, i int) int {
	for i < len(src) && isSpaceByte(src[i]) {
		i++
	}
	if i >= len(src) {
		return -1
	}
	switch src[i] {
	case '"':
		return skipString(src, i)
	case '{', '[':
		depth := 0
		for i < len(src) {
			switch src[i] {
			case '"':
				if i = skipString(src, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number or a literal ends at the next delimiter.
	for i < len(src) {
		switch src[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the offset just past the string starting at src[i].
func skipString(src []byte, i int) int {
	j := i + 1
	// Most strings of a tool list are short keys and words: a plain loop
	// beats the call into IndexByte for them.
	for end := min(j+16, len(src)); j < end; j++ {
		switch src[j] {
		case '"':
			return j + 1
		case '\\':
			j++
		}
	}
	if j > len(src) {
		return -1
	}
	for {
		k := bytes.IndexByte(src[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote is escaped when an odd number of backslashes
		// precede it.
		n := 0
		for b := j - 1; b > i && src[b] == '\\'; b-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// Members calls fn with the byte spans of the raw key (quotes included)
// and the value of each member of the object starting at src[i], in
// order, until fn returns false. It returns false when src holds no
// complete object there. Like [SkipValue] it expects valid JSON.
func Members(src []byte, i int, fn func(key []byte, valStart, valEnd int) bool) bool {
	for i < len(src) && isSpaceByte(src[i]) {
		i++
	}
	if i >= len(src) || src[i] != '{' {
		return false
	}
	i++
	for {
		for i < len(src) && (isSpaceByte(src[i]) || src[i] == ',') {
			i++
		}
		if i >= len(src) {
			return false
		}
		if src[i] == '}' {
			return true
		}
		kEnd := skipString(src, i)
		if src[i] != '"' || kEnd < 0 {
			return false
		}
		key := src[i:kEnd]
		i = kEnd
		for i < len(src) && (isSpaceByte(src[i]) || src[i] == ':') {
			i++
		}
		vStart := i
		vEnd := SkipValue(src, i)
		if vEnd < 0 {
			return false
		}
		if !fn(key, vStart, vEnd) {
			return true
		}
		i = vEnd
	}
}

// Walk calls fn with the raw key (quotes included) and the start of the
// value of each member of the object starting at src[i], in order; fn
// reads the value, by [SkipValue] or by walking into it, and returns
// where it ends, or -1 to stop. Walk returns the index after the object's
// closing brace, or -1 when src holds no complete object there or fn
// stopped. Unlike [Members], which skips each value before it calls fn,
// it lets a caller look inside a value in the same pass: nested objects
// are then read once, not once per level. Like SkipValue it expects valid
// JSON.
func Walk(src []byte, i int, fn func(key []byte, valStart int) int) int {
	for i < len(src) && isSpaceByte(src[i]) {
		i++
	}
	if i >= len(src) || src[i] != '{' {
		return -1
	}
	i++
	for {
		for i < len(src) && (isSpaceByte(src[i]) || src[i] == ',') {
			i++
		}
		if i >= len(src) {
			return -1
		}
		if src[i] == '}' {
			return i + 1
		}
		kEnd := skipString(src, i)
		if src[i] != '"' || kEnd < 0 {
			return -1
		}
		key := src[i:kEnd]
		i = kEnd
		for i < len(src) && (isSpaceByte(src[i]) || src[i] == ':') {
			i++
		}
		if i >= len(src) {
			return -1
		}
		if i = fn(key, i); i < 0 {
			return -1
		}
	}
}
