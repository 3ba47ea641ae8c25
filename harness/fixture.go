package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unsafe"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/tidwall/gjson"
)

// namePattern is the rule for fixture names; it is checked before any file
// is read or written, so a name can never reach outside its directory.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// maxNameLen bounds a fixture name: its golden files, and the temp files
// and backups a record writes beside them (.NAME.golden.headergold-tmp-N),
// must fit the 255 bytes a file system allows a file name.
const maxNameLen = 200

// validName reports whether name is a valid fixture name.
func validName(name string) bool { return len(name) <= maxNameLen && namePattern.MatchString(name) }

// nameRule says which names validName accepts, for messages.
func nameRule() string { return fmt.Sprintf("%s, at most %d characters", namePattern, maxNameLen) }

// Fixture is one scenario, as read from fixtures/NAME.json with its
// extends chain resolved.
type Fixture struct {
	// Name is the fixture's file name without .json (fixtures/NAME.json),
	// never read from the JSON; the golden files are named after it.
	Name        string       `json:"-"`
	File        string       `json:"-"` // path it was read from
	Description string       `json:"description"`
	Pin         bool         `json:"pin,omitempty"`
	Extends     string       `json:"extends,omitempty"`
	Config      Config       `json:"config,omitzero"`
	Sections    []Section    `json:"sections,omitempty"`
	Plugins     []Plugin     `json:"plugins,omitempty"`
	Listeners   []ListenerOp `json:"listeners,omitempty"`
	Turns       []Turn       `json:"turns,omitempty"`
	// Agent, Runs, Redact and Replies make a captured scenario (SPEC §6):
	// a real agent run against a fake provider.
	Agent *AgentSpec `json:"agent,omitempty"`
	// Runs is the number of runs of the repeat pass, the first
	// included, whose logs must be byte-identical: nil (no "runs")
	// means DefaultRuns (4), 1 turns the pass off, and 0 or less fails
	// the load. Options.Shuffle < 0 turns it off too.
	Runs       *int           `json:"runs,omitempty"`
	Redact     []Redaction    `json:"redact,omitempty"`
	Replies    []Reply        `json:"replies,omitempty"`
	own        ownEntries     // what this file adds to what it extends
	raw        []byte         // the file's bytes, for error positions
	configKeys map[string]int // config members present in this file
	// pluginFrom and listenerFrom say which file declared each plugin and
	// listener with a registerAt (inherited ones too), for [checkReached].
	pluginFrom, listenerFrom []origin
	// checked holds, by plugin and tool, the parameters texts as decoded
	// from files whose JSON syntax was checked (inherited ones too), for
	// [Fixture.checkedParams]; nil for a plugin without any.
	checked [][]json.RawMessage
}

// checkedParams reports whether params is the text that decoding the
// fixture gave tool k of plugin i: the very bytes, whose syntax the load
// checked as canon checks it, so that making them canonical can wait
// until something reads them. A text put there since is not; no text at
// all needs no check.
func (f *Fixture) checkedParams(i, k int, params json.RawMessage) bool {
	if len(params) == 0 {
		return true
	}
	if i >= len(f.checked) || k >= len(f.checked[i]) {
		return false
	}
	c := f.checked[i][k]
	return len(c) == len(params) && unsafe.SliceData(c) == unsafe.SliceData(params)
}

// ownEntries counts what a fixture adds on top of the fixture it extends.
type ownEntries struct {
	config, sections, plugins, listeners int
}

// Config is a fixture's app config row, as the shipped apps read it.
type Config struct {
	// Persona is the text of the system prompt's first section (the
	// section "persona", order 0).
	Persona string `json:"persona,omitempty"`
	// Model is the model the requests name.
	Model string `json:"model,omitempty"`
	// ToolOrder is the model-side tool order. nil (JSON null, or the
	// member omitted) is absent: tools sort by name in UTF-16 code-unit
	// order. A non-nil list places the tools it names at its positions
	// and every other tool at the one [UnlistedTools] entry it must hold,
	// in code-unit order; an empty non-nil list ([]) is present and
	// invalid, never the same as absent.
	ToolOrder []string `json:"toolOrder,omitzero"`
	// DependencyPolicy is what happens to a batch of tool calls proposed
	// against a dependsOn edge: [PolicyReorder] (the default, "") or
	// [PolicyReject].
	DependencyPolicy string `json:"dependencyPolicy,omitempty"`
}

