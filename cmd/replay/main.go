// Command replay replays golden session logs and bisects header drift.
//
//	go run ./cmd/replay [flags]          replay fixtures against golden files
//	go run ./cmd/replay diff A B         find where two hosts' headers drift
//	go run ./cmd/replay stability LOG... how stable a task's tool order and outcome are
//
// Run it with -h for the flags. Exit status: 0 all match, 1 a mismatch or
// guard failure, 2 usage error, 125 cannot test (invalid fixture,
// unreadable file), so it works with git bisect run.
package main

import (
	"io"
	"os"
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
}

// Exit statuses, chosen for git bisect run.
const (
	exitOK        = 0
	exitMismatch  = 1
	exitUsage     = 2
	exitCannotRun = 125
)

func run(args []string, e env) int {
	if len(args) > 0 {
		switch args[0] {
		case "diff":
			return runDiff(args[1:], e)
		case "stability":
			return runStability(args[1:], e)
		}
	}
	return runReplay(args, e)
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
