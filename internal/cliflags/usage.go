package cliflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/capture"
)

// Exit statuses every command of this module shares.
const (
	ExitOK    = 0
	ExitUsage = 2 // a usage error: a bad flag, a missing or extra argument
)

// Command is what a command prints about its own use, the way the go
// tools do: a usage error is one line of error, the short usage and a
// pointer to the help, on stderr, with ExitUsage; -h (or -help, or the
// help subcommand) prints the full help and the flags to stdout, with
// ExitOK.
type Command struct {
	// Name is the command as the user invokes it: "replay",
	// "replay diff".
	Name string
	// Usage is the short usage, one or more lines starting with "usage: ".
	Usage string
	// Help is the full help, printed after Usage and before the flags.
	Help string
}

// errHelp is the error Parse returns when the help was asked for and
// printed.
var errHelp = errors.New("help printed")

// Parse parses args with fs, accepting flags after positional arguments
// (as go test and go vet do) until a "--", after which everything is
// positional. It returns the positional arguments and, when it is done
// with the command, the exit status: ok is false after a usage error
// (printed to stderr) or -h (the help printed to stdout).
func (c Command) Parse(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	pos, err := c.parse(fs, args, stdout)
	switch {
	case errors.Is(err, errHelp):
		return nil, ExitOK, false
	case err != nil:
		return nil, c.Fail(stderr, "%v", err), false
	}
	return pos, ExitOK, true
}

func (c Command) parse(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	// The flag package's own messages would print the error and the
	// whole help to the same stream; this prints them where they belong.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			c.PrintHelp(fs, stdout)
			return nil, errHelp
		}
		if err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := args[:len(args)-len(rest)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// PrintHelp prints the full help and the flags of fs to w.
func (c Command) PrintHelp(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, c.Usage)
	if !strings.HasSuffix(c.Usage, "\n") {
		fmt.Fprintln(w)
	}
	if c.Help != "" {
		fmt.Fprintf(w, "\n%s", c.Help)
		if !strings.HasSuffix(c.Help, "\n") {
			fmt.Fprintln(w)
		}
	}
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// Fail prints a usage error: "NAME: message" on one line, the short usage
// and where the help is, to w. It returns ExitUsage.
func (c Command) Fail(w io.Writer, format string, args ...any) int {
	msg := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	fmt.Fprintf(w, "%s: %s\n%s", c.Name, msg, c.Usage)
	if !strings.HasSuffix(c.Usage, "\n") {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Run '%s -h' for details.\n", c.Name)
	return ExitUsage
}

// DirFlags repeats -fixtures and -golden as the user gave them, for a
// command line a message prints; the defaults are left out.
func DirFlags(fixtures, golden string) string {
	s := ""
	if fixtures != "fixtures" {
		s += " -fixtures " + ShellQuote(fixtures)
	}
	if golden != "golden" {
		s += " -golden " + ShellQuote(golden)
	}
	return s
}

// ShellQuote quotes s for a POSIX shell when it needs it.
func ShellQuote(s string) string { return capture.QuoteArgv([]string{s}) }

// RecordCommands words record's command line for the harness's messages:
// the binary record, with the -fixtures and -golden the user gave, and
// the flags more returns for the -run pattern at hand (Capture.Flags for
// a captured scenario; nil: none).
func RecordCommands(fixtures, golden string, more func(run string) string) harness.Commands {
	dirs := DirFlags(fixtures, golden)
	return harness.Commands{
		Record: func(run string) string {
			extra := ""
			if more != nil {
				extra = more(run)
			}
			return "record" + dirs + extra + " -run " + ShellQuote(run)
		},
		Prune: "record" + dirs + " -prune",
	}
}
