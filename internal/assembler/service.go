package assembler

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// PersonaSection is the id of the section that holds Config.Persona.
const PersonaSection = "persona"

// Section is one part of the system prompt. Sections are sorted by
// (Order, ID) and joined with a blank line; empty sections are skipped.
type Section struct {
	ID    string `json:"id"`
	Order int    `json:"order"`
	Text  string `json:"text"`
}

// Assembly is what system-prompt/assemble listeners see and return: the
// sections and tools of one assembly, in canonical order when the first
// listener gets them. Sections is a private copy, which a listener may
// change freely; Tools is immutable, and a listener changes it by
// returning the list its methods make.
type Assembly struct {
	Sections []Section
	Tools    Tools
}

// Listener is a system-prompt/assemble listener. It may add, remove or
// reorder tools and edit sections; what it returns is not re-sorted.
type Listener func(Assembly) (Assembly, error)

// Service assembles request headers. Its methods are safe for concurrent use;
// registration may happen at any time, before or between assemblies.
//
// The registry only grows and its entries never change, so the numbers of
// registered tools and sections identify its state: Assemble keeps the
// canonical order (and, without listeners, the header) of the state it
// last saw and does no work while nothing was registered since. Tools
// registered later are sorted on their own and merged into that order.
type Service struct {
	cfg    Config
	ranker ranker

	mu        sync.Mutex
	providers map[string]bool
	tools     []*canonicalTool // append-only; entries are never modified
	sections  []Section        // append-only
	sectionID map[string]bool  // the ids of sections
	listeners []namedListener  // append-only
	order     *ordered         // the canonical order of a recent registry state
	last      *output          // the latest listener output that made a header
}

type namedListener struct {
	name string
	fn   Listener
}

// ordered is the canonical order of one registry state, immutable once
// built and shared by every Assemble of that state.
type ordered struct {
	nTools, nSections int // the registry state it covers
	// keys are the registered tools in canonical order, the reserved
	// name left out; a key's i indexes registered, the registry as it
	// stood (append-only, so the indexes of an earlier state hold).
	keys       []flatKey
	registered []*canonicalTool
	listed     []bool    // listed[i]: toolOrder entry i names a registered tool
	reserved   []string  // providers that registered RestEntry
	sections   []Section // the persona and the registered sections, sorted
	// header builds the header of this state without listeners, once.
	header func() (*Header, error)
	// list is the canonical order as the first listener gets it, built
	// once and shared by every Assemble of this state.
	list func() Tools
}

// output is a listener output that passed every check, with its header:
// while the listeners keep returning the same assembly, Assemble returns
// that header instead of building and checking an equal one.
type output struct {
	tools    Tools
	sections []Section // a private copy: a listener may keep and edit what it returned
	header   *Header
	// nTools is the number of registered tools the dependency graph was
	// checked over: a tool registered since, which the listeners hide,
	// leaves their output as it was and may still close a cycle.
	nTools int
}

// New returns a service for cfg. It fails when cfg.ToolOrder is present but
// malformed: no [RestEntry], two of them, or a name listed twice.
func New(cfg Config) (*Service, error) {
	if err := cfg.ToolOrder.Validate(); err != nil {
		return nil, err
	}
	cfg.ToolOrder = ToolOrder{names: cfg.ToolOrder.Names(), present: cfg.ToolOrder.present}
	return &Service{cfg: cfg, ranker: newRanker(cfg.ToolOrder), providers: map[string]bool{}, sectionID: map[string]bool{}}, nil
}

// Config returns the configuration the service was built from.
func (s *Service) Config() Config {
	c := s.cfg
	c.ToolOrder = ToolOrder{names: c.ToolOrder.Names(), present: c.ToolOrder.present}
	return c
}

// AddProvider registers a tool provider (a plugin) and its tools. The tools
// are copied and their parameters made canonical; invalid parameters JSON or
// an empty tool name is an error and registers nothing. Provider names are
// unique. A tool named [RestEntry] is accepted here and rejected by every
// Assemble, so the problem shows where the turn fails.
func (s *Service) AddProvider(name string, tools ...Tool) error {
	p, err := NewProvider(name, tools...)
	if err != nil {
		return err
	}
	return s.Register(p)
}

