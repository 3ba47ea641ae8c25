package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"github.com/headergold/headergold/internal/bundletest"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// lockedBuffer is a bytes.Buffer that a running record, or a child's
// output goroutine, writes while the test may read it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func copyBundled(t *testing.T) (fixtures, golden string) {
	t.Helper()
	return bundletest.Dirs(t, filepath.Join("..", ".."))
}

func record(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// snapshot maps each file of dir to its SHA-256 and fails on temp files.
func snapshot(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.Contains(d.Name(), ".tmp-") || strings.HasSuffix(d.Name(), ".headergold-old") {
			t.Errorf("leftover %s", p)
		}
		b, _ := os.ReadFile(p)
		sums[p] = sha256.Sum256(b)
		return nil
	})
	return sums
}

func sameSnapshot(t *testing.T, a, b map[string][32]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%d files before, %d after", len(a), len(b))
	}
	for p, s := range a {
		if b[p] != s {
			t.Errorf("%s changed", p)
		}
	}
}

func TestRecordUnchangedAndCheck(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	code, out, errs := record(t, "-fixtures", fx, "-golden", gd)
	golden, _ := filepath.Glob(filepath.Join(gd, "*"))
	if code != exitOK || !strings.HasSuffix(out, fmt.Sprintf("0 created, 0 changed, %d unchanged\n", len(golden))) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// Nothing to do: the summary alone, which says it is what a record
	// would do.
	if code, out, _ := record(t, "-fixtures", fx, "-golden", gd, "-check"); code != exitOK || out != fmt.Sprintf("would be: 0 created, 0 changed, %d unchanged\n", len(golden)) {
		t.Errorf("-check on a clean tree: exit %d\n%s", code, out)
	}
	os.WriteFile(filepath.Join(gd, "resume.golden"), []byte("stale\n"), 0o644)
	os.Remove(filepath.Join(gd, "tool-turn.golden"))
	before := snapshot(t, gd)
	code, out, _ = record(t, "-fixtures", fx, "-golden", gd, "-check")
	if code != exitChanges || !strings.Contains(out, "would be changed "+filepath.Join(gd, "resume.golden")) ||
		!strings.Contains(out, "would be created "+filepath.Join(gd, "tool-turn.golden")) ||
		!strings.HasSuffix(out, fmt.Sprintf("\nwould be: 1 created, 1 changed, %d unchanged\n", len(golden)-2)) {
		t.Errorf("-check: exit %d\n%s", code, out)
	}
	sameSnapshot(t, before, snapshot(t, gd))
	code, out, _ = record(t, "-fixtures", fx, "-golden", gd, "-run", "^(resume|tool-turn)$")
	if code != exitOK || !strings.Contains(out, "changed   "+filepath.Join(gd, "resume.golden")) ||
		!strings.Contains(out, "created   "+filepath.Join(gd, "tool-turn.golden")) || !strings.HasSuffix(out, "1 created, 1 changed, 0 unchanged\n") {
		t.Errorf("record: exit %d\n%s", code, out)
	}
	for _, f := range []string{"resume.golden", "tool-turn.golden"} {
		got, _ := os.ReadFile(filepath.Join(gd, f))
		want, _ := os.ReadFile(filepath.Join("..", "..", "golden", f))
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the bundled recording", f)
		}
	}
}

func TestRecordRefusesUnderCI(t *testing.T) {
	fx, gd := copyBundled(t)
	os.Remove(filepath.Join(gd, "resume.golden"))
	before := snapshot(t, gd)
	for _, ci := range []string{"true", "1", "github"} {
		t.Setenv("CI", ci)
		code, _, errs := record(t, "-fixtures", fx, "-golden", gd)
		if code != exitRefused || !strings.Contains(errs, "refusing to write golden files with CI="+ci) || !strings.Contains(errs, "-force") {
			t.Errorf("CI=%s: exit %d, %q", ci, code, errs)
		}
		sameSnapshot(t, before, snapshot(t, gd))
	}
	for _, ci := range []string{"false", "0"} {
		t.Setenv("CI", ci)
		if code, _, _ := record(t, "-fixtures", fx, "-golden", gd, "-check"); code != exitChanges {
			t.Errorf("CI=%s is not CI: -check exit %d", ci, code)
		}
	}
	t.Setenv("CI", "true")
	if code, out, _ := record(t, "-fixtures", fx, "-golden", gd, "-force"); code != exitOK || !strings.Contains(out, "created") {
		t.Errorf("-force: exit %d\n%s", code, out)
	}
}

