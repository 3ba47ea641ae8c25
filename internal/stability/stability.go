// Package stability measures how a task's tool-call order and outcome vary
// over several session logs of it: other hosts, other model versions, other
// runs. An order that changes while the outcome holds is robust; an order
// that holds while the outcome changes is brittle.
package stability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/drift"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// Run is what one session log says about the task.
type Run struct {
	Name    string            // the log's file name
	Order   []string          // executed tool calls, by tool name, in log order
	Results map[string]string // the last output of each tool
	Answer  string            // the text of the last assistant message
	events  int
}

// orderKey and outcomeKey make runs comparable.
func (r Run) orderKey() string {
	// Each name quoted, invalid bytes as they are: no two orders alike,
	// whatever bytes a name holds.
	var b []byte
	for _, name := range r.Order {
		b = strconv.AppendQuote(b, name)
		b = append(b, ',')
	}
	return string(b)
}

func (r Run) outcomeKey() string {
	b, _ := json.Marshal(struct {
		Results map[string]string // encoding/json sorts map keys
		Answer  string
	}{r.Results, r.Answer})
	return string(b)
}

// ReadRun reads a session log (full or templated). The executed order is
// the tool/result events of calls that ran: not those refused, failed or
// replayed from the idempotency ledger. The results are the last output of
// each tool, failures included; the answer is the last assistant text. In
// a captured log, whose agent runs its own tools, the order is that of the
// tool calls of the replies (capture/reply) and the answer their last
// text; there are no results.
// Every line must be an event {"type": string, "data": object}; errors name
// the file and 1-based line, and a JSON syntax error its column and what is
// wrong, as replay diff's do. A line is held to the limits of every log
// reader of this module ([drift.CheckRecord]): one longer than
// drift.MaxRecordSize is refused once that much of it is read, and one
// nested deeper than drift.MaxDepth before it is parsed; the error is a
// *drift.InputError naming the file, line, column and depth.
func ReadRun(name string, r io.Reader) (Run, error) {
	run := Run{Name: name, Results: map[string]string{}}
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10), limit: drift.MaxRecordSize}
	for n := 1; ; n++ {
		line, err := lr.next()
		if err != nil && err != io.EOF {
			return Run{}, fmt.Errorf("%s: %w", name, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if drift.HasByteOrderMark(line) {
				return Run{}, drift.ByteOrderMarkError(name, n)
			}
			if lerr := drift.CheckRecord(name, n, line); lerr != nil {
				return Run{}, lerr
			}
			ev, bad := event(line)
			if bad != nil {
				return Run{}, drift.RecordError(name, n, bad)
			}
			run.events++
			data := ev.Get("data")
			switch ev.Get("type").String() {
			case logformat.ToolResult:
				tool := data.Get("name").String()
				run.Results[tool] = data.Get("output").String()
				if !data.Get("error").Bool() && !data.Get("replayed").Bool() {
					run.Order = append(run.Order, tool)
				}
			case logformat.AssistantMessage:
				if t := data.Get("text"); t.Exists() {
					run.Answer = t.String()
				}
			case logformat.CaptureReply:
				// A captured agent runs its own tools: what the log holds
				// is the calls the model asked for, and its text.
				reply := data.Get("reply")
				reply.Get("toolCalls").ForEach(func(_, c gjson.Result) bool {
					run.Order = append(run.Order, c.Get("name").String())
					return true
				})
				if t := reply.Get("text"); t.Exists() {
					run.Answer = t.String()
				}
			}
		}
		if err == io.EOF {
			if run.events == 0 {
				return Run{}, fmt.Errorf("%s: no events: not a session log", name)
			}
			return run, nil
		}
	}
}

// lineReader returns the lines of a stream without their newline, holding
// at most limit+1 bytes of one: a longer line is cut there (and the rest
// of it is not read), which the record check then refuses.
type lineReader struct {
	br    *bufio.Reader
	buf   []byte
	limit int
}

