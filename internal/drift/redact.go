package drift

import (
	"fmt"
	"regexp"
	"strings"

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
	text, starts := canon.DecodeString(raw)
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
