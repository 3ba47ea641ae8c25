package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/cost"
	"github.com/headergold/headergold/internal/drift"
	"github.com/tidwall/gjson"
)

// spacedAgent sends one Anthropic request written as Python's json.dumps
// writes it (", " and ": " between tokens, on one line), with a system
// prompt of two lines, four tools, and the description of the last one
// from DESC, then takes the text reply.
func spacedAgent(ctx context.Context, s *Session) error {
	var tools []string
	for i, d := range []string{"Read a file.", "Write a file.", "Search files.", s.Getenv("DESC")} {
		tools = append(tools, fmt.Sprintf(`{"name": "tool_%d", "description": %q, "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}`, i, d))
	}
	body := `{"model": "claude-sonnet-4-5", "max_tokens": 100, "system": [{"type": "text", "text": "Be brief.\nCite files."}], ` +
		`"tools": [` + strings.Join(tools, ", ") + `], "messages": [{"role": "user", "content": "What is in go.mod?"}]}`
	return postMessages(ctx, s, body)
}

const spacedFixture = `{"description": "one request written with spaces", "pin": true, "runs": 1,
  "agent": {"env": {"DESC": %q}}, "replies": [{"text": "A Go module."}]}`

// pinnedSpaced records the spaced agent's pinned scenario with DESC
// recorded, then loads the suite again with DESC now, and returns it with
// the full logs of both runs.
func pinnedSpaced(t *testing.T, recorded, now string) (s *Suite, opts Options, before, after []byte) {
	t.Helper()
	dir := t.TempDir()
	opts = Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1, Agent: spacedAgent}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fixture := filepath.Join(opts.Fixtures, "spaced.json")
	writeFile(t, fixture, fmt.Sprintf(spacedFixture, recorded))
	s = mustLoad(t, opts)
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	out, res := s.Check(s.Fixture("spaced"))
	if out == nil {
		t.Fatalf("%v", res.Failures)
	}
	before = out.Log
	writeFile(t, fixture, fmt.Sprintf(spacedFixture, now))
	s = mustLoad(t, opts)
	out, res = s.Check(s.Fixture("spaced"))
	if out == nil {
		t.Fatalf("%v", res.Failures)
	}
	return s, opts, before, out.Log
}

// TestPinnedLogRebuildsTheRun: the golden log with its sidecars' headers
// put back is the full log of the run that recorded it, byte for byte,
// for a reference fixture and for a captured one sent with spaces between
// its tokens, so the only differences drift sees in a failing replay are
// real ones.
func TestPinnedLogRebuildsTheRun(t *testing.T) {
	opts := copyBundled(t)
	s := mustLoad(t, opts)
	out, res := s.Check(s.Fixture("text-turn"))
	if out == nil {
		t.Fatalf("%v", res.Failures)
	}
	g := func(ext string) []byte { return readFile(t, filepath.Join(opts.Golden, "text-turn"+ext)) }
	if got, ok := pinnedLog(g(".golden"), g(".system.md"), g(".tools.json"), out.Log); !ok || !bytes.Equal(got, out.Log) {
		t.Fatalf("text-turn rebuilt (%v):\n%s\nwant:\n%s", ok, got, out.Log)
	}

	_, sopts, before, _ := pinnedSpaced(t, "List a directory.", "List a directory.")
	g = func(ext string) []byte { return readFile(t, filepath.Join(sopts.Golden, "spaced"+ext)) }
	if got, ok := pinnedLog(g(".golden"), g(".system.md"), g(".tools.json"), before); !ok || !bytes.Equal(got, before) {
		t.Fatalf("captured log rebuilt (%v):\n%s\nwant:\n%s", ok, got, before)
	}
}

