package exampletest

import (
	"os/exec"
	"testing"
)

// NeedPython skips the test where python3 is not on PATH. The Python
// examples use its standard library alone, so nothing else is needed.
func NeedPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not on PATH: install Python 3.8 or later")
	}
}