// UnlistedTools ("<unlisted-tools>") is the rest entry of
// Config.ToolOrder: the position of every registered tool the list does
// not name.
const UnlistedTools = assembler.RestEntry

// Dependency policies of Config.DependencyPolicy.
const (
	// PolicyReorder ("reorder", the default) runs a batch proposed against an edge in the
	// topological order closest to the model's, and logs a tool/plan event.
	PolicyReorder = agent.PolicyReorder
	// PolicyReject ("reject") refuses such a batch, with an error result per call
	// naming the edge.
	PolicyReject = agent.PolicyReject
)

// Section is a prompt section. Sections are sorted by (Order, ID) and
// joined into the system text with a blank line between them.
type Section struct {
	ID    string `json:"id"`
	Order int    `json:"order"`
	Text  string `json:"text"`
}

// Tool is a tool as a plugin registers it. Name, Description and
// Parameters reach the header; DependsOn and Idempotent are harness
// metadata and never do.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the tool's JSON Schema, a JSON object, kept in the key
	// order written.
	Parameters json.RawMessage `json:"parameters,omitempty"`
	// DependsOn names tools that must have completed successfully earlier
	// before this one may run.
	DependsOn []string `json:"dependsOn,omitempty"`
	// Idempotent tools called again with the same arguments (key order
	// ignored) return their first result instead of running again.
	Idempotent bool `json:"idempotent,omitempty"`
}

// Plugin is a tool provider. RegisterAt delays its registration to just
// before the given step; without it, it registers before the first turn.
type Plugin struct {
	Name       string   `json:"name"`
	RegisterAt *StepRef `json:"registerAt,omitempty"`
	Tools      []Tool   `json:"tools,omitempty"`
}

// StepRef names a step of a turn, both counted from 1.
type StepRef struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

// ListenerOp is a declarative system-prompt/assemble listener.
//
//	{"op":"addTool","schema":{tool},"at":N}   insert (at defaults to the end)
//	{"op":"removeTool","tool":NAME}           remove every tool of that name
//	{"op":"moveToEnd","tool":NAME}            move every tool of that name last
//	{"op":"reverse"}                          reverse the tool list
//	{"op":"appendSection","section":{section}} add a section at the end
//
// RegisterAt, as for plugins, delays a listener to just before that step;
// listeners otherwise register in the listed order before the first turn.
type ListenerOp struct {
	Op         string   `json:"op"`
	RegisterAt *StepRef `json:"registerAt,omitempty"`
	Tool       string   `json:"tool,omitempty"`
	Schema     *Tool    `json:"schema,omitempty"`
	At         *int     `json:"at,omitempty"`
	Section    *Section `json:"section,omitempty"`
}

// Turn is one user turn with the model's scripted replies and the scripted
// results of the tool calls they make. Resume starts a new loop instance on
// the existing log before the turn.
type Turn struct {
	User    string  `json:"user"`
	Replies []Reply `json:"replies,omitempty"`
	// ToolResults are the results of the tool calls of Replies, keyed by
	// call id (ToolCall.ID), not tool name; an id that no reply of the
	// turn calls fails the load.
	ToolResults map[string]ToolResult `json:"toolResults,omitempty"`
	Resume      bool                  `json:"resume,omitempty"`
}

// ToolResult is a scripted tool result: a JSON string (success) or
// {"output": string, "error": bool}.
type ToolResult struct {
	Output string `json:"output"`
	Error  bool   `json:"error,omitempty"`
}

// UnmarshalJSON accepts a plain string as a successful result.
func (r *ToolResult) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*r = ToolResult{}
		return json.Unmarshal(b, &r.Output)
	}
	type plain ToolResult
	return json.Unmarshal(b, (*plain)(r))
}

// FixtureError reports an invalid fixture: the file, the position and JSON
// path of the problem where known, and what is wrong.
type FixtureError struct {
	File   string
	Line   int    // 0 when unknown
	Column int    // 0 when unknown
	Path   string // JSON path of the offending member, "" for the whole file
	Msg    string
}

