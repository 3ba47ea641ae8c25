package agent

import (
	"bytes"
	"container/heap"
	"fmt"
	"iter"
	"slices"
	"strings"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/tidwall/gjson"
)

// The tool-dependency rule, in one place.
//
// A tool may declare dependsOn: tools that must have completed successfully
// before it runs. A reply with several tool calls is a batch, and the edges
// between its calls say that every call of a dependency runs before every
// call of its dependent. Under the reorder policy the batch runs in the
// topological order that keeps the model's order wherever the edges leave it
// free: at each point, the earliest proposed call whose dependencies in the
// batch have run (the least topological order by proposal index). Under the
// reject policy a batch proposed against an edge runs nothing. In both, a
// call whose dependency has not completed successfully earlier in the
// session, or earlier in its batch, does not run; and an idempotent tool
// called again with the same arguments (key order ignored) returns its first
// successful result without running.

// Dependency policies of the app config's dependencyPolicy.
const (
	PolicyReorder = "reorder" // run a batch in a dependency-respecting order (default)
	PolicyReject  = "reject"  // refuse a batch proposed against an edge
)

// Edge is a declared dependency: From depends on To, so To runs first.
type Edge struct {
	From, To string
}

// String spells the edge as "from -> to".
func (e Edge) String() string { return e.From + " -> " + e.To }

// Plan returns the order in which a batch of calls (their tool names, in the
// model's order) runs under policy, as indices into names. Under reject, a
// batch that proposes a dependent before its dependency returns a nil order
// and the first violated edge in proposal order.
func Plan(names []string, deps assembler.Deps, policy string) ([]int, *Edge) {
	small := len(names) <= smallBatch
	if policy == PolicyReject {
		var e *Edge
		if small {
			e = firstEdgePairs(names, deps)
		} else {
			e = firstEdgeIndexed(names, deps)
		}
		if e != nil {
			return nil, e
		}
		return identity(len(names)), nil
	}
	if small {
		return planPairs(names, deps), nil
	}
	return planIndexed(names, deps), nil
}

// smallBatch is the batch size up to which Plan compares every pair of
// calls: for the few calls of a usual reply that costs less than the maps
// that keep a large batch's plan linear in its calls. A batch of 1,000
// calls planned pairwise took a million lookups, and the permutation pass
// plans a batch in 720 orders.
const smallBatch = 16

// firstEdgePairs is the first edge a batch is proposed against: the first
// call, in proposal order, with a later call of a tool it depends on, and
// the first such later call.
func firstEdgePairs(names []string, deps assembler.Deps) *Edge {
	for i, a := range names {
		for _, b := range names[i+1:] {
			if deps.DependsOn(a, b) {
				return &Edge{From: a, To: b}
			}
		}
	}
	return nil
}

// firstEdgeIndexed is firstEdgePairs through the last position of each
// tool in the batch: a call violates an edge when a tool it depends on is
// called after it.
func firstEdgeIndexed(names []string, deps assembler.Deps) *Edge {
	last := make(map[string]int, len(names))
	for j, b := range names {
		last[b] = j
	}
	for i, a := range names {
		for _, d := range deps[a] {
			if j, ok := last[d]; ok && j > i {
				for _, b := range names[i+1:] {
					if deps.DependsOn(a, b) {
						return &Edge{From: a, To: b}
					}
				}
			}
		}
	}
	return nil
}

// planPairs is the least topological order of a batch by proposal index:
// at each point, the earliest unplaced call that no other unplaced call
// must precede. Only a cycle leaves nothing ready (Assemble rejects
// cycles); the calls left then run in the model's order.
func planPairs(names []string, deps assembler.Deps) []int {
	placed := make([]bool, len(names))
	order := make([]int, 0, len(names))
	for len(order) < len(names) {
		next := -1
		for i := range names {
			if !placed[i] && ready(i, names, placed, deps) {
				next = i
				break
			}
		}
		if next < 0 {
			for i := range names {
				if !placed[i] {
					placed[i] = true
					order = append(order, i)
				}
			}
			break
		}
		placed[next] = true
		order = append(order, next)
	}
	return order
}

