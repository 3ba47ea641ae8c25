package capture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Command is a subprocess agent to run against a fake provider.
type Command struct {
	Argv []string
	Dir  string
	Env  map[string]string // on top of the inherited environment
	// Unset are left out of the inherited environment (Env may set
	// them again).
	Unset   []string
	Timeout time.Duration
	// Stderr, when not nil, is set to the tail of what the agent wrote to
	// stderr, however the run ended: a run that exits 0 can still fail
	// its scenario (a reply left unused), and the tail says why.
	Stderr *string
}

// ExecError reports a subprocess agent that failed: it exited non-zero,
// could not start or timed out. Stderr is the tail of what it wrote there.
type ExecError struct {
	Argv     []string
	Err      error
	TimedOut time.Duration // the timeout, when it was hit
	Stderr   string
	// NotStarted says the process could not be started at all (no such
	// program, no such directory, not executable): the scenario cannot
	// run here, which is not the agent failing.
	NotStarted bool
}

// Error describes the failure with the tail of stderr.
func (e *ExecError) Error() string {
	var b strings.Builder
	if e.TimedOut > 0 {
		fmt.Fprintf(&b, "agent [%s] timed out after %s (agent.timeout); %s", QuoteArgv(e.Argv), e.TimedOut, stopped)
	} else {
		fmt.Fprintf(&b, "agent [%s]: %v", QuoteArgv(e.Argv), e.Err)
	}
	b.WriteString(StderrBlock(e.Stderr))
	return strings.TrimRight(b.String(), "\n")
}

