package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
	"github.com/headergold/headergold/internal/cliflags"
	"github.com/tidwall/gjson"
)

// copyBundled copies the bundled fixtures and golden files to a temp dir.
func copyBundled(t *testing.T) (fixtures, golden string) {
	t.Helper()
	return bundletest.Dirs(t, filepath.Join("..", ".."))
}

// bundled returns the flags that point replay at the bundled fixtures.
func bundled(t *testing.T, more ...string) []string {
	t.Helper()
	bundletest.SkipWhileRecording(t)
	return append([]string{"-fixtures", "../../fixtures", "-golden", "../../golden"}, more...)
}

type result struct {
	code           int
	stdout, stderr string
}

func replay(t *testing.T, vars map[string]string, terminal bool, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, env{
		stdin: strings.NewReader(""), stdout: &out, stderr: &errb, terminal: terminal,
		getenv: func(k string) string { return vars[k] },
	})
	return result{code, out.String(), errb.String()}
}

// bundledCount counts the bundled fixtures.
func bundledCount(t *testing.T) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join("..", "..", "fixtures", "*.json"))
	if err != nil || len(m) < 13 {
		t.Fatalf("%d bundled fixtures (%v), want at least 13", len(m), err)
	}
	return len(m)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestBundledSuiteFromRepositoryRoot(t *testing.T) {
	r := replay(t, nil, false, bundled(t, "-shuffle", "2")...)
	if r.code != exitOK || !strings.HasSuffix(r.stdout, " passed, 0 failed\n") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "\nok   ") + strings.Count(r.stdout[:5], "ok   "); n < 13 {
		t.Errorf("%d ok lines, want at least 13:\n%s", n, r.stdout)
	}
}

func TestMismatchExitAndReport(t *testing.T) {
	fx, gd := copyBundled(t)
	path := filepath.Join(gd, "tool-turn.golden")
	b, _ := os.ReadFile(path)
	os.WriteFile(path, bytes.Replace(b, []byte(`"main.go\nmain_test.go"`), []byte(`"main.go"`), 1), 0o644)
	r := replay(t, map[string]string{"GITHUB_ACTIONS": "true"}, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0")
	if r.code != exitMismatch {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stdout)
	}
	for _, want := range []string{
		"FAIL tool-turn",
		"tool-turn.golden:6: [golden] event tool/result differs at data.output",
		"reproduce: replay -fixtures " + fx + " -golden " + gd + " -shuffle 0 -seed",
		"::error file=" + path + ",line=6::tool-turn: event tool/result differs at data.output",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if got, want := lastLine(r.stdout), fmt.Sprintf("%d passed, 1 failed", bundledCount(t)-1); got != want {
		t.Errorf("last line %q", got)
	}
}

func TestGuardFindingFails(t *testing.T) {
	fx, gd := copyBundled(t)
	os.WriteFile(filepath.Join(gd, "ghost.golden"), []byte("\n"), 0o644)
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0")
	if r.code != exitMismatch || !strings.Contains(r.stdout, "ghost.golden: golden log with no fixture") {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
}

func TestCannotTest(t *testing.T) {
	fx, gd := copyBundled(t)
	os.WriteFile(filepath.Join(fx, "broken.json"), []byte("{\n  \"description\": \"x\",\n}\n"), 0o644)
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd)
	// The output ends with the counts all the same, the broken fixture
	// among the failed.
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "broken.json:3:1") || lastLine(r.stdout) != "0 passed, 1 failed" ||
		!strings.Contains(r.stdout, "1 of the failed could not be tested") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "-fixtures", filepath.Join(fx, "absent"))
	if r.code != exitCannotRun {
		t.Errorf("missing dir: exit %d", r.code)
	}
}

