package assembler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/headergold/headergold/internal/canon"
	"github.com/tidwall/gjson"
)

// Header is an assembled request header: the call config, the system text and
// the tools, in canonical order. It is immutable: every accessor returns a
// copy, so nothing a caller does with what it was handed changes the header.
//
// Its JSON form is {"config":{…},"system":"…","tools":[…]}, written as
// JavaScript's JSON.stringify would write it; an empty system text or tool
// list is left out.
//
// An assembled header writes its JSON the first time something reads it,
// and adds up its length the first time something asks for it, not when
// it is assembled: two uses of one header are the same header without
// reading its bytes, so a run whose header is only ever compared with
// itself never writes the tools' bytes out (at thousands of tools, that
// is most of a step's cost), nor makes canonical the tools whose provider
// put that off (Canonicalizer.NewProviderFunc).
type Header struct {
	once sync.Once // writes raw, for bytes
	raw  []byte    // the JSON, once written; set at parse
	// head is the JSON up to the tools: {"config":{…} and the system
	// member; config is a sub-slice of it.
	head   []byte
	config []byte
	sized  sync.Once // sets size, for Len
	size   int       // len of the JSON; set at parse
	// toolsReady is set once every tool is canonical (readyTools).
	toolsReady atomic.Bool
	system     string
	tools      []*canonicalTool // shared with the registry; never modified
	deps       Deps             // declared dependencies; harness metadata
	// idempotent names the tools declared idempotent (nil: none), so the
	// loop's look-up at every tool call does not walk the tool list.
	idempotent map[string]bool
}

func newHeader(model string, sections []Section, tools []*canonicalTool) *Header {
	var texts []string
	for _, s := range sections {
		if s.Text != "" {
			texts = append(texts, s.Text)
		}
	}
	h := &Header{system: strings.Join(texts, "\n\n"), tools: tools}
	head := append(make([]byte, 0, 64+len(model)+len(h.system)), `{"config":`...)
	start := len(head)
	head = append(head, '{')
	if model != "" {
		head = append(head, `"model":`...)
		head = canon.AppendString(head, model)
	}
	head = append(head, '}')
	end := len(head)
	if h.system != "" {
		head = append(head, `,"system":`...)
		head = canon.AppendString(head, h.system)
	}
	h.head = head[:len(head):len(head)]
	h.config = head[start:end:end]
	for _, t := range tools {
		if t.tool.Idempotent {
			if h.idempotent == nil {
				h.idempotent = map[string]bool{}
			}
			h.idempotent[t.tool.Name] = true
		}
	}
	return h
}

// readyTools makes the header's tools canonical before its length or
// bytes are worked out, outside the Once that keeps them: a broken
// promise of a provider's (canonicalTool.ready) then panics at every read
// instead of leaving a header that reads as empty.
func (h *Header) readyTools() {
	if h.toolsReady.Load() {
		return
	}
	for _, t := range h.tools {
		t.ready()
	}
	h.toolsReady.Store(true)
}

// bytes returns the header's JSON, written on the first call.
func (h *Header) bytes() []byte {
	h.readyTools()
	h.once.Do(func() {
		if h.raw == nil {
			h.raw = h.write()
		}
	})
	return h.raw
}

// write writes the header's JSON from its parts, exactly Len bytes.
func (h *Header) write() []byte {
	raw := append(make([]byte, 0, h.Len()), h.head...)
	if len(h.tools) > 0 {
		raw = append(raw, `,"tools":[`...)
		for i, t := range h.tools {
			if i > 0 {
				raw = append(raw, ',')
			}
			raw = t.appendJSON(raw)
		}
		raw = append(raw, ']')
	}
	return append(raw, '}')
}

func toolsLen(tools []*canonicalTool) int {
	n := 0
	for _, t := range tools {
		n += t.size() + 1
	}
	return n
}

// ParseHeader reads a header from its JSON form: an object with a "config"
// object, an optional "system" string and an optional "tools" array of tool
// objects with a string "name". Other members are errors. The result is
// canonical, so ParseHeader(h.Bytes()) equals h.
func ParseHeader(b []byte) (*Header, error) {
	compact, err := canon.Compact(nil, b)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	root := gjson.ParseBytes(compact)
	if !root.IsObject() {
		return nil, fmt.Errorf("header: not a JSON object")
	}
	var (
		cfg    gjson.Result
		system string
		tools  []*canonicalTool
		bad    error
	)
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "config":
			if !v.IsObject() {
				bad = fmt.Errorf("header: config is %s, not an object", kind(v))
			}
			cfg = v
		case "system":
			if v.Type != gjson.String {
				bad = fmt.Errorf("header: system is %s, not a string", kind(v))
			}
			system = v.String()
		case "tools":
			if !v.IsArray() {
				bad = fmt.Errorf("header: tools is %s, not an array", kind(v))
				return false
			}
			for i, tv := range v.Array() {
				t, err := parseTool(tv)
				if err != nil {
					bad = fmt.Errorf("header: tools[%d]: %w", i, err)
					return false
				}
				tools = append(tools, &t)
			}
		default:
			bad = fmt.Errorf("header: unexpected member %q", k.String())
		}
		return bad == nil
	})
	if bad != nil {
		return nil, bad
	}
	if !cfg.Exists() {
		return nil, fmt.Errorf("header: no config")
	}
	h := &Header{raw: compact, size: len(compact), system: system, tools: tools}
	h.config = compact[cfg.Index : cfg.Index+len(cfg.Raw) : cfg.Index+len(cfg.Raw)]
	return h, nil
}