// next returns the next line, valid until the next call, and io.EOF with
// the last line.
func (lr *lineReader) next() ([]byte, error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		cut := false
		if room := lr.limit + 1 - len(lr.buf); len(chunk) > room {
			chunk, cut = chunk[:room], true
		}
		if need := len(lr.buf) + len(chunk); need > cap(lr.buf) {
			// Doubling, but never past what one line may hold: append
			// alone would take a line near the limit to twice it.
			grown := make([]byte, len(lr.buf), min(max(need, 2*cap(lr.buf)), lr.limit+1))
			copy(grown, lr.buf)
			lr.buf = grown
		}
		lr.buf = append(lr.buf, chunk...)
		if cut {
			return lr.buf, nil // limit+1 bytes: longer than a line may be
		}
		switch {
		case err == nil:
			return lr.buf[:len(lr.buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		return lr.buf, err
	}
}

// event parses one log line, or says why it is not an event.
func event(line []byte) (gjson.Result, error) {
	if !gjson.ValidBytes(line) {
		if _, err := canon.Compact(nil, line); err != nil {
			return gjson.Result{}, err
		}
		return gjson.Result{}, errors.New("invalid JSON")
	}
	ev := gjson.ParseBytes(line)
	if ev.Get("type").Type != gjson.String || !ev.Get("data").IsObject() {
		return gjson.Result{}, errors.New(`not a session log event {"type": …, "data": {…}}`)
	}
	return ev, nil
}

// Quadrants of a report.
const (
	StableRobust  = "stable and robust"
	Robust        = "robust"             // the order varies, the outcome holds
	StableBrittle = "stable but brittle" // the order holds, the outcome varies
	Neither       = "neither"
)

// Report summarises several runs of one task.
type Report struct {
	Runs       int         `json:"runs"`
	Threshold  float64     `json:"threshold"`
	Stability  float64     `json:"stability"`  // share of runs with the most common order
	Robustness float64     `json:"robustness"` // share of runs with the most common outcome
	Quadrant   string      `json:"quadrant"`
	Order      []string    `json:"order"`    // the most common order
	Orders     int         `json:"orders"`   // distinct orders seen
	Outcomes   int         `json:"outcomes"` // distinct outcomes seen
	PerRun     []RunReport `json:"logs"`
}

// RunReport says how one run compares with the most common ones.
type RunReport struct {
	Name           string   `json:"file"`
	Order          []string `json:"order"`
	OrderMatches   bool     `json:"orderMatches"`
	OutcomeMatches bool     `json:"outcomeMatches"`
}

// Analyze compares the runs. A share at or above threshold counts as
// stable (order) or robust (outcome).
func Analyze(runs []Run, threshold float64) Report {
	orderKey, orderCount, orders := mostCommon(runs, Run.orderKey)
	outcomeKey, outcomeCount, outcomes := mostCommon(runs, Run.outcomeKey)
	rep := Report{Runs: len(runs), Threshold: threshold, Orders: orders, Outcomes: outcomes, Order: []string{}}
	if len(runs) == 0 {
		rep.Quadrant = Neither
		return rep
	}
	rep.Stability = float64(orderCount) / float64(len(runs))
	rep.Robustness = float64(outcomeCount) / float64(len(runs))
	for _, r := range runs {
		if r.orderKey() == orderKey && len(rep.Order) == 0 && r.Order != nil {
			rep.Order = slices.Clone(r.Order)
		}
		rep.PerRun = append(rep.PerRun, RunReport{Name: r.Name, Order: append([]string{}, r.Order...),
			OrderMatches: r.orderKey() == orderKey, OutcomeMatches: r.outcomeKey() == outcomeKey})
	}
	stable, robust := rep.Stability >= threshold, rep.Robustness >= threshold
	switch {
	case stable && robust:
		rep.Quadrant = StableRobust
	case robust:
		rep.Quadrant = Robust
	case stable:
		rep.Quadrant = StableBrittle
	default:
		rep.Quadrant = Neither
	}
	return rep
}

// mostCommon returns the most frequent key (ties: the smallest key), its
// count and the number of distinct keys.
func mostCommon(runs []Run, key func(Run) string) (string, int, int) {
	counts := map[string]int{}
	for _, r := range runs {
		counts[key(r)]++
	}
	best, n := "", 0
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] > n {
			best, n = k, counts[k]
		}
	}
	return best, n, len(counts)
}
