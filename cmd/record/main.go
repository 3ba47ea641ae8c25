// Command record records golden session logs and pin sidecars from fixtures.
//
//	go run ./cmd/record                  record every fixture
//	go run ./cmd/record -run NAME        record the fixtures matching NAME
//	go run ./cmd/record -check           exit 1 if recording would change a file
//	go run ./cmd/record -run '^x$' -o F  write one fixture's full log to F
//
// Every fixture is validated before the first write, and the files are
// written as one transaction under a lock on the golden directory: a
// failure or an interrupt leaves every old file intact. It refuses to
// write golden files when CI is set, unless -force.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/cliflags"
	"github.com/headergold/headergold/internal/goldenupdate"
)

func main() {
	// SIGINT and SIGTERM are caught from here until the process exits:
	// they stop record, or roll back its write, and once the last file is
	// in place they no longer change the outcome or the exit status.
	ctx, _ := cliflags.Interruptible(context.Background(), true)
	os.Exit(runContext(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK        = cliflags.ExitOK
	exitChanges   = 1 // -check found what replay would fail on, or a fixture failed its checks
	exitUsage     = cliflags.ExitUsage
	exitRefused   = 3 // refused to write golden files under CI
	exitCannotRun = cliflags.ExitCannotRun
)

// command is record's usage and help; its name is the one messages give.
var command = cliflags.Command{Name: "record", Usage: "usage: record [flags]\n       record help\n", Help: help}

const help = `Runs the selected fixtures and writes golden/NAME.golden (templated) and,
for pinned fixtures, golden/NAME.system.md and golden/NAME.tools.json. Each
file is reported as created, changed or unchanged. All fixtures are
validated and checked (rebuild, permutation, uniformity) before anything is
written; then every file is written to a temp file, synced and renamed, and
a failure at any point restores the old files. The golden directory is
locked (flock) while record writes: a second record waits up to 10s, then
gives up. SIGINT or SIGTERM stops record before it writes, or rolls back
the write under way. Temp files and backups are dot files; those a killed
record left are reported by replay and removed by the next record. While
it replaces files, record keeps a journal, golden/.headergold-journal: a
record killed then (SIGKILL, a crash) leaves it, replay says which files
are new and which old, and the next record first puts every old file
back, says so in one line ("rolled back an interrupted record: restored
..."), then records.

A captured scenario (a fixture with "agent") runs its agent against a fake
provider on 127.0.0.1; its repeat pass (the fixture's "runs", default 4)
must give identical logs before anything is written. Scenarios whose agent
is an in-process Go function are recorded from go test (GOLDIE_UPDATE=1):
record reports them skipped and leaves their golden files as they are.

Recording a real session: with -upstream, a captured scenario's agent runs
once through a recording proxy to the real provider (with the agent's own
API keys, never logged or written); the real responses are streamed to it
unchanged and become the scenario's "replies", written into the fixture
beside the golden files in the same transaction. The repeat pass then
replays them. An upstream error (HTTP 4xx/5xx, a broken stream, a timeout)
or an interrupt writes nothing. With -listen, the fake provider waits on a
fixed loopback address for an agent you start yourself (an IDE, a server).

Examples (record is go run github.com/headergold/headergold/cmd/record,
or the binary go install puts on PATH):
  record                                      record every fixture
  record -run '^tool-order$'                  record one fixture
  record -check                               like gofmt -l: exit 1 if stale
  record -prune                               also delete orphan golden files
  record -run '^text-turn$' -o laptop.jsonl   full log, for replay diff
  record -run '^support-bot$' -upstream https://api.anthropic.com
                                              record a real session
  record -run '^ide-session$' -listen 127.0.0.1:8089
                                              serve an agent started elsewhere

With CI set (to anything but false or 0) it refuses to write golden files
unless -force; -check and -o work anywhere. -o refuses any path inside the
fixtures or golden directory (symlinks resolved) or that is one of their
files under another name.

Only regular files are read, each up to -max-file-size (default 64MiB).

-json prints, one per line, an object for each file ({"file", "status"},
status created, changed, unchanged, removed, cleaned, skipped, orphan,
sidecar, rolled-back for the journal of a killed record, with a "note",
and restored for each file its rollback put back), one for each fixture
that fails its checks ({"fixture",
"status", "seed", "reproduce", "failures"}), then {"summary": true, ...}
with the counts (with -check, "check": true, and the counts are what a
record would do, as the text's "would be" lines and summary say; when
fixtures did not load, "invalidFixtures": [{"file", "line", "column",
"path", "message"}], as in replay -json's summary).

-check exits 1 for everything replay would fail on that recording
would fix or report: a golden file to create or change, an orphan golden
file, a sidecar beside a fixture that is not pinned (which a record
removes), a file left by an interrupted record or its journal (a line says
how many files it left new and old), a fixture that fails its checks.

Flags go before or after other arguments; -h prints this help.

Exit status: 0 done (with -check: nothing to do), 1 -check found something
or a fixture failed its checks, 2 usage error, 3 refused to write golden
files because CI is set, 125 invalid fixture or I/O error, 130 or 143
interrupted by SIGINT or SIGTERM (nothing written). A report (or -o -
log) that could not be written to standard output (a full disk) is said
on stderr and makes 0 exit 125; 1, 2, 3, 125, 130 and 143 stand.
`

// run is record in this process: an interrupt while it runs is caught,
// as by the command.
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := cliflags.Interruptible(context.Background(), true)
	defer stop()
	return runContext(ctx, args, stdout, stderr)
}

// runContext runs record with args; cancelling ctx with a signal (see
// cliflags.Interruptible) stops it before it writes, or rolls its write back, and makes it exit
// 128+signal.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Whatever record writes to standard output goes through one
	// cliflags.Output: a report (or -o - log) that could not be written is
	// said on stderr, and record exits 125 instead of 0.
	out := cliflags.NewOutput(stdout)
	return command.Exit(out, stderr, runRecord(ctx, args, out, stderr))
}

