//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/bundletest"
)

// crashSuite is a directory of about 50 fixtures whose content changes
// with each version, its golden directory, and a record binary built
// from this package, so the runs killed are the command itself (not
// slowed down when the tests run with -race).
type crashSuite struct {
	fixtures, golden string
	bin              string
}

const crashFixtures = 50

func newCrashSuite(t *testing.T) *crashSuite {
	t.Helper()
	dir := t.TempDir()
	s := &crashSuite{fixtures: filepath.Join(dir, "fixtures"), golden: filepath.Join(dir, "golden"), bin: bundletest.Build(t, dir)}
	if err := os.Mkdir(s.fixtures, 0o755); err != nil {
		t.Fatal(err)
	}
	return s
}

// write puts version v of the fixtures in place: every golden log
// changes, sizes vary, and a few fixtures are absent in each version, so
// record -prune removes their golden logs in the same transaction.
func (s *crashSuite) write(t *testing.T, v int) {
	t.Helper()
	for i := range crashFixtures {
		path := filepath.Join(s.fixtures, fmt.Sprintf("f%02d.json", i))
		if i > 0 && (i*7+v)%11 == 0 {
			os.Remove(path)
			continue
		}
		var turns []string
		for k := range 1 + (i+v)%3 {
			turns = append(turns, fmt.Sprintf(`{"user": "question %d of version %d", "replies": [
    {"toolCalls": [{"id": "c%d", "name": "read_file", "arguments": {"path": "f%d-%d.txt"}}]},
    {"text": "answer %d of version %d: %s"}], "toolResults": {"c%d": "contents %d"}}`,
				k, v, k, i, k, k, v, strings.Repeat("x", (i*13+v*7)%200), k, v))
		}
		body := fmt.Sprintf(`{"description": "crash-safety fixture %d", "pin": %v,
  "config": {"persona": "You are fixture %d, version %d.", "model": "m-%d"},
  "plugins": [{"name": "fs", "tools": [
    {"name": "read_file", "description": "Read a file (v%d).", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "list_dir", "description": "List a directory."}]}],
  "turns": [%s]}
`, i, i == 0, i, v, v%4, v, strings.Join(turns, ",\n  "))
		writeFile(t, path, body)
	}
}

