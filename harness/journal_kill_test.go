//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/bundletest"
)

// Environment of a TestKillAtEveryStep child: the directories it records
// and the steps (STEP:I, as txnHooks.fail names them) at which it kills
// itself with SIGKILL, or fails.
const (
	killDirsEnv = "HEADERGOLD_TEST_KILL_DIRS" // FIXTURES:GOLDEN
	killAtEnv   = "HEADERGOLD_TEST_KILL_AT"
	failAtEnv   = "HEADERGOLD_TEST_FAIL_AT"
)

// writeKillFixtures writes version v of six small fixtures, k0 (pinned)
// to k5; k4 exists only in version 0 and k5 only from version 1, so a
// record -prune of version 1 over version 0 changes, creates and removes.
func writeKillFixtures(t *testing.T, dir string, v int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		path := filepath.Join(dir, fmt.Sprintf("k%d.json", i))
		if (i == 4 && v > 0) || (i == 5 && v == 0) {
			os.Remove(path)
			continue
		}
		writeFile(t, path, fmt.Sprintf(`{
  "description": "kill fixture %d", "pin": %v,
  "config": {"persona": "P%d, version %d.", "model": "m"},
  "plugins": [{"name": "p", "tools": [{"name": "b", "description": "v%d"}, {"name": "a"}]}],
  "turns": [{"user": "hi %d", "replies": [{"text": "hello %d"}]}]
}
`, i, i == 0, i, v, v, i, v))
	}
}

