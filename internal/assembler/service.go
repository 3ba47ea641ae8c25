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
// listener gets them. It is a private copy; a listener may change it freely.
type Assembly struct {
	Sections []Section
	Tools    []Tool
}

// Listener is a system-prompt/assemble listener. It may add, remove or
// reorder tools and edit sections; what it returns is not re-sorted.
type Listener func(Assembly) (Assembly, error)

// Service assembles request headers. Its methods are safe for concurrent use;
// registration may happen at any time, before or between assemblies.
type Service struct {
	cfg    Config
	ranker ranker

	mu        sync.Mutex
	providers map[string]bool
	tools     []canonicalTool
	sections  []Section
	listeners []namedListener
}

type namedListener struct {
	name string
	fn   Listener
}

// New returns a service for cfg. It fails when cfg.ToolOrder is present but
// malformed: no [RestEntry], two of them, or a name listed twice.
func New(cfg Config) (*Service, error) {
	if err := cfg.ToolOrder.Validate(); err != nil {
		return nil, err
	}
	cfg.ToolOrder = ToolOrder{names: cfg.ToolOrder.Names(), present: cfg.ToolOrder.present}
	return &Service{cfg: cfg, ranker: newRanker(cfg.ToolOrder), providers: map[string]bool{}}, nil
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
	if name == "" {
		return errors.New("provider with an empty name")
	}
	regs := make([]canonicalTool, 0, len(tools))
	for _, t := range tools {
		c, err := canonicalize(t, name)
		if err != nil {
			return fmt.Errorf("provider %q: %w", name, err)
		}
		regs = append(regs, c)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.providers[name] {
		return fmt.Errorf("provider %q is already registered", name)
	}
	s.providers[name] = true
	s.tools = append(s.tools, regs...)
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
	for _, have := range s.sections {
		if have.ID == sec.ID {
			return fmt.Errorf("section %q is already registered", sec.ID)
		}
	}
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
func (s *Service) Assemble() (*Header, error) {
	s.mu.Lock()
	// The registry is append-only and registered entries never change, so
	// the slice as it is now is a consistent snapshot without a copy.
	registered := s.tools[:len(s.tools):len(s.tools)]
	sections := append([]Section{{ID: PersonaSection, Order: 0, Text: s.cfg.Persona}}, s.sections...)
	listeners := slices.Clone(s.listeners)
	s.mu.Unlock()

	tools, err := canonicalOrder(registered, s.cfg.ToolOrder, s.ranker)
	if err != nil {
		return nil, err
	}
	sortSections(sections)

	if len(listeners) == 0 {
		return finish(s.cfg.Model, sections, tools)
	}
	a := Assembly{Sections: sections, Tools: make([]Tool, len(tools))}
	for i, t := range tools {
		a.Tools[i] = t.tool.clone()
	}
	for _, l := range listeners {
		var err error
		if a, err = l.fn(a); err != nil {
			return nil, fmt.Errorf("system-prompt/assemble listener %q: %w", l.name, err)
		}
	}
	out := make([]canonicalTool, len(a.Tools))
	ptrs := make([]*canonicalTool, len(a.Tools))
	for i, t := range a.Tools {
		if t.Name == RestEntry {
			return nil, fmt.Errorf("tool name %q is reserved for toolOrder (added by a system-prompt/assemble listener)", RestEntry)
		}
		c, err := canonicalize(t, "listener")
		if err != nil {
			return nil, fmt.Errorf("system-prompt/assemble listeners: %w", err)
		}
		out[i] = c
		ptrs[i] = &out[i]
	}
	return finish(s.cfg.Model, a.Sections, ptrs)
}

// finish checks the tool dependencies of the final tool list and builds
// the header.
func finish(model string, sections []Section, tools []*canonicalTool) (*Header, error) {
	deps := depsOf(tools)
	if len(deps) > 0 {
		if err := checkDeps(tools, deps); err != nil {
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
