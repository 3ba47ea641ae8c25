package assembler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/headergold/headergold/internal/canon"
)

// RestEntry is the reserved toolOrder entry that stands for every registered
// tool the list does not name, in UTF-16 code-unit order of name. No tool may
// carry this name.
const RestEntry = "<unlisted-tools>"

// Config configures a [Service]. It is the system-prompt slice of an app
// config row; the zero value is valid (no persona, lexicographic tool order).
type Config struct {
	// Persona is the text of the "persona" section, which has order 0.
	Persona string `json:"persona,omitempty"`
	// Model is written into the header's call config.
	Model string `json:"model,omitempty"`
	// ToolOrder fixes the model-side tool order. Absent means lexicographic.
	ToolOrder ToolOrder `json:"toolOrder,omitzero"`
}

// ToolOrder is an optional list of tool names. Absent (the zero value, JSON
// null or an omitted key) and present-but-empty ([]) are different states: the
// first orders tools lexicographically, the second is invalid because it has
// no [RestEntry]. Copying a ToolOrder keeps its state.
type ToolOrder struct {
	names   []string
	present bool
}

// NewToolOrder returns a present tool order holding a copy of names.
// NewToolOrder() with no names is present and empty, which [New] rejects.
func NewToolOrder(names ...string) ToolOrder {
	return ToolOrder{names: slices.Clone(names), present: true}
}

// Present reports whether a list was given (even an empty one).
func (o ToolOrder) Present() bool { return o.present }

// IsZero reports whether the order is absent; it makes the json option
// omitzero drop an absent toolOrder.
func (o ToolOrder) IsZero() bool { return !o.present }

// Names returns a copy of the list, or nil when absent.
func (o ToolOrder) Names() []string {
	if !o.present {
		return nil
	}
	return append(make([]string, 0, len(o.names)), o.names...)
}

// String formats the order for messages: "absent" or the JSON list.
func (o ToolOrder) String() string {
	if !o.present {
		return "absent"
	}
	b, _ := o.MarshalJSON()
	return string(b)
}

// MarshalJSON writes null when absent and the list otherwise, each name
// as JSON.stringify writes it: "<unlisted-tools>" reads as written in a
// message, not as "\u003cunlisted-tools\u003e".
func (o ToolOrder) MarshalJSON() ([]byte, error) {
	if !o.present {
		return []byte("null"), nil
	}
	b := []byte{'['}
	for i, name := range o.names {
		if i > 0 {
			b = append(b, ',')
		}
		b = canon.AppendString(b, name)
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads null as absent and a list (even []) as present.
func (o *ToolOrder) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*o = ToolOrder{}
		return nil
	}
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return fmt.Errorf("toolOrder: %w", err)
	}
	*o = ToolOrder{names: append(make([]string, 0, len(names)), names...), present: true}
	return nil
}

// maxQuotedOrder is the longest toolOrder an error message quotes whole.
const maxQuotedOrder = 10

// Validate checks the list's shape: exactly one [RestEntry] and no name
// twice. An absent order is valid.
func (o ToolOrder) Validate() error {
	if !o.present {
		return nil
	}
	rest := -1
	seen := make(map[string]int, len(o.names))
	for i, name := range o.names {
		if name == RestEntry {
			if rest >= 0 {
				return fmt.Errorf("toolOrder: rest entry %q appears twice (positions %d and %d)", RestEntry, rest, i)
			}
			rest = i
			continue
		}
		if name == "" {
			return fmt.Errorf("toolOrder: entry %d is an empty name", i)
		}
		if j, ok := seen[name]; ok {
			return fmt.Errorf("toolOrder: duplicate name %q (positions %d and %d)", name, j, i)
		}
		seen[name] = i
	}
	if rest < 0 {
		// A short list is quoted; a long one (an order generated from a
		// registry) would make a message of thousands of names.
		list := o.String()
		if len(o.names) > maxQuotedOrder {
			list = fmt.Sprintf("the %d names listed", len(o.names))
		}
		return fmt.Errorf("toolOrder: no rest entry %q in %s; add it where unlisted tools belong", RestEntry, list)
	}
	return nil
}
