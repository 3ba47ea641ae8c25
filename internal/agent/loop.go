package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
)

// DefaultMaxSteps bounds the steps of one turn when Options.MaxSteps is 0.
const DefaultMaxSteps = 32

// Config is the agent core's slice of an app config row. It is forwarded to
// the system-prompt service unchanged, so an absent ToolOrder stays absent
// and an empty one fails construction.
type Config struct {
	Persona   string
	Model     string
	ToolOrder assembler.ToolOrder
	// DependencyPolicy is PolicyReorder (the default when empty) or
	// PolicyReject; see the dependency rule in deps.go.
	DependencyPolicy string
}

// Options wires an agent to its surroundings.
type Options struct {
	// Adapter answers requests. Required.
	Adapter Adapter
	// Tools answers tool calls; when nil, Adapter must be a ToolRunner.
	Tools ToolRunner
	// Log receives the events. A log that already holds events makes this a
	// new loop instance resuming it. Nil starts a new session.
	Log *Log
	// BeforeStep, when set, runs before the header of each step is
	// assembled (turn and step count from 1); plugins registering late hook
	// in here.
	BeforeStep func(turn, step int)
	// OnHeader, when set, sees the header assembled for each step, after
	// BeforeStep; a harness reads the dependencies in force from it.
	OnHeader func(turn, step int, h *assembler.Header)
	// MaxSteps bounds a turn; 0 means DefaultMaxSteps.
	MaxSteps int
}

// Agent is one loop instance over a session log. RunTurn calls are
// serialized; registration on Service may happen from any goroutine.
type Agent struct {
	svc   *assembler.Service
	opts  Options
	log   *Log
	tools ToolRunner

	mu             sync.Mutex
	proj           Projector
	turn           int
	resumed        bool // the log held events when this instance started
	loggedInstance bool // this instance has logged a header
	// inForce is the last assembled header found to be the header in
	// force: the assembler returns the same *Header while nothing changed,
	// so an unchanged header is recognised without reading its bytes.
	inForce *assembler.Header
	// deps are the dependencies of depsOf, the last header a batch ran
	// under: copied once per header rather than once per step.
	deps   assembler.Deps
	depsOf *assembler.Header
	// offered indexes the tool names of offeredBy once scans calls have
	// read its list (see offers).
	offeredBy *assembler.Header
	offered   map[string]bool
	scans     int
	policy    string
	ledger    *ledger // tool calls completed so far in the session
}

// New builds the system-prompt service from cfg and an agent around it.
func New(cfg Config, opts Options) (*Agent, error) {
	svc, err := assembler.New(assembler.Config{Persona: cfg.Persona, Model: cfg.Model, ToolOrder: cfg.ToolOrder})
	if err != nil {
		return nil, fmt.Errorf("system-prompt service: %w", err)
	}
	if opts.Adapter == nil {
		return nil, errors.New("agent: no adapter")
	}
	tools := opts.Tools
	if tools == nil {
		var ok bool
		if tools, ok = opts.Adapter.(ToolRunner); !ok {
			return nil, errors.New("agent: no tool runner and the adapter does not run tools")
		}
	}
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if !ValidPolicy(cfg.DependencyPolicy) {
		return nil, fmt.Errorf("dependencyPolicy: unknown policy %q (want %q or %q)", cfg.DependencyPolicy, PolicyReorder, PolicyReject)
	}
	if cfg.DependencyPolicy == "" {
		cfg.DependencyPolicy = PolicyReorder
	}
	a := &Agent{svc: svc, opts: opts, log: opts.Log, tools: tools, policy: cfg.DependencyPolicy, ledger: newLedger()}
	if a.log == nil {
		a.log = NewLog()
	}
	// A request/header line this package's loop wrote holds the
	// assembled header itself: the projection takes it as it is rather
	// than finding its bytes again in the line's text, and the turn is
	// read from the text before it, which begins as every line does.
	n := 0
	for line, h := range a.log.Lines() {
		n++
		if t := lineTurn(line); t > a.turn {
			a.turn = t
		}
		if h != nil {
			a.proj.useHeader(h)
			continue
		}
		if err := a.proj.apply(lineType(line), line); err != nil {
			return nil, fmt.Errorf("resumed log line %d: %w", n, err)
		}
	}
	a.resumed = n > 0
	a.ledger.fold(a.log.Lines())
	// From here on the projection folds only the lines emit has just
	// written, which nothing writes to again: it may keep the header
	// without a copy.
	a.proj.borrow = true
	return a, nil
}

