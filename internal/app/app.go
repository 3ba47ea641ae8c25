// Package app holds the two shipped app compositions of the reference agent,
// cli and acp. Each is built from an app config row and forwards the row's
// persona, model and toolOrder to the agent core, which forwards them to the
// system-prompt service; an absent toolOrder stays absent on the way and an
// empty one fails construction.
package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// Row is one app config row, as stored in an app's configuration file.
type Row struct {
	Persona   string              `json:"persona,omitempty"`
	Model     string              `json:"model,omitempty"`
	ToolOrder assembler.ToolOrder `json:"toolOrder,omitzero"`
	// DependencyPolicy is "reorder" (default) or "reject".
	DependencyPolicy string `json:"dependencyPolicy,omitempty"`
}

// DecodeRow reads a row strictly: the row is one JSON object; unknown
// members, members spelled in another case and members given twice are
// errors, and so is anything after the object.
func DecodeRow(b []byte) (Row, error) {
	var r Row
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Row{}, fmt.Errorf("app config row: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Row{}, errors.New("app config row: data after the row object")
	}
	// encoding/json matches member names case-insensitively and lets a
	// repeated member override an earlier one ({"toolOrder":[…],
	// "toolOrder":null} would silently be absent): check the spelling and
	// uniqueness of every member.
	root := gjson.ParseBytes(b)
	if !root.IsObject() {
		return Row{}, errors.New("app config row: not a JSON object")
	}
	var bad error
	seen := make(map[string]bool, len(rowMembers))
	root.ForEach(func(k, _ gjson.Result) bool {
		name := k.String()
		switch {
		case !slices.Contains(rowMembers, name):
			bad = fmt.Errorf("app config row: unknown member %q (members: %s; names are case-sensitive)", name, strings.Join(rowMembers, ", "))
		case seen[name]:
			bad = fmt.Errorf("app config row: member %q given twice", name)
		}
		seen[name] = true
		return bad == nil
	})
	if bad != nil {
		return Row{}, bad
	}
	return r, nil
}

// rowMembers are the JSON member names of a Row, from its field tags.
var rowMembers = func() []string {
	var names []string
	rt := reflect.TypeFor[Row]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		names = append(names, name)
	}
	return names
}()

// core converts a row into the agent core's config. It is the single place
// where the row's fields cross into the core.
func (r Row) core() agent.Config {
	return agent.Config{Persona: r.Persona, Model: r.Model, ToolOrder: r.ToolOrder, DependencyPolicy: r.DependencyPolicy}
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
