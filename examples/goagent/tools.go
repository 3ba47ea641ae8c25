package goagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// Tool is a tool the agent offers to the model, with its implementation.
type Tool struct {
	// Name is what the model calls it by.
	Name string
	// Description tells the model when to use it.
	Description string
	// Properties is the JSON schema of each argument, by argument name.
	// A map, because the SDKs encode map keys sorted: the schema's bytes
	// do not depend on how it was built.
	Properties map[string]any
	// Required lists the arguments the model must give.
	Required []string
	// Run runs the tool on the model's JSON arguments and returns what
	// is sent back as its result. An error is sent back too, as the
	// result's text: the model may retry with better arguments.
	Run func(args json.RawMessage) (string, error)
}

// Schema is the tool's input schema as a JSON object value.
func (t Tool) Schema() map[string]any {
	s := map[string]any{"type": "object", "properties": t.Properties}
	if len(t.Required) > 0 {
		s["required"] = t.Required
	}
	return s
}

// Order says in which order [Registry.List] returns the tools.
type Order string

// The orders of the tool list.
const (
	// OrderSorted lists the tools by name: the same list on every run.
	OrderSorted Order = "sorted"
	// OrderMap lists them in Go map iteration order, which the runtime
	// randomises: the tool list, and so the request header, changes
	// from run to run. It is the bug the repeat pass catches.
	OrderMap Order = "map"
)

// Registry holds the agent's tools by name.
type Registry struct {
	tools map[string]Tool
}

// NewRegistry returns a registry holding the agent's built-in tools.
func NewRegistry() *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range builtinTools() {
		if err := r.Register(t); err != nil {
			panic(err) // the built-in names are distinct; a clash is a bug here
		}
	}
	return r
}

// Register adds a tool; a second tool of the same name is an error, since
// the model could not tell them apart.
func (r *Registry) Register(t Tool) error {
	if t.Name == "" || t.Run == nil {
		return errors.New("goagent: a tool needs a name and a Run function")
	}
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("goagent: tool %q is registered twice", t.Name)
	}
	r.tools[t.Name] = t
	return nil
}

// Lookup returns the tool of that name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	t, ok := r.tools[name]
	return t, ok
}