func TestRunSelects(t *testing.T) {
	r := replay(t, nil, false, bundled(t, "-shuffle", "0", "-run", "^(resume|tool-turn)$")...)
	if r.code != exitOK || lastLine(r.stdout) != "2 passed, 0 failed" || !strings.Contains(r.stdout, "resume") {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
}

type jsonLine struct {
	Fixture *string  `json:"fixture"`
	Status  string   `json:"status"`
	Seconds *float64 `json:"seconds"`
	Seed    *uint64  `json:"seed"`
	Pins    *struct {
		Kind  string   `json:"kind"`
		Files []string `json:"files"`
		Pin   string   `json:"pin"`
	} `json:"pins"`
	Failures []struct {
		Check, File, Path, Message string
		Want, Got                  string
		Line                       int
		Cache                      map[string]json.RawMessage
		CacheAt                    *struct {
			Segment string
			Offset  int
			Length  int
		}
		CacheNote  string
		CacheLines []string
		Kinds      []string
		Moved      []string
		Added      []string
		Removed    []string
	} `json:"failures"`
	Summary         bool      `json:"summary"`
	Passed          *int      `json:"passed"`
	Failed          *int      `json:"failed"`
	Invalid         *int      `json:"invalid"`
	Skipped         *int      `json:"skipped"`
	Skip            string    `json:"skip"`
	Findings        *[]string `json:"findings"`
	Errors          []string  `json:"errors"`
	InvalidFixtures []struct {
		File, Path, Message string
		Line, Column        int
	} `json:"invalidFixtures"`
}

func decodeJSONLines(t *testing.T, s string) []jsonLine {
	t.Helper()
	var out []jsonLine
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		var j jsonLine
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		out = append(out, j)
	}
	return out
}

func TestJSONSchema(t *testing.T) {
	fx, gd := copyBundled(t)
	os.Remove(filepath.Join(gd, "resume.golden"))
	r := replay(t, nil, true, "-fixtures", fx, "-golden", gd, "-shuffle", "1", "-json")
	if r.code != exitMismatch {
		t.Fatalf("exit %d", r.code)
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Error("colour in -json output")
	}
	lines := decodeJSONLines(t, r.stdout)
	sum := lines[len(lines)-1]
	if !sum.Summary || sum.Passed == nil || *sum.Passed != len(lines)-2 || *sum.Failed != 1 || sum.Findings == nil {
		t.Errorf("summary %+v", sum)
	}
	for _, l := range lines[:len(lines)-1] {
		if l.Fixture == nil || l.Seconds == nil || l.Seed == nil || l.Pins == nil || l.Pins.Kind == "" || l.Failures == nil || l.Summary {
			t.Errorf("fixture line %+v lacks a member", l)
		}
		if *l.Fixture == "resume" {
			if l.Status != "fail" || len(l.Failures) != 1 || l.Failures[0].Check != "guard" || !strings.HasSuffix(l.Failures[0].File, "resume.golden") {
				t.Errorf("resume: %+v", l)
			}
		} else if l.Status != "ok" {
			t.Errorf("%s: %s", *l.Fixture, l.Status)
		}
	}
}

func TestShardsPartition(t *testing.T) {
	all := map[string]int{}
	for _, n := range []int{1, 2, 3, 5} {
		seen := map[string]int{}
		for i := 1; i <= n; i++ {
			r := replay(t, nil, false, bundled(t, "-shuffle", "0", "-json",
				"-shard", strings.Join([]string{itoa(i), itoa(n)}, "/"))...)
			if r.code != exitOK {
				t.Fatalf("shard %d/%d: exit %d", i, n, r.code)
			}
			for _, l := range decodeJSONLines(t, r.stdout) {
				if l.Fixture != nil {
					seen[*l.Fixture]++
				}
			}
		}
		if n == 1 {
			all = seen
		}
		if len(seen) != len(all) {
			t.Errorf("N=%d covers %d fixtures, want %d", n, len(seen), len(all))
		}
		for name, c := range seen {
			if c != 1 {
				t.Errorf("N=%d: %s in %d shards", n, name, c)
			}
		}
	}
	if len(all) < 13 {
		t.Errorf("only %d fixtures", len(all))
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestColour(t *testing.T) {
	args := bundled(t, "-shuffle", "0", "-run", "^text-turn$")
	if r := replay(t, nil, true, args...); !strings.Contains(r.stdout, "\x1b[32mok") {
		t.Errorf("no colour on a terminal: %q", r.stdout)
	}
	if r := replay(t, map[string]string{"NO_COLOR": "1"}, true, args...); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colour despite NO_COLOR: %q", r.stdout)
	}
	if r := replay(t, nil, false, args...); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("colour without a terminal: %q", r.stdout)
	}
}

