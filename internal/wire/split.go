package wire

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// The placeholders a [Parts.Rest] holds where the header parts were.
const (
	ConfigPlaceholder = `"` + logformat.ConfigPlaceholder + `"`
	SystemPlaceholder = `"` + logformat.SystemPlaceholder + `"`
	ToolsPlaceholder  = `"` + logformat.ToolsPlaceholder + `"`
)

// Parts is a request body split into its header and the rest.
type Parts struct {
	Format Format
	// Config is {"member":value,…}: every config member as written in
	// the body (key, colon and value bytes), in body order; "{}" when the
	// body has none.
	Config []byte
	// System is the system part (see the package doc), nil when absent.
	System []byte
	// Tools is the tools member, nil when absent.
	Tools []byte
	// Rest is the body with each header value replaced by its
	// placeholder; for OpenAI Chat the leading system messages are one
	// "<<system>>" element of messages.
	Rest []byte
	// Frame is the whitespace the other parts are without.
	Frame
	// Stream is set when the body asks for a streamed response
	// ("stream": true).
	Stream bool
	// Usage is set when an OpenAI Chat body asks its stream for usage
	// (stream_options.include_usage).
	Usage bool
	// check is the body rule applied to the members the split read
	// (see [Parts.Refused]).
	check bodyCheck
}

// Frame is the whitespace of a body that its rest and header parts are
// without.
type Frame struct {
	// Prefix and Suffix are the whitespace around the body's object.
	Prefix, Suffix string
	// Spaces and HeaderSpaces are the whitespace removed from between
	// the tokens of a pretty-printed body: Spaces at offsets of the rest,
	// HeaderSpaces (what was inside a header value) at offsets of the
	// header document ([Parts.Header]). Each thus moves only with what it
	// is in: the whitespace of the conversation does not move with the
	// length of a tool description.
	Spaces, HeaderSpaces []Space
}

// Space is whitespace that was before byte At of a text without it.
type Space struct {
	At   int
	Text string
}

// Header returns the header document {"config":…,"system":…,"tools":…},
// leaving out the parts the body does not have.
func (p *Parts) Header() []byte {
	return p.AppendHeader(make([]byte, 0, p.HeaderLen()))
}

// HeaderLen is the length of the header document.
func (p *Parts) HeaderLen() int {
	n := len(configKey) + len(p.Config) + 1
	if p.System != nil {
		n += len(systemKey) + len(p.System)
	}
	if p.Tools != nil {
		n += len(toolsKey) + len(p.Tools)
	}
	return n
}

// AppendHeader appends the header document to dst.
func (p *Parts) AppendHeader(dst []byte) []byte {
	dst = append(dst, configKey...)
	dst = append(dst, p.Config...)
	if p.System != nil {
		dst = append(dst, systemKey...)
		dst = append(dst, p.System...)
	}
	if p.Tools != nil {
		dst = append(dst, toolsKey...)
		dst = append(dst, p.Tools...)
	}
	return append(dst, '}')
}

// role is what a top-level member of a body is.
type role int

const (
	roleConfig role = iota
	roleSystem
	roleTools
	roleOther // conversation and transport flags
)

// roleOf is the split rule: which part a top-level member belongs to.
func roleOf(f Format, key string) role {
	switch key {
	case "tools":
		return roleTools
	case "stream", "stream_options":
		return roleOther
	}
	switch f {
	case Anthropic:
		switch key {
		case "system":
			return roleSystem
		case "messages":
			return roleOther
		}
	case OpenAIChat:
		if key == "messages" {
			return roleOther // its leading system messages are the system part
		}
	case OpenAIResponses:
		switch key {
		case "instructions":
			return roleSystem
		case "input", "previous_response_id", "conversation":
			return roleOther
		}
	case Gemini:
		switch key {
		case "systemInstruction", "system_instruction":
			return roleSystem
		case "contents":
			return roleOther
		}
	}
	return roleConfig
}

// InConfig reports whether the top-level member key of a body of format
// f is part of the header's config: not the conversation, the system
// part, the tools or a stream flag.
func InConfig(f Format, key string) bool { return roleOf(f, key) == roleConfig }

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Pretty reports whether a body was pretty-printed: it has a line break
// inside its value.
func Pretty(body []byte) bool {
	return hasLineBreak(bytes.TrimFunc(body, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }))
}

