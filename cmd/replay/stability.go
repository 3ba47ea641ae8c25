package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/cliflags"
	"github.com/headergold/headergold/internal/stability"
)

// stabilityCommand is replay stability's usage and help.
var stabilityCommand = cliflags.Command{Name: "replay stability",
	Usage: "usage: replay stability [-json] [-threshold F] LOG...\n", Help: stabilityHelp}

const stabilityHelp = `Compares several session logs of the same task (from other hosts, other
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
  replay stability ci/*.jsonl laptop.jsonl
  replay stability runs/*.jsonl -json -threshold 0.9

Flags go before or after the logs ("--" ends them); -h prints this help.

Exit status: 0 report printed, 2 usage error, 125 unreadable or invalid
log, or a report that could not be written to standard output (said on
stderr).
`

// runStability compares several logs of one task: replay stability LOG...
// args are its arguments (without "stability").
func runStability(args []string, e env) int {
	stdout, stderr := e.stdout, e.stderr
	fs := flag.NewFlagSet("replay stability", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	threshold := fs.Float64("threshold", 0.8, "the share `F`, in (0, 1], at which an order counts as stable and an outcome as robust")
	logs, code, ok := stabilityCommand.Parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(logs) < 2 {
		return stabilityCommand.Fail(stderr, "give at least two logs of the same task; got %d", len(logs))
	}
	if !(*threshold > 0 && *threshold <= 1) { // NaN too
		return stabilityCommand.Fail(stderr, "-threshold %v: want a share in (0, 1]", *threshold)
	}
	var runs []stability.Run
	for _, name := range logs {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", stabilityCommand.Name, err)
			return exitCannotRun
		}
		r, err := stability.ReadRun(name, f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", stabilityCommand.Name, err)
			return exitCannotRun
		}
		runs = append(runs, r)
	}
	rep := stability.Analyze(runs, *threshold)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil && !cliflags.WriteFailed(stdout) {
			// Not standard output failing, which run reports.
			fmt.Fprintf(stderr, "%s: %v\n", stabilityCommand.Name, err)
			return exitCannotRun
		}
		return exitOK
	}
	// A failed write is standard output's error, which run reports.
	writeStability(stdout, rep)
	return exitOK
}

func writeStability(w io.Writer, r stability.Report) {
	orderCount := int(r.Stability*float64(r.Runs) + 0.5)
	outcomeCount := int(r.Robustness*float64(r.Runs) + 0.5)
	threshold := strconv.FormatFloat(r.Threshold, 'f', 2, 64)
	if f, _ := strconv.ParseFloat(threshold, 64); f != r.Threshold {
		threshold = strconv.FormatFloat(r.Threshold, 'f', -1, 64) // as given: 0.801, not 0.80
	}
	fmt.Fprintf(w, "%d runs, threshold %s\n", r.Runs, threshold)
	fmt.Fprintf(w, "ordering stability  %s  (%d of %d runs share the order %s; %d distinct orders)\n",
		share(r.Stability, r.Threshold), orderCount, r.Runs, sequence(r.Order), r.Orders)
	fmt.Fprintf(w, "outcome robustness  %s  (%d of %d runs share the outcome; %d distinct outcomes)\n",
		share(r.Robustness, r.Threshold), outcomeCount, r.Runs, r.Outcomes)
	fmt.Fprintf(w, "quadrant: %s\n", r.Quadrant)
	for _, p := range r.PerRun {
		fmt.Fprintf(w, "  %-8s %-8s %s  %s\n", mark("order", p.OrderMatches), mark("outcome", p.OutcomeMatches), p.Name, sequence(p.Order))
	}
}

// share formats a share with two decimals, or with as many more as it
// takes not to read as the threshold it falls short of (0.9967 against
// 1.00 is 0.9967, not 1.00).
func share(v, threshold float64) string {
	for prec := 2; prec < 8; prec++ {
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if f, _ := strconv.ParseFloat(s, 64); v >= threshold || f < threshold {
			return s
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
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
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = n
		if n == "" || !utf8.ValidString(n) || strings.ContainsFunc(n, func(r rune) bool { return !unicode.IsPrint(r) }) ||
			strings.ContainsAny(n, `"`) || strings.Contains(n, "->") || strings.TrimSpace(n) != n {
			// A name a terminal would not show as it is (a control
			// byte, an escape sequence, an invalid byte), one that
			// could read as two or as part of the arrow, or one that
			// reads like a quoted name.
			shown[i] = strconv.Quote(n)
		}
	}
	return strings.Join(shown, " -> ")
}
