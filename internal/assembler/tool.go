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
}

// NewProvider is [NewProvider], with c's memory of parameters texts.
func (c *Canonicalizer) NewProvider(name string, tools ...Tool) (*Provider, error) {
	if name == "" {
		return nil, errors.New("provider with an empty name")
	}
	// The tools' canonical bytes are written one after another into a few
	// arrays, each tool's cut from the array it was written into: a
	// provider of hundreds of tools makes them with a few allocations,
	// not one each. A tool's bytes are bounded by its own length, and a
	// pretty-printed schema takes about half of it: an array holds half
	// the bounds of the tools still to write, and the next one is made
	// when a tool's bound does not fit.
	remaining := 0
	for _, t := range tools {
		remaining += toolSize(t)
	}
	p := &Provider{name: name, tools: make([]*canonicalTool, len(tools))}
	cs := make([]canonicalTool, len(tools)) // one allocation for all
	var buf []byte
	for i, t := range tools {
		need := toolSize(t)
		if cap(buf)-len(buf) < need {
			buf = make([]byte, 0, max(need, remaining/2))
		}
		remaining -= need
		start := len(buf)
		var ps, pe int
		var err error
		// What lies in buf stays as it is: appends write past it, or
		// into a new array (a number written longer than the bound).
		if buf, ps, pe, err = c.appendCanonical(buf, t); err != nil {
			return nil, fmt.Errorf("provider %q: %w", name, err)
		}
		cs[i] = cut(t, buf, start, ps, pe, name)
		p.tools[i] = &cs[i]
	}
	return p, nil
}

// toolSize bounds the canonical bytes of t, unless its parameters hold a
// number that JSON.stringify writes longer (1e20), which append then
// makes room for.
func toolSize(t Tool) int {
	return len(`{"name":,"description":,"parameters":}`) + len(t.Name) + len(t.Description) + len(t.Parameters) + 8
}

// canonicalize is canonicalize with c's memory (none when c is nil).
func (c *Canonicalizer) canonicalize(t Tool, provider string) (canonicalTool, error) {
	b, ps, pe, err := c.appendCanonical(make([]byte, 0, toolSize(t)), t)
	if err != nil {
		return canonicalTool{}, err
	}
	return cut(t, b, 0, ps, pe, provider), nil
}

// appendCanonical validates t and appends its canonical bytes to dst,
// returning where its canonical parameters are in them (ps == pe when it
// has none).
func (c *Canonicalizer) appendCanonical(dst []byte, t Tool) (_ []byte, ps, pe int, _ error) {
	if t.Name == "" {
		return dst, 0, 0, errors.New("tool with an empty name")
	}
	params := t.Parameters
	t.Parameters = nil
	dst = appendToolJSON(dst, t)
	if len(params) == 0 {
		return dst, 0, 0, nil
	}
	dst = append(dst[:len(dst)-1], `,"parameters":`...) // reopen the object
	ps = len(dst)
	if known, ok := c.known(params); ok {
		dst = append(dst, known...)
	} else {
		var err error
		if dst, err = canon.Compact(dst, params); err != nil {
			return dst, 0, 0, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		// What lies in dst stays as it is: appends write past it, or
		// into a new array.
		c.remember(params, dst[ps:len(dst):len(dst)])
	}
	pe = len(dst)
	return append(dst, '}'), ps, pe, nil
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

func (c *Canonicalizer) known(params []byte) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	b, ok := c.params[string(params)]
	return b, ok
}

// remember keeps the canonical form of params, under a view of params
// (see [Canonicalizer]). canonical is not copied either: it lies in
// bytes that nothing writes once they are made.
func (c *Canonicalizer) remember(params, canonical []byte) {
	if c == nil {
		return
	}
	if c.params == nil {
		c.params = map[string][]byte{}
	}
	c.params[canon.View(params)] = canonical
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
