package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/bundletest"
)

// An agent does not outlive a replay that was killed outright (SIGKILL,
// the OOM killer), with nothing left to stop its process group: the
// kernel sends it SIGTERM when replay dies.
func TestKilledReplayStopsItsAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	dir := t.TempDir()
	bin := bundletest.Build(t, dir)
	fixtures, golden := filepath.Join(dir, "fixtures"), filepath.Join(dir, "golden")
	os.Mkdir(fixtures, 0o755)
	os.Mkdir(golden, 0o755)
	fx := `{"description":"d","runs":1,"agent":{"exec":["sh","-c","echo $$ > pid; exec sleep 60"]},"replies":[{"text":"a"}]}`
	if err := os.WriteFile(filepath.Join(fixtures, "slow.json"), []byte(fx), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-fixtures", fixtures, "-golden", golden)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	var pid int
	for deadline := time.Now().Add(30 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the agent never started")
		}
		b, _ := os.ReadFile(filepath.Join(fixtures, "pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	cmd.Process.Kill()
	<-done
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// A process that died but was not reaped yet (its parent is
		// now init) is gone for this purpose: its state is Z.
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the agent %d still runs 10s after replay was killed", pid)
		}
	}
}
