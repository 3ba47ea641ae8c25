//go:build unix

package cliflags

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// signalChild is what the test binary does when TestSignals starts it
// again: it listens as a command does, says so on stdout, and reports
// each signal it takes as a cancelled context, then waits to be killed.
func signalChild(keepCatching bool) {
	ctx, stop := Interruptible(context.Background(), keepCatching)
	defer stop()
	fmt.Println("listening")
	<-ctx.Done()
	code, ok := InterruptedStatus(ctx, ctx.Err())
	fmt.Printf("cancelled %d %v\n", code, ok)
	time.Sleep(30 * time.Second) // the test's second signal ends it, or not
	fmt.Println("slept")
}

// The first SIGINT or SIGTERM cancels the context with the signal as its
// cause (exit status 128+n); without keepCatching a second one kills the
// process as the signal does, and with it the second one is caught too.
// The signals go to a child process: the test binary itself would die.
func TestSignals(t *testing.T) {
	if mode := os.Getenv("CLIFLAGS_SIGNAL_CHILD"); mode != "" {
		signalChild(mode == "keep")
		os.Exit(0)
	}
	for _, c := range []struct {
		keep   bool
		sig    syscall.Signal
		killed bool // by the second signal
	}{
		{false, syscall.SIGINT, true},
		{false, syscall.SIGTERM, true},
		{true, syscall.SIGINT, false},
	} {
		t.Run(fmt.Sprintf("keep=%v/%v", c.keep, c.sig), func(t *testing.T) {
			mode := "once"
			if c.keep {
				mode = "keep"
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestSignals$")
			cmd.Env = append(os.Environ(), "CLIFLAGS_SIGNAL_CHILD="+mode)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			lines := make(chan string, 4)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					lines <- sc.Text()
				}
				close(lines)
				done <- cmd.Wait()
			}()
			t.Cleanup(func() {
				cmd.Process.Kill()
				for range lines {
				}
				<-done
			})
			next := func(want string) {
				t.Helper()
				select {
				case l := <-lines:
					if l != want {
						t.Fatalf("child said %q, want %q", l, want)
					}
				case <-time.After(20 * time.Second):
					t.Fatalf("child said nothing; want %q", want)
				}
			}
			next("listening")
			cmd.Process.Signal(c.sig)
			next(fmt.Sprintf("cancelled %d true", 128+int(c.sig)))
			cmd.Process.Signal(c.sig)
			if !c.killed {
				// Still caught: the child sleeps on until killed.
				select {
				case l, ok := <-lines:
					if ok {
						t.Fatalf("after a second %v the child said %q", c.sig, l)
					}
					t.Fatalf("a second %v ended the child", c.sig)
				case <-time.After(500 * time.Millisecond):
				}
				return
			}
			for range lines {
			}
			err = <-done
			done <- err // for the cleanup
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("child ended with %v, want killed by %v", err, c.sig)
			}
			ws := exit.Sys().(syscall.WaitStatus)
			if !ws.Signaled() || ws.Signal() != c.sig {
				t.Fatalf("child ended with %v (%s), want killed by %v", err, strings.TrimSpace(string(exit.Stderr)), c.sig)
			}
		})
	}
}
