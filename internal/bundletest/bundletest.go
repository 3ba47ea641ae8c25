// Package bundletest copies the bundled fixtures and golden files into a
// temp dir for tests that change them, keeping what the bundled captured
// scenarios need to run there: their agents are `go run` from the module
// root, so the copy links go.mod, go.sum and internal/ back to the
// repository. Build builds a command for tests that run it as a process.
package bundletest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/headergold/headergold/internal/goldenupdate"
)

// Copy copies root's fixtures and golden directories into a new temp dir,
// links the module files beside them and returns the dir.
func Copy(t testing.TB, root string) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"fixtures", "golden"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join(root, sub))); err != nil {
			t.Fatal(err)
		}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"go.mod", "go.sum", "internal"} {
		if err := os.Symlink(filepath.Join(abs, name), filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// SkipWhileRecording skips a test that reads the bundled golden files
// when this go test run records them (GOLDIE_UPDATE): they are being
// rewritten, and the next go test checks them.
func SkipWhileRecording(t testing.TB) {
	t.Helper()
	if goldenupdate.On() {
		t.Skip("this run records the bundled golden files (GOLDIE_UPDATE); tests that read them run on the next go test")
	}
}

// Dirs copies root's bundled fixtures and golden files as [Copy] does,
// unless this run records them ([SkipWhileRecording]), and returns the
// copies' fixtures and golden directories.
func Dirs(t testing.TB, root string) (fixtures, golden string) {
	t.Helper()
	SkipWhileRecording(t)
	dir := Copy(t, root)
	return filepath.Join(dir, "fixtures"), filepath.Join(dir, "golden")
}

// Build builds the command in the test's own package directory into dir
// and returns the binary's path, for tests that run it as a process of
// its own (to send it signals or kill it).
func Build(t testing.TB, dir string) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(dir, filepath.Base(mustGetwd(t)))
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func mustGetwd(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// Names is the union of the keys of directory states (name to contents),
// for comparing a directory before and after a write file by file.
func Names(states ...map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, st := range states {
		for name := range st {
			out[name] = true
		}
	}
	return out
}

// FullWriter takes Room bytes, then fails as a full disk does
// (syscall.ENOSPC): a command's standard output for tests of a report that
// cannot be written. Written holds what it took, Writes counts the calls.
type FullWriter struct {
	Room    int
	Written bytes.Buffer
	Writes  int
}

// Write writes what room is left and fails past it.
func (w *FullWriter) Write(p []byte) (int, error) {
	w.Writes++
	n := min(len(p), w.Room)
	w.Room -= n
	w.Written.Write(p[:n])
	if n < len(p) {
		return n, syscall.ENOSPC
	}
	return n, nil
}