// Service returns the system-prompt service, for registering providers,
// sections and listeners.
func (a *Agent) Service() *assembler.Service { return a.svc }

// Log returns the session log.
func (a *Agent) Log() *Log { return a.log }

// emit appends an event to the log and folds it into the projection.
func (a *Agent) emit(l *line) {
	b := l.bytes()
	if l.hdr != nil {
		// A request/header line: the log and the projection share the
		// header itself, rather than a copy of its bytes in the line
		// that Apply would parse to find them again.
		a.log.appendHeader(b[:l.hs:l.hs], l.hdr, b[l.hs:])
		a.proj.useHeader(l.hdr)
		return
	}
	a.log.append(b)
	// The loop has the members at hand where it wrote them: it projects
	// them without parsing the line (the rebuild check parses the log and
	// holds the two to the same request bytes).
	switch l.typ {
	case TypeUserMessage:
		a.proj.user(l.value(b, "content"))
	case TypeAssistantMessage:
		a.proj.assistant(l.value(b, "text"), l.value(b, "toolCalls"))
	case TypeToolResult:
		a.proj.toolResult(l.value(b, "callId"), l.value(b, "output"), l.value(b, "error") == "true")
	}
}

// RunTurn runs one turn for the user's input. A failed turn is logged
// balanced (turn/end with reason error, then agent/error) and its error is
// returned; the agent stays usable for the next turn.
func (a *Agent) RunTurn(ctx context.Context, user string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turn++
	turn := a.turn
	a.emit(turnLine(TypeTurnStart, turn))
	a.emit(turnLine(TypeUserMessage, turn).str("content", user))
	for step := 1; ; step++ {
		if step > a.opts.MaxSteps {
			return a.fail(turn, fmt.Errorf("turn %d: step limit %d reached", turn, a.opts.MaxSteps))
		}
		if a.opts.BeforeStep != nil {
			a.opts.BeforeStep(turn, step)
		}
		h, err := a.svc.Assemble()
		if err != nil {
			return a.fail(turn, err)
		}
		if a.opts.OnHeader != nil {
			a.opts.OnHeader(turn, step, h)
		}
		a.emit(stepLine(TypeStepStart, turn, step))
		a.logHeader(turn, step, h)
		more, err := a.step(ctx, turn, step, h)
		a.emit(stepLine(TypeStepEnd, turn, step))
		if err != nil {
			return a.fail(turn, err)
		}
		if !more {
			a.emit(turnLine(TypeTurnEnd, turn).str("reason", EndCompleted))
			return nil
		}
	}
}

// fail ends the turn balanced.
func (a *Agent) fail(turn int, err error) error {
	msg := err.Error()
	a.emit(turnLine(TypeTurnEnd, turn).str("reason", EndError).str("message", msg))
	a.emit(turnLine(TypeAgentError, turn).str("message", msg))
	return err
}

// logHeader writes a request/header event when h is not the header in
// force, or when it is this instance's first header on a resumed log.
func (a *Agent) logHeader(turn, step int, h *assembler.Header) {
	var reason string
	switch {
	case !a.proj.hasHeader():
		reason = ReasonInitial
	case a.resumed && !a.loggedInstance:
		reason = ReasonResume
	case h == a.inForce:
		return
	case a.proj.assembled != h && !h.EqualJSON(a.proj.headerBytes()):
		reason = ReasonChange
	default:
		a.inForce = h
		return
	}
	a.loggedInstance = true
	a.inForce = h
	a.emit(stepLine(TypeRequestHeader, turn, step).str("reason", reason).header("header", h))
}

