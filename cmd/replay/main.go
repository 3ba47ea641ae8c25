// Command replay replays golden session logs and bisects header drift.
//
//	replay [flags]            replay fixtures against golden files
//	replay diff A B           find where two hosts' headers drift
//	replay stability LOG...   how stable a task's tool order and outcome are
//	replay help [diff | stability]
//
// Run it with -h for the flags. Exit status: 0 all match, 1 a mismatch or
// guard failure, 2 usage error, 125 cannot test (invalid fixture,
// unreadable file, or a report that could not be written to standard
// output), so it works with git bisect run.
package main

import (
	"context"
	"io"
	"os"

	"github.com/headergold/headergold/internal/cliflags"
)

func main() {
	os.Exit(run(os.Args[1:], env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, terminal: isTerminal(os.Stdout),
	}))
}

// env is what the command reads from its process, so tests can run it
// in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	terminal       bool // stdout is a terminal
	// parent, when set, is the context replay's own interruptible one
	// derives from (tests cancel it as a signal would).
	parent context.Context
}

// Exit statuses, chosen for git bisect run.
const (
	exitOK        = cliflags.ExitOK
	exitMismatch  = 1
	exitUsage     = cliflags.ExitUsage
	exitCannotRun = cliflags.ExitCannotRun
)

// run runs replay or one of its subcommands with args. Whatever it writes
// to standard output goes through one cliflags.Output: a report that could
// not be written is said on stderr, and the run exits 125 instead of 0
// (see cliflags.Command.Exit).
func run(args []string, e env) int {
	out := cliflags.NewOutput(e.stdout)
	e.stdout = out
	cmd, code := replayCommand, exitOK
	switch {
	case len(args) > 0 && args[0] == "diff":
		cmd, code = diffCommand, runDiff(args[1:], e)
	case len(args) > 0 && args[0] == "stability":
		cmd, code = stabilityCommand, runStability(args[1:], e)
	case len(args) > 0 && args[0] == "help":
		code = runHelp(args[1:], e)
	default:
		code = runReplay(args, e)
	}
	return cmd.Exit(out, e.stderr, code)
}

// runHelp prints the full help of replay or of one of its subcommands to
// standard output: replay help [diff | stability].
func runHelp(args []string, e env) int {
	switch {
	case len(args) == 0:
		_, code := parseReplayFlags([]string{"-h"}, e)
		return code
	case len(args) > 1:
		return replayCommand.Fail(e.stderr, "help takes one topic; got %q", args)
	case args[0] == "diff":
		return runDiff([]string{"-h"}, e)
	case args[0] == "stability":
		return runStability([]string{"-h"}, e)
	}
	return replayCommand.Fail(e.stderr, "no help on %q (topics: diff, stability)", args[0])
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
