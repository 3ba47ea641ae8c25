package drift

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
)

// Redaction replaces volatile text (a working directory, a date) with a
// fixed token before headers are compared, on both sides.
//
// Pattern is matched against the decoded text of every JSON string value
// of a record (object keys are left alone); each match is replaced by
// Token, written with JSON escapes where needed. Text outside the matches
// keeps its exact bytes, so encoding differences there are still found.
type Redaction struct {
	Pattern *regexp.Regexp
	Token   string
}

// ParseRedaction reads a -redact argument REGEX=TOKEN, split at the last
// "=" (so the regular expression may contain "="; the token may be empty).
func ParseRedaction(s string) (Redaction, error) {
	i := strings.LastIndexByte(s, '=')
	if i < 0 {
		return Redaction{}, fmt.Errorf("redaction %q: want REGEX=TOKEN", s)
	}
	if i == 0 {
		return Redaction{}, fmt.Errorf("redaction %q: empty regular expression", s)
	}
	re, err := regexp.Compile(s[:i])
	if err != nil {
		return Redaction{}, fmt.Errorf("redaction %q: %w", s, err)
	}
	return Redaction{Pattern: re, Token: s[i+1:]}, nil
}

// redactJSON returns a copy of the valid JSON text src with every
// redaction applied to every string value.
func redactJSON(src []byte, rs []Redaction) []byte {
	out := make([]byte, 0, len(src))
	i := 0
	for i < len(src) {
		c := src[i]
		if c != '"' {
			out = append(out, c)
			i++
			continue
		}
		end := stringEnd(src, i)
		j := end
		for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
			j++
		}
		if j < len(src) && src[j] == ':' { // a key
			out = append(out, src[i:end]...)
		} else {
			body := src[i+1 : end-1]
			for _, r := range rs {
				body = redactString(body, r)
			}
			out = append(out, '"')
			out = append(out, body...)
			out = append(out, '"')
		}
		i = end
	}
	return out
}

// stringEnd returns the offset just past the JSON string starting at i.
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(src)
}

// redactString applies r to the decoded text of the JSON string body raw
// and splices the replacements into raw.
func redactString(raw []byte, r Redaction) []byte {
	text, starts := decodeString(raw)
	matches := r.Pattern.FindAllStringIndex(text, -1)
	if matches == nil {
		return raw
	}
	token := canon.AppendString(nil, r.Token)
	token = token[1 : len(token)-1]
	out := make([]byte, 0, len(raw)+len(matches)*len(token))
	prev := 0
	for _, m := range matches {
		out = append(out, raw[prev:starts[m[0]]]...)
		out = append(out, token...)
		prev = starts[m[1]]
	}
	return append(out, raw[prev:]...)
}

// decodeString decodes the body of a JSON string. starts[k] is the offset
// in raw of the source of text[k] (len(raw) for k == len(text)); bytes of
// one decoded character share the offset of its escape or encoding.
func decodeString(raw []byte) (text string, starts []int) {
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
			put(rune(unescapeByte(e)), i)
			i += 2
		}
	}
	starts = append(starts, len(raw))
	return b.String(), starts
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func unescapeByte(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c
}