// Register registers a provider made by [NewProvider], exactly as
// AddProvider would register its name and tools, without canonicalising
// them again. Provider names are unique within a service.
func (s *Service) Register(p *Provider) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.providers[p.name] {
		return fmt.Errorf("provider %q is already registered", p.name)
	}
	s.providers[p.name] = true
	s.tools = append(s.tools, p.tools...)
	return nil
}

// AddSection registers a prompt section. Ids are unique and "persona" is
// reserved for Config.Persona.
func (s *Service) AddSection(sec Section) error {
	if sec.ID == "" {
		return errors.New("section with an empty id")
	}
	if sec.ID == PersonaSection {
		return fmt.Errorf("section id %q is reserved for the persona", sec.ID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sectionID[sec.ID] {
		return fmt.Errorf("section %q is already registered", sec.ID)
	}
	s.sectionID[sec.ID] = true
	s.sections = append(s.sections, sec)
	return nil
}

// AddListener registers a system-prompt/assemble listener. Listeners run in
// registration order; name appears in error messages.
func (s *Service) AddListener(name string, fn Listener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listeners = append(s.listeners, namedListener{name, fn})
}

// Assemble builds the header from everything registered so far: it rejects
// reserved tool names and toolOrder names with no registered tool, puts
// tools and sections in canonical order, runs the listeners, and requires
// the tools' declared dependencies to name registered tools and form no
// cycle.
//
// While nothing was registered since the last call, the canonical order is
// reused, and so is the header: without listeners it is the same *Header,
// and with listeners, which run at every call, it is the same *Header as
// long as they return the same assembly.
func (s *Service) Assemble() (*Header, error) {
	s.mu.Lock()
	// The registry is append-only and registered entries never change, so
	// the slices as they are now are a consistent snapshot without a copy.
	registered := s.tools[:len(s.tools):len(s.tools)]
	sections := s.sections[:len(s.sections):len(s.sections)]
	listeners := s.listeners[:len(s.listeners):len(s.listeners)]
	ord, last := s.order, s.last
	s.mu.Unlock()

	if ord == nil || ord.nTools != len(registered) || ord.nSections != len(sections) {
		ord = s.update(ord, registered, sections)
		s.mu.Lock()
		if cur := s.order; cur == nil || ord.nTools+ord.nSections > cur.nTools+cur.nSections {
			s.order = ord
		}
		s.mu.Unlock()
	}
	if err := ord.check(s.cfg.ToolOrder); err != nil {
		return nil, err
	}
	if len(listeners) == 0 {
		return ord.header()
	}
	a := Assembly{Sections: slices.Clone(ord.sections), Tools: ord.list()}
	for _, l := range listeners {
		var err error
		if a, err = l.fn(a); err != nil {
			return nil, fmt.Errorf("system-prompt/assemble listener %q: %w", l.name, err)
		}
	}
	same := last != nil && slices.Equal(a.Sections, last.sections) && a.Tools.same(last.tools)
	if same && last.nTools == ord.nTools {
		return last.header, nil
	}
	out := a.Tools.records()
	if !same {
		for _, t := range out {
			if t.tool.Name == RestEntry {
				return nil, fmt.Errorf("tool name %q is reserved for toolOrder (added by a system-prompt/assemble listener)", RestEntry)
			}
		}
	}
	// The dependency graph is over the registered tools, whatever the
	// listeners hid, and the tools they added: hiding a tool another
	// depends on hides no cycle and does not unregister it.
	graph := ord.list().records()
	in := make(map[*canonicalTool]bool, len(graph))
	for _, t := range graph {
		in[t] = true
	}
	for _, t := range out {
		if !in[t] {
			graph = append(graph, t)
		}
	}
	if same {
		// The header is the last one, over a registry that grew: only
		// the graph needs checking again.
		if deps := depsOf(graph); len(deps) > 0 {
			if err := checkDeps(graph, deps); err != nil {
				return nil, err
			}
		}
		s.mu.Lock()
		s.last = &output{tools: last.tools, sections: last.sections, header: last.header, nTools: ord.nTools}
		s.mu.Unlock()
		return last.header, nil
	}
	h, err := finish(s.cfg.Model, a.Sections, out, graph)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.last = &output{tools: a.Tools, sections: slices.Clone(a.Sections), header: h, nTools: ord.nTools}
	s.mu.Unlock()
	return h, nil
}

// update returns the canonical order of the registry state given by
// registered and sections, starting from prev, the order of an earlier
// state of the same registry (nil: none). The tools registered since prev
// are sorted on their own and merged into prev's order, which gives the
// order a sort of all of them gives: the key is a total order on tools
// that are not interchangeable.
func (s *Service) update(prev *ordered, registered []*canonicalTool, sections []Section) *ordered {
	o := &ordered{nTools: len(registered), nSections: len(sections), registered: registered}
	from := 0
	switch {
	case prev != nil:
		from = prev.nTools
		o.listed = slices.Clone(prev.listed)
		o.reserved = slices.Clip(prev.reserved) // appending below must not write into prev's array
	case s.cfg.ToolOrder.present:
		o.listed = make([]bool, len(s.cfg.ToolOrder.names))
	}
	fresh := sortedKeys(registered, from, func(t *canonicalTool) (int, bool) {
		if t.tool.Name == RestEntry {
			o.reserved = append(o.reserved, t.provider)
			return 0, false
		}
		rank, listed := s.ranker.rank(t.tool.Name)
		if listed {
			o.listed[rank] = true
		}
		return rank, true
	})
	switch {
	case prev == nil || len(prev.keys) == 0:
		o.keys = fresh
	case len(fresh) == 0:
		o.keys = prev.keys
	default:
		o.keys = mergeKeys(registered, prev.keys, fresh)
	}
	if prev != nil && prev.nSections == len(sections) {
		o.sections = prev.sections
	} else {
		o.sections = append([]Section{{ID: PersonaSection, Order: 0, Text: s.cfg.Persona}}, sections...)
		sortSections(o.sections)
	}
	model := s.cfg.Model
	records := sync.OnceValue(func() []*canonicalTool {
		tools := make([]*canonicalTool, len(o.keys))
		for i, k := range o.keys {
			tools[i] = registered[k.i]
		}
		return tools
	})
	o.header = sync.OnceValues(func() (*Header, error) { return finish(model, o.sections, records(), nil) })
	o.list = sync.OnceValue(func() Tools { return listOf(newToolArray(records())) })
	return o
}

// check rejects the reserved tool name, then toolOrder names that no
// registered tool carries. It runs on every Assemble because tools may
// register at any time: there is no moment when all plugins are loaded.
func (o *ordered) check(order ToolOrder) error {
	if len(o.reserved) > 0 {
		return reservedNameError(slices.Clone(o.reserved))
	}
	return unknownNames(order, o.listed, func(yield func(string) bool) {
		for _, k := range o.keys {
			if !yield(o.registered[k.i].tool.Name) {
				return
			}
		}
	})
}

// finish checks the tool dependencies of graph (the registered tools and
// those listeners added; nil: tools, when no listener ran) and builds the
// header of the final tool list, with that list's dependencies.
func finish(model string, sections []Section, tools, graph []*canonicalTool) (*Header, error) {
	deps := depsOf(tools)
	graphDeps := deps
	if graph != nil {
		graphDeps = depsOf(graph)
	} else {
		graph = tools
	}
	if len(graphDeps) > 0 {
		if err := checkDeps(graph, graphDeps); err != nil {
			return nil, err
		}
	}
	h := newHeader(model, sections, tools)
	h.deps = deps
	return h, nil
}

func knownNames(have map[string]bool) []string {
	names := make([]string, 0, len(have))
	for name := range have {
		names = append(names, name)
	}
	slices.SortFunc(names, CompareUTF16)
	return names
}

// UnknownToolsError reports toolOrder names with no registered tool.
type UnknownToolsError struct {
	Unknown []string // listed names with no tool, in list order
	Known   []string // registered tool names, in code-unit order
}

// maxKnownInMessage bounds the known-tool list in the error text.
const maxKnownInMessage = 100

// Error names the unknown tools and lists the known ones.
func (e *UnknownToolsError) Error() string {
	var b strings.Builder
	b.WriteString("toolOrder names ")
	if len(e.Unknown) == 1 {
		b.WriteString("an unknown tool: ")
	} else {
		b.WriteString("unknown tools: ")
	}
	b.WriteString(quoteList(e.Unknown))
	b.WriteString("; known tools: ")
	switch {
	case len(e.Known) == 0:
		b.WriteString("none")
	case len(e.Known) > maxKnownInMessage:
		b.WriteString(quoteList(e.Known[:maxKnownInMessage]))
		fmt.Fprintf(&b, " and %d more", len(e.Known)-maxKnownInMessage)
	default:
		b.WriteString(quoteList(e.Known))
	}
	return b.String()
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
