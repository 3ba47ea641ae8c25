//go:build unix

package capture

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunReportsExitAndStderrTail(t *testing.T) {
	err := Run(context.Background(), Command{Argv: []string{"sh", "-c", `for i in $(seq 1 2000); do echo "line $i" >&2; done; exit 3`}})
	var ee *ExecError
	if !errors.As(err, &ee) {
		t.Fatalf("Run = %v, want an *ExecError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "exit status 3") || !strings.Contains(msg, "line 2000") || strings.Contains(msg, "line 1\n") {
		t.Errorf("message lacks the exit or the tail, or keeps the head: %.300s", msg)
	}
	head, tail, _ := strings.Cut(ee.Stderr, "\n")
	if !strings.HasPrefix(head, "[") || !strings.HasSuffix(head, " earlier bytes not shown]") {
		t.Errorf("the tail does not say it is one: %.80q", ee.Stderr)
	}
	if len(tail) > StderrTail {
		t.Errorf("stderr tail %d bytes, want at most %d", len(tail), StderrTail)
	}
	// A short stderr is shown whole, with no such line.
	err = Run(context.Background(), Command{Argv: []string{"sh", "-c", `echo short >&2; exit 3`}})
	if !errors.As(err, &ee) || ee.Stderr != "short\n" {
		t.Errorf("short stderr %q", ee.Stderr)
	}
}

// An agent that exits and leaves a child behind in its process group,
// holding its stderr (sh's "cmd &"), has ended: the child is killed, the
// run is judged by the agent's exit, and Run does not wait for the child.
func TestRunKillsWhatTheAgentLeftBehind(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	err := Run(context.Background(), Command{
		Argv: []string{"sh", "-c", `sleep 300 & echo $! > pid; echo bye >&2; exit 0`},
		Dir:  dir,
	})
	if err != nil {
		t.Fatalf("Run = %v, want success", err)
	}
	// The child sleeps 300s: a Run that waited for it would take that
	// long (or drainLimit, then report it escaped). drainLimit tells the
	// two apart on any machine; one drainWait (500ms) measured the
	// machine's speed, which a loaded CI runner could fail.
	if d := time.Since(start); d >= drainLimit {
		t.Errorf("Run took %s, waiting for the child", d)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "pid")))
}

