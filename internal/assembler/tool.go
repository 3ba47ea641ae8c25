package assembler

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/headergold/headergold/internal/canon"
)

// Tool is a tool schema as a provider registers it.
//
// Only Name, Description and Parameters are model-visible; they make the
// tool's canonical bytes {"name":…,"description":…,"parameters":…}, with an
// empty description or absent parameters left out. DependsOn and Idempotent
// are harness metadata and never reach the header.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// DependsOn names tools that must have completed successfully earlier
	// before this one may run.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Idempotent tools called again with the same canonical arguments
	// return their first result instead of running again.
	Idempotent bool `json:"idempotent,omitempty"`
}

// clone returns a deep copy, so neither side can change the other.
func (t Tool) clone() Tool {
	t.Parameters = slices.Clone(t.Parameters)
	t.DependsOn = slices.Clone(t.DependsOn)
	return t
}

// canonicalTool is a registered tool with the parts of its canonical
// model-visible bytes: its name and description (or, in alt, their JSON
// string bodies when they needed escapes) and its canonical parameters,
// which tools of one schema share. A header writes the bytes from the
// parts (appendJSON), so a tool's bytes exist only inside the headers that
// hold it, not once more beside them.
type canonicalTool struct {
	// tool is the tool: a private copy without its parameters, or the
	// caller's own for a tool vouched for (NewProviderFunc), whose
	// parameters are the text as given. Nothing writes to it.
	tool *Tool
	// params is the canonical parameters (nil: none), once ready.
	params []byte
	// alt is nil when the tool's name and description are their own
	// JSON string bodies, as they almost always are: a registered tool
	// of hundreds then holds no more than its fields.
	alt      *altJSON
	provider string // who registered it, for messages
	// deferred, when set, is the batch that sets params and alt the
	// first time the tool's bytes or length are read (ready).
	deferred *deferredBatch
}

// deferredBatch is the canonical work on the tools of one provider that
// its caller vouched for (see [Canonicalizer.NewProviderFunc]), done once,
// by whichever reader of their bytes comes first.
type deferredBatch struct {
	once   sync.Once
	c      *Canonicalizer
	tools  []canonicalTool
	broken string // set by run when a text vouched for is not valid
}

// run makes every deferred tool of the batch canonical, or sets broken.
func (b *deferredBatch) run() {
	b.c.mu.Lock()
	defer b.c.mu.Unlock()
	for i := range b.tools {
		t := &b.tools[i]
		if t.deferred != b {
			continue
		}
		params, err := b.c.canonicalParams(t.tool.Name, t.tool.Parameters)
		if err != nil {
			b.broken = fmt.Sprintf("assembler: provider %q: parameters vouched for are not valid: %v", t.provider, err)
			return
		}
		t.params = params
		t.alt = altOf(t.tool)
	}
}

// ready makes t canonical if its batch was deferred; every read of params
// or alt comes after it. A text vouched for that is not valid JSON (or
// was written to after vouching) is a broken promise, not an input error:
// every read of the batch's tools panics.
func (t *canonicalTool) ready() {
	if b := t.deferred; b != nil {
		b.once.Do(b.run)
		if b.broken != "" {
			panic(b.broken)
		}
	}
}

// altJSON is what a tool's canonical bytes are made of when its own
// strings do not make them.
type altJSON struct {
	// name and description are what canon.AppendString writes between
	// the quotes.
	name, description string
	// raw, when set, is the tool's bytes as a parsed header gave them
	// where they differ from the canonical layout (another member order,
	// an explicit empty description): they alone are the tool's bytes,
	// and name and description are unset.
	raw []byte
}

// newCanonicalTool makes the registered tool of *t, a copy of the caller's
// that it takes over, and params, t's canonical parameters: its own copy
// of DependsOn, and its strings' JSON bodies when they differ from the
// strings.
func newCanonicalTool(t *Tool, params []byte, provider string) canonicalTool {
	t.Parameters = nil // params holds them
	t.DependsOn = slices.Clone(t.DependsOn)
	return canonicalTool{tool: t, params: params, provider: provider, alt: altOf(t)}
}

