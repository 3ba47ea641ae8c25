package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/headergold/headergold/internal/stability"
)

const stabilityUsage = `usage: replay stability [-json] [-threshold F] LOG...

Compares several session logs of the same task (from other hosts, other
model versions, repeated runs) and reports:

  ordering stability  share of runs whose executed tool-call order is the
                      most common one
  outcome robustness  share of runs whose final tool results (the last
                      output of each tool) and final answer match the most
                      common outcome

and the quadrant: stable and robust; robust (the order varies, the outcome
holds); stable but brittle (the order holds, the outcome varies); neither.
A share at or above -threshold counts.

Examples:
  go run ./cmd/replay stability ci/*.jsonl laptop.jsonl
  go run ./cmd/replay stability -json -threshold 0.9 runs/*.jsonl

Exit status: 0 report printed, 2 usage error, 125 unreadable or invalid log.

Flags:
`

// runStability compares several logs of one task: replay stability LOG...
// args are its arguments (without "stability").
func runStability(args []string, e env) int {
	stdout, stderr := e.stdout, e.stderr
	fs := flag.NewFlagSet("stability", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, stabilityUsage)
		fs.PrintDefaults()
	}
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	threshold := fs.Float64("threshold", 0.8, "share (0..1] at which an order counts as stable and an outcome as robust")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() < 2 {
		fmt.Fprintln(stderr, "stability: give at least two logs of the same task")
		return exitUsage
	}
	if *threshold <= 0 || *threshold > 1 {
		fmt.Fprintf(stderr, "stability: -threshold %v: want a share in (0, 1]\n", *threshold)
		return exitUsage
	}
	var runs []stability.Run
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "stability: %v\n", err)
			return exitCannotRun
		}
		r, err := stability.ReadRun(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "stability: %v\n", err)
			return exitCannotRun
		}
		runs = append(runs, r)
	}
	rep := stability.Analyze(runs, *threshold)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "replay stability: %v\n", err)
			return exitCannotRun
		}
		return exitOK
	}
	writeStability(stdout, rep)
	return exitOK
}

func writeStability(w io.Writer, r stability.Report) {
	orderCount := int(r.Stability*float64(r.Runs) + 0.5)
	outcomeCount := int(r.Robustness*float64(r.Runs) + 0.5)
	fmt.Fprintf(w, "%d runs, threshold %.2f\n", r.Runs, r.Threshold)
	fmt.Fprintf(w, "ordering stability  %.2f  (%d of %d runs share the order %s; %d distinct orders)\n",
		r.Stability, orderCount, r.Runs, sequence(r.Order), r.Orders)
	fmt.Fprintf(w, "outcome robustness  %.2f  (%d of %d runs share the outcome; %d distinct outcomes)\n",
		r.Robustness, outcomeCount, r.Runs, r.Outcomes)
	fmt.Fprintf(w, "quadrant: %s\n", r.Quadrant)
	for _, p := range r.PerRun {
		fmt.Fprintf(w, "  %-8s %-8s %s  %s\n", mark("order", p.OrderMatches), mark("outcome", p.OutcomeMatches), p.Name, sequence(p.Order))
	}
}

func mark(what string, ok bool) string {
	if ok {
		return what
	}
	return strings.Repeat("-", len(what))
}

func sequence(names []string) string {
	if len(names) == 0 {
		return "(no tool calls)"
	}
	return strings.Join(names, " -> ")
}