// runRecord is record, its standard output an Output runContext checks.
func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	var (
		opts    harness.Options
		runExpr string
		check   bool
		force   bool
		prune   bool
		outFile string
		asJSON  bool
	)
	fs.StringVar(&opts.Fixtures, "fixtures", "fixtures", "directory of fixture `DIR`/NAME.json")
	fs.StringVar(&opts.Golden, "golden", "golden", "directory of golden `DIR`/NAME.golden and pin sidecars")
	fs.StringVar(&runExpr, "run", "", "record only fixtures whose name matches `REGEX`")
	fs.BoolVar(&check, "check", false, "write nothing; exit 1 if recording would change a file or replay would fail on the layout")
	fs.BoolVar(&force, "force", false, "write even when CI is set")
	fs.BoolVar(&prune, "prune", false, "delete golden files that belong to no fixture (not with -run)")
	fs.StringVar(&outFile, "o", "", "write the full, untemplated log of the one fixture -run selects to `FILE` (- or /dev/stdout for standard output)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object per file and per fixture that fails its checks, then a summary object")
	fs.Uint64Var(&opts.Seed, "seed", 0, "seed of the permutation runs and of subprocess agents' PYTHONHASHSEEDs, as replay's (`N`; 0 picks one)")
	opts.MaxFileSize = harness.DefaultMaxFileSize
	fs.Var(&opts.MaxFileSize, "max-file-size", "refuse to read a fixture or golden file larger than `SIZE` (KiB, MiB, GiB)")
	var cf cliflags.Capture
	cf.Register(fs, true)
	if len(args) > 0 && args[0] == "help" {
		if len(args) > 1 {
			return command.Fail(stderr, "help takes no topic; got %q", args[1])
		}
		command.PrintHelp(fs, stdout)
		return exitOK
	}
	pos, code, ok := command.Parse(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) > 0 && pos[0] == "help" {
		// The usage names "record help": after flags it is no argument.
		return command.Fail(stderr, "help takes no flags: record help")
	}
	if len(pos) > 0 {
		return command.Fail(stderr, "unexpected argument %q (record takes flags only)", pos[0])
	}
	if runExpr != "" {
		re, err := regexp.Compile(runExpr)
		if err != nil {
			return command.Fail(stderr, "-run: %v", err)
		}
		opts.Run = re
	}
	oSet := false
	fs.Visit(func(f *flag.Flag) { oSet = oSet || f.Name == "o" })
	if oSet && outFile == "" {
		// An unset variable in -o "$OUT" must not record golden files.
		return command.Fail(stderr, "-o needs a file name (- for standard output)")
	}
	if outFile != "" && (check || prune || asJSON) {
		return command.Fail(stderr, "-o writes one log and cannot be combined with -check, -prune or -json")
	}
	if prune && opts.Run != nil {
		// Under -run only the selected names are looked at, and an
		// orphan's name belongs to no fixture to select: -prune would
		// delete nothing.
		return command.Fail(stderr, "-prune deletes golden files that belong to no fixture, which -run cannot select: drop -run (record -prune records every fixture), or delete the file by hand")
	}
	// The capture flags (-upstream, -listen) go with the record lines of
	// captured scenarios only: a reference fixture's would be refused.
	var captured map[string]bool // filled once the suite is loaded
	opts.Commands = cliflags.RecordCommands(opts.Fixtures, opts.Golden, func(run string) string {
		if captured[strings.TrimSuffix(strings.TrimPrefix(run, "^"), "$")] {
			return cf.Flags()
		}
		return ""
	})
	rep := newReporter(stdout, stderr, asJSON, check)
	release, err := cf.Apply(&opts, stderr)
	if err != nil {
		if cliflags.NotUsage(err) {
			return rep.abort(exitCannotRun, "cannot record: %v", err)
		}
		return command.Fail(stderr, "%v", err)
	}
	defer release()
	// A usage error above is reported as one, even under CI.
	if goldenupdate.InCI() && !force && !check && outFile == "" {
		return rep.abort(exitRefused, "refusing to write golden files with CI=%s: golden files are recorded on purpose on a "+
			"developer machine and reviewed; a CI run that records would make every replay pass. "+
			"Use -check to see what would change, -o to save a log for comparison, or -force if you mean it.", os.Getenv("CI"))
	}
	// An interrupt stops the agents, so nothing is written, or rolls back
	// the write under way; record then exits 128+signal.
	opts.Context = ctx
	suite, err := harness.Load(opts)
	if code, ok := cliflags.InterruptedStatus(ctx, err); ok {
		return rep.abort(code, "%v", err)
	}
	if err != nil {
		_, fixtures := cliflags.LoadErrors(err)
		return rep.abortLoad(fixtures, "cannot record: %v", err)
	}
	captured = map[string]bool{}
	for _, f := range suite.Fixtures() {
		captured[f.Name] = f.Captured()
	}
	if opts.Listen != nil && len(suite.Fixtures()) != 1 {
		return command.Fail(stderr, "-listen serves one scenario; -run %q selects %d", opts.Run, len(suite.Fixtures()))
	}
	if msg := cliflags.CaptureOnly(opts, suite.Fixtures()); msg != "" {
		return command.Fail(stderr, "%s", msg)
	}
	if len(suite.Fixtures()) == 0 && opts.Run != nil {
		return command.Fail(stderr, "-run %q matches no fixture in %s", opts.Run, opts.Fixtures)
	}
	if outFile != "" {
		if err := suite.CheckOutput(outFile); stdStream(outFile) == 0 && err != nil {
			return command.Fail(stderr, "-o %v", err)
		}
		if stdStream(outFile) == 0 {
			// Said before the fixture runs, which may take a while (or
			// an upstream's money), rather than after.
			if _, _, err := outputPath(outFile); err != nil {
				fmt.Fprintf(stderr, "record: %v; nothing was written\n", err)
				return exitCannotRun
			}
		}
		return writeLog(ctx, suite, outFile, stdout, stderr)
	}
	if inProcessOnly(suite) {
		// Decided before Record, which would prune and clean first.
		return rep.abort(exitCannotRun, "nothing to record here: the selected scenarios have in-process agents; record them from go test with GOLDIE_UPDATE=1")
	}
	changes, failed, err := suite.Record(harness.RecordOptions{DryRun: check, Prune: prune, SkipInProcess: true})
	if code, ok := cliflags.InterruptedStatus(ctx, err); ok {
		return rep.abort(code, "%v", err)
	}
	for _, r := range failed {
		reproduce := ""
		if f := suite.Fixture(r.Fixture); f != nil && f.Seeded() && !r.Invalid() {
			// The same runs again: the seed picks the permutation
			// orders and a subprocess agent's hash seeds.
			flags := cliflags.DirFlags(opts.Fixtures, opts.Golden)
			if f.Captured() {
				flags += cf.Flags()
			}
			reproduce = fmt.Sprintf("%s -check%s -seed %d -run '^%s$'", command.Name, flags, r.Seed, r.Fixture)
		}
		rep.failed(r, reproduce)
	}
	if err != nil {
		fmt.Fprintf(stderr, "record: %v\n", err)
		rep.summary(summaryReport{Failed: len(failed), Error: err.Error()}, prune)
		for _, r := range failed {
			if r.Invalid() {
				return exitCannotRun
			}
		}
		if len(failed) > 0 {
			return exitChanges
		}
		return exitCannotRun
	}
	counts := map[harness.Status]int{}
	listed := map[string]bool{}
	for _, c := range changes {
		counts[c.Status]++
		listed[c.File] = true
		note := c.Note
		switch c.Status {
		case harness.Skipped:
			note = "in-process agent: record it from go test with GOLDIE_UPDATE=1"
		case harness.RolledBack:
			rep.rolledBack(c.File, note)
			continue
		case harness.Restored:
			if rep.js == nil {
				continue // the rolled-back line names them
			}
		}
		rep.file(string(c.Status), c.File, note)
	}
	// What replay would fail on that the changes do not show: orphans
	// (unless -prune removes them) and sidecars beside a fixture that is
	// not pinned which record did not remove (an in-process scenario's,
	// which record skips).
	stray := 0
	if !prune {
		for _, f := range suite.Findings() {
			if f.Kind == harness.Orphan {
				rep.file("orphan", f.File, "no fixture; -prune removes it")
				stray++
			}
		}
	}
	for _, f := range suite.Fixtures() {
		if f.Pin {
			continue
		}
		for _, ext := range []string{".system.md", ".tools.json"} {
			file := filepath.Join(opts.Golden, f.Name+ext)
			if _, err := os.Lstat(file); err == nil && !listed[file] {
				rep.file("sidecar", file, f.Name+" is not pinned; delete it or pin it")
				stray++
			}
		}
	}
	rep.summary(summaryReport{Created: counts[harness.Created], Changed: counts[harness.Changed], Unchanged: counts[harness.Unchanged],
		Removed: counts[harness.Removed], Cleaned: counts[harness.Cleaned], Skipped: counts[harness.Skipped], Stray: stray,
		RolledBack: counts[harness.RolledBack] > 0, Restored: counts[harness.Restored]}, prune)
	if check && counts[harness.Created]+counts[harness.Changed]+counts[harness.Removed]+counts[harness.Cleaned]+counts[harness.RolledBack]+stray > 0 {
		return exitChanges
	}
	return exitOK
}

