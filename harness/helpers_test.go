package harness

import (
	"crypto/sha256"
	"github.com/headergold/headergold/internal/bundletest"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyTree copies the bundled fixtures and golden files into a temp dir and
// returns Options pointing at the copies.
func copyBundled(t *testing.T) Options {
	t.Helper()
	skipWhileRecording(t)
	dir := bundletest.Copy(t, "..")
	return Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(to, e.Name()), string(b))
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checksums maps every file under dir to its SHA-256.
func checksums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		sums[path] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func mustLoad(t *testing.T, opts Options) *Suite {
	t.Helper()
	s, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// replayOne replays the named fixture and returns its failures.
func replayOne(t *testing.T, s *Suite, name string) []Failure {
	t.Helper()
	f := s.Fixture(name)
	if f == nil {
		t.Fatalf("no fixture %s", name)
	}
	return s.Replay(f).Failures
}

// failureWith returns the first failure of the check whose text holds
// every fragment, or fails the test listing what there was.
func failureWith(t *testing.T, fails []Failure, check Check, fragments ...string) Failure {
	t.Helper()
next:
	for _, f := range fails {
		if f.Check != check {
			continue
		}
		for _, frag := range fragments {
			if !strings.Contains(f.String(), frag) {
				continue next
			}
		}
		return f
	}
	t.Fatalf("no %s failure containing %q; failures:\n%v", check, fragments, fails)
	return Failure{}
}

const minimalFixture = `{
  "description": "minimal",
  "config": {"persona": "P.", "model": "m"},
  "plugins": [{"name": "p", "tools": [{"name": "b"}, {"name": "a"}]}],
  "turns": [{"user": "hi", "replies": [{"text": "hello"}]}]
}
`

// skipWhileRecording skips a test that reads the bundled golden files when
// this run is recording them: their bytes are being rewritten.
func skipWhileRecording(t testing.TB) {
	t.Helper()
	if Updating() {
		t.Skip("this run records the bundled golden files (GOLDIE_UPDATE); tests that read them run on the next go test")
	}
}