// ready reports whether every other call of the batch that call i depends on
// has been placed.
func ready(i int, names []string, placed []bool, deps assembler.Deps) bool {
	for j, other := range names {
		if j != i && !placed[j] && deps.DependsOn(names[i], other) {
			return false
		}
	}
	return true
}

// planIndexed is planPairs through counts: a call is ready once no other
// unplaced call is of a tool it depends on, which only the placing of a
// tool's last call can change (a call of a tool that depends on itself is
// ready only as its tool's last), so each call is looked at again only
// then; the ready calls wait in a heap by proposal index.
func planIndexed(names []string, deps assembler.Deps) []int {
	n := len(names)
	unplaced := make(map[string]int, n) // unplaced calls of each tool
	calls := map[string][]int{}         // each tool's calls, in proposal order
	for i, a := range names {
		unplaced[a]++
		calls[a] = append(calls[a], i)
	}
	dependents := map[string][]string{} // the tools of the batch that depend on each
	for a := range calls {
		for _, d := range deps[a] {
			if _, ok := calls[d]; ok {
				dependents[d] = append(dependents[d], a)
			}
		}
	}
	blocked := func(i int) bool {
		a := names[i]
		for _, d := range deps[a] {
			others := unplaced[d]
			if d == a {
				others-- // call i itself
			}
			if others > 0 {
				return true
			}
		}
		return false
	}
	queued := make([]bool, n)
	readyCalls := &indexHeap{}
	consider := func(i int) {
		if !queued[i] && !blocked(i) {
			queued[i] = true
			heap.Push(readyCalls, i)
		}
	}
	for i := range n {
		consider(i)
	}
	order := make([]int, 0, n)
	for len(order) < n {
		if readyCalls.Len() == 0 {
			for i := range n {
				if !queued[i] {
					order = append(order, i)
				}
			}
			break
		}
		i := heap.Pop(readyCalls).(int)
		order = append(order, i)
		a := names[i]
		unplaced[a]--
		if unplaced[a] == 0 {
			for _, b := range dependents[a] {
				for _, j := range calls[b] {
					consider(j)
				}
			}
		}
	}
	return order
}

// indexHeap is a min-heap of call indices (container/heap).
type indexHeap []int