// inProcessOnly reports whether the suite skips every selected fixture
// (see harness.Suite.Skips), which leaves record nothing to run.
func inProcessOnly(suite *harness.Suite) bool {
	selected := suite.Fixtures()
	for _, f := range selected {
		if !suite.Skips(f) {
			return false
		}
	}
	return len(selected) > 0
}

// writeLog writes the full log of the single selected fixture.
func writeLog(ctx context.Context, suite *harness.Suite, file string, stdout, stderr io.Writer) int {
	selected := suite.Fixtures()
	if len(selected) != 1 {
		names := make([]string, len(selected))
		for i, f := range selected {
			names[i] = f.Name
		}
		return command.Fail(stderr, "-o needs a -run that selects exactly one fixture; it selects %d: %v", len(selected), names)
	}
	out, res := suite.Check(selected[0])
	if code, ok := cliflags.InterruptedStatus(ctx, ctx.Err()); ok {
		fmt.Fprintf(stderr, "record: interrupted before anything was written: %v\n", context.Cause(ctx))
		return code
	}
	if out == nil {
		for _, f := range res.Failures {
			fmt.Fprintf(stderr, "%s: %s\n", res.Fixture, f)
		}
		fmt.Fprintf(stderr, "record: -o %s: nothing was written\n", file)
		if res.Invalid() {
			return exitCannotRun
		}
		return exitChanges // the run failed, as a replay would say
	}
	for _, f := range res.Failures {
		// The log is still worth comparing; say what is wrong with it.
		fmt.Fprintf(stderr, "warning: %s: %s\n", res.Fixture, f)
	}
	done := stdout
	if std := stdStream(file); std == 1 {
		done = stderr // stdout is the log
	}
	err := writeOutput(ctx, file, out.Log, stdout, stderr)
	if code, ok := cliflags.InterruptedStatus(ctx, err); ok {
		fmt.Fprintf(stderr, "record: %v\n", err)
		return code
	}
	if err != nil {
		if stdStream(file) != 1 || !cliflags.WriteFailed(stdout) {
			// Not standard output's error, which runContext reports.
			fmt.Fprintf(stderr, "record: %v\n", err)
		}
		return exitCannotRun
	}
	fmt.Fprintf(done, "wrote %s (full log of %s, %d bytes)\n", file, res.Fixture, len(out.Log))
	return exitOK
}