// decodeKey returns a raw JSON key (quotes included) as JSON.parse reads
// it.
func decodeKey(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner)
	}
	text, _ := canon.DecodeString(inner)
	return text
}

// hasLineBreak is bytes.ContainsAny(b, "\r\n"), at IndexByte's speed.
func hasLineBreak(b []byte) bool {
	return bytes.IndexByte(b, '\n') >= 0 || bytes.IndexByte(b, '\r') >= 0
}

// squeeze removes the whitespace between the tokens of valid JSON text,
// keeping every token's bytes.
func squeeze(src []byte) ([]byte, []Space) {
	out := make([]byte, 0, len(src))
	var spaces []Space
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			out = append(out, src[i:j]...)
			i = j
		case isSpace(c):
			j := i
			for j < len(src) && isSpace(src[j]) {
				j++
			}
			spaces = append(spaces, Space{At: len(out), Text: string(src[i:j])})
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out, spaces
}

// Split splits a request body of format f into its parts. The body must
// be a JSON object with no top-level member twice.
func Split(body []byte, f Format) (*Parts, error) {
	p, err := SplitShared(body, f)
	if err != nil {
		return nil, err
	}
	// The parts are views of the body; copy them so the caller may keep
	// them without it.
	p.System, p.Tools = bytes.Clone(p.System), bytes.Clone(p.Tools)
	return p, nil
}

// SplitShared is [Split] without copying: System and Tools are views of
// body (of its squeezed copy for a pretty-printed body), valid while body
// is unchanged. The fake provider keeps every body it captured, so it
// splits them this way.
func SplitShared(body []byte, f Format) (*Parts, error) {
	return SplitAfter(body, f, nil)
}

// SplitAfter is [SplitShared] for the next body of a session, whose
// header most often repeats the one before: where body holds the tools
// or system value of last, byte for byte, the value is compared rather
// than validated again. last must be parts that SplitShared or
// SplitAfter returned, of a body unchanged since (they are views of it):
// then the result is what SplitShared returns. last may be nil.
func SplitAfter(body []byte, f Format, last *Parts) (*Parts, error) {
	var known [][]byte
	if last != nil {
		known = append(known, last.Tools)
		// An OpenAI Chat system part is made of the leading messages,
		// not a member's value as a scan accepted it.
		if f != OpenAIChat && last.Format != OpenAIChat {
			known = append(known, last.System)
		}
	}
	p := &Parts{Format: f, check: newBodyCheck(f)}
	start, end := 0, len(body)
	for start < end && isSpace(body[start]) {
		start++
	}
	for end > start && isSpace(body[end-1]) {
		end--
	}
	p.Prefix, p.Suffix = string(body[:start]), string(body[end:])
	src := body[start:end]
	switch {
	case len(body) == 0:
		return nil, errors.New("the body is empty; a JSON object was expected")
	case len(src) == 0:
		return nil, errors.New("the body is only whitespace; a JSON object was expected")
	}
	if src[0] != '{' {
		if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
			return nil, errors.New("the body starts with a UTF-8 byte-order mark, which JSON does not allow")
		}
		// Not validated further: a hostile deep array must cost nothing.
		return nil, errors.New("the body is not a JSON object")
	}
	// One pass validates the body and finds its members, which is most
	// of the cost of capturing a request with a large tool list.
	type member struct{ ks, ke, vs, ve int }
	var members []member
	if err := canon.ScanObjectKnown(src, known, func(ks, ke, vs, ve int) { members = append(members, member{ks, ke, vs, ve}) }); err != nil {
		// The scan only says no; the parser says where and why, for a
		// body small enough that parsing it again costs nothing to
		// speak of (a hostile deep one can cost it seconds).
		if len(src) <= locateLimit {
			if _, perr := canon.Compact(nil, src); perr != nil {
				return nil, fmt.Errorf("the body is not valid JSON: %w", perr)
			}
		}
		return nil, errors.New("the body is not valid JSON")
	}
	if hasLineBreak(src) {
		src, p.Spaces = squeeze(src)
		members = members[:0]
		canon.ScanObjectKnown(src, known, func(ks, ke, vs, ve int) { members = append(members, member{ks, ke, vs, ve}) })
	}
	var spans []span
	config := []byte{'{'}
	seen := map[string]bool{}
	for _, m := range members {
		if err := p.member(f, src, m.ks, m.ke, m.vs, m.ve, seen, &config, &spans); err != nil {
			return nil, err
		}
	}
	p.Config = append(config, '}')
	if len(p.Spaces) > 0 {
		p.Spaces, p.HeaderSpaces = p.placeSpaces(p.Spaces, spans)
	}
	rest := make([]byte, 0, len(src)-len(p.Tools)-len(p.System)+64)
	prev := 0
	for _, s := range spans {
		rest = append(rest, src[prev:s.at]...)
		rest = append(rest, s.with...)
		prev = s.end
	}
	p.Rest = append(rest, src[prev:]...)
	return p, nil
}