func TestRecordOutputFile(t *testing.T) {
	t.Setenv("CI", "true") // -o touches nothing in golden/, so CI may use it
	fx, gd := copyBundled(t)
	before := snapshot(t, gd)
	file := filepath.Join(t.TempDir(), "ci.jsonl")
	code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^text-turn$", "-o", file)
	if code != exitOK || !strings.Contains(out, "wrote "+file) {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	log, _ := os.ReadFile(file)
	if !bytes.Contains(log, []byte(`"tools":[{"name":"ask_user"`)) || bytes.Contains(log, []byte("<<tools>>")) {
		t.Errorf("-o wrote a templated or empty log:\n%.300s", log)
	}
	sameSnapshot(t, before, snapshot(t, gd))
	if code, _, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "text", "-o", file); code != exitUsage || !strings.Contains(errs, "exactly one") {
		t.Errorf("two selected: exit %d %q", code, errs)
	}
}

func TestRecordInvalidFixtureWritesNothing(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	os.Remove(filepath.Join(gd, "resume.golden")) // something to write
	os.WriteFile(filepath.Join(fx, "zz-bad.json"), []byte(`{"description":"x","turns":[{"user":"x","oops":1}]}`), 0o644)
	before := snapshot(t, gd)
	code, _, errs := record(t, "-fixtures", fx, "-golden", gd)
	if code != exitCannotRun || !strings.Contains(errs, "zz-bad.json:1:") || !strings.Contains(errs, `unknown field "oops"`) {
		t.Errorf("exit %d, %q", code, errs)
	}
	sameSnapshot(t, before, snapshot(t, gd))
}

func TestRecordAtomicOnFailure(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	// Make every golden log stale, then put a directory where the last
	// file to write goes: its rename fails after the others succeeded.
	for _, name := range []string{"extends-text-turn", "resume", "tool-turn"} {
		os.WriteFile(filepath.Join(gd, name+".golden"), []byte("stale "+name+"\n"), 0o644)
	}
	os.Remove(filepath.Join(gd, "unknown-tool-order.golden"))
	os.Mkdir(filepath.Join(gd, "unknown-tool-order.golden"), 0o755)
	os.WriteFile(filepath.Join(gd, "unknown-tool-order.golden", "x"), nil, 0o644)
	before := snapshot(t, gd)
	code, _, errs := record(t, "-fixtures", fx, "-golden", gd)
	if code == exitOK || !strings.Contains(errs, "unknown-tool-order.golden") {
		t.Fatalf("exit %d, %q", code, errs)
	}
	sameSnapshot(t, before, snapshot(t, gd))
}

