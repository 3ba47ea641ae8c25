package drift

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Format is how records are read: a session log or a provider wire format.
type Format string

// The formats -format accepts.
const (
	// FormatAuto detects per input whether it is a session log and, for
	// request bodies, the wire format of each body.
	FormatAuto Format = "auto"
	// FormatLog reads session-log events and compares request/header ones.
	FormatLog Format = "log"
	// FormatAnthropic reads Anthropic Messages request bodies.
	FormatAnthropic Format = "anthropic"
	// FormatOpenAIChat reads OpenAI Chat Completions request bodies.
	FormatOpenAIChat Format = "openai-chat"
	// FormatOpenAIResponses reads OpenAI Responses request bodies.
	FormatOpenAIResponses Format = "openai-responses"
	// FormatGemini reads Gemini generateContent request bodies, in
	// camelCase or snake_case.
	FormatGemini Format = "gemini"
)

// ParseFormat returns the Format named s ("" means auto).
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case "":
		return FormatAuto, nil
	case FormatAuto, FormatLog, FormatAnthropic, FormatOpenAIChat, FormatOpenAIResponses, FormatGemini:
		return f, nil
	}
	return "", fmt.Errorf("unknown format %q (want auto, log, anthropic, openai-chat, openai-responses or gemini)", s)
}

// detectFormat tells the wire format of a request body from its members.
func detectFormat(root gjson.Result) (Format, error) {
	has := map[string]bool{}
	root.ForEach(func(k, _ gjson.Result) bool {
		has[k.String()] = true
		return true
	})
	tools := root.Get("tools")
	toolHas := func(key string) bool {
		found := false
		tools.ForEach(func(_, t gjson.Result) bool {
			found = t.Get(gjson.Escape(key)).Exists()
			return !found
		})
		return found
	}
	switch {
	case has["contents"] || has["systemInstruction"] || has["system_instruction"] ||
		has["generationConfig"] || has["generation_config"] ||
		toolHas("functionDeclarations") || toolHas("function_declarations"):
		return FormatGemini, nil
	case !has["messages"] && (has["input"] || has["instructions"] || has["max_output_tokens"] || has["previous_response_id"]):
		return FormatOpenAIResponses, nil
	case has["messages"]:
		if has["system"] || has["anthropic_version"] || toolHas("input_schema") {
			return FormatAnthropic, nil
		}
		return FormatOpenAIChat, nil
	}
	return "", fmt.Errorf("cannot tell the wire format of this request body (no messages, input or contents member); use -format")
}

// header is the header part of one record as a JSON document, with what is
// needed to map a place in it back to the record.
type header struct {
	format Format
	line   int    // first line of the record
	src    []byte // the record, after redaction
	doc    []byte // the header document
	segs   []segment
	// wire maps the header path of each included value ("config.model",
	// "system.0", "tools.3") to its path in the record; wireBase prefixes
	// every path instead when the header is one value of the record.
	wire     map[string]string
	wireBase string
	reason   string
	turn     int
	step     int
}

// placeholders are the values a templated golden log holds in place of a
// header's system text and tools.
var placeholders = map[string]string{"system": `"<<system>>"`, "tools": `"<<tools>>"`}

// templated lists the header members that either side holds as a
// placeholder, with the sides that do: a templated log hides them, so
// they cannot be compared.
func templated(a, b *header) []Hidden {
	var out []Hidden
	ra, rb := gjson.ParseBytes(a.doc), gjson.ParseBytes(b.doc)
	for _, m := range []string{"system", "tools"} {
		var in []string
		if lookup(ra, m).Raw == placeholders[m] {
			in = append(in, "A")
		}
		if lookup(rb, m).Raw == placeholders[m] {
			in = append(in, "B")
		}
		if in != nil {
			out = append(out, Hidden{Member: m, In: in})
		}
	}
	return out
}

