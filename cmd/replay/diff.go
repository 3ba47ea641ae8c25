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
logs, or of two JSON Lines files of raw provider request bodies. Requests are
paired in order (request 1 with request 1, ...), each with the header it was
sent under: a body is its own header; in a session log a step's request (or a
captured request) is sent under the last request/header event before it, so a
header change logged one step later on one host is found at the step where
the headers first differ, and a header event on one side only that changes
nothing (a resume) is no drift. The report gives the first request whose
headers differ: its number, the index (from 1) of each side's header event,
each side's turn and step (or captured request) and lines, the path of the
first difference, every kind of difference in it (reorder, added, removed,
content, encoding), the likely cause, what the difference costs in prompt
caching, and how many later requests differ. Inputs with different numbers of
requests are drift even when the requests they share agree ("A has 5
requests, B has 4; the 4 they share have the same headers"). Every line of
both inputs must be a valid event (session log) or request body of a known
format; a session-log event byte-identical to the other input's beside it
is taken as it is, unvalidated, so that two copies of a large log cost a
comparison, not a parse.
A or B may be "-" for standard input.

The cost: the provider caches the prefix of a request in its own render order
(Anthropic: tools, system, messages). B's request is taken as the one sent
after A's: its tokens before the first differing byte in that order are kept,
the rest (the conversation too, where the input holds it) are written to the
cache again. A config of another value is taken to lose the whole prefix; a
config that differs only in encoding (key order, number spelling) loses
nothing, since the provider parses the body. Tokens are o200k_base counts of
the JSON bytes, an estimate for every model but OpenAI's; the rates come from
one dated table with a source per row. A model the table does not know is
"no rate for model X", never a guess.

Flags:
  -format F
        auto (default), log, anthropic, openai-chat, openai-responses or gemini;
        auto tells logs from bodies per file and the wire format per body (a
        body that could be Anthropic or OpenAI Chat is read as its file's
        earlier bodies were, else as the other file's paired request, and
        judged as a body of that format); a format given is what every body
        is read as, and a line that is not a body of it (a log event, a body
        without its messages or contents, tools that are not an array, a
        body detected as another format by a certain mark of it: a leading
        system or developer message or a tool with a "function" or
        "custom" member for openai-chat; system, anthropic_version or a
        tool with input_schema for anthropic; input, instructions,
        max_output_tokens or previous_response_id without messages for
        openai-responses; contents, systemInstruction, generationConfig or
        functionDeclarations, or their snake_case spellings, for gemini)
        cannot be compared (125)
  -json
        print {"identical", "first": {"index", "request", "path", "kinds", "a", "b", ...},
        "laterDiffering", "headers", "requests", "countNote", "notCompared", "cache",
        "cacheAt", "cacheNote", "unusedRedactions"}; first.index is A's header
        event (or body) index, first.request the request number, and "a"/"b"
        hold each side's "header", "line", "requestLine", "turn", "step"
        ("request" for a captured log); countNote says when the inputs hold
        different numbers of requests; notCompared lists the members a
        templated log holds as placeholders, whose content was compared on
        neither side (only whether each side has them); cache is {"provider", "order", "headerTokens", "keptTokens",
        "lostTokens", "tokenizer", "estimate", "minCacheable", "belowMinimum",
        "writeMultiplier", "readMultiplier", "extraInputTokens", "ratesAsOf",
        "source"}, or null with the reason in cacheNote
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
        a rule that would change nothing is listed (nothing in a log's
        header events; nothing anywhere in a body, its messages included)

Examples:
  # two full session logs of one fixture (record -o), from CI and a laptop
  replay diff ci/text-turn.log laptop/text-turn.log

  # captured request bodies, home directories and a user id normalised
  replay diff -redact '/(home|Users)/[^/"]+=~' \
      -redact 'path:config.metadata.user_id=<<user-id>>' ci-bodies.jsonl laptop-bodies.jsonl

  # Gemini bodies priced as gemini-2.5-flash, B from standard input
  replay diff -format gemini -model gemini-2.5-flash -json ci-bodies.jsonl - < laptop-bodies.jsonl

Flags go before or after A and B ("--" ends them); -h prints this help.

Exit status: 0 identical, 1 drift (headers or numbers of requests), 2 usage
error, 125 unreadable or invalid input (a line that is not a valid event or
request body, with file:line:column, the column of the character or member
at fault; file:line alone where no member is: a body without its messages,
or of no known format), or nothing to compare (no request in either input,
or one input empty: blank lines or 0 bytes), or "identical" that could not
be written to standard output (said on stderr; a drift stays 1).
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
	if err != nil && !cliflags.WriteFailed(stdout) {
		// Not standard output failing, which run reports and makes
		// exit 125 whatever the result.
		fmt.Fprintf(stderr, "replay diff: writing the result: %v\n", err)
		return exitCannotRun
	}
	if res.Identical {
		return exitOK
	}
	return exitMismatch
}
