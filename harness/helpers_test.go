package harness

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

// copyBundled copies the bundled fixtures and golden files into a temp dir and
// returns Options pointing at the copies.
func copyBundled(t *testing.T) Options {
	t.Helper()
	fixtures, golden := bundletest.Dirs(t, "..")
	return Options{Fixtures: fixtures, Golden: golden, Seed: 1}
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

// postMessages sends one Anthropic Messages request to the session's
// fake provider and reads the answer, failing on any status but 200.
func postMessages(ctx context.Context, s *Session, body string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.AnthropicBaseURL+"/v1/messages", strings.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := s.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return nil
}
