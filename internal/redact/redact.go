// Package redact normalises volatile values in provider request bodies
// (a user id, a temporary directory, a date) before they are logged or
// compared, so that two runs or two hosts that differ only there agree.
//
// A [Rule] either replaces the value at a header path (config.…,
// system…, tools.N.…, as the header of package wire names them) with a
// fixed string, or replaces every match of a regular expression inside
// every string value of the body (object keys are left alone). Text
// outside the matches keeps its exact bytes, so an escaping difference
// next to a redacted value is still seen.
package redact

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// Rule is one redaction: Path or Regex (exactly one), and the string With
// that replaces what they match.
type Rule struct {
	Path  string
	Regex *regexp.Regexp
	With  string
}

// String names the rule as a user wrote it, for messages.
func (r Rule) String() string {
	if r.Regex != nil {
		return fmt.Sprintf("regex %q", r.Regex.String())
	}
	return fmt.Sprintf("path %q", r.Path)
}

// ErrEmptyMatch is wrapped by the error [Rule.Check] returns for a regex
// that can match the empty string.
var ErrEmptyMatch = errors.New("it can match the empty string")

// Check reports a rule that is not exactly one of Path and Regex, whose
// path does not start with config, system or tools, or whose regex can
// match the empty string.
func (r Rule) Check() error {
	switch {
	case r.Regex != nil && r.Path != "":
		return fmt.Errorf("%s: give path or regex, not both", r)
	case r.Regex == nil && r.Path == "":
		return fmt.Errorf("a redaction needs a path or a regex")
	case r.Regex != nil:
		if emptyMatch(r.Regex) {
			return fmt.Errorf("%s: %w, which would put the replacement between every two characters of every string value: make it match at least one character", r, ErrEmptyMatch)
		}
		return nil
	}
	if slices.Contains(strings.Split(r.Path, "."), "") {
		return fmt.Errorf("%s: a path has no empty component (two dots, or a dot at an end)", r)
	}
	head, rest, _ := strings.Cut(r.Path, ".")
	switch head {
	case "config", "system", "tools":
		if head == "config" && rest == "" {
			return fmt.Errorf("%s: name a member of config, as in config.metadata.user_id", r)
		}
		if head == "config" {
			return checkConfigKey(r, firstKey(rest))
		}
		return nil
	}
	return fmt.Errorf("%s: a header path starts with config, system or tools", r)
}

// emptyMatch reports whether re can match the empty string anywhere in
// some text: the zero-width assertions (^, $, \b, \B) are taken as able
// to hold, since "\b" matches nothing in "" and the empty string at both
// ends of every word.
func emptyMatch(re *regexp.Regexp) bool {
	// The regexp compiled, so its syntax parses.
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	return err == nil && nullable(tree.Simplify())
}

// nullable reports whether r can match without consuming a character.
func nullable(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(r.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(r.Sub[0])
	case syntax.OpRepeat:
		return r.Min == 0 || nullable(r.Sub[0])
	case syntax.OpConcat:
		for _, s := range r.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range r.Sub {
			if nullable(s) {
				return true
			}
		}
		return false
	}
	return false // a character class, any character, no match
}

// checkConfigKey refuses a config path whose member is, in a wire format,
// not part of the config: a path there would reach the conversation or
// another part of the header.
func checkConfigKey(r Rule, key string) error {
	var in []string
	for _, f := range wire.Formats {
		if !wire.InConfig(f, key) {
			in = append(in, string(f))
		}
	}
	if in == nil {
		return nil
	}
	return fmt.Errorf("%s: %q is not a member of the header's config (in %s bodies it is the conversation, the system part, the tools or a stream flag); "+
		"a header path starts with config, system or tools, and a regex rule reaches the conversation", r, key, strings.Join(in, ", "))
}

// firstKey returns the first key of a gjson path, its escapes removed.
func firstKey(path string) string {
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path):
			i++
			b.WriteByte(path[i])
		case c == '.':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Reaches explains why r's path can reach no value of a body of format f,
// or returns nil: for a rule that matched nothing, it says what to write
// instead.
func (r Rule) Reaches(f wire.Format) error {
	if r.Regex == nil && r.Path == "system" && f == wire.OpenAIChat {
		return fmt.Errorf("the system part of an %s body is its leading system and developer messages, not one value: name one, as in system.0.content", f)
	}
	return nil
}

