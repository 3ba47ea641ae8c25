//go:build !unix

package capture

import "os/exec"

func setGroup(*exec.Cmd) {}

// lookPathIn leaves file to exec.Command, which looks it up in this
// process's PATH: the rules of a Windows lookup (PATHEXT, the current
// directory first) are not repeated here.
func lookPathIn(file, _, _ string) (string, error) { return file, nil }

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