// state maps each file of dir to its bytes.
func state(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

// leftovers lists the dot files of a record (temp files and backups) in
// a state.
func leftovers(st map[string]string) []string {
	var out []string
	for name := range st {
		if strings.HasPrefix(name, ".") {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// recordArgs are the arguments of every record of the suite.
func (s *crashSuite) recordArgs() []string {
	return []string{"-fixtures", s.fixtures, "-golden", s.golden, "-prune"}
}

// complete runs record to the end, fails unless it succeeds, and returns
// its output.
func (s *crashSuite) complete(t *testing.T, extra ...string) string {
	t.Helper()
	cmd := exec.Command(s.bin, append(s.recordArgs(), extra...)...)
	cmd.Env = append(os.Environ(), "CI=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("record %s: %v\n%s", strings.Join(extra, " "), err, out)
	}
	return string(out)
}

// journalName is the journal a record keeps in the golden directory while
// it replaces files.
const journalName = ".headergold-journal"

// checkJournal checks, after a kill, what replay says of the journal the
// killed record left, and then what the next record says of its
// rollback: that it restored exactly the files that were new (so that,
// before it wrote, the directory held exactly the old files). old is the
// state before the killed record, after the state it left, next the one
// the next record made and out its output; it returns whether there was
// a journal.
func (s *crashSuite) checkJournal(t *testing.T, when string, suite *harness.Suite, old, after, next map[string]string, out string) bool {
	t.Helper()
	var replaced []string
	targets := 0
	for name := range bundletest.Names(old, next) {
		if strings.HasPrefix(name, ".") {
			continue
		}
		was, wasOK := old[name]
		now, nowOK := next[name]
		if wasOK == nowOK && was == now {
			continue
		}
		targets++
		if got, ok := after[name]; ok != wasOK || got != was {
			replaced = append(replaced, filepath.Join(s.golden, name))
		}
	}
	slices.Sort(replaced)
	var line string
	for l := range strings.Lines(out) {
		if strings.HasPrefix(l, "rolled back an interrupted record") {
			line = l
		}
	}
	if _, ok := after[journalName]; !ok {
		if line != "" {
			t.Errorf("%s: no journal, but the next record says %q", when, line)
		}
		if len(replaced) > 0 && len(replaced) < targets {
			t.Errorf("%s: %d of %d files new, and no journal to roll them back", when, len(replaced), targets)
		}
		return false
	}
	var msg string
	for _, f := range suite.Findings() {
		if filepath.Base(f.File) == journalName {
			msg = f.Msg
		}
	}
	if len(replaced) == 0 {
		if !strings.Contains(msg, fmt.Sprintf("had replaced none of its %d files yet", targets)) {
			t.Errorf("%s: no file new, %d to write; replay says %q", when, targets, msg)
		}
		if !strings.Contains(line, fmt.Sprintf("which had replaced none of its %d files yet", targets)) {
			t.Errorf("%s: no file new; the next record says %q", when, line)
		}
		return true
	}
	if !strings.Contains(msg, fmt.Sprintf("partly written: %d file", len(replaced))) || !strings.Contains(msg, fmt.Sprintf(") and %d old;", targets-len(replaced))) ||
		!strings.Contains(msg, "the next record restores the old files") {
		t.Errorf("%s: %d of %d files new; replay says %q", when, len(replaced), targets, msg)
	}
	// The line names the first files it restored, and counts the others.
	head, list, _ := strings.Cut(strings.TrimSpace(line), " to their old state: ")
	more := 0
	if l, n, ok := strings.Cut(list, ", … and "); ok {
		list = l
		if _, err := fmt.Sscanf(n, "%d more", &more); err != nil {
			t.Errorf("%s: the next record says %q: %v", when, line, err)
		}
	}
	named := strings.Split(list, ", ")
	subset := true
	for _, f := range named {
		subset = subset && slices.Contains(replaced, f)
	}
	if !subset || len(named)+more != len(replaced) || !strings.Contains(head, fmt.Sprintf("restored %d file", len(replaced))) ||
		!strings.HasSuffix(head, fmt.Sprintf(" of its %d", targets)) {
		t.Errorf("%s: the next record says %q; the files new were %v", when, line, replaced)
	}
	return true
}

// child is a record process of the suite.
type child struct {
	cmd    *exec.Cmd
	stderr lockedBuffer
	done   chan struct{}
}

// start starts record as a child process; the test's cleanup kills it if
// it is still running.
func (s *crashSuite) start(t *testing.T) *child {
	t.Helper()
	c := &child{cmd: exec.Command(s.bin, s.recordArgs()...), done: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), "CI=")
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		c.cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		c.cmd.Process.Kill()
		<-c.done
	})
	return c
}

// exited reports whether the child has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// waitForLock returns once the child holds the golden directory's lock,
// that is, once its write transaction has begun; false when the child
// exits first. A child that does neither within 10s fails the test.
func (s *crashSuite) waitForLock(t *testing.T, c *child) bool {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	d, err := os.Open(s.golden)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for !c.exited() && time.Now().Before(deadline) {
		err := syscall.Flock(int(d.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return true
		}
		if err == nil {
			syscall.Flock(int(d.Fd()), syscall.LOCK_UN)
		}
		time.Sleep(50 * time.Microsecond)
	}
	if !c.exited() {
		t.Fatalf("record neither took the lock on %s nor exited in 10s\n%s", s.golden, c.stderr.String())
	}
	return false
}

// spin waits d without sleeping, which would round a fraction of a
// millisecond up.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// waitForBackup returns once the golden directory holds a backup, which
// record makes just before it renames a file into place, or when the
// child exits or deadline passes.
func (s *crashSuite) waitForBackup(c *child, deadline time.Time) {
	for !c.exited() && time.Now().Before(deadline) {
		entries, _ := os.ReadDir(s.golden)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".headergold-old") {
				return
			}
		}
	}
}

// crashSeed returns the seed of the random points: HEADERGOLD_SEED when
// set, else a fixed one, so a failure replays.
func crashSeed(t *testing.T) uint64 {
	t.Helper()
	if v := os.Getenv("HEADERGOLD_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HEADERGOLD_SEED=%q: %v", v, err)
		}
		return n
	}
	return 1
}

// window estimates how long record holds the lock on a run that changes
// every golden file: the median of the last spans observed, from the
// lock taken to the exit, on runs that were not stopped. The machine's
// load changes it, so it is observed all along.
type window struct{ spans []time.Duration }

func (w *window) observe(d time.Duration) {
	w.spans = append(w.spans, d)
	if len(w.spans) > 5 {
		w.spans = w.spans[1:]
	}
}

func (w *window) get() time.Duration {
	s := slices.Sorted(slices.Values(w.spans))
	return s[len(s)/2]
}

