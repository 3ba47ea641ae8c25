package drift

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// Exit statuses of [Main], fit for git bisect run.
const (
	ExitIdentical = 0   // the headers are identical
	ExitDrift     = 1   // the headers differ
	ExitUsage     = 2   // bad flags or arguments
	ExitInvalid   = 125 // an input cannot be read or is invalid
)

const usage = `usage: replay diff [-format F] [-json] [-redact REGEX=TOKEN]... A B

Compare the request headers (config, system prompt, tools) of two session
logs, or of two JSON Lines files of raw provider request bodies, pair them in
order and report the first header that differs: its index (from 1), the path
of the first difference, every kind of difference in it (reorder, added,
removed, content, encoding), the likely cause, and how many later headers
differ. A or B may be "-" for standard input.

Flags:
  -format F
        auto (default), log, anthropic, openai-chat, openai-responses or gemini;
        auto tells logs from bodies per file and the wire format per body
  -json
        print {"identical", "first": {"index", "path", "kinds", ...}, "laterDiffering", "headers"}
  -redact REGEX=TOKEN
        replace text matching REGEX in every JSON string value with TOKEN on
        both sides before comparing (repeatable; split at the last "=")

Examples:
  # two full session logs of one fixture (record -o), from CI and a laptop
  replay diff ci/text-turn.log laptop/text-turn.log

  # captured request bodies, home directories normalised on both sides
  replay diff -redact '/(home|Users)/[^/"]+=~' ci-bodies.jsonl laptop-bodies.jsonl

  # Anthropic bodies, machine-readable result, B from standard input
  replay diff -format anthropic -json ci-bodies.jsonl - < laptop-bodies.jsonl

Exit status: 0 identical, 1 drift, 2 usage error, 125 unreadable or invalid input.
`

// redactFlags collects repeated -redact flags.
type redactFlags []Redaction

func (r *redactFlags) String() string { return "" }

func (r *redactFlags) Set(s string) error {
	red, err := ParseRedaction(s)
	if err != nil {
		return err
	}
	*r = append(*r, red)
	return nil
}

// Main runs the diff subcommand: args are its arguments (without "diff"),
// stdin is read for an argument "-". It returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", string(FormatAuto), "")
	asJSON := fs.Bool("json", false, "")
	var redact redactFlags
	fs.Var(&redact, "redact", "")

	// Flags may follow the file arguments; "--" ends the flags.
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, usage)
				return ExitIdentical
			}
			fmt.Fprintf(stderr, "replay diff: %v\n\n%s", err, usage)
			return ExitUsage
		}
		after := fs.Args()
		if n := len(rest) - len(after); n > 0 && rest[n-1] == "--" {
			files = append(files, after...)
			break
		}
		if len(after) == 0 {
			break
		}
		files = append(files, after[0])
		rest = after[1:]
	}
	f, err := ParseFormat(*format)
	if err != nil {
		fmt.Fprintf(stderr, "replay diff: -format: %v\n", err)
		return ExitUsage
	}
	if len(files) != 2 {
		fmt.Fprintf(stderr, "replay diff: want two inputs A and B, got %d\n\n%s", len(files), usage)
		return ExitUsage
	}
	if files[0] == "-" && files[1] == "-" {
		fmt.Fprintf(stderr, "replay diff: only one of A and B can be standard input\n")
		return ExitUsage
	}

	var srcs [2]Source
	for i, name := range files {
		if name == "-" {
			srcs[i] = Source{Name: "<stdin>", Reader: stdin}
			continue
		}
		file, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "replay diff: %v\n", err)
			return ExitInvalid
		}
		defer file.Close()
		srcs[i] = Source{Name: name, Reader: file}
	}

	res, err := Compare(srcs[0], srcs[1], Options{Format: f, Redact: redact})
	if err != nil {
		fmt.Fprintf(stderr, "replay diff: %v\n", err)
		return ExitInvalid
	}
	if *asJSON {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "replay diff: writing the result: %v\n", err)
		return ExitInvalid
	}
	if res.Identical {
		return ExitIdentical
	}
	return ExitDrift
}