// TestPinnedLogRebuildsChangingHeaders: a pinned captured scenario whose
// system text changes at its second request and whose tools change at its
// third is rebuilt from its sidecars byte for byte: each header takes the
// system section from its own marker on and the tools list of its change.
func TestPinnedLogRebuildsChangingHeaders(t *testing.T) {
	dir := t.TempDir()
	agent := func(ctx context.Context, s *Session) error {
		tools := `[{"name":"read","input_schema":{"type":"object"}}]`
		for i, system := range []string{"Be brief.", `Be brief.\nCite files.`, `Be brief.\nCite files.`} {
			if i == 2 {
				tools = `[{"name":"read","input_schema":{"type":"object"}},{"name":"grep","input_schema":{"type":"object"}}]`
			}
			if err := postMessages(ctx, s, `{"model":"m","max_tokens":9,"system":"`+system+`","tools":`+tools+`,"messages":[{"role":"user","content":"hi"}]}`); err != nil {
				return err
			}
		}
		return nil
	}
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1, Agent: agent}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(opts.Fixtures, "changes.json"), `{"description": "d", "pin": true, "runs": 1, "agent": {},
  "replies": [{"text": "a"}, {"text": "b"}, {"text": "c"}]}`)
	s := mustLoad(t, opts)
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed[0].Failures)
	}
	out, res := s.Check(s.Fixture("changes"))
	if out == nil {
		t.Fatalf("%v", res.Failures)
	}
	if n := bytes.Count(out.Log, []byte(`"type":"request/header"`)); n != 3 {
		t.Fatalf("%d header events, want 3:\n%s", n, out.Log)
	}
	g := func(ext string) []byte { return readFile(t, filepath.Join(opts.Golden, "changes"+ext)) }
	if got, ok := pinnedLog(g(".golden"), g(".system.md"), g(".tools.json"), out.Log); !ok || !bytes.Equal(got, out.Log) {
		t.Fatalf("rebuilt (%v):\n%s\nwant:\n%s", ok, got, out.Log)
	}
}

// TestPinnedFailurePricesTheDrift: a pinned scenario whose last tool
// changed fails its tools sidecar, and the failure carries the cache lines
// replay diff prints for the two full logs.
func TestPinnedFailurePricesTheDrift(t *testing.T) {
	s, _, before, after := pinnedSpaced(t, "List a directory.", "List a directory, newest first.")
	fails := replayOne(t, s, "spaced")
	f := failureWith(t, fails, CheckSidecar, "initial.3.description")
	res, err := drift.Compare(drift.Source{Name: "before", Reader: bytes.NewReader(before)},
		drift.Source{Name: "after", Reader: bytes.NewReader(after)}, drift.Options{})
	if err != nil || res.Cache == nil {
		t.Fatalf("drift of the full logs: %v %+v", err, res)
	}
	want := res.CacheLines()
	if strings.Join(f.Mismatch.Cache, "\n") != strings.Join(want, "\n") {
		t.Fatalf("replay's cache lines:\n%s\nreplay diff's:\n%s", strings.Join(f.Mismatch.Cache, "\n"), strings.Join(want, "\n"))
	}
	// The first difference is in the last tool's description: at the
	// byte after "List a directory" in the tools as the agent sent them.
	tools := gjson.GetBytes(after[:bytes.IndexByte(after, '\n')], "data.header.tools").Raw
	at := strings.Index(tools, "List a directory") + len("List a directory")
	if wantLine := fmt.Sprintf("first difference in that order: tools byte %d of %d", at, len(tools)); !strings.Contains(want[0], wantLine) {
		t.Fatalf("%s\nwant %s", want[0], wantLine)
	}
	text := f.String()
	for _, w := range []string{"\n  cache: anthropic caches the prefix tools → system → messages;", "\n    header ", "\n    tokens: o200k_base"} {
		if !strings.Contains(text, w) {
			t.Errorf("failure text lacks %q:\n%s", w, text)
		}
	}
	// Only the first failure carries them.
	for _, o := range fails {
		if o.Mismatch != nil && o.Mismatch != f.Mismatch && len(o.Mismatch.Cache) > 0 {
			t.Errorf("second cache line on %v", o)
		}
	}
}

