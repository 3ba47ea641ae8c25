//go:build unix

package capture

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// lookPathIn finds the executable file in the directories of path, a
// PATH value, as execvp does: an empty entry is the working directory,
// and relative entries are relative to dir, where the agent starts. The
// result is absolute, and not cleaned: a ".." in dir or in an entry is
// the system's to resolve, after the symlinks before it.
func lookPathIn(file, path, dir string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := Join(d, file) // an empty d leaves file: the working directory
		if !filepath.IsAbs(p) {
			p = Join(dir, p)
		}
		if !filepath.IsAbs(p) {
			wd, err := os.Getwd()
			if err != nil {
				return "", fmt.Errorf("exec: looking up %q in the agent's PATH from its directory %s: %w", file, dir, err)
			}
			p = Join(wd, p)
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("exec: %q: executable file not found in the agent's PATH (%s)", file, path)
}

// setGroup starts the command in a process group of its own, so that a
// timeout can kill everything it started, and where the system can, has
// it stopped when this process dies.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	orphanSignal(cmd.SysProcAttr)
}

// stopped says how a run was stopped at its timeout.
const stopped = "its process group got SIGTERM, then SIGKILL"

// termGroup asks the command's process group to stop (SIGTERM), which
// lets a wrapper script's trap remove what it made.
func termGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

// killGroup kills the command's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// groupAlive reports whether the command's process group still has a
// member (one that kill may not signal counts).
func groupAlive(cmd *exec.Cmd) bool {
	if cmd.Process == nil {
		return false
	}
	err := syscall.Kill(-cmd.Process.Pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
