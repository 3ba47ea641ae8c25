package drift

import (
	"fmt"
	"strings"
)

// cause names the likely cause of the first difference, or "".
func (w *walker) cause() string {
	if fa, fb := w.a.sentAs(), w.b.sentAs(); fa != fb {
		return fmt.Sprintf("the records are in different formats (%s against %s)", fa, fb)
	}
	d := w.first
	if d == nil {
		return "whitespace differs between the header's members"
	}

	switch d.Kind {
	case Reorder:
		return "tool registration order: the same tools in another order (concurrent or map-ordered registration)"
	case Added, Removed:
		return "the tool sets differ: a tool is registered on one host only (plugin, MCP server or feature flag)"
	case Encoding:
		switch d.Note {
		case "key order":
			return "object key order: one serializer sorts keys or rebuilds objects through a map"
		case "whitespace":
			return "whitespace: one serializer indents or spaces its output"
		case "number spelling":
			return "number spelling: one serializer writes numbers another way (1.0 against 1, 1e3 against 1000)"
		case "duplicate key":
			return "a key written more than once: JSON.parse keeps its last value, and one side repeats the member (objects merged by appending their members?)"
		case "escaping":
			return escapingCause(w.encToks[0], w.encToks[1])
		case "key spelling":
			return "a Gemini field spelled in camelCase on one side and snake_case on the other (functionDeclarations against function_declarations): two clients or SDK versions writing the same request"
		}
	case Content:
		switch {
		case d.Note == "grouping":
			return "the same Gemini tools grouped into tools entries another way (one entry for all functions against one per function)"
		case strings.HasPrefix(d.Path, "system") && (strings.Contains(d.Path, "cache_control") || strings.HasSuffix(d.Path, ".type") || strings.HasSuffix(d.Path, ".role")):
			return "the system prompt differs besides its text (its blocks, their cache_control or role)"
		case strings.HasPrefix(d.Path, "system"):
			return "the system text differs: a volatile value (working directory, date, host)? normalise it with -redact REGEX=TOKEN"
		case strings.HasPrefix(d.Path, "config"):
			return "the call config differs (model or call parameters)"
		case d.Tool != "":
			return "a tool's description or schema differs (another version of the tool on one host?)"
		}
	}
	return ""
}

// escapingCause explains two spellings of the same character.
func escapingCause(a, b string) string {
	esc, lit := a, b
	if !strings.HasPrefix(esc, `\`) {
		esc, lit = b, a
	}
	switch strings.ToLower(esc) {
	case `\u003c`, `\u003e`, `\u0026`:
		return fmt.Sprintf("HTML-escaping serializer: %s written for %s (Go encoding/json without SetEscapeHTML(false))", esc, lit)
	case `\u2028`, `\u2029`:
		return "U+2028/U+2029 escaped by one serializer (Go encoding/json always escapes them; JSON.stringify does not)"
	case `\/`:
		return `one serializer escapes "/" as "\/"`
	}
	if len(lit) > 1 && !strings.HasPrefix(lit, `\`) {
		return "non-ASCII text escaped as \\uXXXX by one serializer (ASCII-only output, e.g. Python's json.dumps default)"
	}
	return "string escaping differs between the serializers"
}
