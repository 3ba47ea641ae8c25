// Package app holds the two shipped app compositions of the reference agent,
// cli and acp. Each is built from an app config row and forwards the row's
// persona, model and toolOrder to the agent core, which forwards them to the
// system-prompt service; an absent toolOrder stays absent on the way and an
// empty one fails construction.
package app

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

// Row is one app config row, as stored in an app's configuration file.
type Row struct {
	Persona   string              `json:"persona,omitempty"`
	Model     string              `json:"model,omitempty"`
	ToolOrder assembler.ToolOrder `json:"toolOrder,omitzero"`
}

// DecodeRow reads a row strictly: unknown members are errors.
func DecodeRow(b []byte) (Row, error) {
	var r Row
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Row{}, fmt.Errorf("app config row: %w", err)
	}
	return r, nil
}

// core converts a row into the agent core's config. It is the single place
// where the row's fields cross into the core.
func (r Row) core() agent.Config {
	return agent.Config{Persona: r.Persona, Model: r.Model, ToolOrder: r.ToolOrder}
}

// CLI composes the command-line app: the agent core driven by a terminal.
func CLI(r Row, opts agent.Options) (*agent.Agent, error) {
	a, err := agent.New(r.core(), opts)
	if err != nil {
		return nil, fmt.Errorf("cli app: %w", err)
	}
	return a, nil
}

// ACP composes the Agent Client Protocol app: the agent core driven by an
// editor over ACP. Its row arrives in the session/new parameters.
func ACP(r Row, opts agent.Options) (*agent.Agent, error) {
	a, err := agent.New(r.core(), opts)
	if err != nil {
		return nil, fmt.Errorf("acp app: %w", err)
	}
	return a, nil
}
