package exampletest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NeedNode skips the test where node is not on PATH or the Node packages
// of the test package's agent directory, agent/ (examples/PKG/agent, with
// its package-lock.json), are not installed, and says how to install
// them.
func NeedNode(t *testing.T, pkg string) {
	t.Helper()
	dir := "examples/" + pkg + "/agent"
	if _, err := exec.LookPath("node"); err != nil {
		t.Skipf("node is not on PATH: install Node.js, then run npm ci --prefix %s", dir)
	}
	if _, err := os.Stat(filepath.Join("agent", "node_modules")); err != nil {
		t.Skipf("%s/node_modules is missing: run npm ci --prefix %s", dir, dir)
	}
}
