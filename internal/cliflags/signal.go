package cliflags

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// signalCause is the cause of a context cancelled by a signal.
type signalCause struct{ sig os.Signal }

// SignalCause is the cause Interruptible gives a context a signal
// cancelled, for tests and callers that cancel one themselves.
func SignalCause(sig os.Signal) error { return signalCause{sig} }

func (c signalCause) Error() string { return c.sig.String() + " received" }

// Interruptible returns a context that SIGINT, SIGTERM or SIGHUP (a
// closed terminal, a dropped ssh session; unless it is ignored, as nohup
// does) cancels, with
// the signal as its cause, and the function that stops listening. With
// keepCatching, every such signal is caught while it listens: a second
// Ctrl-C cannot kill record in the middle of rolling a write back.
// Without, the first is caught and a second one kills the process, as a
// user pressing Ctrl-C again expects of a command with nothing to undo.
func Interruptible(parent context.Context, keepCatching bool) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	catch := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		// Under nohup SIGHUP is ignored, and must stay so: catching
		// it would stop the run the user asked to outlive a logout.
		catch = append(catch, syscall.SIGHUP)
	}
	signal.Notify(sigs, catch...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			if !keepCatching {
				signal.Stop(sigs)
			}
			cancel(SignalCause(s))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// InterruptedStatus returns the exit status of a run that err ended
// because a signal cancelled ctx: 128 plus the signal's number, as a
// shell reports a process the signal killed (130 for SIGINT, 143 for
// SIGTERM).
func InterruptedStatus(ctx context.Context, err error) (int, bool) {
	var c signalCause
	if err == nil || !errors.Is(err, context.Canceled) || !errors.As(context.Cause(ctx), &c) {
		return 0, false
	}
	if n, ok := c.sig.(syscall.Signal); ok {
		return 128 + int(n), true
	}
	return 128 + 2, true
}
