package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

// TestMessagesNameTheCommand: replay's messages name the commands a user
// of the binaries runs, with the -fixtures and -golden they gave, never a
// path of this repository (go run ./cmd/...).
func TestMessagesNameTheCommand(t *testing.T) {
	fx, gd := copyBundled(t)
	os.Remove(filepath.Join(gd, "resume.golden"))
	os.WriteFile(filepath.Join(gd, "gone.golden"), []byte("x\n"), 0o644)
	tools := filepath.Join(gd, "text-turn.tools.json")
	b, _ := os.ReadFile(tools)
	os.WriteFile(tools, []byte(strings.Replace(string(b), "Ask the user", "Ask  the user", 1)), 0o644)
	dirs := " -fixtures " + fx + " -golden " + gd
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0")
	if r.code != exitMismatch {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		filepath.Join(gd, "resume.golden") + ": [guard] missing: record it: record" + dirs + " -run '^resume$'",
		"reproduce: replay" + dirs + " -shuffle 0 -seed",
		"if the change is intended, record it: record" + dirs + " -run '^text-turn$'",
		filepath.Join(gd, "gone.golden") + ": golden log with no fixture " + filepath.Join(fx, "gone.json") + "; delete it, or run record" + dirs + " -prune",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("replay output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "go run ./cmd") || strings.Contains(r.stdout+r.stderr, "GOLDIE_UPDATE") {
		t.Errorf("replay names a command of this repository or of go test:\n%s", r.stdout)
	}
	// With the default directories, the commands say no -fixtures or -golden.
	dir := bundletest.Copy(t, filepath.Join("..", ".."))
	os.Remove(filepath.Join(dir, "golden", "resume.golden"))
	t.Chdir(dir)
	r = replay(t, nil, false, "-shuffle", "0", "-run", "^resume$")
	if want := "missing: record it: record -run '^resume$'\n"; !strings.Contains(r.stdout, want) {
		t.Errorf("default directories: output lacks %q:\n%s", want, r.stdout)
	}
}
