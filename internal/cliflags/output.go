package cliflags

import (
	"fmt"
	"io"
)

// ExitCannotRun is the status of a command that could not do its job for
// a reason that is not the user's command line: an invalid or unreadable
// input, an I/O error; git bisect run reads it as "skip".
const ExitCannotRun = 125

// Output is a command's standard output. It keeps the first error a write
// returned (a full disk, a closed pipe) and writes nothing after it, so
// that a report cut short is not followed by lines that would look like
// the end of one; Command.Exit turns that error into the exit status.
type Output struct {
	w   io.Writer
	err error
}

// NewOutput returns an Output writing to w.
func NewOutput(w io.Writer) *Output { return &Output{w: w} }

// Write writes p, unless an earlier write failed, and keeps the first
// error, a short write included.
func (o *Output) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}

// Err is the first error a write returned, or nil.
func (o *Output) Err() error { return o.err }

// WriteFailed reports whether w is an Output a write to which failed:
// an error its writer returned is then the Output's, which Command.Exit
// reports, and need not be said again.
func WriteFailed(w io.Writer) bool {
	o, ok := w.(*Output)
	return ok && o.err != nil
}

// Exit is the exit status of command c, which would exit with code after
// writing its standard output to out. When a write to out failed, it says
// so on stderr ("NAME: writing standard output: ERR") and, in place of 0,
// returns ExitCannotRun: a run whose report is lost must not pass, in CI
// or under git bisect run. Any other code stands: a failure (1) is a
// verdict that holds without its report (git bisect run still reads the
// commit as bad), and a usage error (2), a refusal, an interrupt (130,
// 143) or ExitCannotRun itself says more about the run than the lost
// output does.
func (c Command) Exit(out *Output, stderr io.Writer, code int) int {
	if out.err == nil {
		return code
	}
	fmt.Fprintf(stderr, "%s: writing standard output: %v\n", c.Name, out.err)
	if code == ExitOK {
		return ExitCannotRun
	}
	return code
}
