package goldentest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinariesDoNotLinkTesting: the go test glue lives here, so the
// commands built on harness link neither testing nor goldie.
func TestBinariesDoNotLinkTesting(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the binaries' packages")
	}
	out, err := exec.Command(goTool, "list", "-deps", "../../cmd/replay", "../../cmd/record", "..").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "testing" || strings.HasPrefix(pkg, "github.com/sebdah/goldie") {
			t.Errorf("harness or a command links %s", pkg)
		}
	}
}
