package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/headergold/headergold/internal/cliflags"
	"github.com/headergold/headergold/internal/drift"
	"github.com/headergold/headergold/internal/redact"
)

const diffUsage = `usage: replay diff [-format F] [-json] [-redact RULE]... [-model M] A B

Compare the request headers (config, system prompt, tools) of two session
logs, or of two JSON Lines files of raw provider request bodies, pair them in
order and report the first header that differs: its index (from 1), the path
of the first difference, every kind of difference in it (reorder, added,
removed, content, encoding), the likely cause, what the difference costs in
prompt caching, and how many later headers differ. A or B may be "-" for
standard input.

The cost: the provider caches the prefix of a request in its own render order
(Anthropic: tools, system, messages). B's request is taken as the one sent
after A's: its tokens before the first differing byte in that order are kept,
the rest (the conversation too, where the input holds it) are written to the
cache again. Tokens are o200k_base counts of the JSON bytes, an estimate for
every model but OpenAI's; the rates come from one dated table with a source
per row. A model the table does not know is "no rate for model X", never a
guess.

Flags:
  -format F
        auto (default), log, anthropic, openai-chat, openai-responses or gemini;
        auto tells logs from bodies per file and the wire format per body
  -json
        print {"identical", "first": {"index", "path", "kinds", ...}, "laterDiffering",
        "headers", "notCompared", "cache", "cacheAt", "cacheNote", "unusedRedactions"};
        notCompared lists the members a templated log holds as placeholders,
        which were compared on neither side; cache is {"provider", "order",
        "headerTokens", "keptTokens", "lostTokens", "tokenizer", "estimate",
        "minCacheable", "belowMinimum", "writeMultiplier", "readMultiplier",
        "extraInputTokens", "ratesAsOf", "source"}, or null with the reason in
        cacheNote
  -model M
        price the drift as a request to model M instead of the header's
        config.model (Gemini bodies name their model only in the URL)
  -redact RULE
        normalise a volatile value on both sides before comparing, with the
        rules of a captured scenario's "redact" (repeatable, applied in order):
          path:PATH=TOKEN    the value at header path PATH (config.…, system…,
                             tools.N.…) becomes the string TOKEN (split at
                             the first "=")
          REGEX=TOKEN        every match of REGEX in every JSON string value
                             becomes TOKEN (split at the last "="; write
                             regex:REGEX=TOKEN when REGEX starts with path:)
        a rule that changed nothing in the records compared is listed

Examples:
  # two full session logs of one fixture (record -o), from CI and a laptop
  replay diff ci/text-turn.log laptop/text-turn.log

  # captured request bodies, home directories and a user id normalised
  replay diff -redact '/(home|Users)/[^/"]+=~' \
      -redact 'path:config.metadata.user_id=<<user-id>>' ci-bodies.jsonl laptop-bodies.jsonl

  # Gemini bodies priced as gemini-2.5-flash, B from standard input
  replay diff -format gemini -model gemini-2.5-flash -json ci-bodies.jsonl - < laptop-bodies.jsonl

Exit status: 0 identical, 1 drift, 2 usage error, 125 unreadable or invalid
input, or nothing to compare (no header in either input).
`

// diffCommand words replay diff's usage errors; -h prints diffUsage.
var diffCommand = cliflags.Command{Name: "replay diff",
	Usage: "usage: replay diff [-format F] [-json] [-redact RULE]... [-model M] A B\n"}

// redactFlags collects repeated -redact flags.
type redactFlags []redact.Rule

func (r *redactFlags) String() string { return "" }

func (r *redactFlags) Set(s string) error {
	red, err := drift.ParseRedaction(s)
	if err != nil {
		return err
	}
	*r = append(*r, red)
	return nil
}

// runDiff finds where two hosts' headers drift apart: replay diff A B. args
// are its arguments (without "diff"); standard input is read for "-".
func runDiff(args []string, e env) int {
	stdin, stdout, stderr := e.stdin, e.stdout, e.stderr
	fs := flag.NewFlagSet("replay diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.String("format", string(drift.FormatAuto), "")
	asJSON := fs.Bool("json", false, "")
	model := fs.String("model", "", "")
	var redact redactFlags
	fs.Var(&redact, "redact", "")

	// Flags may follow the file arguments; "--" ends the flags.
	var files []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, diffUsage)
				return exitOK
			}
			return diffCommand.Fail(stderr, "%v", err)
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
	f, err := drift.ParseFormat(*format)
	if err != nil {
		return diffCommand.Fail(stderr, "-format: %v", err)
	}
	if len(files) != 2 {
		return diffCommand.Fail(stderr, "want two inputs A and B, got %d", len(files))
	}
	if files[0] == "-" && files[1] == "-" {
		return diffCommand.Fail(stderr, "only one of A and B can be standard input")
	}

	var srcs [2]drift.Source
	for i, name := range files {
		if name == "-" {
			srcs[i] = drift.Source{Name: "<stdin>", Reader: stdin}
			continue
		}
		file, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "replay diff: %v\n", err)
			return exitCannotRun
		}
		defer file.Close()
		srcs[i] = drift.Source{Name: name, Reader: file}
	}

	res, err := drift.Compare(srcs[0], srcs[1], drift.Options{Format: f, Redact: redact, Model: *model})
	if err != nil {
		fmt.Fprintf(stderr, "replay diff: %v\n", err)
		return exitCannotRun
	}
	if *asJSON {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "replay diff: writing the result: %v\n", err)
		return exitCannotRun
	}
	if res.Identical {
		return exitOK
	}
	return exitMismatch
}
