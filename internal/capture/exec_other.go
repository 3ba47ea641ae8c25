//go:build !unix

package capture

import "os/exec"

func setGroup(*exec.Cmd) {}

// stopped says how a run was stopped at its timeout.
const stopped = "it was killed"

// termGroup kills the command: there is no SIGTERM to send.
func termGroup(cmd *exec.Cmd) { killGroup(cmd) }

// killGroup kills the command; without process groups its children may
// outlive it.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// groupAlive is false: without process groups there is none to wait for.
func groupAlive(*exec.Cmd) bool { return false }