func (h indexHeap) Len() int           { return len(h) }
func (h indexHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h indexHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *indexHeap) Push(x any)        { *h = append(*h, x.(int)) }
func (h *indexHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func identity(n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	return order
}

// ledger is what the session has done with tools so far: which completed
// successfully, and the first successful output of each (tool, canonical
// arguments), for idempotent tools. A resumed loop rebuilds it from the log.
type ledger struct {
	completed map[string]bool
	results   map[string]string // ledgerKey → output, for the calls keyed so far
	// unkeyed are the successful calls recorded since: a call's key, its
	// arguments made canonical, is made only when an idempotent tool is
	// looked up, which most sessions never do.
	unkeyed []ledgerCall
}

// ledgerCall is a successful call the ledger has not keyed yet.
type ledgerCall struct {
	name   string
	args   []byte
	output string
}

func newLedger() *ledger {
	return &ledger{completed: map[string]bool{}, results: map[string]string{}}
}

// ledgerKey identifies a call by tool and arguments, key order ignored.
func ledgerKey(name string, args []byte) string {
	args = argsOrEmpty(args)
	sorted, err := canon.AppendSorted([]byte(name+"\x00"), args)
	if err != nil {
		return name + "\x00" + string(args)
	}
	return string(sorted)
}

// record notes a successful run of a call.
func (l *ledger) record(name string, args []byte, output string) {
	l.completed[name] = true
	l.unkeyed = append(l.unkeyed, ledgerCall{name, bytes.Clone(args), output})
}

// replay returns the first successful output of an identical earlier call.
func (l *ledger) replay(name string, args []byte) (string, bool) {
	for _, c := range l.unkeyed {
		key := ledgerKey(c.name, c.args)
		if _, ok := l.results[key]; !ok {
			l.results[key] = c.output // the first successful output
		}
	}
	clear(l.unkeyed)
	l.unkeyed = l.unkeyed[:0]
	out, ok := l.results[ledgerKey(name, args)]
	return out, ok
}

// argsOrEmpty gives absent tool-call arguments their meaning, {}.
func argsOrEmpty(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 {
		return []byte("{}")
	}
	return args
}

// ValidPolicy reports whether p names a dependency policy; "" means the
// default, PolicyReorder.
func ValidPolicy(p string) bool {
	return p == "" || p == PolicyReorder || p == PolicyReject
}

// missing returns the first dependency of name that has not completed.
func (l *ledger) missing(name string, deps assembler.Deps) string {
	for _, d := range deps[name] {
		if !l.completed[d] {
			return d
		}
	}
	return ""
}

// fold reads the tool history of a log: assistant/message tool calls give
// each call's tool and arguments, successful tool/result events complete
// them.
func (l *ledger) fold(lines iter.Seq2[[]byte, *assembler.Header]) {
	calls := map[string]gjson.Result{}
	for line, h := range lines {
		if h != nil {
			continue // a request/header line, which the ledger does not read
		}
		typ := lineType(line)
		if typ != TypeAssistantMessage && typ != TypeToolResult {
			continue
		}
		// A view, not ParseBytes's copy of every line.
		ev := gjson.Parse(canon.View(line))
		switch typ {
		case TypeAssistantMessage:
			ev.Get("data.toolCalls").ForEach(func(_, c gjson.Result) bool {
				calls[c.Get("id").String()] = c
				return true
			})
		case TypeToolResult:
			d := ev.Get("data")
			if d.Get("error").Bool() {
				continue
			}
			c := calls[d.Get("callId").String()]
			// Copies of what the ledger keeps, which outlives the view.
			l.record(strings.Clone(d.Get("name").String()), []byte(c.Get("arguments").Raw), strings.Clone(d.Get("output").String()))
		}
	}
}

// TraceError reports a tool that ran before one of its dependencies had
// completed successfully.
type TraceError struct {
	Line   int    // 1-based log line of the offending tool/result
	CallID string // the call that ran too early
	Edge   Edge   // the dependency it ran without
}

// Error names the line, the call and the violated edge.
func (e *TraceError) Error() string {
	return fmt.Sprintf("line %d: tool/result of call %q: %s ran before %s had completed successfully (edge %s)",
		e.Line, e.CallID, e.Edge.From, e.Edge.To, e.Edge)
}

// DepsAt gives the dependencies in force at a step of a turn.
type DepsAt func(turn, step int) assembler.Deps

// CheckTrace checks the executed tool calls of a log (full or templated)
// against declared dependencies: every call that ran (a tool/result that
// is neither an error nor replayed) must come after a successful result of
// each tool it depends on, as declared at the call's step. It returns the
// first violation as a *TraceError.
func CheckTrace(log []byte, deps DepsAt) error { return checkTrace(textLines(log), deps) }

// CheckLogTrace is [CheckTrace] of the log l as it is now, without its
// bytes joined (its request/header lines are not read).
func CheckLogTrace(l *Log, deps DepsAt) error { return checkTrace(l.Lines(), deps) }

func checkTrace(lines iter.Seq2[[]byte, *assembler.Header], deps DepsAt) error {
	completed := map[string]bool{}
	n := 0
	for line, h := range lines {
		n++
		// The type comes first in every line the loop writes, so reading
		// it first skips a request/header line without reading its header.
		if h != nil || lineType(line) != TypeToolResult {
			continue
		}
		d := gjson.GetBytes(line, "data")
		if d.Get("error").Bool() {
			continue
		}
		name := d.Get("name").String()
		if !d.Get("replayed").Bool() {
			for _, dep := range deps(int(d.Get("turn").Int()), int(d.Get("step").Int()))[name] {
				if !completed[dep] {
					return &TraceError{Line: n, CallID: d.Get("callId").String(), Edge: Edge{From: name, To: dep}}
				}
			}
		}
		completed[name] = true
	}
	return nil
}

// Fixed returns a DepsAt that gives the same dependencies at every step.
func Fixed(d assembler.Deps) DepsAt {
	return func(int, int) assembler.Deps { return d }
}

// callIDs lists the ids of calls in the given order.
func callIDs(calls []ToolCall, order []int) []string {
	ids := make([]string, len(order))
	for i, j := range order {
		ids[i] = calls[j].ID
	}
	return ids
}

// isIdentity reports whether order is 0, 1, 2, ...
func isIdentity(order []int) bool {
	return slices.Equal(order, identity(len(order)))
}
