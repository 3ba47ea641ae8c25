package harness

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dirState maps every file of dir to its bytes.
func dirState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		out[e.Name()] = string(readFile(t, filepath.Join(dir, e.Name())))
	}
	return out
}

// killedMidway makes, by hand, what a record killed among its renames
// leaves: a golden and a fixtures directory with the journal of seven
// targets, four of them already in their new state (a.golden replaced,
// c.golden created, d.golden removed, fixtures/x.json replaced) and three
// not (b.golden backed up by a hard link, e.golden not created yet,
// f.golden backed up by a copy). It returns the directories.
func killedMidway(t *testing.T) (golden, fixtures string) {
	t.Helper()
	root := t.TempDir()
	golden, fixtures = filepath.Join(root, "golden"), filepath.Join(root, "fixtures")
	for _, d := range []string{golden, fixtures} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g := func(name string) string { return filepath.Join(golden, name) }
	for name, body := range map[string]string{
		"a.golden": "new a\n", ".a.golden.headergold-old": "old a\n",
		"b.golden": "old b\n", ".b.golden.headergold-tmp-11": "new b\n",
		"c.golden":                    "new c\n",
		".d.golden.headergold-old":    "old d\n",
		".e.golden.headergold-tmp-12": "new e\n",
		"f.golden":                    "old f\n", ".f.golden.headergold-old": "old f\n", ".f.golden.headergold-tmp-13": "new f\n",
	} {
		writeFile(t, g(name), body)
	}
	if err := os.Link(g("b.golden"), g(".b.golden.headergold-old")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(fixtures, "x.json"), "new x\n")
	writeFile(t, filepath.Join(fixtures, ".x.json.headergold-old"), "old x\n")
	writeFile(t, g(journalName), `{"headergold-journal": 1, "files": [
	{"path": "a.golden", "existed": true, "backup": ".a.golden.headergold-old", "temp": ".a.golden.headergold-tmp-10"},
	{"path": "b.golden", "existed": true, "backup": ".b.golden.headergold-old", "temp": ".b.golden.headergold-tmp-11"},
	{"path": "c.golden", "existed": false, "temp": ".c.golden.headergold-tmp-14"},
	{"path": "d.golden", "existed": true, "remove": true, "backup": ".d.golden.headergold-old"},
	{"path": "e.golden", "existed": false, "temp": ".e.golden.headergold-tmp-12"},
	{"path": "f.golden", "existed": true, "backup": ".f.golden.headergold-old", "temp": ".f.golden.headergold-tmp-13"},
	{"path": "../fixtures/x.json", "existed": true, "backup": ".x.json.headergold-old", "temp": ".x.json.headergold-tmp-15"}]}
`)
	return golden, fixtures
}