// step dispatches the projected request, logs the reply and answers its tool
// calls. It reports whether the model asked for tools (another step).
func (a *Agent) step(ctx context.Context, turn, step int, h *assembler.Header) (bool, error) {
	req, err := a.proj.Request()
	if err != nil {
		return false, err
	}
	reply, err := a.opts.Adapter.Send(ctx, req)
	if err != nil {
		return false, fmt.Errorf("adapter: %w", err)
	}
	msg := stepLine(TypeAssistantMessage, turn, step)
	if reply.Text != "" {
		msg.str("text", reply.Text)
	}
	calls := reply.ToolCalls
	if len(calls) > 0 {
		enc, err := encodeCalls(calls)
		if err != nil {
			return false, fmt.Errorf("adapter reply: %w", err)
		}
		msg.raw("toolCalls", enc)
	}
	a.emit(msg)
	a.runBatch(ctx, turn, step, calls, h)
	return len(calls) > 0, nil
}

// runBatch answers the tool calls of one reply under the dependency rule.
func (a *Agent) runBatch(ctx context.Context, turn, step int, calls []ToolCall, h *assembler.Header) {
	result := func(c ToolCall, out string, isError, replayed bool) {
		a.emit(stepLine(TypeToolResult, turn, step).str("callId", c.ID).str("name", c.Name).
			str("output", out).flag("error", isError).flag("replayed", replayed))
	}
	if len(calls) == 0 {
		return
	}
	if h != a.depsOf {
		a.deps, a.depsOf = h.Deps(), h
	}
	deps := a.deps
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	order, violated := Plan(names, deps, a.policy)
	if violated != nil {
		for _, c := range calls {
			result(c, fmt.Sprintf("batch refused, nothing ran: %s was proposed before %s, but %s depends on it (edge %s)",
				violated.From, violated.To, violated.From, violated), true, false)
		}
		return
	}
	if !isIdentity(order) {
		a.emit(stepLine(TypeToolPlan, turn, step).strs("proposed", callIDs(calls, identity(len(calls)))).strs("executed", callIDs(calls, order)))
	}
	for _, i := range order {
		c := calls[i]
		if !a.offers(h, c.Name) {
			// The model saw no such tool: an agent runs only what it
			// offered.
			result(c, fmt.Sprintf("unknown tool %s: not among the tools of this request", c.Name), true, false)
			continue
		}
		if dep := a.ledger.missing(c.Name, deps); dep != "" {
			result(c, fmt.Sprintf("not run: %s depends on %s, which has not completed successfully (edge %s)",
				c.Name, dep, Edge{c.Name, dep}), true, false)
			continue
		}
		if h.Idempotent(c.Name) {
			if out, ok := a.ledger.replay(c.Name, c.Arguments); ok {
				result(c, out, false, true)
				continue
			}
		}
		res, err := a.tools.RunTool(ctx, c)
		if err != nil {
			res = ToolResult{Output: err.Error(), IsError: true}
		}
		if !res.IsError {
			a.ledger.record(c.Name, c.Arguments, res.Output)
		}
		result(c, res.Output, res.IsError, false)
	}
}

// scansBeforeIndex is how many calls under one header read its tool list
// before the names are indexed: a few calls cost less than an index of
// hundreds of tools, and many calls over thousands of tools (a long turn
// of the same header) would cost the list's length each.
const scansBeforeIndex = 8

// offers reports whether h offers a tool of that name.
func (a *Agent) offers(h *assembler.Header, name string) bool {
	if h != a.offeredBy {
		a.offeredBy, a.offered, a.scans = h, nil, 0
	}
	if a.offered == nil {
		if a.scans < scansBeforeIndex {
			a.scans++
			return h.Offers(name)
		}
		names := h.ToolNames()
		a.offered = make(map[string]bool, len(names))
		for _, n := range names {
			a.offered[n] = true
		}
	}
	return a.offered[name]
}

// encodeCalls writes tool calls canonically; arguments default to {}.
func encodeCalls(calls []ToolCall) ([]byte, error) {
	b := []byte{'['}
	for i, c := range calls {
		if c.ID == "" || c.Name == "" {
			return nil, fmt.Errorf("tool call %d has no id or name", i)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		b = canon.AppendString(b, c.ID)
		b = append(b, `,"name":`...)
		b = canon.AppendString(b, c.Name)
		b = append(b, `,"arguments":`...)
		var err error
		if b, err = canon.Compact(b, argsOrEmpty(c.Arguments)); err != nil {
			return nil, fmt.Errorf("tool call %q: arguments: %w", c.ID, err)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}