// List returns every tool, in the order o asks for.
func (r *Registry) List(o Order) []Tool {
	out := make([]Tool, 0, len(r.tools))
	// Ranging over the map is the whole bug of OrderMap: the runtime
	// starts each iteration at a random position.
	for _, t := range r.tools {
		out = append(out, t)
	}
	if o != OrderMap {
		slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// call runs the tool a model's call names and returns the text sent back
// as its result, and whether it is an error.
func (r *Registry) call(c toolCall) (string, bool) {
	t, ok := r.tools[c.Name]
	if !ok {
		return fmt.Sprintf("error: there is no tool %q", c.Name), true
	}
	out, err := t.Run(c.Args)
	if err != nil {
		return "error: " + err.Error(), true
	}
	return out, false
}

// decodeArgs decodes a call's arguments into v; an empty argument string
// (the OpenAI formats allow it) means no arguments.
func decodeArgs(args json.RawMessage, v any) error {
	if len(strings.TrimSpace(string(args))) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		return fmt.Errorf("arguments %.80s: %w", args, err)
	}
	return nil
}

// builtinTools returns the agent's tools, each a fresh value (no state is
// shared between runs).
func builtinTools() []Tool {
	// The data the tools answer from: fixed, so every run answers alike,
	// and local, so nothing is shared between registries.
	weatherByCity := map[string]struct {
		celsius float64
		sky     string
	}{
		"berlin": {9, "overcast"},
		"lisbon": {21, "sunny"},
		"oslo":   {12, "clear"},
		"tokyo":  {18, "light rain"},
	}
	zoneByCity := map[string]string{
		"berlin": "Europe/Berlin (UTC+01:00)",
		"lisbon": "Europe/Lisbon (UTC+00:00)",
		"oslo":   "Europe/Oslo (UTC+01:00)",
		"tokyo":  "Asia/Tokyo (UTC+09:00)",
	}
	// eurPer is the value of one unit of each currency in euros.
	eurPer := map[string]float64{"EUR": 1, "USD": 0.92, "GBP": 1.17, "JPY": 0.0061, "NOK": 0.085}
	docs := []struct{ title, text string }{
		{"Runbook: rotating API keys", "Rotate provider API keys every 90 days; revoke the old key after the deploy."},
		{"Runbook: on-call handover", "Hand over open incidents and pending tickets at 09:00 local time."},
		{"Travel policy", "Book economy for flights under six hours; file expenses within 30 days."},
		{"Incident severity levels", "SEV1 is a full outage, SEV2 a degraded service, SEV3 a minor issue."},
	}

	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return []Tool{
		{
			Name:        "get_weather",
			Description: "Current weather for a city.",
			Properties: map[string]any{
				"city": str("City name, e.g. Oslo"),
				"unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}},
			},
			Required: []string{"city"},
			Run: func(raw json.RawMessage) (string, error) {
				var a struct{ City, Unit string }
				if err := decodeArgs(raw, &a); err != nil {
					return "", err
				}
				w, ok := weatherByCity[strings.ToLower(a.City)]
				if !ok {
					return "", fmt.Errorf("no weather station for %q", a.City)
				}
				if a.Unit == "fahrenheit" {
					return fmt.Sprintf("%s: %g °F, %s", a.City, w.celsius*9/5+32, w.sky), nil
				}
				return fmt.Sprintf("%s: %g °C, %s", a.City, w.celsius, w.sky), nil
			},
		},
		{
			Name:        "get_timezone",
			Description: "The time zone of a city and its offset from UTC.",
			Properties:  map[string]any{"city": str("City name")},
			Required:    []string{"city"},
			Run: func(raw json.RawMessage) (string, error) {
				var a struct{ City string }
				if err := decodeArgs(raw, &a); err != nil {
					return "", err
				}
				z, ok := zoneByCity[strings.ToLower(a.City)]
				if !ok {
					return "", fmt.Errorf("unknown city %q", a.City)
				}
				return z, nil
			},
		},
		{
			Name:        "convert_currency",
			Description: "Convert an amount between currencies at today's reference rate.",
			Properties: map[string]any{
				"amount": map[string]any{"type": "number"},
				"from":   str("ISO 4217 code, e.g. EUR"),
				"to":     str("ISO 4217 code, e.g. NOK"),
			},
			Required: []string{"amount", "from", "to"},
			Run: func(raw json.RawMessage) (string, error) {
				var a struct {
					Amount   float64
					From, To string
				}
				if err := decodeArgs(raw, &a); err != nil {
					return "", err
				}
				from, ok1 := eurPer[strings.ToUpper(a.From)]
				to, ok2 := eurPer[strings.ToUpper(a.To)]
				if !ok1 || !ok2 {
					return "", fmt.Errorf("no rate for %s to %s", a.From, a.To)
				}
				return fmt.Sprintf("%.2f %s = %.2f %s", a.Amount, strings.ToUpper(a.From), a.Amount*from/to, strings.ToUpper(a.To)), nil
			},
		},
		{
			Name:        "search_docs",
			Description: "Search the team's runbooks and policies; returns matching titles with a summary.",
			Properties: map[string]any{
				"query": str("Words to look for"),
				"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": 5},
			},
			Required: []string{"query"},
			Run: func(raw json.RawMessage) (string, error) {
				var a struct {
					Query string
					Limit int
				}
				if err := decodeArgs(raw, &a); err != nil {
					return "", err
				}
				if a.Limit <= 0 {
					a.Limit = 3
				}
				var hits []string
				for _, d := range docs {
					if len(hits) == a.Limit {
						break
					}
					for _, w := range strings.Fields(strings.ToLower(a.Query)) {
						if strings.Contains(strings.ToLower(d.title+" "+d.text), w) {
							hits = append(hits, d.title+": "+d.text)
							break
						}
					}
				}
				if len(hits) == 0 {
					return fmt.Sprintf("no document matches %q", a.Query), nil
				}
				return strings.Join(hits, "\n"), nil
			},
		},
		{
			Name:        "create_ticket",
			Description: "Open a ticket in the operations queue; returns its id.",
			Properties: map[string]any{
				"title":    str("One-line summary"),
				"priority": map[string]any{"type": "string", "enum": []string{"low", "normal", "high"}},
			},
			Required: []string{"title"},
			Run: func(raw json.RawMessage) (string, error) {
				var a struct{ Title, Priority string }
				if err := decodeArgs(raw, &a); err != nil {
					return "", err
				}
				if strings.TrimSpace(a.Title) == "" {
					return "", errors.New("a ticket needs a title")
				}
				if a.Priority == "" {
					a.Priority = "normal"
				}
				// The id is a hash of the title, so a rerun files
				// the same ticket id and the conversation repeats.
				h := fnv.New32a()
				h.Write([]byte(a.Title))
				return fmt.Sprintf("created OPS-%04d (%s): %s", h.Sum32()%10000, a.Priority, a.Title), nil
			},
		},
	}
}