// without returns the header with the named top-level members of its
// document left out, keeping the map of every other byte to the record.
func (h *header) without(hidden []Hidden) *header {
	nh := *h
	nh.doc = []byte{'{'}
	nh.segs = nil
	gjson.ParseBytes(h.doc).ForEach(func(k, v gjson.Result) bool {
		if slices.ContainsFunc(hidden, func(x Hidden) bool { return x.Member == k.String() }) {
			return true
		}
		if len(nh.doc) > 1 {
			nh.doc = append(nh.doc, ',')
		}
		start, end := k.Index, v.Index+len(v.Raw)
		nh.segs = append(nh.segs, segment{len(nh.doc), h.srcOffset(start), end - start})
		nh.doc = append(nh.doc, h.doc[start:end]...)
		return true
	})
	nh.doc = append(nh.doc, '}')
	return &nh
}

// segment says that doc[h:h+n] was copied from src[s:s+n].
type segment struct{ h, s, n int }

// srcOffset maps an offset in doc to the record, or -1. The "{" written
// around a wrapped tool maps to the tool's key.
func (h *header) srcOffset(off int) int {
	if off < 0 {
		return -1
	}
	i := sort.Search(len(h.segs), func(i int) bool { return h.segs[i].h+h.segs[i].n > off })
	switch {
	case i == len(h.segs):
		return -1
	case h.segs[i].h == off+1 && h.doc[off] == '{':
		return h.segs[i].s
	case h.segs[i].h > off:
		return -1
	}
	return h.segs[i].s + off - h.segs[i].h
}

// wirePath maps a header path, given as components, to the record.
func (h *header) wirePath(comps []string) string {
	if h.wireBase != "" {
		return joinPath(append([]string{h.wireBase}, comps...))
	}
	if len(comps) < 2 {
		return ""
	}
	base, ok := h.wire[comps[0]+"."+comps[1]]
	if !ok {
		return ""
	}
	if len(comps) == 2 {
		return base
	}
	return base + "." + joinPath(comps[2:])
}

// joinPath joins already escaped path components.
func joinPath(comps []string) string { return strings.Join(comps, ".") }

// logHeader reads the header of a request/header event.
func logHeader(src []byte, line int) (*header, error) {
	root := gjson.Parse(string(src))
	data := lookup(root, "data")
	hdr := lookup(data, "header")
	if !hdr.IsObject() {
		return nil, fmt.Errorf("request/header event has no header object")
	}
	h := &header{
		format:   FormatLog,
		line:     line,
		src:      src,
		doc:      []byte(hdr.Raw),
		segs:     []segment{{0, hdr.Index, len(hdr.Raw)}},
		wireBase: "data.header",
		reason:   lookup(data, "reason").String(),
		turn:     int(lookup(data, "turn").Int()),
		step:     int(lookup(data, "step").Int()),
	}
	return h, nil
}

// item is one value taken from a body into the header document.
type item struct {
	key  gjson.Result // config members and wrapped tools: the raw key
	val  gjson.Result // the value; Index is its offset in the record
	wire string       // its path in the record
	wrap bool         // write as {"key":val} (a built-in Gemini tool)
}

