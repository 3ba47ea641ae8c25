package drift

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/headergold/headergold/internal/redact"
)

// ParseRedaction reads a -redact argument into a rule of package redact,
// the rules a captured scenario's redact holds (SPEC §6):
//
//	path:PATH=TOKEN    the value at header path PATH (config.…, system…,
//	                   tools.N.…) becomes the string TOKEN; split at the
//	                   first "=" after PATH
//	regex:REGEX=TOKEN  every match of REGEX in the decoded text of every
//	                   string value becomes TOKEN; split at the last "="
//	REGEX=TOKEN        the same as regex:REGEX=TOKEN
//
// A regular expression that itself starts with "path:" or "regex:" is
// written with the regex: prefix. TOKEN may be empty.
func ParseRedaction(s string) (redact.Rule, error) {
	if rest, ok := strings.CutPrefix(s, "path:"); ok {
		path, token, ok := strings.Cut(rest, "=")
		if !ok {
			return redact.Rule{}, fmt.Errorf("redaction %q: want path:PATH=TOKEN", s)
		}
		r := redact.Rule{Path: path, With: token}
		if err := r.Check(); err != nil {
			return redact.Rule{}, fmt.Errorf("redaction %q: %w", s, err)
		}
		return r, nil
	}
	expr := strings.TrimPrefix(s, "regex:")
	i := strings.LastIndexByte(expr, '=')
	if i < 0 {
		return redact.Rule{}, fmt.Errorf("redaction %q: want REGEX=TOKEN or path:PATH=TOKEN", s)
	}
	if i == 0 {
		return redact.Rule{}, fmt.Errorf("redaction %q: empty regular expression", s)
	}
	re, err := regexp.Compile(expr[:i])
	if err != nil {
		return redact.Rule{}, fmt.Errorf("redaction %q: %w", s, err)
	}
	r := redact.Rule{Regex: re, With: expr[i+1:]}
	if err := r.Check(); err != nil {
		return redact.Rule{}, fmt.Errorf("redaction %q: %w", s, err)
	}
	return r, nil
}
