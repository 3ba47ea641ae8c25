package wire

import (
	"fmt"
	"iter"
	"strings"
)

// The body rule: what a provider of each format refuses at the top level
// of a request body, read from each member's name and the first byte of
// its value (its JSON type), never deeper. Two checks read it:
//
//   - the shape ([CheckShape]): the body has one of its format's
//     conversation members, and each member the rule lists has a JSON
//     type the provider takes. `replay diff` holds its inputs to this: an
//     input that breaks it is not a body of that format (a log given with
//     -format, or a mistake).
//   - the request ([CheckRequest], [Parts.Refused]): the shape, and the
//     members the provider requires (model, max_tokens). The fake
//     provider holds every request to this, so that an agent whose body
//     the real API would refuse with a 400 fails in the harness as well.
//
// Nothing a provider takes is refused: an optional member may be null,
// and Gemini's JSON parser takes a single object for a repeated field
// (contents, tools), as clients send. A member is required only where
// every body the real API takes has it: Anthropic's model is not, for a
// body with anthropic_version is the form Amazon Bedrock and Google Vertex
// AI take, with the model in the URL; the Responses API takes a stored
// prompt in place of a model; and the OpenAI Chat format is spoken by
// Azure OpenAI deployments (the model in the URL) and by compatible
// servers that take a body without one, so its model is not required.
var rules = map[Format]*formatRule{
	Anthropic: {
		provider: "Anthropic",
		asks:     []string{"messages"},
		members: []memberRule{
			{name: "messages", kinds: kindArray},
			{name: "system", kinds: kindArray | kindString | kindNull},
			{name: "tools", kinds: kindArray | kindNull},
			{name: "model", kinds: kindString, required: true, unless: "anthropic_version",
				note: " (a body without one has anthropic_version and names its model in the URL, as Amazon Bedrock and Google Vertex AI take it)"},
			{name: "max_tokens", kinds: kindNumber, required: true},
			{name: "anthropic_version", kinds: kindAny},
		},
	},
	OpenAIChat: {
		provider: "OpenAI Chat",
		asks:     []string{"messages"},
		members: []memberRule{
			{name: "messages", kinds: kindArray},
			{name: "tools", kinds: kindArray | kindNull},
			{name: "functions", kinds: kindArray | kindNull},
			{name: "model", kinds: kindString | kindNull},
		},
	},
	OpenAIResponses: {
		provider: "OpenAI Responses",
		asks:     []string{"input", "instructions", "previous_response_id", "conversation", "prompt", "max_output_tokens"},
		members: []memberRule{
			{name: "input", kinds: kindArray | kindString | kindNull},
			{name: "instructions", kinds: kindString | kindNull},
			{name: "tools", kinds: kindArray | kindNull},
			{name: "model", kinds: kindString | kindNull, required: true, unless: "prompt",
				note: " (or a prompt whose stored settings name the model)"},
			{name: "prompt", kinds: kindAny},
		},
	},
	Gemini: {
		provider: "Gemini",
		asks:     []string{"contents"},
		members: []memberRule{
			{name: "contents", kinds: kindArray | kindObject},
			{name: "systemInstruction", kinds: kindObject | kindNull},
			{name: "system_instruction", kinds: kindObject | kindNull},
			{name: "tools", kinds: kindArray | kindObject | kindNull},
		},
	},
}

// formatRule is the body rule of one format.
type formatRule struct {
	provider string       // the provider, as messages name it
	asks     []string     // the conversation members, one of which a body has
	members  []memberRule // at most 32
}

// memberRule is what a provider takes as one top-level member.
type memberRule struct {
	name  string
	kinds kind // the JSON types taken
	// required: a request body has the member, unless it has the member
	// unless; note then says so in the message.
	required     bool
	unless, note string
}

// kind is a set of JSON types, one bit each.
type kind uint8

const (
	kindArray kind = 1 << iota
	kindObject
	kindString
	kindNumber
	kindBool
	kindNull

	kindAny = kindArray | kindObject | kindString | kindNumber | kindBool | kindNull
)

var kindNames = [...]string{"an array", "an object", "a string", "a number", "a boolean", "null"}

// kindOf is the JSON type of the value that begins with byte c.
func kindOf(c byte) kind {
	switch c {
	case '[':
		return kindArray
	case '{':
		return kindObject
	case '"':
		return kindString
	case 't', 'f':
		return kindBool
	case 'n':
		return kindNull
	}
	return kindNumber
}