func TestRecordOrphansAndPrune(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	orphan := filepath.Join(gd, "gone.golden")
	os.WriteFile(orphan, []byte("x\n"), 0o644)
	code, out, _ := record(t, "-fixtures", fx, "-golden", gd)
	if code != exitOK || !strings.Contains(out, "orphan    "+orphan) {
		t.Errorf("exit %d\n%s", code, out)
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Fatal("an orphan was deleted without -prune")
	}
	code, out, _ = record(t, "-fixtures", fx, "-golden", gd, "-prune")
	if code != exitOK || !strings.Contains(out, "removed   "+orphan) || !strings.HasSuffix(out, ", 1 removed\n") {
		t.Errorf("-prune: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Error("-prune left the orphan")
	}
	// With -prune the summary counts what it removed, none too.
	code, out, _ = record(t, "-fixtures", fx, "-golden", gd, "-prune")
	if code != exitOK || !strings.HasSuffix(out, " unchanged, 0 removed\n") {
		t.Errorf("-prune with no orphan: exit %d\n%s", code, out)
	}
}

// TestGoldieUpdateParity: recording into an empty golden directory, with
// this command and with GOLDIE_UPDATE=1 through goldentest.Test, each writes
// the golden files committed in this repository byte for byte (the
// ground truth neither path produced in this run), and each recording
// replays: record -check finds nothing to do, goldentest.Test passes.
func TestGoldieUpdateParity(t *testing.T) {
	t.Setenv("CI", "")
	fx, committed := copyBundled(t)
	want := map[string][]byte{}
	entries, err := os.ReadDir(committed)
	if err != nil || len(entries) < 15 {
		t.Fatalf("%d committed golden files (%v)", len(entries), err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(committed, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		want[e.Name()] = b
	}
	recordWith := map[string]func(gd string){
		"record": func(gd string) {
			if code, out, errs := record(t, "-fixtures", fx, "-golden", gd); code != exitOK {
				t.Fatalf("record: exit %d\n%s%s", code, out, errs)
			}
		},
		"GOLDIE_UPDATE": func(gd string) {
			t.Run("goldie", func(t *testing.T) {
				t.Setenv("GOLDIE_UPDATE", "1")
				goldentest.Test(t, harness.Options{Fixtures: fx, Golden: gd})
			})
		},
	}
	for name, rec := range recordWith {
		gd := filepath.Join(t.TempDir(), "golden")
		rec(gd)
		got, err := os.ReadDir(gd)
		if err != nil || len(got) != len(want) {
			t.Errorf("%s wrote %d files (%v), want the %d committed", name, len(got), err, len(want))
		}
		for file, w := range want {
			if g, err := os.ReadFile(filepath.Join(gd, file)); err != nil || !bytes.Equal(g, w) {
				t.Errorf("%s: %s differs from the committed file (%v)", name, file, err)
			}
		}
		if code, out, errs := record(t, "-fixtures", fx, "-golden", gd, "-check"); code != exitOK {
			t.Errorf("%s: record -check on what it wrote: exit %d\n%s%s", name, code, out, errs)
		}
		t.Run(name+"/replay", func(t *testing.T) { goldentest.Test(t, harness.Options{Fixtures: fx, Golden: gd, Shuffle: -1}) })
	}
}

func TestRecordRefusesOutputIntoGolden(t *testing.T) {
	t.Setenv("CI", "")
	fx, gd := copyBundled(t)
	before := snapshot(t, gd)
	code, _, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^text-turn$", "-o", filepath.Join(gd, "text-turn.golden"))
	if code != exitUsage || !strings.Contains(errs, "inside the golden directory") {
		t.Errorf("exit %d, %q", code, errs)
	}
	sameSnapshot(t, before, snapshot(t, gd))
	if code, _, errs := record(t, "-fixtures", fx, "-golden", gd, "-run", "^nothing$"); code != exitUsage || !strings.Contains(errs, "matches no fixture") {
		t.Errorf("empty -run: exit %d, %q", code, errs)
	}
}

// A captured scenario's -o log is the full log: the agent's own system
// text and tools, no placeholders.
func TestRecordCapturedFullLog(t *testing.T) {
	fixtures, golden := copyBundled(t)
	out := filepath.Join(t.TempDir(), "weather.jsonl")
	t.Setenv("CI", "true") // -o writes outside golden/, so CI does not stop it
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^captured-weather$", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"format":"anthropic"`, `"system":"You are a weather assistant.`, `{"name":"get_weather","description":"Current weather for a city."`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("full log lacks %s", want)
		}
	}
	if strings.Contains(string(b), `"tools":"<<tools>>"}}}`) {
		t.Error("the full log is templated")
	}
}

func TestRecordListenRefusesRemoteAndNeedsOneScenario(t *testing.T) {
	t.Setenv("CI", "") // these are about -listen, not about recording under CI
	fixtures, golden := copyBundled(t)
	code, _, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^captured-weather$", "-listen", "0.0.0.0:0")
	if code != 2 || !strings.Contains(stderr, "not a loopback address") {
		t.Errorf("non-loopback -listen: exit %d, %s", code, stderr)
	}
	code, _, stderr = record(t, "-fixtures", fixtures, "-golden", golden, "-listen", "127.0.0.1:0")
	if code != 2 || !strings.Contains(stderr, "-listen serves one scenario") {
		t.Errorf("-listen without -run: exit %d, %s", code, stderr)
	}
	code, _, stderr = record(t, "-fixtures", fixtures, "-golden", golden, "-upstream", "ftp://x")
	if code != 2 || !strings.Contains(stderr, "want an http:// or https:// URL") {
		t.Errorf("bad -upstream: exit %d, %s", code, stderr)
	}
	// A port in use is this machine's state, not a usage error.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr = record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^captured-weather$", "-listen", ln.Addr().String())
	if code != exitCannotRun || !strings.Contains(stderr, "record: cannot record: -listen: ") || strings.Contains(stderr, "usage:") {
		t.Errorf("-listen on a port in use: exit %d, %s", code, stderr)
	}
}

// record -listen waits for an agent started separately and records it.
func TestRecordListenRecordsAnAgentStartedElsewhere(t *testing.T) {
	t.Setenv("CI", "")
	fixtures, golden := copyBundled(t)
	os.Remove(filepath.Join(golden, "captured-weather.golden"))
	done := make(chan int, 1)
	finished := make(chan struct{})
	var out, errb lockedBuffer
	// A failing test stops record too: its fake provider does not stay
	// listening for the rest of the test binary.
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(20 * time.Second):
			t.Error("record was still running 20 s after the test cancelled it")
		}
	})
	// Port 0: record listens on a port the system picks and prints it, so
	// no other process can take it between a test's choice and record's.
	go func() {
		defer close(finished)
		done <- runContext(ctx, []string{"-fixtures", fixtures, "-golden", golden, "-run", "^captured-weather$", "-listen", "127.0.0.1:0"}, &out, &errb)
	}()
	deadline := time.Now().Add(20 * time.Second)
	printed := regexp.MustCompile(`fake provider for captured-weather on (127\.0\.0\.1:[1-9][0-9]*);`)
	var addr string
	for addr == "" {
		if m := printed.FindStringSubmatch(errb.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("record exited %d before it printed its address: %s", code, errb.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("record printed no address: %s", errb.String())
		}
	}
	// The agent: two requests, sent when the address answers.
	body := `{"model":"m","max_tokens":64,"system":"s","tools":[{"name":"get_weather"}],"messages":[{"role":"user","content":"Weather?"}]}`
	for i := 0; i < 2; {
		resp, err := http.Post("http://"+addr+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the fake provider never listened: %v", err)
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if resp.StatusCode != 200 {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("request %d: HTTP %d: %s", i+1, resp.StatusCode, b)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		i++
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("record did not finish after the script was consumed")
	}
	if !strings.Contains(errb.String(), "export ANTHROPIC_BASE_URL=http://"+addr) {
		t.Errorf("no exports printed: %s", errb.String())
	}
	g, err := os.ReadFile(filepath.Join(golden, "captured-weather.golden"))
	if err != nil || strings.Count(string(g), `"type":"capture/request"`) != 2 {
		t.Errorf("golden: %s %v", g, err)
	}
}

// TestRecordSkipsInProcessScenarios: record writes the fixtures it can
// run and leaves a scenario whose agent is an in-process Go function, and
// its golden files, alone, saying so; selecting only that one records
// nothing and says why.
func TestRecordSkipsInProcessScenarios(t *testing.T) {
	t.Setenv("CI", "")
	fixtures, golden := copyBundled(t)
	inproc := `{"description": "an agent only go test can call", "agent": {"env": {"PROMPT": "x"}}, "replies": [{"text": "a"}]}`
	if err := os.WriteFile(filepath.Join(fixtures, "inproc.json"), []byte(inproc), 0o644); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(golden, "inproc.golden")
	if err := os.WriteFile(kept, []byte("recorded from go test\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(golden, "text-turn.golden"))
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^(inproc|text-turn)$")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	for _, want := range []string{"skipped   " + filepath.Join(fixtures, "inproc.json") + " (in-process agent: record it from go test", "created   ", ", 1 skipped\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if b, _ := os.ReadFile(kept); string(b) != "recorded from go test\n" {
		t.Errorf("the skipped scenario's golden log was touched: %q", b)
	}
	// A directory of in-process scenarios only: nothing is recorded, and
	// nothing pruned either.
	only, onlyGolden := filepath.Join(t.TempDir(), "fixtures"), filepath.Join(t.TempDir(), "golden")
	for _, d := range []string{only, onlyGolden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(only, "inproc.json"), []byte(inproc), 0o644); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(onlyGolden, "gone.golden")
	if err := os.WriteFile(orphan, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = record(t, "-fixtures", only, "-golden", onlyGolden, "-prune")
	if code != exitCannotRun || !strings.Contains(stderr, "nothing to record here") {
		t.Errorf("only the in-process scenario: exit %d: %s %s", code, stdout, stderr)
	}
	if _, err := os.Stat(orphan); err != nil {
		t.Errorf("a record that records nothing pruned: %v", err)
	}
}

// TestRecordOutputOfAFailingAgent: -o of a scenario whose agent fails
// exits 1, as the replay would, and says nothing was written.
func TestRecordOutputOfAFailingAgent(t *testing.T) {
	fixtures, golden := copyBundled(t)
	failing := `{"description": "exits 1", "agent": {"exec": ["sh", "-c", "echo broken >&2; exit 1"]}, "replies": [{"text": "a"}]}`
	if err := os.WriteFile(filepath.Join(fixtures, "failing.json"), []byte(failing), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "failing.jsonl")
	code, stdout, stderr := record(t, "-fixtures", fixtures, "-golden", golden, "-run", "^failing$", "-o", out)
	if code != exitChanges || !strings.Contains(stderr, "[agent]") || !strings.Contains(stderr, "nothing was written") {
		t.Errorf("exit %d: %s %s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o file exists: %v", err)
	}
}
