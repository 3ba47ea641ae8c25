//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/bundletest"
	"github.com/tidwall/gjson"
)

// slowReplay is a replay binary started on a fixtures directory whose
// first scenario's agent writes its pid and then runs script.
type slowReplay struct {
	cmd            *exec.Cmd
	done           chan struct{} // closed when cmd has exited
	stdout, stderr bytes.Buffer
	agent          int // the agent's pid, once it runs
}

// startSlowReplay builds replay, writes the scenarios a-slow (its agent
// writes its pid, then runs script) and b-later, starts replay on them
// with args, by way of wrap when given (a shell command that ends by
// exec-ing "$0" "$@"), and waits for the agent to run. The process is
// killed and reaped when the test ends.
func startSlowReplay(t *testing.T, script, wrap string, args ...string) *slowReplay {
	t.Helper()
	dir := t.TempDir()
	bin := bundletest.Build(t, dir)
	fixtures, golden := filepath.Join(dir, "fixtures"), filepath.Join(dir, "golden")
	os.Mkdir(fixtures, 0o755)
	os.Mkdir(golden, 0o755)
	writeFixture := func(name, script string) {
		fx := `{"description":"d","runs":1,"agent":{"exec":["sh","-c",` + strconv.Quote(script) + `],"timeout":"60s"},"replies":[{"text":"a"}]}`
		if err := os.WriteFile(filepath.Join(fixtures, name+".json"), []byte(fx), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFixture("a-slow", `echo $$ > pid; `+script)
	writeFixture("b-later", `true`)
	args = append([]string{"-fixtures", fixtures, "-golden", golden}, args...)
	r := &slowReplay{cmd: exec.Command(bin, args...), done: make(chan struct{})}
	if wrap != "" {
		r.cmd = exec.Command("sh", append([]string{"-c", wrap, bin}, args...)...)
	}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() { r.cmd.Process.Kill(); <-r.done })
	for deadline := time.Now().Add(30 * time.Second); r.agent == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent never started: %s %s", r.stdout.String(), r.stderr.String())
		}
		b, _ := os.ReadFile(filepath.Join(fixtures, "pid"))
		r.agent, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	return r
}

// A signal stops replay where it is: the agent running is killed, the
// fixtures after it are not started, none is reported as failing, and
// replay exits as the signal would have (130, 143, 129 for a closed
// terminal's SIGHUP), which git bisect run
// takes for an abort rather than a bad commit.
func TestInterruptStopsReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, c := range []struct {
		sig  syscall.Signal
		json bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, true}, {syscall.SIGHUP, false}} {
		var args []string
		if c.json {
			args = append(args, "-json")
		}
		r := startSlowReplay(t, "exec sleep 60", "", args...)
		cmd, done, pid := r.cmd, r.done, r.agent
		stdout, stderr := &r.stdout, &r.stderr
		cmd.Process.Signal(c.sig)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: replay still runs 20s later", c.sig)
		}
		if code := cmd.ProcessState.ExitCode(); code != 128+int(c.sig) {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.sig, code, 128+int(c.sig), stdout.String(), stderr.String())
		}
		if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "at a-slow") {
			t.Errorf("%v: stderr %q", c.sig, stderr.String())
		}
		if strings.Contains(stdout.String(), "FAIL") || strings.Contains(stdout.String(), "b-later") {
			t.Errorf("%v: reported as failing, or went on:\n%s", c.sig, stdout.String())
		}
		if c.json {
			if s := gjson.Parse(strings.TrimSpace(stdout.String())); s.Get("interrupted").String() != "a-slow" || s.Get("failed").Int() != 0 {
				t.Errorf("summary %s", stdout.String())
			}
		} else if out := stdout.String(); !strings.HasSuffix(out, "interrupted at a-slow: neither it nor the fixtures after it count\n0 passed, 0 failed\n") {
			// The output ends with the counts (SPEC §4), an interrupt too.
			t.Errorf("%v: text output does not end with the counts:\n%s", c.sig, out)
		}
		// replay reaped its agent before exiting: the pid is gone.
		if err := syscall.Kill(pid, 0); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%v: the agent %d still runs", c.sig, pid)
		}
	}
}

// Under nohup (SIGHUP ignored when replay starts) a hangup changes
// nothing: the run goes on to its end, as the user asked it to outlive a
// logout.
func TestHangupIgnoredUnderNohup(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	r := startSlowReplay(t, "sleep 1", `trap "" HUP; exec "$0" "$@"`)
	r.cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-r.done:
	case <-time.After(60 * time.Second):
		t.Fatal("replay still runs 60s later")
	}
	// Both scenarios ran (they fail: there are no golden logs).
	if code := r.cmd.ProcessState.ExitCode(); code != exitMismatch || strings.Contains(r.stderr.String(), "interrupted") ||
		!strings.Contains(r.stdout.String(), "b-later") {
		t.Errorf("exit %d\n%s%s", code, r.stdout.String(), r.stderr.String())
	}
}