// String names the types of k: "an array, a string or null".
func (k kind) String() string {
	var names []string
	for i, name := range kindNames {
		if k&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return orList(names, "")
}

// want names the types of k that a message says a provider expects:
// null, which a provider reads as the member left out, is not named.
func (k kind) want() string { return (k &^ kindNull).String() }

// orList joins names as "a, b or c", each quoted with q.
func orList(names []string, q string) string {
	for i, n := range names {
		names[i] = q + n + q
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// A BodyError is what a provider of a request body's format refuses at
// the body's top level: a member of a JSON type it does not take, or a
// member it requires that the body lacks.
type BodyError struct {
	Format Format
	// Member is the member refused or missing; for a body with none of
	// several conversation members (OpenAI Responses), the first of them.
	Member string
	// Got is what the member is: "an object", …, "null" (for a required
	// member that may be null only beside another), or "missing".
	Got string
	// Want is what the provider expects: "an array", "an array or a
	// string", or, for a body with none of several conversation members,
	// "one of them". null, which an optional member may be, is not named.
	Want string
	// Missing lists the conversation members of which the body has none,
	// when the format has several; nil otherwise.
	Missing []string
}

// Error names the member and what the provider expects of it.
func (e *BodyError) Error() string {
	provider := string(e.Format)
	if r := rules[e.Format]; r != nil {
		provider = r.provider
	}
	if len(e.Missing) > 0 {
		return fmt.Sprintf("it has none of the members %s; %s expects one of them", orList(append([]string(nil), e.Missing...), `"`), provider)
	}
	return fmt.Sprintf("member %q is %s; %s expects %s", e.Member, e.Got, provider, e.Want)
}

// bodyCheck applies the rule of a format to a body's top-level members,
// fed one at a time as a scan finds them.
type bodyCheck struct {
	rule  *formatRule
	seen  uint32 // bit i: the body has rule.members[i]
	nulls uint32 // bit i: and it is null, which counts as left out
	asked bool   // the body has one of rule.asks
	bad   int    // 1 + the index in rule.members of the first member of a type not taken
	got   kind   // that member's type
}

func newBodyCheck(f Format) bodyCheck { return bodyCheck{rule: rules[f]} }

// member notes one top-level member: its decoded name and the first byte
// of its value.
func (c *bodyCheck) member(name string, first byte) {
	if c.rule == nil {
		return
	}
	if !c.asked {
		for _, a := range c.rule.asks {
			if a == name {
				c.asked = true
				break
			}
		}
	}
	for i := range c.rule.members {
		m := &c.rule.members[i]
		if m.name != name {
			continue
		}
		c.seen |= 1 << i
		k := kindOf(first)
		if k == kindNull {
			c.nulls |= 1 << i
		}
		if m.kinds&k == 0 && c.bad == 0 {
			c.bad, c.got = i+1, k
		}
		return
	}
}

// err says what the rule refuses in the members noted: a missing
// conversation member, then a member of a type not taken (the first in
// body order), then, when required is set, a missing required member (in
// the rule's order).
func (c *bodyCheck) err(f Format, required bool) error {
	r := c.rule
	if r == nil {
		return fmt.Errorf("unknown wire format %q", f)
	}
	if !c.asked {
		e := &BodyError{Format: f, Member: r.asks[0], Got: "missing"}
		if len(r.asks) > 1 {
			e.Want, e.Missing = "one of them", r.asks
		} else {
			e.Want = r.members[r.index(r.asks[0])].kinds.want()
		}
		return e
	}
	if c.bad > 0 {
		m := r.members[c.bad-1]
		return &BodyError{Format: f, Member: m.name, Got: c.got.String(), Want: m.kinds.want()}
	}
	if !required {
		return nil
	}
	for i, m := range r.members {
		if !m.required || c.has(i) || m.unless != "" && c.has(r.index(m.unless)) {
			continue
		}
		got := "missing"
		if c.seen&(1<<i) != 0 {
			got = "null"
		}
		return &BodyError{Format: f, Member: m.name, Got: got, Want: m.kinds.want() + m.note}
	}
	return nil
}

// has reports whether the body has rule.members[i], not null.
func (c *bodyCheck) has(i int) bool { return (c.seen&^c.nulls)&(1<<i) != 0 }

// index returns the position of member name in the rule.
func (r *formatRule) index(name string) int {
	for i, m := range r.members {
		if m.name == name {
			return i
		}
	}
	panic("wire: no rule for member " + name)
}

// CheckShape returns what a provider of format f refuses in the shape of a
// request body whose top-level members are members, each yielded as its
// decoded name and the first byte of its value: none of the format's
// conversation members, or a member of a JSON type the provider does not
// take (a *[BodyError]); nil when it takes them. See the body rule above
// for what it asks.
func CheckShape(f Format, members iter.Seq2[string, byte]) error {
	return check(f, members, false)
}

// CheckRequest is [CheckShape] that also refuses a body without a member
// the provider requires: model (Anthropic, unless the body has
// anthropic_version; OpenAI Responses, unless it has a prompt) and
// max_tokens (Anthropic).
func CheckRequest(f Format, members iter.Seq2[string, byte]) error {
	return check(f, members, true)
}

// Refusals is a set of formats whose shape check ([CheckShape]) refuses
// a body, one bit per format of [Formats].
type Refusals uint8

// Has reports whether f refuses the body; an unknown format refuses
// every body, as CheckShape says.
func (r Refusals) Has(f Format) bool {
	for i, g := range Formats {
		if g == f {
			return r&(1<<i) != 0
		}
	}
	return true
}

// ShapeRefusals is [CheckShape] in every format at once: it reads a
// body's members once and returns the formats that refuse its shape,
// without saying why (CheckShape in one of them does), so that a reader
// that learns a body's format only later need not read the body again.
func ShapeRefusals(members iter.Seq2[string, byte]) Refusals {
	var cs [len(Formats)]bodyCheck
	for i, f := range Formats {
		cs[i] = newBodyCheck(f)
	}
	for name, first := range members {
		for i := range cs {
			cs[i].member(name, first)
		}
	}
	var r Refusals
	for i := range cs {
		if cs[i].shapeRefused() {
			r |= 1 << i
		}
	}
	return r
}

// shapeRefused reports whether err(f, false) is an error, without making
// it.
func (c *bodyCheck) shapeRefused() bool { return c.rule == nil || !c.asked || c.bad > 0 }

func check(f Format, members iter.Seq2[string, byte], required bool) error {
	c := newBodyCheck(f)
	for name, first := range members {
		c.member(name, first)
	}
	return c.err(f, required)
}

// Refused returns what a provider of the body's format refuses in the
// body split into p, as [CheckRequest] says it; nil when it takes it. The
// split read the members already, so this costs nothing more.
func (p *Parts) Refused() error {
	return p.check.err(p.Format, true)
}
