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

// A signal stops replay where it is: the agent running is killed, the
// fixtures after it are not started, none is reported as failing, and
// replay exits as the signal would have (130, 143, 129 for a closed
// terminal's SIGHUP), which git bisect run
// takes for an abort rather than a bad commit.
func TestInterruptStopsReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
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
	writeFixture("a-slow", `echo $$ > pid; exec sleep 60`)
	writeFixture("b-later", `true`)
	for _, c := range []struct {
		sig  syscall.Signal
		json bool
	}{{syscall.SIGINT, false}, {syscall.SIGTERM, true}, {syscall.SIGHUP, false}} {
		pidFile := filepath.Join(fixtures, "pid")
		os.Remove(pidFile)
		args := []string{"-fixtures", fixtures, "-golden", golden}
		if c.json {
			args = append(args, "-json")
		}
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-done })
		var pid int
		for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the agent never started: %s %s", stdout.String(), stderr.String())
			}
			b, _ := os.ReadFile(pidFile)
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
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
		}
		// replay reaped its agent before exiting: the pid is gone.
		if err := syscall.Kill(pid, 0); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%v: the agent %d still runs", c.sig, pid)
		}
	}
}
