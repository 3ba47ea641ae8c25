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

// canonicalize validates t and computes its canonical bytes.
func canonicalize(t Tool, provider string) (canonicalTool, error) {
	if t.Name == "" {
		return canonicalTool{}, errors.New("tool with an empty name")
	}
	t = t.clone()
	if len(t.Parameters) > 0 {
		params, err := canon.Compact(nil, t.Parameters)
		if err != nil {
			return canonicalTool{}, fmt.Errorf("tool %q: parameters: %w", t.Name, err)
		}
		t.Parameters = params
	} else {
		t.Parameters = nil
	}
	return canonicalTool{tool: t, bytes: appendToolJSON(nil, t), provider: provider}, nil
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