// journalFinding returns the findings of the directories, checking that
// every dot file in them is one, and the journal's message ("" without
// a journal).
func journalFinding(t *testing.T, golden, fixtures string) string {
	t.Helper()
	found, _, err := findLeftovers(golden, fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, f := range found {
		got = append(got, f.File)
		if !strings.Contains(f.Msg, "interrupted record") {
			t.Errorf("finding %s", f)
		}
	}
	for _, d := range []string{golden, fixtures} {
		for name := range dirState(t, d) {
			if strings.HasPrefix(name, ".") {
				want = append(want, filepath.Join(d, name))
			}
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings %v\nwant every dot file: %v", got, want)
	}
	if len(found) > 0 && filepath.Base(found[0].File) == journalName {
		return found[0].Msg
	}
	return ""
}

// TestRollBackFromJournal rolls back a hand-made journal: replay's
// finding says which files are new and how many old; a rollback stopped
// part way (at a file, then before it removes the journal) leaves the
// journal, which the next one finishes; at the end every file is old and
// no dot file is left.
func TestRollBackFromJournal(t *testing.T) {
	golden, fixtures := killedMidway(t)
	x := filepath.Join(fixtures, "x.json")
	msg := journalFinding(t, golden, fixtures)
	want := "partly written: 4 files new (" + strings.Join([]string{
		filepath.Join(golden, "a.golden"), filepath.Join(golden, "c.golden"), filepath.Join(golden, "d.golden"), x}, ", ") + ") and 3 old"
	if !strings.Contains(msg, want) || !strings.Contains(msg, "the next record restores the old files") {
		t.Errorf("journal finding %q\nwant it to say %q", msg, want)
	}
	found, _, _ := findLeftovers(golden, fixtures)
	for _, f := range found {
		if filepath.Base(f.File) == ".a.golden.headergold-old" && !strings.Contains(f.Msg, "the old bytes of "+filepath.Join(golden, "a.golden")) {
			t.Errorf("backup finding %s", f)
		}
	}

	rollBack := func(h txnHooks) ([]string, error) {
		t.Helper()
		j, err := readJournal(golden, fixtures)
		if err != nil || j == nil {
			t.Fatalf("journal %v, %v", j, err)
		}
		return j.rollBack(h)
	}
	injected := errors.New("injected")
	// Stopped at c.golden: the others are put back, the journal stays.
	restored, err := rollBack(txnHooks{fail: func(step string, i int) error {
		if step == "undo" && i == 2 {
			return injected
		}
		return nil
	}})
	if !errors.Is(err, injected) || !strings.Contains(err.Error(), "the journal is kept") {
		t.Errorf("err = %v", err)
	}
	if want := []string{filepath.Join(golden, "a.golden"), filepath.Join(golden, "d.golden"), x}; !slices.Equal(restored, want) {
		t.Errorf("restored %v, want %v", restored, want)
	}
	if msg := journalFinding(t, golden, fixtures); !strings.Contains(msg, "1 file new ("+filepath.Join(golden, "c.golden")+") and 6 old") {
		t.Errorf("after a stopped rollback: %q", msg)
	}
	// Stopped before it removes the journal: every file is old.
	if _, err := rollBack(txnHooks{fail: func(step string, i int) error {
		if step == "undo-journal" {
			return injected
		}
		return nil
	}}); !errors.Is(err, injected) {
		t.Errorf("err = %v", err)
	}
	if msg := journalFinding(t, golden, fixtures); !strings.Contains(msg, "had replaced none of its 7 files yet") {
		t.Errorf("after a rollback stopped at the end: %q", msg)
	}
	restored, err = rollBack(txnHooks{})
	if err != nil || len(restored) != 0 {
		t.Errorf("last rollback: %v, %v", restored, err)
	}
	wantGolden := map[string]string{"a.golden": "old a\n", "b.golden": "old b\n", "d.golden": "old d\n", "f.golden": "old f\n"}
	if got := dirState(t, golden); !maps.Equal(got, wantGolden) {
		t.Errorf("golden after the rollback: %v\nwant %v", got, wantGolden)
	}
	if got := dirState(t, fixtures); !maps.Equal(got, map[string]string{"x.json": "old x\n"}) {
		t.Errorf("fixtures after the rollback: %v", got)
	}
	if msg := journalFinding(t, golden, fixtures); msg != "" {
		t.Errorf("journal still reported: %q", msg)
	}
}

// TestBadJournal: a journal that writeFiles did not write, or that names
// a file a rollback must not touch, is an error that says what to do,
// and nothing is changed.
func TestBadJournal(t *testing.T) {
	for name, body := range map[string]string{
		"not json":          `{"headergold-journal": 1, "files": [`,
		"version":           `{"headergold-journal": 2, "files": []}`,
		"unknown field":     `{"headergold-journal": 1, "files": [], "more": 1}`,
		"outside":           `{"headergold-journal": 1, "files": [{"path": "../../x.golden", "existed": false, "temp": ".x.golden.headergold-tmp-1"}]}`,
		"not a golden":      `{"headergold-journal": 1, "files": [{"path": "notes.txt", "existed": false, "temp": ".notes.txt.headergold-tmp-1"}]}`,
		"backup name":       `{"headergold-journal": 1, "files": [{"path": "a.golden", "existed": true, "backup": "b.golden", "temp": ".a.golden.headergold-tmp-1"}]}`,
		"no backup":         `{"headergold-journal": 1, "files": [{"path": "a.golden", "existed": true, "temp": ".a.golden.headergold-tmp-1"}]}`,
		"temp name":         `{"headergold-journal": 1, "files": [{"path": "a.golden", "existed": false, "temp": "a.golden"}]}`,
		"twice":             `{"headergold-journal": 1, "files": [{"path": "a.golden", "existed": false, "temp": ".a.golden.headergold-tmp-1"}, {"path": "./a.golden", "existed": false, "temp": ".a.golden.headergold-tmp-2"}]}`,
		"temp no number":    `{"headergold-journal": 1, "files": [{"path": "a.golden", "existed": false, "temp": ".a.golden.headergold-tmp-"}]}`,
		"temp not a number": `{"headergold-journal": 1, "files": [{"path": "a.golden", "existed": false, "temp": ".a.golden.headergold-tmp-1x"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			golden, fixtures := filepath.Join(t.TempDir(), "golden"), t.TempDir()
			if err := os.Mkdir(golden, 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(golden, "a.golden"), "a\n")
			writeFile(t, filepath.Join(golden, journalName), body)
			_, _, err := findLeftovers(golden, fixtures)
			if err == nil || !strings.Contains(err.Error(), journalName) || !strings.Contains(err.Error(), "put the golden files back by hand") {
				t.Errorf("err = %v", err)
			}
			if got := dirState(t, golden); len(got) != 2 || got["a.golden"] != "a\n" {
				t.Errorf("files after: %v", got)
			}
		})
	}
}

// killInProcess runs a record of s that stops at step i as a killed one
// would: the step fails, and so does every step of the rollback in
// process, which leaves the journal, the backups and the temp files.
func killInProcess(t *testing.T, s *Suite, opts RecordOptions, step string, at int) {
	t.Helper()
	injected := errors.New("injected")
	_, _, err := s.record(context.Background(), opts, txnHooks{fail: func(st string, i int) error {
		if (st == step && i == at) || st == "undo" {
			return injected
		}
		return nil
	}})
	if !errors.Is(err, injected) || !strings.Contains(err.Error(), "the next record restores them") {
		t.Fatalf("err = %v", err)
	}
}

// TestRecordRollsBackJournal: after a record stopped among its renames
// with its in-process rollback failing too (as a kill leaves it), replay
// reports the journal; a dry run says the same and what the record would
// do, comparing with the old files; the record rolls back in one line
// naming the files restored, then records as if nothing had happened.
func TestRecordRollsBackJournal(t *testing.T) {
	// Stopped among the renames, or after the last (the orphan's removal).
	t.Run("rename", func(t *testing.T) { testRecordRollsBackJournal(t, "rename", 3) })
	t.Run("sync", func(t *testing.T) { testRecordRollsBackJournal(t, "sync", 0) })
}

func testRecordRollsBackJournal(t *testing.T, step string, at int) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	stale := []string{"tool-turn.golden", "resume.golden", "text-turn.golden", "text-turn.system.md", "stable-header.golden"}
	for _, name := range stale {
		writeFile(t, filepath.Join(opts.Golden, name), "stale "+name+"\n")
	}
	writeFile(t, filepath.Join(opts.Golden, "orphan.golden"), "orphan\n")
	old := dirState(t, opts.Golden)
	ropts := RecordOptions{Prune: true}
	killInProcess(t, mustLoad(t, opts), ropts, step, at)
	mixed := dirState(t, opts.Golden)
	if _, ok := mixed[journalName]; !ok {
		t.Fatalf("no journal: %v", slices.Sorted(maps.Keys(mixed)))
	}
	var replaced []string
	for name, body := range old {
		if mixed[name] != body {
			replaced = append(replaced, filepath.Join(opts.Golden, name))
		}
	}
	slices.Sort(replaced)
	if all := len(stale) + 1; len(replaced) == 0 || (step == "rename") == (len(replaced) == all) {
		t.Fatalf("stopped at %s %d, replaced %v", step, at, replaced)
	}

	s := mustLoad(t, opts)
	var msg string
	for _, f := range s.Findings() {
		if filepath.Base(f.File) == journalName {
			msg = f.Msg
		}
	}
	if !strings.Contains(msg, fmt.Sprintf("partly written: %d files new (", len(replaced))) || !namesFiles(msg, replaced) {
		t.Errorf("journal finding %q, want it to name %v", msg, replaced)
	}
	dry, _, err := s.Record(RecordOptions{Prune: true, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := dirState(t, opts.Golden); !maps.Equal(got, mixed) {
		t.Error("a dry run changed the golden directory")
	}
	changes, _, err := s.Record(ropts)
	if err != nil {
		t.Fatal(err)
	}
	byStatus := func(changes []FileChange) (map[Status][]string, string) {
		out, note := map[Status][]string{}, ""
		for _, c := range changes {
			out[c.Status] = append(out[c.Status], c.File)
			if c.Status == RolledBack {
				note = c.Note
			}
		}
		for _, files := range out {
			slices.Sort(files)
		}
		return out, note
	}
	d, dryNote := byStatus(dry)
	r, note := byStatus(changes)
	if dryNote != msg {
		t.Errorf("dry run note %q, want the finding %q", dryNote, msg)
	}
	if !strings.HasPrefix(note, "rolled back an interrupted record: restored ") || !namesFiles(note, replaced) {
		t.Errorf("note %q, want it to name %v", note, replaced)
	}
	if !slices.Equal(r[Restored], replaced) || !slices.Equal(d[Restored], replaced) {
		t.Errorf("restored %v, dry run %v, want %v", r[Restored], d[Restored], replaced)
	}
	for _, st := range []Status{Created, Changed, Unchanged, Removed, Cleaned} {
		if !slices.Equal(d[st], r[st]) {
			t.Errorf("%s: dry run %v, record %v", st, d[st], r[st])
		}
	}
	if len(r[Changed]) != len(stale) || len(r[Removed]) != 1 {
		t.Errorf("changed %v, removed %v: not what the old files call for", r[Changed], r[Removed])
	}
	for name := range dirState(t, opts.Golden) {
		if strings.HasPrefix(name, ".") {
			t.Errorf("left %s", name)
		}
	}
	again := mustLoad(t, opts)
	if f := again.Findings(); len(f) != 0 {
		t.Errorf("findings after record: %v", f)
	}
	for _, f := range again.Fixtures() {
		if res := again.Replay(f); !res.Passed() {
			t.Errorf("%s after record: %v", f.Name, res.Failures)
		}
	}
}

// namesFiles reports whether msg names the files as a journal's message
// does: every one of them up to namedFiles, else namedFiles of them and
// how many more.
func namesFiles(msg string, files []string) bool {
	named := 0
	for _, f := range files {
		if strings.Contains(msg, f) {
			named++
		}
	}
	if len(files) <= namedFiles {
		return named == len(files) && !strings.Contains(msg, " more")
	}
	return named == namedFiles && strings.Contains(msg, fmt.Sprintf(", … and %d more", len(files)-namedFiles))
}

// TestBadJournalStopsRecord: a journal record cannot read fails the
// load that replay does, and a record, which then writes nothing.
func TestBadJournalStopsRecord(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	stale := filepath.Join(opts.Golden, "tool-turn.golden")
	writeFile(t, stale, "stale\n")
	s := mustLoad(t, opts)
	writeFile(t, filepath.Join(opts.Golden, journalName), "{")
	if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), journalName) {
		t.Errorf("load: %v", err)
	}
	if _, _, err := s.Record(RecordOptions{}); err == nil || !strings.Contains(err.Error(), journalName) {
		t.Errorf("record: %v", err)
	}
	if string(readFile(t, stale)) != "stale\n" {
		t.Error("record wrote")
	}
}

// A record rolls a killed one back before it runs or plans anything: what
// the rollback puts back (here the sidecar of a fixture that is not
// pinned, which the killed record had removed) is planned for again, and
// replay then passes.
func TestRecordAfterRollBackPlansAgain(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	sidecar := filepath.Join(opts.Golden, "tool-turn.system.md")
	writeFile(t, sidecar, "stale\n")
	writeFile(t, filepath.Join(opts.Golden, "resume.golden"), "stale\n")
	killInProcess(t, mustLoad(t, opts), RecordOptions{}, "sync", 0)
	if _, err := os.Stat(filepath.Join(opts.Golden, journalName)); err != nil {
		t.Fatalf("no journal: %v", err)
	}
	if _, err := os.Stat(sidecar); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the killed record had not removed the sidecar: %v", err)
	}
	changes, _, err := mustLoad(t, opts).Record(RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[Status][]string{}
	for _, c := range changes {
		statuses[c.Status] = append(statuses[c.Status], filepath.Base(c.File))
	}
	if !slices.Contains(statuses[Restored], "tool-turn.system.md") || !slices.Contains(statuses[Removed], "tool-turn.system.md") {
		t.Errorf("changes %v: the sidecar is not restored, then removed", statuses)
	}
	if _, err := os.Stat(sidecar); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rollback put the sidecar back and the record left it: %v", err)
	}
	again := mustLoad(t, opts)
	for _, f := range again.Fixtures() {
		if res := again.Replay(f); !res.Passed() {
			t.Errorf("%s after the record: %v", f.Name, res.Failures)
		}
	}
}

// TestJournalMessagesNameFewFiles: a record of hundreds of files killed
// among its renames is reported in a line of bounded length, by replay
// (its finding) and by the record that rolls it back: the first files
// by name, then how many more; -json's restored entries, one per file,
// still name every one.
func TestJournalMessagesNameFewFiles(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	opts.Run = regexp.MustCompile(`^text-turn$`)
	const n = 300
	var entries, names []string
	for i := range n {
		name := fmt.Sprintf("copy-%03d.golden", i)
		// Created by the killed record, so new.
		writeFile(t, filepath.Join(opts.Golden, name), "new\n")
		entries = append(entries, fmt.Sprintf(`{"path": %q, "existed": false, "temp": ".%s.headergold-tmp-%d"}`, name, name, i))
		names = append(names, filepath.Join(opts.Golden, name))
	}
	writeFile(t, filepath.Join(opts.Golden, journalName), `{"headergold-journal": 1, "files": [`+strings.Join(entries, ",\n")+"]}\n")
	wantNames := strings.Join(names[:namedFiles], ", ") + fmt.Sprintf(", … and %d more", n-namedFiles)
	check := func(what, msg string) {
		t.Helper()
		if !strings.Contains(msg, wantNames) || strings.Contains(msg, names[namedFiles]) || len(msg) > 1000 {
			t.Errorf("%s: %d bytes: %.600q\nwant the first %d files, then %q", what, len(msg), msg, namedFiles, fmt.Sprintf("… and %d more", n-namedFiles))
		}
	}
	var finding string
	for _, f := range mustLoad(t, opts).Findings() {
		if filepath.Base(f.File) == journalName {
			finding = f.String()
		}
	}
	check("replay's finding", finding)
	changes, _, err := mustLoad(t, opts).Record(RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var restored []string
	for _, c := range changes {
		switch c.Status {
		case RolledBack:
			check("the rollback", c.Note)
		case Restored:
			restored = append(restored, c.File)
		}
	}
	if slices.Sort(restored); !slices.Equal(restored, names) {
		t.Errorf("%d files restored, want all %d", len(restored), n)
	}
}
