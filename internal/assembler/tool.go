package assembler

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

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

// canonicalTool is a registered tool with its canonical model-visible bytes.
type canonicalTool struct {
	tool     Tool   // private copy; Parameters canonical
	bytes    []byte // canonical JSON of the model-visible fields
	provider string // who registered it, for messages
}

// canonicalize validates t and computes its canonical bytes. The canonical
// parameters are written straight into those bytes and the tool's
// Parameters is that part of them: one array per tool, both immutable.
func canonicalize(t Tool, provider string) (canonicalTool, error) {
	return (*Canonicalizer)(nil).canonicalize(t, provider)
}

// Canonicalizer makes tools canonical for providers, remembering the
// canonical form of every parameters text it has made canonical: tools
// whose parameters are the same text byte for byte (the tools of one
// server often share a schema) share the work of parsing it. It keeps
// the parameters texts it is given without copying them, so they must not
// change while it is in use (a harness makes a fixture's plugins canonical
// with one, from bytes nothing writes). Its zero value is ready to use; it
// is not safe for concurrent use.
type Canonicalizer struct {
	params map[string][]byte // parameters text (a view) -> canonical form
	arena  []byte            // where canonical forms are written, never rewritten
}

// NewProvider is [NewProvider], with c's memory of parameters texts.
func (c *Canonicalizer) NewProvider(name string, tools ...Tool) (*Provider, error) {
	return c.NewProviderFunc(name, len(tools), func(i int) Tool { return tools[i] })
}

// NewProviderFunc is NewProvider of the n tools tool(0), …, tool(n-1), for
// a caller that holds its tools in another form: it converts them one at
// a time instead of into a slice of its own.
func (c *Canonicalizer) NewProviderFunc(name string, n int, tool func(int) Tool) (*Provider, error) {
	if name == "" {
		return nil, errors.New("provider with an empty name")
	}
	if c == nil {
		c = &Canonicalizer{} // a memory for this provider's tools alone
	}
	// All the tools' canonical bytes go into one array, each tool's cut
	// from it: a provider of hundreds of tools makes them with a few
	// allocations, not one each. A first pass finds every tool's
	// canonical parameters (parsing each distinct text once) and so the
	// array's size, exact unless a name or description needs escapes;
	// the second writes the tools.
	cs := make([]canonicalTool, n) // one allocation for all
	size := 0
	for i := range n {
		t := tool(i)
		if t.Name == "" {
			return nil, fmt.Errorf("provider %q: tool with an empty name", name)
		}
		params, err := c.canonicalParams(t)
		if err != nil {
			return nil, fmt.Errorf("provider %q: %w", name, err)
		}
		cs[i].tool.Parameters = params // for the second pass
		t.Parameters = params
		size += toolSize(t)
	}
	p := &Provider{name: name, tools: make([]*canonicalTool, n)}
	buf := make([]byte, 0, size)
	for i := range n {
		t := tool(i)
		t.Parameters = cs[i].tool.Parameters
		buf, cs[i] = appendTool(buf, t, name)
		p.tools[i] = &cs[i]
	}
	return p, nil
}

// canonicalParams returns the canonical form of t's parameters (nil when it
// has none), from c's memory or made and remembered now (made for this
// call alone when c is nil).
func (c *Canonicalizer) canonicalParams(t Tool) ([]byte, error) {
	if len(t.Parameters) == 0 {
		return nil, nil
	}
	if c == nil {
		b, err := canon.Compact(nil, t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		return b[:len(b):len(b)], nil
	}
	if known, ok := c.params[string(t.Parameters)]; ok {
		return known, nil
	}
	start := len(c.arena)
	arena, err := canon.Compact(c.arena, t.Parameters)
	if err != nil {
		return nil, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
	}
	// What lies in the arena stays as it is: Compact writes past it, or
	// into a new array.
	c.arena = arena
	canonical := arena[start:len(arena):len(arena)]
	if c.params == nil {
		c.params = map[string][]byte{}
	}
	c.params[canon.View(t.Parameters)] = canonical
	return canonical, nil
}

// canonicalize is canonicalize with c's memory (none when c is nil).
func (c *Canonicalizer) canonicalize(t Tool, provider string) (canonicalTool, error) {
	if t.Name == "" {
		return canonicalTool{}, errors.New("tool with an empty name")
	}
	params, err := c.canonicalParams(t)
	if err != nil {
		return canonicalTool{}, err
	}
	t.Parameters = params
	_, ct := appendTool(make([]byte, 0, toolSize(t)), t, provider)
	return ct, nil
}

// appendTool appends the canonical bytes of t, whose Parameters are
// canonical, to buf and returns the registered tool cut from them. What
// lies in buf stays as it is: appends write past it, or into a new array
// (a string that needed escapes).
func appendTool(buf []byte, t Tool, provider string) ([]byte, canonicalTool) {
	start := len(buf)
	buf = appendToolJSON(buf, t)
	// The parameters, when there are some, end just before the closing
	// brace.
	return buf, cut(t, buf, start, len(buf)-1-len(t.Parameters), len(buf)-1, provider)
}

// toolSize is the length of t's canonical bytes once its parameters are
// canonical, unless its name or description needs escapes.
func toolSize(t Tool) int {
	return len(`{"name":"","description":"","parameters":}`) + len(t.Name) + len(t.Description) + len(t.Parameters)
}

// cut makes the registered tool whose canonical bytes are b[start:]: its
// private copy of t has the canonical parameters b[ps:pe] (none when
// ps == pe). Both slices end their capacity where they end, so that an
// append to either copies.
func cut(t Tool, b []byte, start, ps, pe int, provider string) canonicalTool {
	t.DependsOn = slices.Clone(t.DependsOn)
	t.Parameters = nil
	if ps < pe {
		t.Parameters = b[ps:pe:pe]
	}
	return canonicalTool{tool: t, bytes: b[start:len(b):len(b)], provider: provider}
}

// appendToolJSON writes the model-visible fields of t, whose Parameters are
// already canonical.
func appendToolJSON(dst []byte, t Tool) []byte {
	dst = append(dst, `{"name":`...)
	dst = canon.AppendString(dst, t.Name)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = canon.AppendString(dst, t.Description)
	}
	if len(t.Parameters) > 0 {
		dst = append(dst, `,"parameters":`...)
		dst = append(dst, t.Parameters...)
	}
	return append(dst, '}')
}

// Provider is a tool provider whose tools are validated and made canonical
// once, to be registered with [Service.Register] in any number of services
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