func parseTool(v gjson.Result) (canonicalTool, error) {
	if !v.IsObject() {
		return canonicalTool{}, fmt.Errorf("%s, not an object", kind(v))
	}
	var t Tool
	var bad error
	v.ForEach(func(k, f gjson.Result) bool {
		switch k.String() {
		case "name":
			if f.Type != gjson.String {
				bad = fmt.Errorf("name is %s, not a string", kind(f))
			}
			t.Name = f.String()
		case "description":
			if f.Type != gjson.String {
				bad = fmt.Errorf("description is %s, not a string", kind(f))
			}
			t.Description = f.String()
		case "parameters":
			t.Parameters = json.RawMessage(f.Raw)
		default:
			bad = fmt.Errorf("unexpected member %q", k.String())
		}
		return bad == nil
	})
	if bad != nil {
		return canonicalTool{}, bad
	}
	c, err := canonicalize(t, "header")
	if err != nil {
		return canonicalTool{}, err
	}
	if string(c.json()) != v.Raw {
		// The bytes differ from the canonical tool layout (member
		// order, an explicit empty description); keep them as given so
		// the header stays byte-faithful.
		c.alt = &altJSON{raw: []byte(v.Raw)}
	}
	return c, nil
}

func kind(v gjson.Result) string {
	switch {
	case !v.Exists():
		return "missing"
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.Null:
		return "null"
	default:
		return "a boolean"
	}
}

// Bytes returns a copy of the header's canonical JSON.
func (h *Header) Bytes() []byte { return bytes.Clone(h.bytes()) }

// JSON returns the header's canonical JSON as a string that shares the
// header's bytes instead of copying them: a string cannot be written to,
// and the header never writes to its bytes after building them. A log and
// the requests under one header read it through JSON, so that they share
// one copy of it.
func (h *Header) JSON() string {
	raw := h.bytes()
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

// AppendJSON appends the header's canonical JSON to dst.
func (h *Header) AppendJSON(dst []byte) []byte { return append(dst, h.bytes()...) }

// Len returns the length of the header's canonical JSON, without writing
// it.
func (h *Header) Len() int {
	h.readyTools()
	h.sized.Do(func() {
		if h.head != nil { // assembled, not parsed
			h.size = len(h.head) + 1
			if len(h.tools) > 0 {
				h.size += len(`,"tools":[]`) + toolsLen(h.tools) - 1
			}
		}
	})
	return h.size
}

// Equal reports whether two headers have the same bytes. Two assembled
// headers with the same config and system and the same registered tools
// in the same order have them without either being written: the runs of
// a replay register the same providers, so their headers compare this
// way unless the order differs.
func (h *Header) Equal(o *Header) bool {
	switch {
	case h == o:
		return true
	case h.head != nil && o.head != nil && bytes.Equal(h.head, o.head) && slices.Equal(h.tools, o.tools):
		return true
	case h.Len() != o.Len():
		return false
	}
	return bytes.Equal(h.bytes(), o.bytes())
}

// EqualJSON reports whether b is the header's canonical JSON, without
// copying either.
func (h *Header) EqualJSON(b []byte) bool { return len(b) == h.Len() && bytes.Equal(h.bytes(), b) }

// Config returns a copy of the call config object.
func (h *Header) Config() json.RawMessage { return bytes.Clone(h.config) }

// System returns the system text ("" when there is none).
func (h *Header) System() string { return h.system }

// Tools returns deep copies of the tools, in header order.
func (h *Header) Tools() []Tool {
	out := make([]Tool, len(h.tools))
	for i, t := range h.tools {
		out[i] = t.clone()
	}
	return out
}

// ToolNames returns the tool names, in header order.
func (h *Header) ToolNames() []string {
	out := make([]string, len(h.tools))
	for i, t := range h.tools {
		out[i] = t.tool.Name
	}
	return out
}

// ToolJSON returns a copy of the canonical bytes of the i-th tool.
func (h *Header) ToolJSON(i int) []byte { return h.tools[i].json() }

// NumTools returns the number of tools.
func (h *Header) NumTools() int { return len(h.tools) }

// Deps returns a copy of the tools' declared dependencies (harness
// metadata, not part of the header's bytes).
func (h *Header) Deps() Deps {
	out := make(Deps, len(h.deps))
	for k, v := range h.deps {
		out[k] = slices.Clone(v)
	}
	return out
}

// Offers reports whether the header holds a tool of that name. It reads
// the list, which costs less than an index for the few calls of a step.
func (h *Header) Offers(name string) bool {
	for _, t := range h.tools {
		if t.tool.Name == name {
			return true
		}
	}
	return false
}

// Idempotent reports whether a tool of that name is declared idempotent.
func (h *Header) Idempotent(name string) bool { return h.idempotent[name] }
