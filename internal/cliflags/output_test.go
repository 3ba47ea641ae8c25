package cliflags

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

// shortWriter drops the last byte of every write and says nothing.
type shortWriter struct{}

func (shortWriter) Write(p []byte) (int, error) { return max(len(p)-1, 0), nil }

// TestOutputKeepsTheFirstError: an Output keeps the first error its
// writer returned and writes nothing after it, so a report cut short is
// not followed by lines that look whole; a short write without an error
// is one.
func TestOutputKeepsTheFirstError(t *testing.T) {
	w := &bundletest.FullWriter{Room: 5}
	out := NewOutput(w)
	if _, err := fmt.Fprint(out, "abc"); err != nil || out.Err() != nil || WriteFailed(out) {
		t.Fatalf("a write that fits: %v, Err %v", err, out.Err())
	}
	if _, err := fmt.Fprint(out, "defg"); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a write past the room: %v", err)
	}
	if _, err := fmt.Fprint(out, "h"); !errors.Is(err, syscall.ENOSPC) || w.Writes != 2 {
		t.Errorf("a write after the error: %v after %d writes to the writer, want ENOSPC after 2", err, w.Writes)
	}
	if !errors.Is(out.Err(), syscall.ENOSPC) || !WriteFailed(out) || w.Written.String() != "abcde" {
		t.Errorf("Err %v, WriteFailed %v, written %q", out.Err(), WriteFailed(out), w.Written.String())
	}
	if WriteFailed(w) || WriteFailed(io.Discard) {
		t.Error("WriteFailed of a writer that is not an Output")
	}
	short := NewOutput(shortWriter{})
	if _, err := short.Write([]byte("ab")); err != io.ErrShortWrite || short.Err() != io.ErrShortWrite {
		t.Errorf("short write: %v, Err %v", err, short.Err())
	}
}

// TestExitAfterAFailedOutput: a lost report turns 0 and 1 into 125 and
// is said on stderr, naming the command; every other status stands, and
// a run whose output was written keeps its status and says nothing.
func TestExitAfterAFailedOutput(t *testing.T) {
	c := Command{Name: "replay stability"}
	var stderr strings.Builder
	ok := NewOutput(io.Discard)
	fmt.Fprint(ok, "report\n")
	for _, code := range []int{0, 1, 2, 125, 130} {
		if got := c.Exit(ok, &stderr, code); got != code || stderr.Len() != 0 {
			t.Errorf("written output, exit %d: %d, stderr %q", code, got, stderr.String())
		}
	}
	failed := NewOutput(&bundletest.FullWriter{})
	fmt.Fprint(failed, "report\n")
	for code, want := range map[int]int{0: ExitCannotRun, 1: 1, 2: 2, 3: 3, 125: 125, 130: 130, 143: 143} {
		stderr.Reset()
		if got := c.Exit(failed, &stderr, code); got != want ||
			stderr.String() != "replay stability: writing standard output: "+syscall.ENOSPC.Error()+"\n" {
			t.Errorf("failed output, exit %d: %d, stderr %q; want %d", code, got, stderr.String(), want)
		}
	}
}