// locateLimit is the largest refused body whose syntax error is located
// by a second, parsing pass.
const locateLimit = 1 << 20

// span is a header value of a body, replaced in the rest by a placeholder.
type span struct {
	at, end int
	with    string
	part    role // roleConfig, roleSystem or roleTools
	off     int  // where the value begins in its part
}

// The header document's layout, as [Parts.AppendHeader] writes it.
const configKey, systemKey, toolsKey = `{"config":`, `,"system":`, `,"tools":`

// placeSpaces sorts the whitespace of a squeezed body, at offsets of the
// body without whitespace, into what lies between the members of the
// rest, at offsets of the rest, and what lies inside a header value, at
// offsets of the header document. Whitespace just before or just after a
// value belongs to the rest.
func (p *Parts) placeSpaces(spaces []Space, spans []span) (rest, header []Space) {
	base := func(r role) int {
		n := len(configKey)
		if r == roleConfig {
			return n
		}
		n += len(p.Config)
		if r == roleSystem {
			return n + len(systemKey)
		}
		if p.System != nil {
			n += len(systemKey) + len(p.System)
		}
		return n + len(toolsKey)
	}
	shift, k := 0, 0
	for _, s := range spaces {
		for k < len(spans) && spans[k].end <= s.At {
			shift += spans[k].end - spans[k].at - len(spans[k].with)
			k++
		}
		if k < len(spans) && spans[k].at < s.At {
			sp := spans[k]
			header = append(header, Space{At: base(sp.part) + sp.off + s.At - sp.at, Text: s.Text})
			continue
		}
		rest = append(rest, Space{At: s.At - shift, Text: s.Text})
	}
	// The body's order of members is not the document's.
	slices.SortStableFunc(header, func(a, b Space) int { return a.At - b.At })
	return rest, header
}

// member sorts one top-level member of a body into its part.
func (p *Parts) member(f Format, src []byte, kStart, kEnd, vs, vEnd int, seen map[string]bool, config *[]byte, spans *[]span) error {
	key := decodeKey(src[kStart:kEnd])
	if seen[key] {
		return fmt.Errorf("the body has the member %q twice", key)
	}
	seen[key] = true
	p.check.member(key, src[vs])
	switch roleOf(f, key) {
	case roleConfig:
		if len(*config) > 1 {
			*config = append(*config, ',')
		}
		*spans = append(*spans, span{vs, vEnd, ConfigPlaceholder, roleConfig, len(*config) + vs - kStart})
		*config = append(*config, src[kStart:vEnd]...)
	case roleSystem:
		if p.System != nil {
			return fmt.Errorf("the body has two system members")
		}
		p.System = src[vs:vEnd]
		*spans = append(*spans, span{vs, vEnd, SystemPlaceholder, roleSystem, 0})
	case roleTools:
		p.Tools = src[vs:vEnd]
		*spans = append(*spans, span{vs, vEnd, ToolsPlaceholder, roleTools, 0})
	case roleOther:
		if key == "stream" && string(src[vs:vEnd]) == "true" {
			p.Stream = true
		}
		if f == OpenAIChat && key == "stream_options" && Lookup(gjson.Parse(canon.View(src[vs:vEnd])), "include_usage").Type == gjson.True {
			p.Usage = true
		}
		if f == OpenAIChat && key == "messages" && src[vs] == '[' {
			if first, last := leadingSystem(gjson.Parse(canon.View(src[vs:vEnd]))); last > first {
				first, last = first+vs, last+vs
				p.System = append(append([]byte{'['}, src[first:last]...), ']')
				// The part is [first…last]: its text begins one byte in.
				*spans = append(*spans, span{first, last, SystemPlaceholder, roleSystem, 1})
			}
		}
	}
	return nil
}

