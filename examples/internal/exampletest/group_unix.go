//go:build unix

package exampletest

import (
	"os/exec"
	"syscall"
)

// inGroup starts cmd in a process group of its own, which its context's
// end kills whole: a wrapper script's children go with it.
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