// bodyHeader reads the header of a request body in format f (FormatAuto
// detects it).
func bodyHeader(src []byte, line int, f Format) (*header, error) {
	root := gjson.Parse(string(src))
	if !root.IsObject() {
		return nil, fmt.Errorf("request body is not a JSON object")
	}
	if f == FormatAuto || f == FormatLog {
		var err error
		if f, err = detectFormat(root); err != nil {
			return nil, err
		}
	}
	var config, system, tools []item
	elements := func(v gjson.Result, wire string, keep func(gjson.Result) bool, into *[]item) {
		if !v.IsArray() {
			if keep == nil {
				*into = append(*into, item{val: v, wire: wire})
			}
			return
		}
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			if keep == nil || keep(e) {
				*into = append(*into, item{val: e, wire: wire + "." + strconv.Itoa(i)})
			}
			i++
			return true
		})
	}
	systemRole := func(e gjson.Result) bool {
		r := e.Get("role").String()
		return r == "system" || r == "developer"
	}
	root.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		wire := gjson.Escape(key)
		switch f {
		case FormatAnthropic:
			switch key {
			case "messages", "stream":
				return true
			case "system":
				elements(v, wire, nil, &system)
				return true
			case "tools":
				elements(v, wire, nil, &tools)
				return true
			}
		case FormatOpenAIChat:
			switch key {
			case "stream", "stream_options":
				return true
			case "messages":
				elements(v, wire, systemRole, &system)
				return true
			case "tools":
				elements(v, wire, nil, &tools)
				return true
			}
		case FormatOpenAIResponses:
			switch key {
			case "stream", "stream_options", "previous_response_id":
				return true
			case "instructions":
				system = append(system, item{val: v, wire: wire})
				return true
			case "input":
				if v.IsArray() {
					elements(v, wire, systemRole, &system)
				}
				return true
			case "tools":
				elements(v, wire, nil, &tools)
				return true
			}
		case FormatGemini:
			switch key {
			case "contents":
				return true
			case "systemInstruction", "system_instruction":
				system = append(system, item{val: v, wire: wire})
				return true
			case "tools":
				geminiTools(v, wire, &tools)
				return true
			}
		}
		config = append(config, item{key: k, val: v, wire: wire})
		return true
	})
	h := &header{format: f, line: line, src: src, wire: map[string]string{}}
	h.doc = append(h.doc, '{')
	h.section("config", config, true)
	h.section("system", system, false)
	h.section("tools", tools, false)
	h.doc = append(h.doc, '}')
	return h, nil
}

// geminiTools flattens the function declarations of every tools entry;
// other members of an entry (built-in tools) become tools of their own.
func geminiTools(v gjson.Result, wire string, into *[]item) {
	if !v.IsArray() {
		*into = append(*into, item{val: v, wire: wire})
		return
	}
	g := 0
	v.ForEach(func(_, group gjson.Result) bool {
		gwire := wire + "." + strconv.Itoa(g)
		g++
		if !group.IsObject() {
			*into = append(*into, item{val: group, wire: gwire})
			return true
		}
		group.ForEach(func(k, m gjson.Result) bool {
			key := k.String()
			mwire := gwire + "." + gjson.Escape(key)
			if (key == "functionDeclarations" || key == "function_declarations") && m.IsArray() {
				i := 0
				m.ForEach(func(_, d gjson.Result) bool {
					*into = append(*into, item{val: d, wire: mwire + "." + strconv.Itoa(i)})
					i++
					return true
				})
				return true
			}
			*into = append(*into, item{key: k, val: m, wire: gwire, wrap: true})
			return true
		})
		return true
	})
}

// section appends "name":{…} (members) or "name":[…] (elements) to the
// header document; an empty section is left out, as in a session log.
func (h *header) section(name string, items []item, members bool) {
	if len(items) == 0 {
		return
	}
	if len(h.doc) > 1 {
		h.doc = append(h.doc, ',')
	}
	h.doc = append(h.doc, '"')
	h.doc = append(h.doc, name...)
	h.doc = append(h.doc, '"', ':')
	open, close := byte('['), byte(']')
	if members {
		open, close = '{', '}'
	}
	h.doc = append(h.doc, open)
	for i, it := range items {
		if i > 0 {
			h.doc = append(h.doc, ',')
		}
		var path string
		if members {
			h.copy(it.key.Raw, it.key.Index)
			h.doc = append(h.doc, ':')
			path = name + "." + gjson.Escape(it.key.String())
		} else {
			path = name + "." + strconv.Itoa(i)
		}
		h.wire[path] = it.wire
		if it.wrap {
			h.doc = append(h.doc, '{')
			h.copy(it.key.Raw, it.key.Index)
			h.doc = append(h.doc, ':')
		}
		h.copy(it.val.Raw, it.val.Index)
		if it.wrap {
			h.doc = append(h.doc, '}')
		}
	}
	h.doc = append(h.doc, close)
}

// copy appends raw, found at offset at of the record (-1 if unknown).
func (h *header) copy(raw string, at int) {
	if at >= 0 && at+len(raw) <= len(h.src) && string(h.src[at:at+len(raw)]) == raw {
		h.segs = append(h.segs, segment{len(h.doc), at, len(raw)})
	}
	h.doc = append(h.doc, raw...)
}