// calibrate observes three runs that change every file (versions 1000
// and up), then records version v.
func (s *crashSuite) calibrate(t *testing.T, v int) *window {
	t.Helper()
	w := &window{}
	for k := 0; len(w.spans) < 3; k++ {
		if k == 10 {
			t.Fatalf("record was never seen holding the lock on %s", s.golden)
		}
		s.write(t, 1000+k)
		c := s.start(t)
		seen := s.waitForLock(t, c)
		start := time.Now()
		<-c.done
		if !c.cmd.ProcessState.Success() {
			t.Fatalf("record: %v\n%s", c.cmd.ProcessState, c.stderr.String())
		}
		if seen {
			w.observe(time.Since(start))
		}
	}
	s.write(t, v)
	s.complete(t)
	return w
}

// TestCrashSafety kills record with SIGKILL at random points of its write
// window, at least 50 times, each time over a suite of 50 fixtures that
// all changed: every golden file is then byte for byte its old or its
// new version, every other file in the golden directory is a leftover
// (a dot file) that replay reports, and the next record leaves none. A
// record killed among its renames leaves its journal: replay then says
// how many files are new and how many old, and the next record says it
// rolled back, restoring exactly the files that were new, before it
// records. (harness.TestKillAtEveryStep kills at each step in turn.)
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Setenv("CI", "")
	const wantKills = 50
	// The probe must land in the write window often enough: at most
	// maxMissed runs may finish before their kill. The bound counts
	// runs, not seconds: the test takes 5–20 s, but 96 s (of the 150 s
	// budget it had) under the race detector on a loaded two-core
	// machine, which measures the machine, not the probe.
	const maxMissed = 3 * wantKills
	seed := crashSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	s := newCrashSuite(t)
	s.write(t, 0)
	s.complete(t)
	win := s.calibrate(t, 1)
	kills, missed, mixed, withLeftovers, journals := 0, 0, 0, 0, 0
	for v := 2; kills < wantKills; v++ {
		if missed > maxMissed {
			t.Fatalf("only %d kills in the write window, %d runs finished first (window %s; seed %d)", kills, missed, win.get(), seed)
		}
		s.write(t, v)
		old := state(t, s.golden)
		c := s.start(t)
		// The kill points reach a little past the window, so its tail
		// (backups removed, lock released) is hit too. On a loaded machine
		// the probe may not run during the whole window; the run then
		// counts as missed, and is checked all the same.
		// Every eighth run is not killed: its span keeps the window
		// estimate current. Of the others, half are killed at a random
		// point of the whole window, half within a millisecond of the
		// first backup, that is among the renames (which take about that
		// long), where a kill leaves some files old and some new.
		delay := time.Duration(rng.Int64N(int64(win.get())*5/4 + 1))
		observe, amongRenames := v%8 == 0, v%2 == 1
		if amongRenames {
			delay = time.Duration(rng.Int64N(int64(time.Millisecond)))
		}
		seen := s.waitForLock(t, c)
		start := time.Now()
		if seen && !observe {
			if amongRenames {
				s.waitForBackup(c, time.Now().Add(10*time.Second))
				spin(delay)
			} else {
				time.Sleep(delay)
			}
			c.cmd.Process.Signal(syscall.SIGKILL)
		}
		<-c.done
		if seen && observe {
			win.observe(time.Since(start))
		}
		ws, _ := c.cmd.ProcessState.Sys().(syscall.WaitStatus)
		killed := ws.Signaled() && ws.Signal() == syscall.SIGKILL
		if killed {
			kills++
		} else {
			if !observe {
				missed++
			}
			if !c.cmd.ProcessState.Success() {
				t.Fatalf("version %d: record failed: %v\n%s", v, c.cmd.ProcessState, c.stderr.String())
			}
		}
		after := state(t, s.golden)
		left := leftovers(after)
		if len(left) > 0 {
			withLeftovers++
		}
		// Replay names every leftover as a guard finding.
		suite, err := harness.Load(harness.Options{Fixtures: s.fixtures, Golden: s.golden})
		if err != nil {
			t.Fatalf("version %d, killed after %s: load: %v", v, delay, err)
		}
		var reported []string
		for _, f := range suite.Findings() {
			if strings.Contains(f.Msg, "interrupted record") {
				reported = append(reported, filepath.Base(f.File))
			}
		}
		slices.Sort(reported)
		if !slices.Equal(reported, left) {
			t.Errorf("version %d, killed after %s: leftovers %v, replay reports %v", v, delay, left, reported)
		}
		if _, ok := after[journalName]; ok && journals < 3 {
			// record -check says what replay says, writes nothing and exits 1.
			cmd := exec.Command(s.bin, append(s.recordArgs(), "-check")...)
			cmd.Env = append(os.Environ(), "CI=")
			out, _ := cmd.CombinedOutput()
			if code := cmd.ProcessState.ExitCode(); code != exitChanges || !strings.Contains(string(out), "an interrupted record ") ||
				!strings.Contains(string(out), "the next record ") {
				t.Errorf("version %d: record -check exits %d:\n%s", v, code, out)
			}
			if !sameState(after, state(t, s.golden)) {
				t.Errorf("version %d: record -check changed the golden directory", v)
			}
		}
		out := s.complete(t)
		next := state(t, s.golden)
		if l := leftovers(next); len(l) > 0 {
			t.Errorf("version %d: the next record left %v", v, l)
		}
		if s.checkJournal(t, fmt.Sprintf("version %d, killed after %s", v, delay), suite, old, after, next, out) {
			journals++
		}
		if l := leftovers(state(t, s.fixtures)); len(l) > 0 {
			t.Errorf("version %d: leftovers in the fixtures directory: %v", v, l)
		}
		oldOnes, newOnes := 0, 0
		for name := range bundletest.Names(old, after, next) {
			if strings.HasPrefix(name, ".") {
				continue
			}
			got, ok := after[name]
			was, wasOK := old[name]
			now, nowOK := next[name]
			switch {
			case ok == wasOK && got == was:
				oldOnes++
			case ok == nowOK && got == now:
				newOnes++
			default:
				t.Errorf("version %d, killed after %s of a %s window (seed %d): %s is neither its old nor its new version (%d bytes; old %d, new %d)",
					v, delay, win.get(), seed, name, len(got), len(was), len(now))
			}
		}
		if oldOnes > 0 && newOnes > 0 {
			mixed++
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d kills in a write window of %s (%d runs finished first); %d left some files old and some new, %d left dot files behind, %d a journal the next record rolled back; seed %d",
		kills, win.get(), missed, mixed, withLeftovers, journals, seed)
}