// Error formats the error as FILE:LINE:COL: PATH: MSG.
func (e *FixtureError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// errAt builds a FixtureError positioned at the member at path in raw.
func errAt(file string, raw []byte, path, format string, args ...any) *FixtureError {
	e := &FixtureError{File: file, Path: path, Msg: fmt.Sprintf(format, args...)}
	if path != "" {
		if v := gjson.GetBytes(raw, gjsonPath(path)); v.Exists() && v.Index > 0 {
			e.Line, e.Column = canon.Position(raw, v.Index)
		}
	}
	return e
}

// gjsonPath turns a display path like plugins[0].tools[2].name into gjson's
// plugins.0.tools.2.name.
func gjsonPath(p string) string {
	p = strings.ReplaceAll(p, "[", ".")
	return strings.ReplaceAll(p, "]", "")
}

// decodeFixture reads one fixture file strictly, without resolving extends.
func decodeFixture(file string, raw []byte) (*Fixture, error) {
	if bytes.HasPrefix(raw, []byte("\xef\xbb\xbf")) {
		// Some editors write one; say what to change, not which byte.
		return nil, &FixtureError{File: file, Line: 1, Column: 1, Msg: "JSON syntax error: the file starts with a UTF-8 byte-order mark, which JSON does not allow: save it without one"}
	}
	counts, err := walkFixture(raw, fixtureShape)
	if err != nil {
		if err.syntax {
			// canon's parser words the error as every other syntax error
			// of the project; it agrees with the walker on where it is.
			var se *canon.SyntaxError
			if _, cerr := canon.Compact(nil, raw); errors.As(cerr, &se) {
				return nil, &FixtureError{File: file, Line: se.Line, Column: se.Column, Msg: "JSON syntax error: " + se.Msg}
			}
			line, col := canon.Position(raw, err.offset)
			return nil, &FixtureError{File: file, Line: line, Column: col, Msg: "JSON syntax error: " + err.msg}
		}
		line, col := canon.Position(raw, err.offset)
		msg := err.msg
		if isTopLevel(err.path) && strings.HasPrefix(msg, "unknown field") && gjson.GetBytes(raw, "agent").Exists() {
			// The walker read the key before it could know the fixture
			// is a captured scenario; list only what one may hold.
			msg = fmt.Sprintf("unknown field %q (known in a captured scenario: %s)", err.path, capturedFields())
		}
		return nil, &FixtureError{File: file, Line: line, Column: col, Path: err.path, Msg: msg}
	}
	f := &Fixture{File: file, raw: raw}
	presize(f, counts)
	if err := json.Unmarshal(raw, f); err != nil {
		// checkFixture has checked every type the decoder reads; this is
		// a disagreement between the two, reported as the decoder saw it.
		return nil, &FixtureError{File: file, Msg: err.Error()}
	}
	// The top-level members, found in one pass: a lookup of a member the
	// file lacks reads the whole file, and validation looks up several.
	top := topMembers(raw)
	f.configKeys = map[string]int{}
	top["config"].ForEach(func(k, _ gjson.Result) bool {
		f.configKeys[k.String()]++
		return true
	})
	f.own = ownEntries{config: len(f.configKeys), sections: len(f.Sections), plugins: len(f.Plugins), listeners: len(f.Listeners)}
	f.pluginFrom = make([]origin, len(f.Plugins))
	for i, p := range f.Plugins {
		if p.RegisterAt != nil {
			f.pluginFrom[i] = origin{file, fmt.Sprintf("plugins[%d]", i), raw}
		}
	}
	f.listenerFrom = make([]origin, len(f.Listeners))
	for i := range f.Listeners {
		f.listenerFrom[i] = origin{file, fmt.Sprintf("listeners[%d]", i), raw}
	}
	f.checked = make([][]json.RawMessage, len(f.Plugins))
	for i, p := range f.Plugins {
		if slices.ContainsFunc(p.Tools, func(t Tool) bool { return len(t.Parameters) > 0 }) {
			f.checked[i] = make([]json.RawMessage, len(p.Tools))
			for k, t := range p.Tools {
				f.checked[i][k] = t.Parameters
			}
		}
	}
	return f, f.validateOwn(top)
}

// presize gives each slice of f the length of its array in the file, so
// the decoder fills it in place instead of growing it element by element
// (a growing slice of small tools costs several times the file).
func presize(f *Fixture, counts []arrayCount) {
	for _, c := range counts {
		switch i, j := c.at[0], c.at[1]; c.slot {
		case "sections":
			f.Sections = make([]Section, c.n)
		case "plugins":
			f.Plugins = make([]Plugin, c.n)
		case "plugins.tools":
			f.Plugins[i].Tools = make([]Tool, c.n)
		case "listeners":
			f.Listeners = make([]ListenerOp, c.n)
		case "turns":
			f.Turns = make([]Turn, c.n)
		case "turns.replies":
			f.Turns[i].Replies = make([]Reply, c.n)
		case "turns.replies.toolCalls":
			f.Turns[i].Replies[j].ToolCalls = make([]ToolCall, c.n)
		case "replies":
			f.Replies = make([]Reply, c.n)
		case "replies.toolCalls":
			f.Replies[i].ToolCalls = make([]ToolCall, c.n)
		}
	}
}

// topMembers returns the top-level members of the JSON object raw by key
// (the strict decoding has refused duplicate keys).
func topMembers(raw []byte) map[string]gjson.Result {
	top := map[string]gjson.Result{}
	gjson.ParseBytes(raw).ForEach(func(k, v gjson.Result) bool {
		top[k.String()] = v
		return true
	})
	return top
}

// validateOwn checks the rules that need no other fixture; top holds the
// file's top-level members (topMembers).
func (f *Fixture) validateOwn(top map[string]gjson.Result) error {
	bad := func(path, format string, args ...any) error {
		return errAt(f.File, f.raw, path, format, args...)
	}
	if strings.TrimSpace(f.Description) == "" {
		return bad("description", "a one-line description is required")
	}
	if strings.ContainsAny(f.Description, "\r\n") {
		return bad("description", "description must be one line")
	}
	if top["extends"].Exists() && !validName(f.Extends) {
		// "" included: an absent extends is one left out.
		return bad("extends", "%q is not a fixture name (want %s; leave extends out to extend nothing)", f.Extends, nameRule())
	}
	if err := f.Config.row().ToolOrder.Validate(); err != nil {
		return bad("config.toolOrder", "%v", err)
	}
	if !agent.ValidPolicy(f.Config.DependencyPolicy) || top["config"].Get("dependencyPolicy").Exists() && f.Config.DependencyPolicy == "" {
		// An empty policy is the loop's default, not a name a fixture
		// may write: in a fixture that extends one with reject, it
		// would undo it without saying so.
		return bad("config.dependencyPolicy", "unknown policy %q (want %q or %q)", f.Config.DependencyPolicy, agent.PolicyReorder, agent.PolicyReject)
	}
	// Where each id and plugin name first appears: a lookup each, where
	// comparing every entry with those before it grew with the square of
	// the entries.
	sectionAt := make(map[string]int, len(f.Sections))
	for i, s := range f.Sections {
		p := fmt.Sprintf("sections[%d]", i)
		if s.ID == "" {
			return bad(p, "section needs an id")
		}
		if s.ID == assembler.PersonaSection {
			return bad(p+".id", "section id %q is reserved for config.persona", s.ID)
		}
		if j, ok := sectionAt[s.ID]; ok {
			return bad(p+".id", "section %q is also sections[%d]", s.ID, j)
		}
		sectionAt[s.ID] = i
	}
	pluginAt := make(map[string]int, len(f.Plugins))
	for i, p := range f.Plugins {
		path := fmt.Sprintf("plugins[%d]", i)
		if p.Name == "" {
			return bad(path, "plugin needs a name")
		}
		if j, ok := pluginAt[p.Name]; ok {
			return bad(path+".name", "plugin %q is also plugins[%d]", p.Name, j)
		}
		pluginAt[p.Name] = i
		if r := p.RegisterAt; r != nil && (r.Turn < 1 || r.Step < 1) {
			return bad(path+".registerAt", "turn and step count from 1")
		}
		for j, t := range p.Tools {
			if t.Name == "" {
				return bad(fmt.Sprintf("%s.tools[%d]", path, j), "tool needs a name")
			}
		}
	}
	for i, l := range f.Listeners {
		if err := l.validate(); err != nil {
			return bad(fmt.Sprintf("listeners[%d]", i), "%v", err)
		}
		if r := l.RegisterAt; r != nil && (r.Turn < 1 || r.Step < 1) {
			return bad(fmt.Sprintf("listeners[%d].registerAt", i), "turn and step count from 1")
		}
	}
	if err := f.validateCaptured(top); err != nil {
		return err
	}
	if len(f.Turns) == 0 && !f.Captured() {
		at := ""
		if top["turns"].Exists() {
			at = "turns" // an empty list
		}
		return bad(at, "a fixture needs at least one turn, or an \"agent\" to capture")
	}
	// The turns as the file holds them, found once: a lookup of turn i
	// from the top of the file would read the turns before it, and the
	// whole check would grow with the square of the turns.
	rawTurns := top["turns"].Array()
	for i, t := range f.Turns {
		path := fmt.Sprintf("turns[%d]", i)
		if t.Resume && i == 0 {
			return bad(path+".resume", "the first turn has no log to resume")
		}
		called := map[string]string{} // call id -> where
		for j, r := range t.Replies {
			rp := fmt.Sprintf("%s.replies[%d]", path, j)
			if j > 0 && len(t.Replies[j-1].ToolCalls) == 0 {
				return bad(rp, "this reply is never played: replies[%d] has no tool calls, so the turn ends with it", j-1)
			}
			for k, c := range r.ToolCalls {
				cp := fmt.Sprintf("%s.toolCalls[%d]", rp, k)
				if c.ID == "" || c.Name == "" {
					return bad(cp, "a tool call needs an id and a name")
				}
				if len(c.Arguments) > 0 && !canon.Valid(c.Arguments) {
					return bad(cp+".arguments", "invalid JSON")
				}
				if other, dup := called[c.ID]; dup {
					// Results are scripted by call id: two calls of one id
					// would silently share one.
					return bad(cp+".id", "call id %q is also %s; call ids are unique within a turn", c.ID, other)
				}
				called[c.ID] = cp
			}
		}
		if err := checkPlayable(t.Replies, path, bad); err != nil {
			return err
		}
		var err error
		// checkFixture let only an object through (null is refused
		// there); a non-object would call back once with an empty key.
		if i >= len(rawTurns) {
			continue
		}
		results := rawTurns[i].Get("toolResults")
		if !results.IsObject() {
			continue
		}
		results.ForEach(func(k, _ gjson.Result) bool {
			if id := k.String(); called[id] == "" {
				line, col := canon.Position(f.raw, k.Index)
				err = &FixtureError{File: f.File, Line: line, Column: col, Path: path + ".toolResults." + id,
					Msg: fmt.Sprintf("result for %q, a call that no reply of this turn makes", id)}
			}
			return err == nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// loadFixture reads NAME.json from dir and resolves its extends
// chain. The name is checked before any file is opened.
// Only a regular file of at most DefaultMaxFileSize bytes is read.
func loadFixture(dir, name string) (*Fixture, error) {
	return loadChain(dir, name, nil, DefaultMaxFileSize)
}

func loadChain(dir, name string, seen []string, limit ByteSize) (*Fixture, error) {
	file := filepath.Join(dir, name+".json")
	if !validName(name) {
		return nil, &FixtureError{File: file, Msg: fmt.Sprintf("%q is not a fixture name (want %s)", name, nameRule())}
	}
	raw, err := readRegular(file, limit)
	if err != nil {
		return nil, &FixtureError{File: file, Msg: unwrapPath(err).Error()}
	}
	f, err := decodeFixture(file, raw)
	if err != nil {
		return nil, err
	}
	f.Name = name
	if f.Extends == "" {
		return f, f.checkListenerTools()
	}
	chain := append(slices.Clone(seen), name)
	if slices.Contains(chain, f.Extends) {
		// Said at the extends that closes the cycle, where it is read.
		return nil, errAt(file, raw, "extends", "extends cycle: %s", strings.Join(append(chain, f.Extends), " -> "))
	}
	parent, err := loadChain(dir, f.Extends, chain, limit)
	if err != nil {
		var fe *FixtureError
		if errors.As(err, &fe) && len(seen) == 0 && fe.File != file {
			return nil, errAt(file, raw, "extends", "%v", err)
		}
		return nil, err
	}
	if parent.Captured() {
		// Its headers are the real agent's, not made of config, sections,
		// plugins and listeners: there is nothing to inherit.
		return nil, errAt(file, raw, "extends", "%q is a captured scenario (with \"agent\"); a captured scenario cannot be extended", f.Extends)
	}
	if f, err = f.inherit(parent); err != nil {
		return nil, err
	}
	return f, f.checkListenerTools()
}

// checkListenerTools fails a removeTool or moveToEnd listener that names a
// tool which no plugin of the fixture (its own or inherited) has and no
// addTool listener adds: it would change nothing, without a word, as a
// misspelt name does.
func (f *Fixture) checkListenerTools() error {
	// Only removeTool and moveToEnd take a tool (validate).
	if !slices.ContainsFunc(f.Listeners, func(l ListenerOp) bool { return l.Tool != "" }) {
		return nil
	}
	known := map[string]bool{}
	for _, p := range f.Plugins {
		for _, t := range p.Tools {
			known[t.Name] = true
		}
	}
	for _, l := range f.Listeners {
		if l.Op == "addTool" && l.Schema != nil {
			known[l.Schema.Name] = true
		}
	}
	for i, l := range f.Listeners {
		if l.Tool != "" && !known[l.Tool] {
			from := f.listenerFrom[i]
			return errAt(from.file, from.raw, from.path+".tool", "no plugin of %s has a tool %q, and no addTool listener adds one: this %s would change nothing", f.Name, l.Tool, l.Op)
		}
	}
	return nil
}

// inherit merges parent's config, sections, plugins and listeners under f's
// own: config members f sets win, the rest are appended after the parent's.
func (f *Fixture) inherit(parent *Fixture) (*Fixture, error) {
	cfg := parent.Config
	if f.configKeys["persona"] > 0 {
		cfg.Persona = f.Config.Persona
	}
	if f.configKeys["model"] > 0 {
		cfg.Model = f.Config.Model
	}
	if f.configKeys["toolOrder"] > 0 {
		cfg.ToolOrder = f.Config.ToolOrder
	}
	if f.configKeys["dependencyPolicy"] > 0 {
		cfg.DependencyPolicy = f.Config.DependencyPolicy
	}
	f.Config = cfg
	f.Sections = append(append([]Section(nil), parent.Sections...), f.Sections...)
	f.Plugins = append(append([]Plugin(nil), parent.Plugins...), f.Plugins...)
	f.Listeners = append(append([]ListenerOp(nil), parent.Listeners...), f.Listeners...)
	f.pluginFrom = append(slices.Clip(parent.pluginFrom), f.pluginFrom...)
	f.checked = append(slices.Clip(parent.checked), f.checked...)
	f.listenerFrom = append(slices.Clip(parent.listenerFrom), f.listenerFrom...)
	// Within the file, validateOwn checked duplicates; here the file's own
	// entries meet the inherited ones.
	own := len(parent.Sections)
	for i, s := range f.Sections[own:] {
		if slices.ContainsFunc(parent.Sections, func(p Section) bool { return p.ID == s.ID }) {
			return nil, errAt(f.File, f.raw, fmt.Sprintf("sections[%d].id", i), "section %q is also defined by %s", s.ID, parent.Name)
		}
	}
	own = len(parent.Plugins)
	for i, p := range f.Plugins[own:] {
		if slices.ContainsFunc(parent.Plugins, func(q Plugin) bool { return q.Name == p.Name }) {
			return nil, errAt(f.File, f.raw, fmt.Sprintf("plugins[%d].name", i), "plugin %q is also defined by %s", p.Name, parent.Name)
		}
	}
	return f, nil
}

// origin is where a plugin or listener with a registerAt is declared:
// the fixture as decoded from its own file, and the entry's path there.
type origin struct {
	file string // "" for an entry without registerAt
	path string
	raw  []byte // the file's bytes, for the error's position
}

// checkReached fails when a plugin or listener registers at a step that
// no fixture having it ever runs: it would be recorded as if it were not
// there, without a word. A fixture that others extend may declare one
// beyond its own turns, for the fixtures that reach it (README, "Writing
// a fixture").
//
// A step is reached when its turn exists and every earlier reply of the
// turn has tool calls (a reply without them ends the turn), within the
// step limit. A turn that fails earlier (an unknown toolOrder name) is
// not foreseen here.
//
// judged, when not nil, says which files' entries are judged: the others
// only help to reach those.
func checkReached(fixtures []*Fixture, judged func(file string) bool) error {
	type entry struct {
		at      *StepRef
		what    string
		reached bool
		why     []string
	}
	type key struct{ file, path string }
	var order []origin
	entries := map[key]*entry{}
	visit := func(f *Fixture, from origin, at *StepRef, what string) {
		if at == nil || from.file == "" {
			return
		}
		e := entries[key{from.file, from.path}]
		if e == nil {
			e = &entry{at: at, what: what}
			entries[key{from.file, from.path}] = e
			order = append(order, from)
		}
		if why := f.unreached(*at); why == "" {
			e.reached = true
		} else if len(e.why) < 4 {
			e.why = append(e.why, why)
		}
	}
	for _, f := range fixtures {
		for i, p := range f.Plugins {
			visit(f, f.pluginFrom[i], p.RegisterAt, fmt.Sprintf("plugin %q", p.Name))
		}
		for i, l := range f.Listeners {
			visit(f, f.listenerFrom[i], l.RegisterAt, fmt.Sprintf("listener %s", l.Op))
		}
	}
	for _, from := range order {
		if e := entries[key{from.file, from.path}]; !e.reached && (judged == nil || judged(from.file)) {
			return errAt(from.file, from.raw, from.path+".registerAt",
				"%s registers at turn %d step %d, which no fixture that has it runs: %s", e.what, e.at.Turn, e.at.Step, strings.Join(e.why, "; "))
		}
	}
	return nil
}

// unreached says why f's script never runs the step at, or "" when it
// does.
func (f *Fixture) unreached(at StepRef) string {
	if at.Turn > len(f.Turns) {
		return fmt.Sprintf("%s has %d turn(s)", f.Name, len(f.Turns))
	}
	if at.Step > agent.DefaultMaxSteps {
		return fmt.Sprintf("a turn stops at step %d", agent.DefaultMaxSteps)
	}
	replies := f.Turns[at.Turn-1].Replies
	for j := range at.Step - 1 {
		if j >= len(replies) {
			return fmt.Sprintf("turn %d of %s has %d scripted replies, so it ends before step %d", at.Turn, f.Name, len(replies), at.Step)
		}
		if len(replies[j].ToolCalls) == 0 {
			return fmt.Sprintf("reply %d of turn %d of %s has no tool calls, so the turn ends at step %d", j+1, at.Turn, f.Name, j+1)
		}
	}
	return ""
}

// checkPlayable fails a turn whose script the loop cannot play as
// written: the loop asks the model once per step, as long as the last
// reply called tools, up to the step limit.
func checkPlayable(replies []Reply, path string, bad func(path, format string, args ...any) error) error {
	n := len(replies)
	switch {
	case n == 0:
		return bad(path, "a turn needs a reply: the agent asks the model at least once (a turn that fails before its first request still lists one, never played)")
	case n > agent.DefaultMaxSteps:
		return bad(fmt.Sprintf("%s.replies[%d]", path, agent.DefaultMaxSteps), "this reply is never played: a turn stops at step %d", agent.DefaultMaxSteps)
	case len(replies[n-1].ToolCalls) > 0 && n < agent.DefaultMaxSteps:
		return bad(fmt.Sprintf("%s.replies[%d]", path, n-1),
			"the turn would ask the model again after these tool calls, and no reply is left: end the turn with a reply that calls no tools (or script the %d steps of the step limit)", agent.DefaultMaxSteps)
	}
	return nil
}

// addsNothing reports whether f extends another fixture without adding
// config, sections, plugins or listeners: its headers must then be the
// parent's (the uniformity guard).
func (f *Fixture) addsNothing() bool {
	return f.Extends != "" && f.own == ownEntries{}
}

// validate checks that the op is known and carries exactly its fields.
func (l ListenerOp) validate() error {
	has := map[string]bool{"tool": l.Tool != "", "schema": l.Schema != nil, "at": l.At != nil, "section": l.Section != nil}
	var need, may []string
	switch l.Op {
	case "addTool":
		need, may = []string{"schema"}, []string{"at"}
	case "removeTool", "moveToEnd":
		need = []string{"tool"}
	case "reverse":
	case "appendSection":
		need = []string{"section"}
	case "":
		return errors.New(`listener needs an "op"`)
	default:
		return fmt.Errorf("unknown listener op %q (known: addTool, removeTool, moveToEnd, reverse, appendSection)", l.Op)
	}
	for _, k := range need {
		if !has[k] {
			return fmt.Errorf("op %q needs %q", l.Op, k)
		}
		has[k] = false
	}
	for _, k := range may {
		has[k] = false
	}
	for _, k := range []string{"tool", "schema", "at", "section"} {
		if has[k] {
			return fmt.Errorf("op %q takes no %q", l.Op, k)
		}
	}
	if l.Schema != nil && l.Schema.Name == "" {
		return errors.New("schema needs a name")
	}
	if l.Section != nil && l.Section.ID == "" {
		return errors.New("section needs an id")
	}
	return nil
}