// leadingSystem returns the byte span of the leading system and developer
// messages of an OpenAI Chat messages array.
func leadingSystem(msgs gjson.Result) (first, last int) {
	first, last = -1, -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		if !SystemMessage(m) {
			return false
		}
		if first < 0 {
			first = m.Index
		}
		last = m.Index + len(m.Raw)
		return true
	})
	return first, last
}

// SystemMessage reports whether m, a message of an OpenAI Chat messages
// array, is a system or developer message: the messages of that role at
// the head of the array make the header's system part. A role written
// twice counts with its last value, as the provider reads it.
func SystemMessage(m gjson.Result) bool {
	r := Lookup(m, "role").String()
	return r == "system" || r == "developer"
}

// Lookup follows keys from v as JSON.parse and a provider read objects:
// where a key is written more than once, its last value counts (gjson's
// Get takes the first). It returns the zero Result when a key is missing
// or a value on the way is not an object.
func Lookup(v gjson.Result, keys ...string) gjson.Result {
	for _, key := range keys {
		if !v.IsObject() {
			return gjson.Result{}
		}
		var found gjson.Result
		v.ForEach(func(k, val gjson.Result) bool {
			if k.Str == key {
				found = val
			}
			return true
		})
		v = found
	}
	return v
}

// Rebuild gives back the body that [Split] split into p.
func Rebuild(p *Parts) ([]byte, error) {
	return RebuildFrom(p.Format, p.Header(), p.Rest, p.Frame)
}

// RebuildFrom rebuilds a request body of format f from a header document
// (as [Parts.Header] writes it), the rest and the frame.
func RebuildFrom(f Format, header, rest []byte, fr Frame) ([]byte, error) {
	h, err := ParseHeader(f, header)
	if err != nil {
		return nil, err
	}
	return h.Rebuild(rest, fr)
}

// Header is a header document read once to rebuild the bodies sent under
// it. It refers to the document's bytes, which must not change.
type Header struct {
	format     Format
	configs    []configMember // in document order
	sys, tools []byte         // nil when absent
}

// configMember is a config member of a header: its raw key and value.
type configMember struct{ key, value []byte }

// doc writes the header document as [Parts.AppendHeader] does, the
// layout whose offsets a frame's HeaderSpaces are.
func (h *Header) doc() []byte {
	out := append([]byte(configKey), '{')
	for i, c := range h.configs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, c.key...), ':'), c.value...)
	}
	out = append(out, '}')
	if h.sys != nil {
		out = append(append(out, systemKey...), h.sys...)
	}
	if h.tools != nil {
		out = append(append(out, toolsKey...), h.tools...)
	}
	return append(out, '}')
}

// ParseHeader reads a header document of format f as [Parts.Header]
// writes it.
func ParseHeader(f Format, header []byte) (*Header, error) {
	if h, ok := ReadHeader(f, header); ok {
		return h, nil
	}
	return parseHeader(f, header)
}

// parseHeader is ParseHeader for a document of any layout.
func parseHeader(f Format, header []byte) (*Header, error) {
	h := gjson.Parse(canon.View(header))
	if !h.IsObject() {
		return nil, errors.New("the header is not a JSON object")
	}
	out := &Header{format: f}
	h.ForEach(func(k, v gjson.Result) bool {
		raw := header[v.Index : v.Index+len(v.Raw)]
		switch k.Str {
		case "config":
			v.ForEach(func(ck, cv gjson.Result) bool {
				out.configs = append(out.configs, configMember{header[ck.Index : ck.Index+len(ck.Raw)], header[cv.Index : cv.Index+len(cv.Raw)]})
				return true
			})
		case "system":
			out.sys = raw
		case "tools":
			out.tools = raw
		}
		return true
	})
	return out, nil
}

// ReadHeader reads a header document laid out exactly as
// [Parts.AppendHeader] writes it: config, then system and tools where
// present, nothing else. Each part's end is found by skipping it
// ([canon.SkipValue]), once, where parsing the document would go over
// the tools more than once; the tools must end where the document does.
// ok is false for a document laid out otherwise, which [ParseHeader]
// reads in general.
func ReadHeader(f Format, b []byte) (h *Header, ok bool) {
	if !bytes.HasPrefix(b, []byte(configKey)) || b[len(b)-1] != '}' {
		return nil, false
	}
	i := len(configKey)
	end := canon.SkipValue(b, i)
	if end < 0 || b[i] != '{' {
		return nil, false
	}
	out := &Header{format: f}
	config := b[i:end]
	gjson.Parse(canon.View(config)).ForEach(func(k, v gjson.Result) bool {
		out.configs = append(out.configs, configMember{config[k.Index : k.Index+len(k.Raw)], config[v.Index : v.Index+len(v.Raw)]})
		return true
	})
	if bytes.HasPrefix(b[end:], []byte(systemKey)) {
		i = end + len(systemKey)
		if end = canon.SkipValue(b, i); end < 0 || isSpace(b[i]) {
			return nil, false
		}
		out.sys = b[i:end]
	}
	if bytes.HasPrefix(b[end:], []byte(toolsKey)) {
		i = end + len(toolsKey)
		if end = canon.SkipValue(b, i); end < 0 || isSpace(b[i]) {
			return nil, false
		}
		out.tools = b[i:end]
	}
	if end != len(b)-1 {
		return nil, false
	}
	return out, true
}

