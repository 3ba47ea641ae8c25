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
// server often share a schema) share the work of parsing it. Its zero
// value is ready to use; it is not safe for concurrent use.
type Canonicalizer struct {
	params map[string][]byte // parameters text -> canonical form
}

// NewProvider is [NewProvider], with c's memory of parameters texts.
func (c *Canonicalizer) NewProvider(name string, tools ...Tool) (*Provider, error) {
	if name == "" {
		return nil, errors.New("provider with an empty name")
	}
	p := &Provider{name: name, tools: make([]*canonicalTool, len(tools))}
	cs := make([]canonicalTool, len(tools)) // one allocation for all
	for i, t := range tools {
		var err error
		if cs[i], err = c.canonicalize(t, name); err != nil {
			return nil, fmt.Errorf("provider %q: %w", name, err)
		}
		p.tools[i] = &cs[i]
	}
	return p, nil
}

// canonicalize is canonicalize with c's memory (none when c is nil).
func (c *Canonicalizer) canonicalize(t Tool, provider string) (canonicalTool, error) {
	if t.Name == "" {
		return canonicalTool{}, errors.New("tool with an empty name")
	}
	t.DependsOn = slices.Clone(t.DependsOn)
	params := t.Parameters
	t.Parameters = nil
	b := make([]byte, 0, len(`{"name":,"description":,"parameters":}`)+len(t.Name)+len(t.Description)+len(params)+8)
	b = appendToolJSON(b, t)
	if len(params) > 0 {
		b = append(b[:len(b)-1], `,"parameters":`...) // reopen the object
		start := len(b)
		if known, ok := c.known(params); ok {
			b = append(b, known...)
		} else {
			var err error
			if b, err = canon.Compact(b, params); err != nil {
				return canonicalTool{}, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
			}
			c.remember(params, b[start:len(b):len(b)])
		}
		end := len(b)
		b = append(b, '}')
		t.Parameters = b[start:end:end]
	}
	return canonicalTool{tool: t, bytes: b, provider: provider}, nil
}

func (c *Canonicalizer) known(params []byte) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	b, ok := c.params[string(params)]
	return b, ok
}

// remember keeps the canonical form of params. canonical is not copied:
// it lies in a tool's bytes, which nothing writes once they are made,
// and its capacity ends where it does, so an append to it copies.
func (c *Canonicalizer) remember(params, canonical []byte) {
	if c == nil {
		return
	}
	if c.params == nil {
		c.params = map[string][]byte{}
	}
	c.params[string(params)] = canonical
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