// altOf returns the JSON string bodies of t's name and description when
// they differ from the strings, or nil.
func altOf(t *Tool) *altJSON {
	// StringBody returns a plain string itself, so the comparisons
	// below compare a string with itself and stop at its pointer.
	if name, description := canon.StringBody(t.Name), canon.StringBody(t.Description); name != t.Name || description != t.Description {
		return &altJSON{name: name, description: description}
	}
	return nil
}

// bodies returns the JSON string bodies of t's name and description;
// only for a tool whose bytes are its parts (raw unset).
func (t *canonicalTool) bodies() (name, description string) {
	t.ready()
	if t.alt != nil {
		return t.alt.name, t.alt.description
	}
	return t.tool.Name, t.tool.Description
}

// raw returns the bytes a parsed header gave t, or nil.
func (t *canonicalTool) raw() []byte {
	t.ready()
	if t.alt != nil {
		return t.alt.raw
	}
	return nil
}

// The canonical layout of a tool's model-visible fields, with an empty
// description and absent parameters left out.
const (
	jsonName        = `{"name":"`
	jsonDescription = `","description":"`
	jsonParameters  = `,"parameters":`
)

// size returns the length of t's canonical bytes.
func (t *canonicalTool) size() int {
	t.ready()
	if raw := t.raw(); raw != nil {
		return len(raw)
	}
	name, description := t.bodies()
	n := len(jsonName) + len(name) + len(`"}`)
	if description != "" {
		n += len(jsonDescription) + len(description)
	}
	if len(t.params) > 0 {
		n += len(jsonParameters) + len(t.params)
	}
	return n
}

// appendJSON appends t's canonical bytes to dst: copies of the parts,
// with no scan of them.
func (t *canonicalTool) appendJSON(dst []byte) []byte {
	t.ready()
	if raw := t.raw(); raw != nil {
		return append(dst, raw...)
	}
	name, description := t.bodies()
	dst = append(dst, jsonName...)
	dst = append(dst, name...)
	if description != "" {
		dst = append(dst, jsonDescription...)
		dst = append(dst, description...)
	}
	dst = append(dst, '"')
	if len(t.params) > 0 {
		dst = append(dst, jsonParameters...)
		dst = append(dst, t.params...)
	}
	return append(dst, '}')
}

// clone returns a deep copy of t's tool, with its canonical parameters.
func (t *canonicalTool) clone() Tool {
	t.ready()
	c := *t.tool
	c.Parameters = slices.Clone(t.params)
	c.DependsOn = slices.Clone(c.DependsOn)
	return c
}

// json returns t's canonical bytes in a new array.
func (t *canonicalTool) json() []byte { return t.appendJSON(make([]byte, 0, t.size())) }

// canonicalize validates t and makes it a registered tool, with its own
// copy of the canonical parameters.
func canonicalize(t Tool, provider string) (canonicalTool, error) {
	if t.Name == "" {
		return canonicalTool{}, errors.New("tool with an empty name")
	}
	params, err := (*Canonicalizer)(nil).canonicalParams(t.Name, t.Parameters)
	if err != nil {
		return canonicalTool{}, err
	}
	return newCanonicalTool(&t, params, provider), nil
}

// Canonicalizer makes tools canonical for providers, remembering the
// canonical form of every parameters text it has made canonical: tools
// whose parameters are the same text byte for byte (the tools of one
// server often share a schema) share the work of parsing it. It keeps
// the parameters texts it is given without copying them, so they must not
// change while it is in use (a harness makes a fixture's plugins canonical
// with one, from bytes nothing writes). Its zero value is ready to use, and
// it is safe for concurrent use.
type Canonicalizer struct {
	// mu guards params and arena: the deferred work of the providers
	// c made runs in whatever goroutine first reads their bytes.
	mu     sync.Mutex
	params map[string][]byte // parameters text (a view) -> canonical form
	arena  []byte            // where canonical forms are written, never rewritten
}

// NewProvider is [NewProvider], with c's memory of parameters texts.
func (c *Canonicalizer) NewProvider(name string, tools ...Tool) (*Provider, error) {
	return c.NewProviderFunc(name, len(tools), func(i int) (*Tool, bool) { return &tools[i], false })
}

