//go:build unix

package harness

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs fn and fails the test if it has not returned after d: a
// read that blocks or never ends must not hang the suite.
func within[T any](t *testing.T, d time.Duration, fn func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- fn() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still running after %s", d)
	}
	panic("unreachable")
}

// TestOnlyRegularFixtures: a named pipe or a link to /dev/zero named like
// a fixture is refused at once, by name, instead of blocking or reading
// forever.
func TestOnlyRegularFixtures(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(path string) error
	}{
		{"fifo", "not a regular file but a named pipe", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"dev-zero", "not a regular file but a character device", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"directory", "not a regular file but a directory", func(p string) error {
			if err := os.Mkdir(p+".d", 0o755); err != nil {
				return err
			}
			return os.Symlink(filepath.Base(p)+".d", p)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "ok.json"), minimalFixture)
			bad := filepath.Join(dir, "special.json")
			if err := tc.make(bad); err != nil {
				t.Skip(err)
			}
			err := within(t, 5*time.Second, func() error {
				_, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden")})
				return err
			})
			var fe *FixtureError
			if !errors.As(err, &fe) || fe.File != bad || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load = %v, want a FixtureError for %s saying %q", err, bad, tc.want)
			}
		})
	}
}

// TestOnlyRegularGoldenFiles: a named pipe or /dev/zero where a golden
// file belongs makes the fixture untestable (exit 125), and record refuses
// to replace it, instead of hanging or reading forever.
func TestOnlyRegularGoldenFiles(t *testing.T) {
	for _, special := range []string{"fifo", "dev-zero"} {
		t.Run(special, func(t *testing.T) {
			opts := copyBundled(t)
			opts.Shuffle = -1
			path := filepath.Join(opts.Golden, "tool-turn.golden")
			os.Remove(path)
			var err error
			if special == "fifo" {
				err = syscall.Mkfifo(path, 0o644)
			} else {
				err = os.Symlink("/dev/zero", path)
			}
			if err != nil {
				t.Skip(err)
			}
			s := mustLoad(t, opts)
			fails := within(t, 5*time.Second, func() []Failure { return replayOne(t, s, "tool-turn") })
			failureWith(t, fails, CheckInvalid, path, "not a regular file")
			rerr := within(t, 5*time.Second, func() error {
				_, _, err := s.Record(RecordOptions{})
				return err
			})
			if rerr == nil || !strings.Contains(rerr.Error(), "not a regular file") {
				t.Errorf("record over a special file: %v", rerr)
			}
		})
	}
}

// TestFileSizeLimit: a fixture or golden file over the limit is refused
// with its size, the limit and how to raise it; a higher limit reads it.
func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.json"), minimalFixture)
	opts := Options{Fixtures: dir, Golden: filepath.Join(dir, "golden"), MaxFileSize: 100, Shuffle: -1}
	_, err := Load(opts)
	if err == nil || !strings.Contains(err.Error(), "x.json") || !strings.Contains(err.Error(), "over the limit of 100B for one file") ||
		!strings.Contains(err.Error(), "-max-file-size") {
		t.Errorf("Load = %v", err)
	}
	opts.MaxFileSize = ByteSize(len(minimalFixture))
	mustLoad(t, opts) // a file at the limit is read
	opts.MaxFileSize = 1000
	s := mustLoad(t, opts)
	if _, _, err := s.Record(RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	golden := s.GoldenPath("x")
	writeFile(t, golden, strings.Repeat("x", 1000)+"\n")
	failureWith(t, replayOne(t, s, "x"), CheckInvalid, golden, "over the limit")
}

func TestByteSize(t *testing.T) {
	for in, want := range map[string]ByteSize{"64MiB": 64 << 20, "1": 1, "2 KiB": 2048, "3GiB": 3 << 30, "5MB": 5e6, "100B": 100} {
		var b ByteSize
		if err := b.Set(in); err != nil || b != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1", "x", "1TiB", "1.5MiB", "99999999999GiB"} {
		var b ByteSize
		if err := b.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted: %d", bad, b)
		}
	}
	if got := DefaultMaxFileSize.String(); got != "64MiB" {
		t.Errorf("default prints as %q", got)
	}
	if got := ByteSize(1500).String(); got != "1500B" {
		t.Errorf("1500 prints as %q", got)
	}
}

// TestRecordRefusesUnreadable: a record whose golden log would be larger
// than the limit replay reads files to writes nothing, rather than a file
// every later replay refuses as untestable; the same record with a limit
// that admits the log writes it, and replay reads it back.
func TestRecordRefusesUnreadable(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.json"), minimalFixture)
	// Ten turns log far more bytes than they take in the fixture.
	turns := strings.Repeat(`{"user": "hi", "replies": [{"text": "hello"}]},`, 10)
	big := `{"description": "big", "config": {"persona": "P.", "model": "m"}, "turns": [` + strings.TrimSuffix(turns, ",") + `]}`
	writeFile(t, filepath.Join(dir, "big.json"), big)
	golden := filepath.Join(dir, "golden")
	limit := ByteSize(max(len(big), len(minimalFixture)))
	s := mustLoad(t, Options{Fixtures: dir, Golden: golden, MaxFileSize: limit, Shuffle: -1})
	_, failed, err := s.Record(RecordOptions{})
	if err == nil || !strings.Contains(err.Error(), "nothing was written") {
		t.Fatalf("Record err = %v, want nothing written", err)
	}
	if len(failed) != 1 || failed[0].Fixture != "big" || !failed[0].Invalid() {
		t.Fatalf("failed = %+v, want big alone, invalid", failed)
	}
	failureWith(t, failed[0].Failures, CheckInvalid, s.GoldenPath("big"), "not written", "over the limit of "+limit.String(), "-max-file-size")
	if entries, _ := os.ReadDir(golden); len(entries) != 0 {
		t.Errorf("golden directory holds %v, want nothing (a.golden fits, but a record writes all or nothing)", entries)
	}

	s = mustLoad(t, Options{Fixtures: dir, Golden: golden, MaxFileSize: 1 << 20, Shuffle: -1})
	if _, failed, err := s.Record(RecordOptions{}); err != nil || len(failed) > 0 {
		t.Fatalf("Record with a higher limit: %v %+v", err, failed)
	}
	if size := len(readFile(t, s.GoldenPath("big"))); size <= int(limit) {
		t.Fatalf("big.golden is %d bytes, not over the first limit %d: the test proves nothing", size, limit)
	}
	if fails := replayOne(t, s, "big"); len(fails) > 0 {
		t.Errorf("replay of what record wrote: %v", fails)
	}
}

// TestGoldenPathIsAFile: a golden path that names a file, not a
// directory, is refused as that, before anything reads inside it.
func TestGoldenPathIsAFile(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "x.json"), minimalFixture)
	writeFile(t, filepath.Join(dir, "golden"), "not a directory\n")
	_, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden")})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "golden")+" is a file, not a directory") {
		t.Errorf("Load = %v", err)
	}
}
