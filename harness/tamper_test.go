package harness

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

func TestBundledSuiteReplaysClean(t *testing.T) {
	bundletest.SkipWhileRecording(t)
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: 2, Seed: 7})
	if f := s.Findings(); len(f) != 0 {
		t.Errorf("findings: %v", f)
	}
	if n := len(s.Fixtures()); n < 13 {
		t.Errorf("%d bundled fixtures, want at least 13", n)
	}
	for _, f := range s.Fixtures() {
		if res := s.Replay(f); !res.Passed() {
			t.Errorf("%s: %v", f.Name, res.Failures)
		}
	}
}

func TestTamperGoldenByte(t *testing.T) {
	opts := copyBundled(t)
	path := filepath.Join(opts.Golden, "tool-turn.golden")
	b := readFile(t, path)
	// Line 5 is the assistant/message with the glob call: change "*.go" to "*.gp".
	i := bytes.Index(b, []byte(`"*.go"`))
	if i < 0 || 1+bytes.Count(b[:i], []byte("\n")) != 5 {
		t.Fatalf("tool-turn.golden changed shape; the glob pattern is not on line 5")
	}
	b[i+4] = 'p'
	writeFile(t, path, string(b))
	fails := replayOne(t, mustLoad(t, opts), "tool-turn")
	f := failureWith(t, fails, CheckGolden, "tool-turn.golden:5", "assistant/message", "data.toolCalls.0.arguments.pattern")
	if f.Line != 5 || f.Mismatch == nil || !strings.Contains(f.Mismatch.Want, `"*.gp"`) || !strings.Contains(f.Mismatch.Got, `"*.go"`) {
		t.Errorf("failure = %+v, want line 5 with both values shown", f)
	}
}

func TestTamperSystemSidecar(t *testing.T) {
	opts := copyBundled(t)
	path := filepath.Join(opts.Golden, "text-turn.system.md")
	b := readFile(t, path)
	i := bytes.Index(b, []byte("Platform: linux"))
	if i < 0 {
		t.Fatal("text-turn.system.md has no platform line")
	}
	b[i+len("Platform: ")] = 'L'
	writeFile(t, path, string(b))
	line := 1 + bytes.Count(b[:i], []byte("\n"))
	fails := replayOne(t, mustLoad(t, opts), "text-turn")
	f := failureWith(t, fails, CheckSidecar, "text-turn.system.md")
	if f.Line != line {
		t.Errorf("line = %d, want %d", f.Line, line)
	}
	// The extending fixtures are templated and keep passing: a header
	// change rewrites one place.
	if fails := replayOne(t, mustLoad(t, opts), "tool-turn"); len(fails) != 0 {
		t.Errorf("tool-turn: %v", fails)
	}
}

func TestTamperToolsSidecarSwap(t *testing.T) {
	opts := copyBundled(t)
	path := filepath.Join(opts.Golden, "text-turn.tools.json")
	b := string(readFile(t, path))
	// Swap the whole first two tool blocks, ask_user and edit_file: the
	// same tools in another order.
	first := strings.Index(b, "    {\n      \"name\": \"ask_user\"")
	second := strings.Index(b, "    {\n      \"name\": \"edit_file\"")
	third := strings.Index(b, "    {\n      \"name\": \"git_diff\"")
	if first < 0 || second < first || third < second {
		t.Fatal("text-turn.tools.json changed shape")
	}
	blockA, blockB := b[first:second], b[second:third] // each ends with "},\n"
	writeFile(t, path, b[:first]+blockB+blockA+b[third:])
	fails := replayOne(t, mustLoad(t, opts), "text-turn")
	f := failureWith(t, fails, CheckSidecar, "text-turn.tools.json:4", "initial.0.name")
	if f.Mismatch == nil || !strings.Contains(f.Mismatch.Want, "edit_file") || !strings.Contains(f.Mismatch.Got, "ask_user") {
		t.Errorf("mismatch = %+v", f.Mismatch)
	}
}

func TestTamperCRLF(t *testing.T) {
	opts := copyBundled(t)
	path := filepath.Join(opts.Golden, "stable-header.golden")
	b := readFile(t, path)
	writeFile(t, path, strings.ReplaceAll(string(b), "\n", "\r\n"))
	failureWith(t, replayOne(t, mustLoad(t, opts), "stable-header"), CheckGolden, "stable-header.golden:1", "CRLF")
}

func TestTamperMissingEvent(t *testing.T) {
	opts := copyBundled(t)
	path := filepath.Join(opts.Golden, "stable-header.golden")
	lines := strings.SplitAfter(string(readFile(t, path)), "\n")
	writeFile(t, path, strings.Join(lines[:len(lines)-2], "")) // drop the last event
	failureWith(t, replayOne(t, mustLoad(t, opts), "stable-header"), CheckGolden, "more line(s)", "turn/end")
}
