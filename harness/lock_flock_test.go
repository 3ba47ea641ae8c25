//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package harness

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The temp files of a record writing now are not an interrupted record's
// leftovers: Load waits for the record's lock, then looks again.
func TestLoadWaitsForARecordWriting(t *testing.T) {
	opts := copyBundled(t)
	tmp := filepath.Join(opts.Golden, ".text-turn.golden.headergold-tmp-42")
	writeFile(t, tmp, "being written\n")
	unlock, err := lockDir(context.Background(), opts.Golden, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		os.Remove(tmp) // renamed into place, as a record does
		unlock()
	}()
	s := mustLoad(t, opts)
	for _, f := range s.Findings() {
		t.Errorf("finding %s", f)
	}
	// The same file with no record running is a leftover.
	writeFile(t, tmp, "left behind\n")
	s = mustLoad(t, opts)
	if fs := s.Findings(); len(fs) != 1 || fs[0].Kind != Leftover || fs[0].File != tmp {
		t.Errorf("findings %v, want the leftover %s", fs, tmp)
	}
}

// TestLoadInterruptedWaitingForTheLock: a Load whose context ends while
// it waits for a record's lock fails with the context's error instead of
// reporting the record's temp files as leftovers.
func TestLoadInterruptedWaitingForTheLock(t *testing.T) {
	opts := copyBundled(t)
	writeFile(t, filepath.Join(opts.Golden, ".text-turn.golden.headergold-tmp-42"), "being written\n")
	unlock, err := lockDir(context.Background(), opts.Golden, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts.Context = ctx
	s, err := Load(opts)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "while waiting for the lock on "+opts.Golden) {
		t.Fatalf("Load = %v, %v; want interrupted while waiting for the lock", s, err)
	}
}

// A negative RecordOptions.LockWait is the default wait, as zero is: the
// record waits for another record's lock instead of giving up at once.
func TestRecordNegativeLockWaitWaits(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// One small fixture: the record reaches the lock long before it is
	// released.
	writeFile(t, filepath.Join(opts.Fixtures, "minimal.json"), minimalFixture)
	s := mustLoad(t, opts)
	unlock, err := lockDir(context.Background(), opts.Golden, 0)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		time.Sleep(500 * time.Millisecond)
		unlock()
	}()
	if _, failed, err := s.Record(RecordOptions{LockWait: -time.Second}); err != nil {
		t.Fatalf("Record with LockWait -1s = %v %v, want it to wait for the lock", err, failed)
	}
}