func TestVerbosePrintsSeed(t *testing.T) {
	r := replay(t, nil, false, bundled(t, "-shuffle", "1", "-seed", "42", "-v", "-run", "^resume$")...)
	if !strings.HasPrefix(r.stdout, "seed 42 ") || !strings.Contains(r.stdout, "rebuild, golden and 1 permutation run match") {
		t.Errorf("%s", r.stdout)
	}
	// A captured scenario runs its agent again instead of permuting, and
	// its failures name no seed.
	r = replay(t, nil, false, bundled(t, "-shuffle", "0", "-v", "-run", "^captured-weather$")...)
	if !strings.Contains(r.stdout, "rebuild, golden match; 1 run of the agent logged the same bytes") {
		t.Errorf("%s", r.stdout)
	}
}

func TestStabilitySubcommand(t *testing.T) {
	bundletest.SkipWhileRecording(t)
	r := replay(t, nil, false, "stability", "../../golden/tool-turn.golden", "../../golden/tool-turn.golden")
	if r.code != exitOK || !strings.Contains(r.stdout, "quadrant: stable and robust") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestRunMatchingNothingIsAUsageError(t *testing.T) {
	r := replay(t, nil, false, bundled(t, "-run", "^txt-turn$")...)
	if r.code != exitUsage || !strings.Contains(r.stderr, `-run "^txt-turn$" matches no fixture`) {
		t.Errorf("exit %d, %q", r.code, r.stderr)
	}
}

func TestAnnotationsStayOutOfJSON(t *testing.T) {
	fx, gd := copyBundled(t)
	os.Remove(filepath.Join(gd, "resume.golden"))
	r := replay(t, map[string]string{"GITHUB_ACTIONS": "true"}, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-json")
	decodeJSONLines(t, r.stdout) // fails on any line that is not JSON
	if !strings.Contains(r.stderr, "::error file="+filepath.Join(gd, "resume.golden")+",line=1::") {
		t.Errorf("no annotation on stderr: %q", r.stderr)
	}
}

func TestUnreadableGoldenCannotTest(t *testing.T) {
	fx, gd := copyBundled(t)
	path := filepath.Join(gd, "resume.golden")
	os.Remove(path)
	os.Mkdir(path, 0o755)
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^resume$")
	if r.code != exitCannotRun || !strings.Contains(r.stdout, "[invalid]") {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
}

func TestDotfilesInFixturesAreIgnored(t *testing.T) {
	fx, gd := copyBundled(t)
	os.WriteFile(filepath.Join(fx, ".#text-turn.json"), []byte("lock"), 0o644)
	if r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0"); r.code != exitOK {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// A failing pinned fixture's -json failure carries the cost of its drift
// as replay diff -json does, the cache object with exactly its members
// and where the difference is, beside the text lines; a model without a
// rate has no object and says why.
func TestJSONFailureCarriesTheCache(t *testing.T) {
	for _, c := range []struct{ model, note string }{{"", `no rate for model "m-1"`}, {"claude-sonnet-4-5", ""}} {
		fx, gd := copyBundled(t)
		if c.model != "" {
			// The run's model has a rate; the golden header's does not
			// matter: the next request, the run's, is priced.
			fixture := filepath.Join(fx, "text-turn.json")
			b, err := os.ReadFile(fixture)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(fixture, []byte(strings.Replace(string(b), `"model": "m-1"`, `"model": "`+c.model+`"`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tools := filepath.Join(gd, "text-turn.tools.json")
		b, err := os.ReadFile(tools)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), `"Read a UTF-8 text file.`, `"Read a UTF-8 text file, slowly.`, 1)
		if edited == string(b) {
			t.Fatal("the description to edit is gone; update this test")
		}
		if err := os.WriteFile(tools, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-json", "-run", "^text-turn$")
		if r.code != exitMismatch {
			t.Fatalf("%s: exit %d: %s", c.model, r.code, r.stderr)
		}
		priced := 0
		for _, l := range decodeJSONLines(t, r.stdout) {
			for _, f := range l.Failures {
				if len(f.CacheLines) == 0 {
					continue
				}
				priced++
				if !strings.HasPrefix(f.CacheLines[0], "cache:") {
					t.Errorf("%s: cache lines %q", c.model, f.CacheLines)
				}
				if c.note != "" {
					if f.Cache != nil || !strings.Contains(f.CacheNote, c.note) {
						t.Errorf("unpriced drift: cache %v, note %q, want no object and a note with %q", f.Cache, f.CacheNote, c.note)
					}
					continue
				}
				var keys []string
				for k := range f.Cache {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				want := []string{"belowMinimum", "estimate", "extraInputTokens", "headerTokens", "keptTokens", "lostTokens", "minCacheable",
					"order", "provider", "ratesAsOf", "readMultiplier", "source", "tokenizer", "writeMultiplier"}
				if !slices.Equal(keys, want) {
					t.Errorf("cache members %q, want %q", keys, want)
				}
				if string(f.Cache["provider"]) != `"anthropic"` || f.CacheAt == nil || f.CacheAt.Segment == "" {
					t.Errorf("cache %v at %v", f.Cache, f.CacheAt)
				}
			}
		}
		if priced != 1 {
			t.Errorf("%s: %d failures carry the cost, want 1:\n%s", c.model, priced, r.stdout)
		}
	}
}

// inProcess is a scenario whose agent is an in-process Go function, which
// only go test can call.
const inProcess = `{"description": "an agent that only go test can call", "agent": {"env": {"PROMPT": "x"}}, "replies": [{"text": "a"}]}`

// writeFixture writes fixtures/NAME.json in fx.
func writeFixture(t *testing.T, fx, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(fx, name+".json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInProcessScenariosAreSkipped: a directory that mixes reference
// fixtures with a scenario whose agent is an in-process Go function
// replays the rest and says why it skipped that one; selecting only it
// replays nothing, which is not a pass.
func TestInProcessScenariosAreSkipped(t *testing.T) {
	fx, gd := copyBundled(t)
	writeFixture(t, fx, "inproc", inProcess)
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(inproc|text-turn)$")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "skip inproc ") || !strings.Contains(r.stdout, "in-process agent: run it from go test") {
		t.Errorf("no skip line:\n%s", r.stdout)
	}
	if got := lastLine(r.stdout); got != "1 passed, 0 failed" || !strings.Contains(r.stdout, "\n1 skipped (in-process agents run from go test)\n") {
		t.Errorf("summary:\n%s", r.stdout)
	}
	r = replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-run", "^inproc$", "-json")
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "nothing to replay here") {
		t.Fatalf("only the in-process scenario: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	lines := decodeJSONLines(t, r.stdout)
	if len(lines) != 2 || lines[0].Status != "skipped" || lines[0].Skip == "" || *lines[1].Skipped != 1 {
		t.Errorf("-json lines %+v", lines)
	}
}

// TestSkippedScenarioSidecars: a sidecar beside an in-process scenario
// that is not pinned fails the replay that skips the scenario, as it fails
// record -check, instead of passing unseen until go test runs it.
func TestSkippedScenarioSidecars(t *testing.T) {
	fx, gd := copyBundled(t)
	writeFixture(t, fx, "inproc", inProcess)
	sidecar := filepath.Join(gd, "inproc.tools.json")
	if err := os.WriteFile(sidecar, []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(inproc|text-turn)$")
	if r.code != exitMismatch {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, exitMismatch, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "FAIL "+sidecar+": sidecar beside inproc, which is not pinned") {
		t.Errorf("no finding for %s:\n%s", sidecar, r.stdout)
	}
	if got := lastLine(r.stdout); got != "1 passed, 1 failed" {
		t.Errorf("summary %q:\n%s", got, r.stdout)
	}
	// It is the fixture's finding: one shard reports it, not each.
	reported := 0
	for i := 1; i <= 3; i++ {
		r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(inproc|text-turn)$", "-shard", fmt.Sprintf("%d/3", i))
		reported += strings.Count(r.stdout, "FAIL "+sidecar)
	}
	if reported != 1 {
		t.Errorf("the finding is reported by %d of 3 shards, want 1", reported)
	}
	// A pinned scenario's sidecars are its own: nothing to report.
	pinned := strings.Replace(inProcess, `{"description"`, `{"pin": true, "description"`, 1)
	writeFixture(t, fx, "inproc", pinned)
	r = replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(inproc|text-turn)$")
	if r.code != exitOK || lastLine(r.stdout) != "1 passed, 0 failed" {
		t.Errorf("pinned: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestSidecarReorderIsNamed: two tools swapped in a pin's tools sidecar
// fail as a sidecar line, and the report classifies the header's drift as
// replay diff does: a reorder, naming the tool that moved.
func TestSidecarReorderIsNamed(t *testing.T) {
	fx, gd := copyBundled(t)
	tools := filepath.Join(gd, "text-turn.tools.json")
	b, err := os.ReadFile(tools)
	if err != nil {
		t.Fatal(err)
	}
	// Swap the text of the first two tools, at their own offsets.
	var spans [][2]int
	for _, e := range gjson.GetBytes(b, "initial").Array()[:2] {
		spans = append(spans, [2]int{e.Index, e.Index + len(e.Raw)})
	}
	first, second := b[spans[0][0]:spans[0][1]], b[spans[1][0]:spans[1][1]]
	swapped := slices.Concat(b[:spans[0][0]], second, b[spans[0][1]:spans[1][0]], first, b[spans[1][1]:])
	if err := os.WriteFile(tools, swapped, 0o644); err != nil {
		t.Fatal(err)
	}
	r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^text-turn$")
	if r.code != exitMismatch || !strings.Contains(r.stdout, "[sidecar]") || !strings.Contains(r.stdout, "kinds: reorder; moved: ") {
		t.Fatalf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^text-turn$", "-json")
	var kinds, moved []string
	for _, l := range decodeJSONLines(t, r.stdout) {
		for _, f := range l.Failures {
			if f.Check == "sidecar" {
				kinds, moved = f.Kinds, f.Moved
			}
		}
	}
	if !slices.Equal(kinds, []string{"reorder"}) || len(moved) != 1 {
		t.Errorf("-json kinds %q, moved %q", kinds, moved)
	}
}

// A number's form or an escape edited in a pin's tools sidecar is the
// same JSON value in other bytes: the report says so and names its kind,
// encoding, as replay diff would.
func TestSidecarEncodingIsNamed(t *testing.T) {
	for _, c := range []struct{ from, to string }{{`"minimum": 1,`, `"minimum": 1.0,`}, {`"One clear question."`, `"One cl\u0065ar question."`}} {
		fx, gd := copyBundled(t)
		tools := filepath.Join(gd, "text-turn.tools.json")
		b, err := os.ReadFile(tools)
		if err != nil {
			t.Fatal(err)
		}
		edited := strings.Replace(string(b), c.from, c.to, 1)
		if edited == string(b) {
			t.Fatalf("no %s in %s", c.from, tools)
		}
		if err := os.WriteFile(tools, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		r := replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^text-turn$")
		if r.code != exitMismatch || !strings.Contains(r.stdout, "same JSON value, different bytes") || !strings.Contains(r.stdout, "kinds: encoding") {
			t.Errorf("%s: exit %d:\n%s%s", c.to, r.code, r.stdout, r.stderr)
		}
	}
}

// Replaying nothing never passes: a mistyped or empty fixtures directory,
// or a golden directory that does not exist, cannot test (125), and says
// why; the output still ends with the counts, of nothing, and with -json
// the report says why too.
func TestNothingReplayedCannotPass(t *testing.T) {
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("not a fixture\n"), 0o644)
	r := replay(t, nil, false, "-fixtures", empty, "-golden", t.TempDir())
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "no fixtures in "+empty) || r.stdout != "0 passed, 0 failed\n" {
		t.Errorf("empty fixtures: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "-fixtures", filepath.Join(empty, "absent"), "-golden", t.TempDir())
	if r.code != exitCannotRun || !strings.Contains(r.stderr, filepath.Join(empty, "absent")) || r.stdout != "0 passed, 0 failed\n" {
		t.Errorf("missing fixtures dir: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "-fixtures", empty, "-golden", t.TempDir(), "-json")
	if s := gjson.Parse(strings.TrimSpace(r.stdout)); r.code != exitCannotRun || !s.Get("summary").Bool() || s.Get("invalid").Int() != 0 ||
		!strings.Contains(s.Get("errors.0").String(), "no fixtures in") {
		t.Errorf("empty fixtures, -json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	fx, _ := copyBundled(t)
	missing := filepath.Join(t.TempDir(), "golden-typo")
	r = replay(t, nil, false, "-fixtures", fx, "-golden", missing, "-shuffle", "0")
	// Said once, before any fixture runs.
	if r.code != exitCannotRun || r.stdout != "0 passed, 0 failed\n" || strings.Count(r.stderr, "the golden directory "+missing+" does not exist") != 1 ||
		!strings.Contains(r.stderr, "record -fixtures "+fx+" -golden "+missing) {
		t.Errorf("missing golden dir: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "-fixtures", fx, "-golden", missing, "-json")
	if s := gjson.Parse(strings.TrimSpace(r.stdout)); r.code != exitCannotRun || !s.Get("summary").Bool() || !strings.Contains(s.Get("errors.0").String(), "does not exist") {
		t.Errorf("missing golden dir, -json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A fixture that does not load: the -json report is its summary, with
	// every error.
	os.WriteFile(filepath.Join(fx, "broken.json"), []byte("{\n  \"description\": \"x\",\n}\n"), 0o644)
	os.WriteFile(filepath.Join(fx, "broken-too.json"), []byte(`{"description":"x","oops":1}`), 0o644)
	r = replay(t, nil, false, "-fixtures", fx, "-json")
	lines := decodeJSONLines(t, r.stdout)
	if r.code != exitCannotRun || len(lines) != 1 {
		t.Fatalf("exit %d, %d JSON lines:\n%s%s", r.code, len(lines), r.stdout, r.stderr)
	}
	s := gjson.Parse(strings.TrimSpace(r.stdout))
	errs := s.Get("errors").Array()
	if !s.Get("summary").Bool() || s.Get("invalid").Int() != 2 || len(errs) != 2 ||
		!strings.Contains(errs[0].String()+errs[1].String(), "broken.json:3:1") || !strings.Contains(errs[0].String()+errs[1].String(), `"oops"`) {
		t.Errorf("summary %s", r.stdout)
	}
	// The same, for a program: file, line, column, path and message.
	found := map[string]gjson.Result{}
	for _, f := range s.Get("invalidFixtures").Array() {
		found[filepath.Base(f.Get("file").String())] = f
	}
	if b := found["broken.json"]; b.Get("line").Int() != 3 || b.Get("column").Int() != 1 || b.Get("message").String() == "" {
		t.Errorf("broken.json: %s", b.Raw)
	}
	if o := found["broken-too.json"]; o.Get("path").String() != "oops" || !strings.Contains(o.Get("message").String(), `"oops"`) {
		t.Errorf("broken-too.json: %s", o.Raw)
	}
}

// A signal that comes before any fixture runs (while the fixtures load)
// is still an interrupt: exit 130, never "0 passed, 0 failed" and 0.
func TestInterruptBeforeAnyFixture(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cliflags.SignalCause(syscall.SIGINT))
	var out, errb bytes.Buffer
	code := run(bundled(t, "-json"), env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, parent: ctx})
	if code != 130 || !strings.Contains(errb.String(), "interrupted") || strings.Contains(out.String(), `"fixture"`) {
		t.Errorf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if s := gjson.Parse(strings.TrimSpace(out.String())); !s.Get("summary").Bool() || s.Get("interrupted").String() == "" {
		t.Errorf("summary %s", out.String())
	}
	// The text output ends with the counts too (SPEC §4), after saying why.
	out.Reset()
	errb.Reset()
	code = run(bundled(t), env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, parent: ctx})
	if code != 130 || out.String() != "interrupted while loading the fixtures\n0 passed, 0 failed\n" {
		t.Errorf("text: exit %d\n%s%s", code, out.String(), errb.String())
	}
}