// killChild is the child's side: it records, killing itself at the step
// asked for.
func killChild(t *testing.T, dirs string) {
	fixtures, golden, _ := strings.Cut(dirs, string(os.PathListSeparator))
	s, err := Load(Options{Fixtures: fixtures, Golden: golden, Shuffle: -1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	killAt, failAt := os.Getenv(killAtEnv), os.Getenv(failAtEnv)
	_, _, err = s.record(context.Background(), RecordOptions{Prune: true}, txnHooks{fail: func(step string, i int) error {
		switch fmt.Sprintf("%s:%d", step, i) {
		case killAt:
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
		case failAt:
			return errors.New("injected")
		}
		return nil
	}})
	if err != nil && failAt == "" {
		t.Fatal(err)
	}
}

// TestKillAtEveryStep kills a record with SIGKILL at every step of its
// transaction (and of its rollback in process, and of the next record's
// rollback of its journal), in a child process. After each kill replay
// reports every dot file, and a journal with the right counts of new and
// old files; the next record first brings the directory back to exactly
// its old files or exactly its new ones, never a mix, with no temp file,
// backup or journal left; then it records the new ones.
func TestKillAtEveryStep(t *testing.T) {
	if dirs := os.Getenv(killDirsEnv); dirs != "" {
		killChild(t, dirs)
		return
	}
	if testing.Short() {
		t.Skip("-short")
	}
	root := t.TempDir()
	fixtures0, fixtures1 := filepath.Join(root, "fixtures0"), filepath.Join(root, "fixtures1")
	writeKillFixtures(t, fixtures0, 0)
	writeKillFixtures(t, fixtures1, 1)
	golden0 := filepath.Join(root, "golden0")
	if _, _, err := mustLoad(t, Options{Fixtures: fixtures0, Golden: golden0, Shuffle: -1}).Record(RecordOptions{}); err != nil {
		t.Fatal(err)
	}
	old := dirState(t, golden0)
	// newState records version 1 over a copy of version 0.
	copyGolden := func(t *testing.T) string {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "golden")
		if err := os.CopyFS(dir, os.DirFS(golden0)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	ref := copyGolden(t)
	changes, _, err := mustLoad(t, Options{Fixtures: fixtures1, Golden: ref, Shuffle: -1}).Record(RecordOptions{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	newState := dirState(t, ref)
	n := 0
	for _, c := range changes {
		if c.Status != Unchanged {
			n++
		}
	}
	if n < 6 {
		t.Fatalf("version 1 changes %d files: %v", n, changes)
	}

	// run runs a child recording version 1 into golden; it reports
	// whether the child was killed.
	run := func(t *testing.T, golden, killAt, failAt string) bool {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillAtEveryStep$", "-test.count=1")
		cmd.Env = append(os.Environ(), killDirsEnv+"="+fixtures1+string(os.PathListSeparator)+golden, killAtEnv+"="+killAt, failAtEnv+"="+failAt)
		out, err := cmd.CombinedOutput()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return true
		}
		if err != nil && failAt == "" {
			t.Fatalf("child (kill at %s): %v\n%s", killAt, err, out)
		}
		return false
	}
	// check checks what a kill left: every golden file old or new,
	// every dot file reported, and the journal's counts.
	check := func(t *testing.T, golden, when string) {
		t.Helper()
		st := dirState(t, golden)
		replaced := 0
		for name := range bundletest.Names(old, newState) {
			got, ok := st[name]
			was, wasOK := old[name]
			now, nowOK := newState[name]
			switch {
			case ok == wasOK && got == was:
			case ok == nowOK && got == now:
				replaced++
			default:
				t.Fatalf("%s: %s is neither old nor new", when, name)
			}
		}
		msg := journalFinding(t, golden, fixtures1)
		_, journaled := st[journalName]
		switch {
		case !journaled:
			if replaced != 0 && replaced != n {
				t.Errorf("%s: %d of %d files new, and no journal", when, replaced, n)
			}
		case replaced == 0:
			if !strings.Contains(msg, fmt.Sprintf("had replaced none of its %d files yet", n)) {
				t.Errorf("%s: nothing replaced, but the journal finding says %q", when, msg)
			}
		case !strings.Contains(msg, fmt.Sprintf("partly written: %s new (", files(replaced))) || !strings.Contains(msg, fmt.Sprintf(") and %d old;", n-replaced)):
			t.Errorf("%s: %d of %d files new, but the journal finding says %q", when, replaced, n, msg)
		}
	}
	// recover runs the next record up to its first write, then checks
	// that the directory is exactly old or exactly new (old when there
	// was a journal), then lets a record finish.
	stop := errors.New("stop before writing")
	recover := func(t *testing.T, golden, when string) {
		t.Helper()
		_, journaled := dirState(t, golden)[journalName]
		s := mustLoad(t, Options{Fixtures: fixtures1, Golden: golden, Shuffle: -1, Seed: 1})
		_, _, err := s.record(context.Background(), RecordOptions{Prune: true}, txnHooks{fail: func(step string, i int) error {
			if step == "write" {
				return stop
			}
			return nil
		}})
		st := dirState(t, golden)
		switch {
		case err != nil && !errors.Is(err, stop):
			t.Fatalf("%s: the next record: %v", when, err)
		case maps.Equal(st, old):
		case maps.Equal(st, newState) && !journaled:
		default:
			t.Fatalf("%s: after the rollback (journal %v) the golden directory is neither old nor new:\n%v", when, journaled, st)
		}
		if _, _, err := s.Record(RecordOptions{Prune: true}); err != nil {
			t.Fatal(err)
		}
		if st := dirState(t, golden); !maps.Equal(st, newState) {
			t.Fatalf("%s: after the next record: %v", when, st)
		}
	}

	var points []string
	for i := range n {
		points = append(points, fmt.Sprintf("write:%d", i), fmt.Sprintf("backup:%d", i), fmt.Sprintf("rename:%d", i), fmt.Sprintf("cleanup:%d", i))
	}
	points = append(points, "journal:0", "journal:1", "sync:0", "commit:0")
	undoPoints := []string{"undo:0", fmt.Sprintf("undo:%d", n/2), fmt.Sprintf("undo:%d", n-1), "undo-temp:0", fmt.Sprintf("undo-temp:%d", n-1), "undo-journal:0"}
	kills, journals, undoKills := 0, 0, 0
	for _, at := range points {
		golden := copyGolden(t)
		when := "killed at " + at
		if !run(t, golden, at, "") {
			if !maps.Equal(dirState(t, golden), newState) {
				t.Fatalf("%s, not reached: the record did not finish", when)
			}
			continue
		}
		kills++
		check(t, golden, when)
		if _, ok := dirState(t, golden)[journalName]; ok {
			// The next record is killed in its rollback.
			journals++
			undo := undoPoints[journals%len(undoPoints)]
			when += ", then at " + undo + " of the rollback"
			if run(t, golden, undo, "") {
				undoKills++
			}
			check(t, golden, when)
		}
		recover(t, golden, when)
	}
	// A record that fails among its renames rolls back in process; one
	// killed in that rollback leaves its journal.
	for _, c := range []struct{ fail, kill string }{
		{fmt.Sprintf("rename:%d", n/2), ""},
		{fmt.Sprintf("rename:%d", n/2), fmt.Sprintf("undo:%d", n/2-1)},
		{fmt.Sprintf("rename:%d", n-1), "undo:0"},
		{"commit:0", fmt.Sprintf("undo:%d", n-1)},
	} {
		golden := copyGolden(t)
		when := fmt.Sprintf("failed at %s, killed at %s", c.fail, c.kill)
		killed := run(t, golden, c.kill, c.fail)
		if c.kill == "" {
			if st := dirState(t, golden); !maps.Equal(st, old) {
				t.Fatalf("%s: not rolled back: %v", when, st)
			}
			continue
		}
		if !killed {
			t.Fatalf("%s: not killed", when)
		}
		if _, ok := dirState(t, golden)[journalName]; !ok {
			t.Fatalf("%s: no journal", when)
		}
		check(t, golden, when)
		recover(t, golden, when)
	}
	if journals < len(points)/3 || undoKills == 0 {
		t.Errorf("only %d kills left a journal and %d rollbacks were killed", journals, undoKills)
	}
	t.Logf("%d kills over %d steps, %d left a journal, %d rollbacks killed; %d files changed", kills, len(points), journals, undoKills, n)
}