// stdStream says whether an -o name stands for the process's standard
// output (1) or error (2): "-", and the names of a shell's descriptors.
// Those are written to as they are open: opening /dev/stdout again would
// start a redirected file afresh (at offset 0), and a pipe has no name a
// rename could replace.
func stdStream(file string) int {
	switch file {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return 1
	case "/dev/stderr", "/dev/fd/2", "/proc/self/fd/2":
		return 2
	}
	return 0
}

// writeOutput writes -o's log: to standard output or error for their
// names (see stdStream); through a symbolic link to the file it names
// (creating it, as a shell's > does, when it does not exist yet);
// straight into a device or a named pipe, which a rename would replace
// with a regular file; and into a regular file, or a new one,
// atomically, so that a failed write leaves the old log.
func writeOutput(ctx context.Context, file string, log []byte, stdout, stderr io.Writer) error {
	switch stdStream(file) {
	case 1:
		_, err := stdout.Write(log)
		return err
	case 2:
		_, err := stderr.Write(log)
		return err
	}
	path, fi, err := outputPath(file)
	switch {
	case err != nil:
		return err
	case fi == nil || fi.Mode().IsRegular():
		return harness.WriteFilesContext(ctx, []harness.FileWrite{{Path: path, Data: log}})
	case fi.IsDir():
		return fmt.Errorf("-o %s: is a directory; give a file name", file)
	case fi.Mode()&(os.ModeDevice|os.ModeCharDevice|os.ModeNamedPipe) != 0:
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fmt.Errorf("-o %s: %w", file, err)
		}
		_, err = f.Write(log)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("-o %s: %w", file, err)
		}
		return nil
	default:
		return fmt.Errorf("-o %s: not a regular file, a device or a named pipe (%v)", file, fi.Mode().Type())
	}
}