// Apply applies every rule to a request body of format f and adds to
// hits[i] how many places rule i changed (hits has one counter per rule).
// The body must be valid JSON.
func Apply(body []byte, f wire.Format, rules []Rule, hits []int) []byte {
	for i, r := range rules {
		var n int
		if r.Regex != nil {
			body, n = regexJSON(body, r)
		} else {
			body, n = atPath(body, f, r)
		}
		hits[i] += n
	}
	return body
}

// wirePath maps a header path to its path in a body of format f.
func wirePath(body []byte, f wire.Format, path string) string {
	head, rest, _ := strings.Cut(path, ".")
	join := func(base string) string {
		if rest == "" {
			return base
		}
		return base + "." + rest
	}
	switch head {
	case "config":
		return rest
	case "tools":
		return join("tools")
	}
	switch f {
	case wire.OpenAIChat:
		if rest == "" {
			return "" // the system part is several messages: name one
		}
		return join("messages")
	case wire.OpenAIResponses:
		return join("instructions")
	case wire.Gemini:
		if gjson.GetBytes(body, "system_instruction").Exists() {
			return join("system_instruction")
		}
		return join("systemInstruction")
	}
	return join("system")
}

// atPath replaces the value at r.Path with the JSON string r.With.
func atPath(body []byte, f wire.Format, r Rule) ([]byte, int) {
	p := wirePath(body, f, r.Path)
	if p == "" {
		return body, 0
	}
	v := gjson.GetBytes(body, p)
	if !v.Exists() || v.Index <= 0 || v.Index+len(v.Raw) > len(body) {
		return body, 0
	}
	if strings.HasPrefix(r.Path, "config.") && !wire.InConfig(f, memberAt(body, v.Index)) {
		// A wildcard can reach past the config's members.
		return body, 0
	}
	if f == wire.OpenAIChat && strings.HasPrefix(r.Path, "system.") && !isLeadingSystem(body, r.Path) {
		return body, 0
	}
	with := canon.AppendString(nil, r.With)
	out := make([]byte, 0, len(body)-len(v.Raw)+len(with))
	out = append(out, body[:v.Index]...)
	out = append(out, with...)
	return append(out, body[v.Index+len(v.Raw):]...), 1
}

// memberAt returns the key of the top-level member of body whose value
// holds offset i.
func memberAt(body []byte, i int) string {
	key := ""
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		if v.Index <= i && i < v.Index+len(v.Raw) {
			key = k.String()
			return false
		}
		return true
	})
	return key
}

// isLeadingSystem reports whether system.N of an OpenAI Chat body names
// one of the leading system messages, which alone make the system part.
func isLeadingSystem(body []byte, path string) bool {
	idx, _, _ := strings.Cut(strings.TrimPrefix(path, "system."), ".")
	lead := 0
	gjson.GetBytes(body, "messages").ForEach(func(_, m gjson.Result) bool {
		if !wire.SystemMessage(m) {
			return false
		}
		lead++
		return true
	})
	n := 0
	if _, err := fmt.Sscanf(idx, "%d", &n); err != nil {
		return false
	}
	return n < lead
}

// regexJSON applies r to the decoded text of every string value of src.
func regexJSON(src []byte, r Rule) ([]byte, int) {
	out := make([]byte, 0, len(src))
	hits := 0
	for i := 0; i < len(src); {
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
			body, n := String(src[i+1:end-1], r.Regex, r.With)
			hits += n
			out = append(out, '"')
			out = append(out, body...)
			out = append(out, '"')
		}
		i = end
	}
	return out, hits
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

// String applies re to the decoded text of the JSON string body raw
// (without its quotes), splices the replacement with into raw and
// returns it with the number of matches.
func String(raw []byte, re *regexp.Regexp, with string) ([]byte, int) {
	text, starts := canon.DecodeString(raw)
	matches := re.FindAllStringIndex(text, -1)
	if matches == nil {
		return raw, 0
	}
	token := canon.AppendString(nil, with)
	token = token[1 : len(token)-1]
	out := make([]byte, 0, len(raw)+len(matches)*len(token))
	prev := 0
	for _, m := range matches {
		out = append(out, raw[prev:starts[m[0]]]...)
		out = append(out, token...)
		prev = starts[m[1]]
	}
	return append(out, raw[prev:]...), len(matches)
}