// Rebuild rebuilds a body sent under the header from its rest and frame.
func (h *Header) Rebuild(rest []byte, fr Frame) ([]byte, error) {
	return h.AppendRebuild(nil, rest, fr)
}

// AppendRebuild is Rebuild appending to dst, so that a caller checking
// many bodies can reuse one buffer.
func (h *Header) AppendRebuild(dst, rest []byte, fr Frame) ([]byte, error) {
	if len(fr.HeaderSpaces) > 0 {
		// The header's values as sent, whitespace and all: only a
		// pretty-printed body has any, so the cost is its own.
		pretty, err := parseHeader(h.format, unsqueeze(h.doc(), fr.HeaderSpaces))
		if err != nil {
			return nil, err
		}
		h = pretty
	}
	if len(fr.Spaces) > 0 {
		rest = unsqueeze(rest, fr.Spaces)
	}
	f, configs := h.format, h.configs
	r := gjson.Parse(canon.View(rest))
	if !r.IsObject() {
		return nil, errors.New("the rest of the body is not a JSON object")
	}
	n := len(rest) + len(h.sys) + len(h.tools) + len(fr.Prefix) + len(fr.Suffix)
	for _, c := range configs {
		n += len(c.value)
	}
	out := slices.Grow(dst, n)
	out = append(out, fr.Prefix...)
	prev := 0
	var err error
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		vEnd := v.Index + len(v.Raw)
		switch roleOf(f, key) {
		case roleConfig:
			if len(configs) == 0 || string(configs[0].key) != k.Raw {
				err = fmt.Errorf("config member %s is not next in the header's config", k.Raw)
				return false
			}
			out = append(out, rest[prev:v.Index]...)
			out = append(out, configs[0].value...)
			configs = configs[1:]
		case roleSystem:
			if h.sys == nil {
				err = fmt.Errorf("member %s needs a system in the header", k.Raw)
				return false
			}
			out = append(out, rest[prev:v.Index]...)
			out = append(out, h.sys...)
		case roleTools:
			if h.tools == nil {
				err = fmt.Errorf("member %s needs tools in the header", k.Raw)
				return false
			}
			out = append(out, rest[prev:v.Index]...)
			out = append(out, h.tools...)
		default:
			if f == OpenAIChat && key == "messages" && h.sys != nil {
				first := v.Get("0")
				if first.Raw != SystemPlaceholder || len(h.sys) < 2 || h.sys[0] != '[' {
					err = errors.New("messages does not start with the system placeholder")
					return false
				}
				out = append(out, rest[prev:first.Index]...)
				out = append(out, h.sys[1:len(h.sys)-1]...)
				prev = first.Index + len(first.Raw)
				return true
			}
			return true
		}
		prev = vEnd
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(configs) > 0 {
		return nil, fmt.Errorf("%d config member(s) of the header are not in the rest of the body", len(configs))
	}
	out = append(out, rest[prev:]...)
	return append(out, fr.Suffix...), nil
}

// unsqueeze puts removed whitespace back.
func unsqueeze(src []byte, spaces []Space) []byte {
	n := len(src)
	for _, s := range spaces {
		n += len(s.Text)
	}
	out := make([]byte, 0, n)
	prev := 0
	for _, s := range spaces {
		at := min(max(s.At, prev), len(src))
		out = append(out, src[prev:at]...)
		out = append(out, s.Text...)
		prev = at
	}
	return append(out, src[prev:]...)
}

// WantsStream reports whether a body asks for a streamed response
// ("stream": true).
func WantsStream(body []byte) bool {
	return gjson.GetBytes(body, "stream").Type == gjson.True
}
