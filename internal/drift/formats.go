package drift

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// Format is how records are read: a session log or a provider wire format.
// The four wire formats are package wire's.
type Format string

// The formats -format accepts.
const (
	// FormatAuto detects per input whether it is a session log and, for
	// request bodies, the wire format of each body ([wire.Detect]).
	FormatAuto Format = "auto"
	// FormatLog reads session-log events and compares request/header ones.
	FormatLog Format = "log"
	// FormatAnthropic reads Anthropic Messages request bodies.
	FormatAnthropic = Format(wire.Anthropic)
	// FormatOpenAIChat reads OpenAI Chat Completions request bodies.
	FormatOpenAIChat = Format(wire.OpenAIChat)
	// FormatOpenAIResponses reads OpenAI Responses request bodies.
	FormatOpenAIResponses = Format(wire.OpenAIResponses)
	// FormatGemini reads Gemini generateContent request bodies, in
	// camelCase or snake_case.
	FormatGemini = Format(wire.Gemini)
)

// ParseFormat returns the Format named s ("" means auto).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "":
		return FormatAuto, nil
	case FormatAuto, FormatLog:
		return f, nil
	}
	if f, err := wire.ParseFormat(s); err == nil {
		return Format(f), nil
	}
	return "", fmt.Errorf("unknown format %q (want auto, log, anthropic, openai-chat, openai-responses or gemini)", s)
}

// header is the header part of one record as a JSON document, with what is
// needed to map a place in it back to the record.
type header struct {
	format Format
	// wire is the wire format the header was sent in: the body's, or the
	// format a captured log's event names; "" when unknown.
	wire wire.Format
	line int    // first line of the record
	src  []byte // the record, after redaction
	doc  []byte // the header document
	segs []segment
	// wireBase prefixes every path when the header is one value of the
	// record (data.header of a log event). For a body, systemKey and
	// toolsKey are the record's members holding system and tools
	// (escaped); config.K is the record's member K.
	wireBase  string
	systemKey string
	toolsKey  string
	// systemRaw and toolsRaw are those members' keys as the body writes
	// them (Gemini's systemInstruction or system_instruction, escapes
	// and all): a body's, or for a captured log the keys its request's
	// capture/request event shows them under (see side.captureKeys); ""
	// when unknown, and for OpenAI Chat's system.
	systemRaw string
	toolsRaw  string
	reason    string
	turn      int
	step      int
	request   int    // a captured log's generation request
	rest      []byte // a body's rest (wire.Parts.Rest): its conversation
}

// placeholders are the values a templated golden log holds in place of a
// header's system text and tools.
var placeholders = map[string]string{logformat.MemberSystem: `"` + logformat.SystemPlaceholder + `"`, logformat.MemberTools: `"` + logformat.ToolsPlaceholder + `"`}

// templated lists the header members that either side, when it is a
// session log, holds as a placeholder, with the sides that do: a templated
// log hides them, so they cannot be compared. (A request body whose system
// text happens to read "<<system>>" is not templated.)
func templated(a, b *header) []Hidden {
	if a.format != FormatLog && b.format != FormatLog {
		return nil
	}
	names := []string{"system", "tools"}
	placeholder := func(h *header) [2]bool {
		var f [2]span
		var out [2]bool
		// A placeholder's bytes are in the header, or it holds none.
		if h.format != FormatLog || !bytes.Contains(h.doc, []byte(`"<<`)) || !fields(h.doc, 0, names, f[:]) {
			return out
		}
		for i, m := range names {
			out[i] = f[i].end > 0 && string(h.doc[f[i].start:f[i].end]) == placeholders[m]
		}
		return out
	}
	pa, pb := placeholder(a), placeholder(b)
	var out []Hidden
	for i, m := range names {
		var in []string
		if pa[i] {
			in = append(in, "A")
		}
		if pb[i] {
			in = append(in, "B")
		}
		if in != nil {
			out = append(out, Hidden{Member: m, In: in})
		}
	}
	return out
}

// without returns the header with the value of each named top-level
// member of its document replaced by the member's placeholder, keeping the
// map of every other byte to the record. The member itself stays: a
// template hides what the tools are, not whether there are any, so a host
// that loaded none differs from a golden log that holds "<<tools>>".
func (h *header) without(hidden []Hidden) *header {
	nh := *h
	nh.doc = []byte{'{'}
	nh.segs = nil
	gjson.ParseBytes(h.doc).ForEach(func(k, v gjson.Result) bool {
		if len(nh.doc) > 1 {
			nh.doc = append(nh.doc, ',')
		}
		start, end := k.Index, v.Index+len(v.Raw)
		if slices.ContainsFunc(hidden, func(x Hidden) bool { return x.Member == k.String() }) {
			nh.segs = append(nh.segs, segment{len(nh.doc), h.srcOffset(start), len(k.Raw)})
			nh.doc = append(append(nh.doc, k.Raw...), ':')
			nh.doc = append(nh.doc, placeholders[k.String()]...)
			return true
		}
		nh.segs = append(nh.segs, segment{len(nh.doc), h.srcOffset(start), end - start})
		nh.doc = append(nh.doc, h.doc[start:end]...)
		return true
	})
	nh.doc = append(nh.doc, '}')
	return &nh
}