// A process that left the agent's group (setsid) cannot be killed by it:
// still holding the agent's stderr, it fails the run, which says so.
func TestRunReportsAnEscapedChild(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid here")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	err := Run(context.Background(), Command{
		Argv: []string{"sh", "-c", `setsid sh -c 'echo $$ > pid; exec sleep 300' & while [ ! -s pid ]; do sleep 0.01; done; exit 0`},
		Dir:  dir,
	})
	if err == nil || !strings.Contains(err.Error(), "left its process group") {
		t.Fatalf("Run = %v, want the escaped child reported", err)
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for pid to be gone (or a zombie), killing it and failing
// if it is not within 5s.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("process %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	t.Setenv("HEADERGOLD_INHERITED", "kept")
	t.Setenv("HEADERGOLD_OVERRIDDEN", "parent")
	err := Run(context.Background(), Command{
		Argv: []string{"sh", "-c", `printf '%s|%s|%s|%s' "$HEADERGOLD_INHERITED" "$HEADERGOLD_OVERRIDDEN" "$EXTRA" "$(pwd)" > env`},
		Dir:  dir,
		Env:  map[string]string{"HEADERGOLD_OVERRIDDEN": "scenario", "EXTRA": "x y"},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if got, want := string(b), "kept|scenario|x y|"+real; got != want {
		t.Errorf("child saw %q, want %q", got, want)
	}
}

func TestRunTimeoutKillsTheProcessGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	start := time.Now()
	// The grandchild would outlive a signal to the direct child alone.
	// The script must have written its pid and its line before the
	// timeout's SIGTERM ends it: 3s leaves a loaded machine the time to start sh and its
	// child (at 500ms the kill could come first).
	err := Run(context.Background(), Command{
		Argv:    []string{"sh", "-c", `sleep 300 & echo $! > pid; echo started >&2; wait`},
		Dir:     dir,
		Timeout: 3 * time.Second,
	})
	var ee *ExecError
	if !errors.As(err, &ee) || ee.TimedOut != 3*time.Second {
		t.Fatalf("Run = %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), "timed out after 3s (agent.timeout); its process group got SIGTERM, then SIGKILL") || !strings.Contains(err.Error(), "started") {
		t.Errorf("message %q", err)
	}
	// The grandchild sleeps 300s; Run's own drain waits at most
	// drainLimit (10s) once the group is killed. A minute bounds a hang
	// only, however loaded the machine.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("Run took %s after a 3s timeout", d)
	}
	// The grandchild is killed; give the kernel a moment to reap it.
	waitGone(t, readPid(t, pidFile))
}

// At the timeout the group gets SIGTERM first, so that a wrapper script's
// trap removes what it made (the example CLI wrappers' temporary HOME)
// before the run ends.
func TestRunTimeoutLetsTrapsRun(t *testing.T) {
	dir := t.TempDir()
	err := Run(context.Background(), Command{
		Argv:    []string{"sh", "-c", `trap 'rm -f made; exit 143' TERM; : > made; echo started >&2; sleep 300 & wait`},
		Dir:     dir,
		Timeout: 3 * time.Second,
	})
	var ee *ExecError
	if !errors.As(err, &ee) || ee.TimedOut == 0 || !strings.Contains(ee.Stderr, "started") {
		t.Fatalf("Run = %v, want a timeout after the script started", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the trap did not remove the file the script made (stat: %v)", err)
	}
}

// An agent that ignores SIGTERM is killed stopGrace later, with what it
// started.
func TestRunTimeoutKillsWhatIgnoresSIGTERM(t *testing.T) {
	dir := t.TempDir()
	start := time.Now()
	// sh ignores TERM, and so does the sleep it starts, which inherits
	// the ignored signal.
	err := Run(context.Background(), Command{
		Argv:    []string{"sh", "-c", `trap '' TERM; sleep 300 & echo $! > pid; echo started >&2; wait`},
		Dir:     dir,
		Timeout: 3 * time.Second,
	})
	var ee *ExecError
	if !errors.As(err, &ee) || ee.TimedOut == 0 || !strings.Contains(ee.Stderr, "started") {
		t.Fatalf("Run = %v, want a timeout after the script started", err)
	}
	if d := time.Since(start); d < 3*time.Second+stopGrace {
		t.Errorf("Run returned after %s, before the timeout and the grace after SIGTERM had passed", d)
	}
	waitGone(t, readPid(t, filepath.Join(dir, "pid")))
}

// zombie reports whether pid has exited but is not reaped yet.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] == "Z"
}

func TestRunMissingProgram(t *testing.T) {
	err := Run(context.Background(), Command{Argv: []string{"headergold-no-such-program"}})
	if err == nil || !strings.Contains(err.Error(), "headergold-no-such-program") {
		t.Errorf("Run = %v", err)
	}
	var ee *ExecError
	if !errors.As(err, &ee) || !ee.NotStarted {
		t.Errorf("a program that is not there is not NotStarted: %#v", err)
	}
	err = Run(context.Background(), Command{Argv: []string{"sh", "-c", "exit 3"}})
	if !errors.As(err, &ee) || ee.NotStarted {
		t.Errorf("an agent that ran and exited 3 is NotStarted: %#v", err)
	}
	if err := Run(context.Background(), Command{}); err == nil {
		t.Error("empty argv accepted")
	}
}

func TestQuoteArgv(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"go", "run", "./cmd/agent", "-prompt=x"}, "go run ./cmd/agent -prompt=x"},
		{[]string{"sh", "-c", "sleep 30 & sleep 30"}, "sh -c 'sleep 30 & sleep 30'"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
		{[]string{"node", "agent.mjs", "--prompt", "Weather in Oslo?"}, "node agent.mjs --prompt 'Weather in Oslo?'"},
	} {
		if got := QuoteArgv(c.argv); got != c.want {
			t.Errorf("QuoteArgv(%q) = %s, want %s", c.argv, got, c.want)
		}
	}
}

