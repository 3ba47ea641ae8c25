// Package corpustest locates the shared corpus of real headers and provider
// request bodies that the tests of several packages read.
//
// The corpus lives beside the repository on development machines
// (../shared/corpus) and is not part of a user's clone, so tests that need
// it skip, saying why, when it is absent.
package corpustest

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus directory: $HEADERGOLD_CORPUS when set, else the
// first shared/corpus directory found beside the working directory or one
// of its parents. It skips the test when there is none.
func Dir(t testing.TB) string {
	t.Helper()
	dir, ok, err := Find()
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Skip("the shared corpus (shared/corpus beside this checkout, or $HEADERGOLD_CORPUS) is not here; these tests compare with headers recorded by other projects")
	}
	return dir
}

// Find returns the corpus directory as Dir finds it, and whether there is
// one, for a test that has something else to do without it.
func Find() (string, bool, error) {
	if dir := os.Getenv("HEADERGOLD_CORPUS"); dir != "" {
		return dir, true, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", false, err
	}
	for {
		candidate := filepath.Join(dir, "shared", "corpus")
		if fi, err := os.Stat(candidate); err == nil && fi.IsDir() {
			return candidate, true, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false, nil
		}
		dir = parent
	}
}