// NewProviderFunc is NewProvider of the n tools *tool(0), …, *tool(n-1),
// for a caller that holds its tools in another form: it converts them one
// at a time instead of into a slice of its own, and copies each it does
// not keep (below).
//
// tool also reports whether the caller vouches for the tool: its
// parameters are JSON text that canon accepts (a fixture's, which its
// loader checked), and nothing writes to the tool or its parameters for
// as long as the provider is in use, so that the provider keeps the
// caller's tool instead of a copy. Such a tool is made canonical (its
// parameters compacted, its name and description escaped) only when a
// header's bytes or length are first read, for all the vouched tools of
// the provider at once: a replay that only ever compares headers by their
// parts, as one of a fixture that is not pinned does, never reads them. A
// text that breaks the promise panics then, and at every read after.
func (c *Canonicalizer) NewProviderFunc(name string, n int, tool func(int) (*Tool, bool)) (*Provider, error) {
	if name == "" {
		return nil, errors.New("provider with an empty name")
	}
	if c == nil {
		c = &Canonicalizer{} // a memory for this provider's tools alone
	}
	// The tools go into one array, not an allocation each; tools whose
	// parameters are the same text share the canonical form c made of it.
	cs := make([]canonicalTool, n)
	p := &Provider{name: name, tools: make([]*canonicalTool, n)}
	var (
		batch  *deferredBatch
		copies []Tool // of the tools not vouched for, made on the first
	)
	for i := range n {
		t, vouched := tool(i)
		if t.Name == "" {
			return nil, fmt.Errorf("provider %q: tool with an empty name", name)
		}
		p.tools[i] = &cs[i]
		if vouched {
			if batch == nil {
				batch = &deferredBatch{c: c, tools: cs}
			}
			cs[i] = canonicalTool{tool: t, provider: name, deferred: batch}
			continue
		}
		// Not held while tool runs: it may read a header whose
		// deferred tools c made.
		c.mu.Lock()
		params, err := c.canonicalParams(t.Name, t.Parameters)
		c.mu.Unlock()
		if err != nil {
			return nil, fmt.Errorf("provider %q: %w", name, err)
		}
		if copies == nil {
			copies = make([]Tool, n)
		}
		copies[i] = *t
		cs[i] = newCanonicalTool(&copies[i], params, name)
	}
	return p, nil
}

// canonicalParams returns the canonical form of the parameters text of
// the tool name (nil when it has none), from c's memory or made and
// remembered now (made for this call alone when c is nil); c.mu is held.
func (c *Canonicalizer) canonicalParams(name string, text []byte) ([]byte, error) {
	if len(text) == 0 {
		return nil, nil
	}
	if c == nil {
		b, err := canon.Compact(nil, text)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", name, err)
		}
		return b[:len(b):len(b)], nil
	}
	if known, ok := c.params[string(text)]; ok {
		return known, nil
	}
	start := len(c.arena)
	arena, err := canon.Compact(c.arena, text)
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters: %w", name, err)
	}
	// What lies in the arena stays as it is: Compact writes past it, or
	// into a new array.
	c.arena = arena
	canonical := arena[start:len(arena):len(arena)]
	if c.params == nil {
		c.params = map[string][]byte{}
	}
	c.params[canon.View(text)] = canonical
	return canonical, nil
}

// Provider is a tool provider whose tools are validated and made canonical
// once (tools vouched for to [Canonicalizer.NewProviderFunc], when first
// read), to be registered with [Service.Register] in any number of services
// without doing that work again (a harness registers the same plugins in
// every run of a scenario). It is immutable and safe for concurrent use.
type Provider struct {
	name  string
	tools []*canonicalTool
}

// NewProvider validates and canonicalises tools for the provider name, as
// [Service.AddProvider] does: the tools are copied, so changing them
// afterwards changes nothing, and an empty name, an empty tool name or
// invalid parameters JSON is an error.
func NewProvider(name string, tools ...Tool) (*Provider, error) {
	var c Canonicalizer
	return c.NewProvider(name, tools...)
}

// Name returns the provider's name.
func (p *Provider) Name() string { return p.name }

// Len returns the number of the provider's tools.
func (p *Provider) Len() int { return len(p.tools) }