// Environ leaves out the variables it is told to, unless env sets them,
// and puts env on top in a fixed order.
func TestEnviron(t *testing.T) {
	base := []string{"A=1", "TOKEN=real", "KEEP=x", "B=2", "GIVEN=real"}
	got := Environ(base, map[string]string{"B": "two", "GIVEN": "fixture", "C": "3"}, "TOKEN", "GIVEN")
	want := []string{"A=1", "KEEP=x", "B=two", "C=3", "GIVEN=fixture"}
	if !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
}

// TestRunLooksUpTheAgentsPATH: a bare program name is looked up in the
// PATH the agent gets (agent.env's, else the inherited one), as a shell
// would start it, with relative entries taken from the agent's directory
// and files that are not executable passed over; not found there, it is
// not started, and the message names that PATH.
func TestRunLooksUpTheAgentsPATH(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"bin", "other"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const name = "headergold-test-agent"
	if err := os.WriteFile(filepath.Join(dir, "other", name), []byte("#!/bin/sh\necho wrong > ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bin", name), []byte("#!/bin/sh\necho right > ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		filepath.Join(dir, "other") + string(filepath.ListSeparator) + filepath.Join(dir, "bin"),
		"other" + string(filepath.ListSeparator) + "bin", // relative to Dir
	} {
		os.Remove(filepath.Join(dir, "ran"))
		if err := Run(context.Background(), Command{Argv: []string{name}, Dir: dir, Env: map[string]string{"PATH": path}}); err != nil {
			t.Fatalf("PATH=%s: %v", path, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "ran")); err != nil || string(b) != "right\n" {
			t.Errorf("PATH=%s: ran %q, %v; want the executable in bin", path, b, err)
		}
	}
	// The inherited PATH, when agent.env does not set one: a relative
	// entry is the agent's directory's, as the agent's own shell reads it.
	t.Setenv("PATH", "other"+string(filepath.ListSeparator)+"bin"+string(filepath.ListSeparator)+os.Getenv("PATH"))
	os.Remove(filepath.Join(dir, "ran"))
	if err := Run(context.Background(), Command{Argv: []string{name}, Dir: dir}); err != nil {
		t.Fatalf("inherited PATH: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "ran")); err != nil || string(b) != "right\n" {
		t.Errorf("inherited PATH: ran %q, %v; want the executable in bin", b, err)
	}
	err := Run(context.Background(), Command{Argv: []string{name}, Dir: dir, Env: map[string]string{"PATH": filepath.Join(dir, "other")}})
	var ee *ExecError
	if !errors.As(err, &ee) || !ee.NotStarted || !strings.Contains(err.Error(), filepath.Join(dir, "other")) {
		t.Errorf("Run with no executable on the agent's PATH = %v, want not started, naming that PATH", err)
	}
}

// TestRunDirThroughASymlink: a Dir with ".." after a symlink is the
// directory the system resolves it to, for the agent's working directory
// and for a relative entry of its PATH alike, not the one filepath.Join
// would make of it as text.
func TestRunDirThroughASymlink(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"real/sub", "real/agents/bin", "proj"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join("..", "real", "sub"), filepath.Join(root, "proj", "link")); err != nil {
		t.Fatal(err)
	}
	const name = "headergold-test-agent"
	if err := os.WriteFile(filepath.Join(root, "real", "agents", "bin", name), []byte("#!/bin/sh\npwd -P > ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "proj", "link") + "/../agents"
	if err := Run(context.Background(), Command{Argv: []string{name}, Dir: dir, Env: map[string]string{"PATH": "bin"}}); err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(filepath.Join(root, "real", "agents"))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(want, "ran")); err != nil || string(b) != want+"\n" {
		t.Errorf("the agent ran in %q, %v; want %s", b, err, want)
	}
}