// TestInterruptRollsBack sends SIGINT or SIGTERM to record at random
// points of its write window: it exits 130 or 143 with every golden file
// old, or, when the signal came after the last file was in place, 0 with
// every file new; never a mix, never a leftover.
func TestInterruptRollsBack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	t.Setenv("CI", "")
	seed := crashSeed(t)
	rng := rand.New(rand.NewPCG(seed, 0x1e7))
	s := newCrashSuite(t)
	s.write(t, 0)
	s.complete(t)
	win := s.calibrate(t, 1)
	rolledBack, finished := 0, 0
	// At most maxFinished runs may end before their signal: a count of
	// runs, not a time budget, for the reason TestCrashSafety gives
	// (usually 2–7 s, over 30 s under -race on a loaded machine).
	const maxFinished = 40
	for v := 2; rolledBack < 10 || v < 22; v++ {
		if finished > maxFinished {
			t.Fatalf("only %d interrupts rolled back, %d runs finished first (window %s; seed %d)", rolledBack, finished, win.get(), seed)
		}
		s.write(t, v)
		old := state(t, s.golden)
		c := s.start(t)
		sig := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}[v%2]
		delay := time.Duration(rng.Int64N(int64(win.get()) + 1))
		observe := v%8 == 0 // not interrupted: keeps the estimate current
		seen := s.waitForLock(t, c)
		start := time.Now()
		if seen && !observe {
			time.Sleep(delay)
			c.cmd.Process.Signal(sig)
		}
		<-c.done
		if seen && observe {
			win.observe(time.Since(start))
		}
		after := state(t, s.golden)
		if l := leftovers(after); len(l) > 0 {
			t.Errorf("version %d, %v after %s: left %v", v, sig, delay, l)
		}
		switch code := c.cmd.ProcessState.ExitCode(); code {
		case 128 + int(sig):
			rolledBack++
			if !sameState(old, after) {
				t.Errorf("version %d: %v after %s, exit %d, but the golden files are not the old ones", v, sig, delay, code)
			}
			if !strings.Contains(c.stderr.String(), "interrupted") {
				t.Errorf("version %d: stderr %q does not say it was interrupted", v, c.stderr.String())
			}
		case exitOK:
			if !observe {
				finished++
			}
			// Everything is in place: a record now changes nothing.
			s.complete(t, "-check")
		default:
			t.Fatalf("version %d: %v after %s: exit %d\n%s", v, sig, delay, code, c.stderr.String())
		}
		s.complete(t)
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("%d interrupts rolled back, %d came after the last file was in place (window %s, seed %d)", rolledBack, finished, win.get(), seed)
}

// sameState reports whether two states are equal.
func sameState(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
