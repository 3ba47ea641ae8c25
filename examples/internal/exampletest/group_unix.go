//go:build unix

package exampletest

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own, stopped as the
// harness stops a subprocess agent: its context's end sends the group
// SIGTERM (a wrapper script's trap then removes what it made), and the
// returned function, called once the command has ended, kills what is
// left of the group.
func inGroup(cmd *exec.Cmd) (killRest func()) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	return func() {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}
}