// StderrBlock formats the tail of an agent's stderr for a message: on
// lines of its own after a heading, indented; "" when there is none.
func StderrBlock(tail string) string {
	if strings.TrimSpace(tail) == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n  stderr (tail):\n")
	for l := range strings.SplitSeq(strings.TrimRight(tail, "\n"), "\n") {
		b.WriteString("    " + l + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// Unwrap returns the underlying error.
func (e *ExecError) Unwrap() error { return e.Err }

// QuoteArgv writes an argv as a POSIX shell reads it back: each argument
// that holds anything but letters, digits and the characters -_./:=@%+,
// (comma included) is single-quoted, so that an argument with a space
// shows as one.
func QuoteArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	max   int
	b     []byte
	total int64 // bytes written
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > t.max {
		b = b[len(b)-t.max:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	if cut := t.total - int64(len(b)); cut > 0 {
		return fmt.Sprintf("[%d earlier bytes not shown]\n%s", cut, b)
	}
	return string(b)
}

// StderrTail is how much of a failed agent's stderr is shown.
const StderrTail = 4 << 10

// Environ returns the environment of a subprocess: the inherited one
// without the variables named in unset, then env on top, sorted so that
// the child's view never depends on map order.
func Environ(base []string, env map[string]string, unset ...string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, 0, len(base)+len(keys))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, over := env[k]; !over && !slices.Contains(unset, k) {
			out = append(out, kv)
		}
	}
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// Join joins rel to dir as the system will resolve it, which
// filepath.Join does not: it cleans "link/../x" to "x" as text, where the
// system takes ".." from the directory link points to. rel is kept as
// written, so that a message names the path the user wrote. A dir of ""
// or "." leaves rel alone.
func Join(dir, rel string) string {
	if dir == "" || dir == "." {
		return rel
	}
	return strings.TrimRight(dir, "/"+string(filepath.Separator)) + string(filepath.Separator) + rel
}

// program returns the program to start for argv0. A bare name is looked
// up in the PATH of env, the agent's environment (which agent.env may
// set), from the agent's directory dir, as a shell, env(1) or a spawn
// from Node or Python would: not in this process's PATH from its own
// directory.
func program(argv0, dir string, env []string) (string, error) {
	path, ok := "", false
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, "PATH="); found {
			path, ok = v, true
		}
	}
	if !ok || strings.ContainsRune(argv0, '/') || strings.ContainsRune(argv0, filepath.Separator) {
		return argv0, nil
	}
	return lookPathIn(argv0, path, dir)
}

// drainWait is how long Run waits, once the agent has exited and its
// process group is killed, for the end of its stderr before it looks
// again: while the group still has members (slow to die) it waits on, up
// to drainLimit; once the group is gone, only a process that left it
// (setsid) can still hold the pipe.
const (
	drainWait  = 500 * time.Millisecond
	drainLimit = 10 * time.Second
	// stopGrace is how long an agent stopped at its timeout (or when ctx
	// ends) has between SIGTERM and SIGKILL: time for a wrapper's trap to
	// remove its temporary files, not for an agent to finish its work.
	stopGrace = 2 * time.Second
)

// Run runs the command to its end. Its stdout is discarded and its stderr
// kept for the error. The run ends when the agent's process exits: what
// it left running in its process group is killed then. At the timeout or
// when ctx ends the whole group gets SIGTERM, and SIGKILL when the agent
// has exited or stopGrace has passed; Run returns only once the process
// is gone. A process that left the group and still holds the
// agent's stderr fails the run, since nothing here can kill it.
func Run(ctx context.Context, c Command) error {
	if len(c.Argv) == 0 {
		return errors.New("agent: empty exec")
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	env := Environ(os.Environ(), c.Env, c.Unset...)
	name, err := program(c.Argv[0], c.Dir, env)
	if err != nil {
		return &ExecError{Argv: c.Argv, Err: err, NotStarted: true}
	}
	cmd := exec.Command(name, c.Argv[1:]...)
	cmd.Args[0] = c.Argv[0] // the name as given, not as found
	cmd.Dir = c.Dir
	cmd.Env = env
	// stderr is a pipe of Run's own, not one exec.Cmd copies from: Wait
	// then returns when the agent exits, not when every process that
	// inherited its stderr (a background child) has closed it.
	pr, pw, err := os.Pipe()
	if err != nil {
		return &ExecError{Argv: c.Argv, Err: err, NotStarted: true}
	}
	defer pr.Close()
	cmd.Stderr = pw
	cmd.Stdout = nil
	setGroup(cmd)
	err = cmd.Start()
	pw.Close() // the agent and its children hold the write end now
	if err != nil {
		return &ExecError{Argv: c.Argv, Err: err, NotStarted: true}
	}
	stderr := &tailBuffer{max: StderrTail}
	drained := make(chan struct{})
	go func() {
		io.Copy(stderr, pr) // ends at EOF, or when Run closes pr
		close(drained)
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var timedOut, interrupted bool
	select {
	case err = <-done:
	case <-ctx.Done():
		termGroup(cmd)
		select {
		case err = <-done:
		case <-time.After(stopGrace):
			killGroup(cmd)
			err = <-done
		}
		timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		interrupted = !timedOut
	}
	// The agent is done; children it left behind in its group go too,
	// and with them their ends of the pipe.
	killGroup(cmd)
	escaped := false
	for deadline, waiting := time.Now().Add(drainLimit), true; waiting; {
		select {
		case <-drained:
			waiting = false
		case <-time.After(drainWait):
			// The end of stderr and the timer can come together, and
			// select then picks either: an agent whose group died just
			// now is not one that left a process behind.
			select {
			case <-drained:
				waiting = false
				continue
			default:
			}
			if groupAlive(cmd) && time.Now().Before(deadline) {
				killGroup(cmd) // members slow to die, or started since
				continue
			}
			escaped, waiting = true, false
			pr.Close()
			<-drained
		}
	}
	tail := stderr.String()
	if c.Stderr != nil {
		*c.Stderr = tail
	}
	var escape error
	if escaped {
		escape = errors.New("a process the agent started left its process group (setsid, or a daemon) and still holds its stderr: " +
			"it was not killed and may still be running; stop it, and have the agent wait for what it starts")
	}
	switch {
	case timedOut:
		return &ExecError{Argv: c.Argv, Err: joinEscape(err, escape), TimedOut: c.Timeout, Stderr: tail}
	case interrupted:
		return &ExecError{Argv: c.Argv, Err: joinEscape(ctx.Err(), escape), Stderr: tail}
	case err != nil:
		return &ExecError{Argv: c.Argv, Err: joinEscape(err, escape), Stderr: tail}
	case escaped:
		return &ExecError{Argv: c.Argv, Stderr: tail, Err: fmt.Errorf("the agent exited, but %w", escape)}
	}
	return nil
}

// joinEscape adds the news of an escaped process to the error the run
// ended with.
func joinEscape(err, escape error) error {
	if escape == nil {
		return err
	}
	return fmt.Errorf("%w; and %w", err, escape)
}