// TestPinnedCostGoesWithTheFirstFailure: a pin whose golden log and
// tools sidecar both differ has its drift priced once, on the first of
// those failures, the golden log's.
func TestPinnedCostGoesWithTheFirstFailure(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	tamperLine(t, filepath.Join(opts.Golden, "text-turn.golden"), 4, `"model":"m-1"`, `"model":"m-0"`)
	p := filepath.Join(opts.Golden, "text-turn.tools.json")
	writeFile(t, p, strings.Replace(string(readFile(t, p)), `"description": "`, `"description": "X`, 1))
	fails := replayOne(t, mustLoad(t, opts), "text-turn")
	failureWith(t, fails, CheckSidecar, "text-turn.tools.json")
	var priced []Check
	first := -1
	for i, f := range fails {
		if f.Mismatch == nil {
			continue
		}
		if first < 0 {
			first = i
		}
		if len(f.Mismatch.Cache) > 0 {
			priced = append(priced, f.Check)
		}
	}
	if first < 0 || fails[first].Check != CheckGolden || !slices.Equal(priced, []Check{CheckGolden}) {
		t.Errorf("priced %v; want the golden log's failure alone, the first of:\n%v", priced, fails)
	}
}

// TestPinnedFailureUnknownModel: the bundled pin's model is in no rate
// row, and its failure says so.
func TestPinnedFailureUnknownModel(t *testing.T) {
	opts := copyBundled(t)
	p := filepath.Join(opts.Golden, "text-turn.tools.json")
	writeFile(t, p, strings.Replace(string(readFile(t, p)), `"description": "`, `"description": "X`, 1))
	f := failureWith(t, replayOne(t, mustLoad(t, opts), "text-turn"), CheckSidecar)
	if !strings.Contains(f.String(), "\n  cache: no rate for model \"m-1\"") {
		t.Fatalf("%s", f.String())
	}
}

// TestGoldenFilesPastTheLimits: a golden log line or a tools sidecar
// nested past the limit every log reader holds to cannot be tested
// (exit 125), the failure naming the file, line and depth; ten million
// deep does not overflow the stack.
func TestGoldenFilesPastTheLimits(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	for _, tc := range []struct {
		name, file, content string
		line                int
		msg                 string
	}{
		{"golden log", "tool-turn.golden", `{"type":"turn/start","data":{"turn":1}}` + "\n" + `{"type":"x","data":{"v":` + deep(100_000) + "}}\n", 2, "nesting 100002 deep, deeper than the limit of 10000"},
		{"golden log, ten million deep", "tool-turn.golden", `{"type":"x","data":{"v":` + deep(10_000_000) + "}}\n", 1, "nesting 10000002 deep"},
		{"tools sidecar", "text-turn.tools.json", "{\n  \"initial\": " + deep(20_000) + "\n}\n", 2, "nesting 20001 deep, deeper than the limit of 10000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := copyBundled(t)
			path := filepath.Join(opts.Golden, tc.file)
			writeFile(t, path, tc.content)
			s := mustLoad(t, opts)
			res := s.Replay(s.Fixture(strings.SplitN(tc.file, ".", 2)[0]))
			if !res.Invalid() {
				t.Fatalf("not invalid: %v", res.Failures)
			}
			f := failureWith(t, res.Failures, CheckInvalid, tc.msg)
			if f.File != path || f.Line != tc.line {
				t.Fatalf("failure at %s:%d, want %s:%d: %v", f.File, f.Line, path, tc.line, f)
			}
		})
	}
}

// CacheCost is the public twin of the cost report's cache object: the
// same JSON members, in the same order, so replay -json and replay diff
// -json cannot drift apart.
func TestCacheCostMatchesTheCostReport(t *testing.T) {
	members := func(v any) []string {
		var out []string
		for f := range reflect.TypeOf(v).Fields() {
			out = append(out, f.Tag.Get("json"))
		}
		return out
	}
	got, want := members(CacheCost{}), members(cost.Cache{})
	if !slices.Equal(got, want) {
		t.Errorf("CacheCost members %q, cost.Cache members %q", got, want)
	}
	if got, want := members(CachePlace{}), members(cost.Place{}); !slices.Equal(got, want) {
		t.Errorf("CachePlace members %q, cost.Place members %q", got, want)
	}
}
