package harness

import (
	"github.com/headergold/headergold/internal/app"
	"github.com/headergold/headergold/internal/assembler"
)

// The public fixture types mirror the internal ones field for field, so
// each converts with a plain type conversion; a field added on one side
// and not the other stops the build here.

// row is the config as the shipped apps read it.
func (c Config) row() app.Row {
	r := app.Row{Persona: c.Persona, Model: c.Model, DependencyPolicy: c.DependencyPolicy}
	if c.ToolOrder != nil {
		r.ToolOrder = assembler.NewToolOrder(c.ToolOrder...)
	}
	return r
}

// internal is the section as the system-prompt service takes it.
func (s Section) internal() assembler.Section { return assembler.Section(s) }

// internal is the tool as the system-prompt service takes it.
func (t Tool) internal() assembler.Tool { return assembler.Tool(t) }