// segment says that doc[h:h+n] was copied from src[s:s+n].
type segment struct{ h, s, n int }

// srcOffset maps an offset in doc to the record, or -1.
func (h *header) srcOffset(off int) int {
	if off < 0 {
		return -1
	}
	i := sort.Search(len(h.segs), func(i int) bool { return h.segs[i].h+h.segs[i].n > off })
	if i == len(h.segs) || h.segs[i].h > off {
		return -1
	}
	return h.segs[i].s + off - h.segs[i].h
}

// sentAs is the format a header was sent in, as far as it is known: its
// wire format, else how it was read.
func (h *header) sentAs() Format {
	if h.wire != "" {
		return Format(h.wire)
	}
	return h.format
}

// wirePath maps a header path, given as components, to the record: a
// body's config.K is its member K, system its system member (for OpenAI
// Chat, system.N is messages.N: the system part is the leading messages),
// tools its tools.
func (h *header) wirePath(comps []string) string {
	if h.wireBase != "" {
		return joinPath(append([]string{h.wireBase}, comps...))
	}
	if len(comps) == 0 {
		return ""
	}
	var base string
	switch comps[0] {
	case "config":
		if len(comps) < 2 {
			return ""
		}
		return joinPath(comps[1:])
	case "system":
		base = h.systemKey
	case "tools":
		base = h.toolsKey
	}
	if base == "" {
		return ""
	}
	return joinPath(append([]string{base}, comps[1:]...))
}

// joinPath joins already escaped path components.
func joinPath(comps []string) string { return strings.Join(comps, ".") }

// logHeader reads the header of a request/header event, a record already
// validated, whose data member is at data (found here when data is
// empty). Its members are found with canon's skipping scanner, once each,
// so that a long header is not read again for every member: a log whose
// every header differs is read at near memory speed.
func logHeader(src []byte, line int, data span) (*header, error) {
	top := [1]span{data}
	var f [6]span // header, format, reason, turn, step, request
	if top[0].end == 0 && !fields(src, 0, []string{"data"}, top[:]) || top[0].end == 0 ||
		!fields(src, top[0].start, []string{"header", "format", "reason", "turn", "step", "request"}, f[:]) {
		return nil, fmt.Errorf("request/header event has no header object")
	}
	hdr := f[0]
	if hdr.end == 0 || src[hdr.start] != '{' {
		return nil, fmt.Errorf("request/header event has no header object")
	}
	value := func(sp span) gjson.Result {
		if sp.end == 0 {
			return gjson.Result{}
		}
		return gjson.ParseBytes(src[sp.start:sp.end])
	}
	h := &header{
		format:   FormatLog,
		line:     line,
		src:      src,
		doc:      src[hdr.start:hdr.end:hdr.end],
		segs:     []segment{{0, hdr.start, hdr.end - hdr.start}},
		wireBase: "data.header",
		wire:     wire.Format(value(f[1]).String()),
		reason:   value(f[2]).String(),
		turn:     int(value(f[3]).Int()),
		step:     int(value(f[4]).Int()),
		request:  int(value(f[5]).Int()),
	}
	return h, nil
}

// span is the bytes src[start:end] of a member's value; end is 0 when the
// member is absent.
type span struct{ start, end int }

// fields finds the members named keys in the object at src[i], a valid
// JSON text, and sets out[k] to the span of the value of keys[k]; a key
// written more than once counts with its last value, as JSON.parse reads
// it. It reports whether src holds an object there.
func fields(src []byte, i int, keys []string, out []span) bool {
	return canon.Members(src, i, func(key []byte, vs, ve int) bool {
		for k, name := range keys {
			if rawKeyIs(key, name) {
				out[k] = span{vs, ve}
			}
		}
		return true
	})
}

