package main

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// An agent does not outlive a replay that was killed outright (SIGKILL,
// the OOM killer), with nothing left to stop its process group: the
// kernel sends it SIGTERM when replay dies.
func TestKilledReplayStopsItsAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	r := startSlowReplay(t, "exec sleep 60", "")
	r.cmd.Process.Kill()
	<-r.done
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// A process that died but was not reaped yet (its parent is
		// now init) is gone for this purpose: its state is Z.
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(r.agent) + "/stat")
		if err != nil || strings.Contains(string(stat), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(r.agent, syscall.SIGKILL)
			t.Fatalf("the agent %d still runs 10s after replay was killed", r.agent)
		}
	}
}