// outputPath resolves -o's name (not a standard stream's) to the file a
// write goes to: a symbolic link's destination, the link itself being
// kept. fi is that file's, nil when it does not exist yet. A new file
// needs its directory: the write would make its temp file there, and
// fail naming that temp file, so a directory that is missing (or is not
// one) is said here, by its name.
func outputPath(file string) (path string, fi os.FileInfo, err error) {
	path, err = filepath.Abs(file)
	if err != nil {
		return "", nil, fmt.Errorf("-o %s: %w", file, err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		dest, err := filepath.EvalSymlinks(path)
		if errors.Is(err, os.ErrNotExist) {
			// A link to a file not written yet: the file it names.
			if dest, err = os.Readlink(path); err == nil && !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(path), dest)
			}
		}
		if err != nil {
			return "", nil, fmt.Errorf("-o %s: %w", file, err)
		}
		path = dest
	}
	dir := filepath.Dir(path)
	switch di, err := os.Stat(dir); {
	case errors.Is(err, os.ErrNotExist):
		return "", nil, fmt.Errorf("-o %s: the directory %s does not exist (-o makes no directories)", file, dir)
	case err == nil && !di.IsDir():
		return "", nil, fmt.Errorf("-o %s: %s is not a directory", file, dir)
	}
	fi, err = os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return path, nil, nil
	case err != nil:
		return "", nil, fmt.Errorf("-o %s: %w", file, err)
	}
	return path, fi, nil
}