// rawKeyIs reports whether the raw JSON key (quotes included) is name,
// decoding escapes as JSON.parse would.
func rawKeyIs(key []byte, name string) bool {
	inner := key[1 : len(key)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	text, _ := canon.DecodeString(inner)
	return text == name
}

// bodyHeader reads the header of a request body in wire format f: the
// header document of [wire.Split], so that a body's header is exactly the
// header a captured log holds for it, each part the body's own member,
// verbatim. Offsets in the document are mapped back to the record,
// through the whitespace Split removes from a pretty-printed body.
func bodyHeader(src []byte, line int, f wire.Format, redactBody func([]byte, wire.Format) []byte) (*header, error) {
	if redactBody != nil {
		src = redactBody(src, f)
	}
	p, err := wire.SplitShared(src, f)
	if err != nil {
		return nil, err
	}
	h := &header{format: Format(f), wire: f, line: line, src: src, doc: p.Header(), rest: p.Rest}
	h.locate(p)
	return h, nil
}

// recordPart is where a header part, or a config member, is in the record.
type recordPart struct {
	key gjson.Result // the record's member key
	// start and end delimit the bytes of the value (for OpenAI Chat's
	// system, the leading messages without the array's brackets).
	start, end int
}

// locate maps the header document of p back to the record: it pairs the
// record's top-level members with those of p.Rest, where each header
// value stands as its placeholder, and aligns every part with its bytes.
func (h *header) locate(p *wire.Parts) {
	// Views, not copies: a record may be hundreds of megabytes, and only
	// offsets outlive the parse.
	rec := gjson.Parse(canon.View(h.src))
	var recMembers, restMembers [][2]gjson.Result
	rec.ForEach(func(k, v gjson.Result) bool {
		recMembers = append(recMembers, [2]gjson.Result{k, v})
		return true
	})
	gjson.Parse(canon.View(p.Rest)).ForEach(func(k, v gjson.Result) bool {
		restMembers = append(restMembers, [2]gjson.Result{k, v})
		return true
	})
	if len(recMembers) != len(restMembers) {
		return // offsets stay unknown
	}
	var config []recordPart
	var system, tools *recordPart
	for i, m := range recMembers {
		k, v, rv := m[0], m[1], restMembers[i][1]
		part := &recordPart{key: k, start: v.Index, end: v.Index + len(v.Raw)}
		switch {
		case rv.Raw == wire.ConfigPlaceholder:
			config = append(config, *part)
		case rv.Raw == wire.SystemPlaceholder && system == nil && p.System != nil:
			system = part
		case rv.Raw == wire.ToolsPlaceholder && tools == nil && p.Tools != nil:
			tools = part
		case p.Format == wire.OpenAIChat && system == nil && p.System != nil && rv.IsArray() && rv.Get("0").Raw == wire.SystemPlaceholder:
			n := len(gjson.ParseBytes(p.System).Array())
			msgs := v.Array()
			if n == 0 || n > len(msgs) {
				continue
			}
			last := msgs[n-1]
			part.start, part.end = msgs[0].Index, last.Index+len(last.Raw)
			system = part
		}
	}
	doc := gjson.ParseBytes(h.doc)
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "config":
			j := 0
			v.ForEach(func(ck, cv gjson.Result) bool {
				for j < len(config) && config[j].key.Raw != ck.Raw {
					j++
				}
				if j == len(config) {
					return false
				}
				h.align(ck.Index, cv.Index+len(cv.Raw), config[j].key.Index)
				j++
				return true
			})
		case "system":
			if system == nil {
				return true
			}
			h.systemKey = gjson.Escape(system.key.Str)
			if p.Format == wire.OpenAIChat {
				// "system" and its "[" stand for the first message.
				h.segs = append(h.segs, segment{k.Index, system.start, 1}, segment{v.Index, system.start, 1})
				h.align(v.Index+1, v.Index+len(v.Raw)-1, system.start)
				return true
			}
			h.systemRaw = system.key.Raw
			h.segs = append(h.segs, segment{k.Index, system.key.Index, 1})
			h.align(v.Index, v.Index+len(v.Raw), system.start)
		case "tools":
			if tools == nil {
				return true
			}
			h.toolsKey = gjson.Escape(tools.key.Str)
			h.toolsRaw = tools.key.Raw
			h.segs = append(h.segs, segment{k.Index, tools.key.Index, 1})
			h.align(v.Index, v.Index+len(v.Raw), tools.start)
		}
		return true
	})
}

// align maps doc[from:to], a part of the header copied verbatim from the
// record at offset at, back to the record. The part has the record's
// bytes, except that whitespace between tokens is gone when the body was
// pretty-printed; each run of equal bytes becomes a segment. Mapping stops
// where the bytes disagree otherwise.
func (h *header) align(from, to, at int) {
	doc, src := h.doc, h.src
	i, j := from, at
	runH, runS := i, j
	inStr, esc := false, false
	for i < to && j < len(src) {
		c := doc[i]
		if c == src[j] {
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			}
			i, j = i+1, j+1
			continue
		}
		if inStr || !isSpace(src[j]) {
			break
		}
		if i > runH {
			h.segs = append(h.segs, segment{runH, runS, i - runH})
		}
		for j < len(src) && isSpace(src[j]) {
			j++
		}
		runH, runS = i, j
	}
	if i > runH {
		h.segs = append(h.segs, segment{runH, runS, i - runH})
	}
}

// isSpace reports JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// wireKeys are the keys a captured request's body held its system and
// tools under, raw; "" where unknown.
type wireKeys struct{ system, tools string }

// withKeys is h with the keys a captured log's request shows, where it
// shows them (a body's header has its own).
func (h *header) withKeys(k wireKeys) *header {
	if k == (wireKeys{}) || h.format != FormatLog {
		return h
	}
	nh := *h
	nh.systemRaw, nh.toolsRaw = k.system, k.tools
	return &nh
}
