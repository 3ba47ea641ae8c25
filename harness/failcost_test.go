package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/tiktoken-go/tokenizer/codec"
)

// The cost of a failing replay whose headers differ, for the failures
// that are not a pin's: a captured scenario's repeat pass, the
// permutation pass, and a templated golden log. Each test works its
// figures out for itself: tokens with the o200k_base codec on the
// header's own bytes, the price by SPEC §7's formula, lost × (write −
// read), with the documented rates of Claude Sonnet 4.5 (a cache write
// 1.25, a read 0.1 of the base input price; minimum cacheable prefix
// 1024 tokens).

const (
	sonnetWrite = 1.25
	sonnetRead  = 0.1
	sonnetMin   = 1024
)

// o200kCodec is built on first use, not when the test binary starts: its
// vocabulary is megabytes of live heap that every benchmark of the
// package would otherwise pay for in each garbage collection.
var o200kCodec = sync.OnceValue(codec.NewO200kBase)

// o200k counts the o200k_base tokens of b.
func o200k(t *testing.T, b []byte) int {
	t.Helper()
	n, err := o200kCodec().Count(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sonnetExtra is lost × (write − read), to hundredths.
func sonnetExtra(lost int) float64 {
	return math.Round(float64(lost)*(sonnetWrite-sonnetRead)*100) / 100
}

// bytesAlike is the length of the bytes a and b start with alike.
func bytesAlike(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// headerParts returns the tools and system bytes of the n-th (from 1)
// request/header event of a full log.
func headerParts(t *testing.T, log []byte, n int) (tools, system []byte) {
	t.Helper()
	for _, line := range bytes.Split(log, []byte("\n")) {
		if gjson.GetBytes(line, "type").String() != "request/header" {
			continue
		}
		if n--; n == 0 {
			h := gjson.GetBytes(line, "data.header")
			return []byte(h.Get("tools").Raw), []byte(h.Get("system").Raw)
		}
	}
	t.Fatalf("no request/header event %d in\n%s", n, log)
	return nil, nil
}

// wantCost checks a failure's cost, text and data, against figures the
// test worked out: kept and lost tokens, the header's tokens, and where
// in render order the difference is.
func wantCost(t *testing.T, f Failure, header, kept, lost int, segment string, offset, length int) {
	t.Helper()
	m := f.Mismatch
	if m == nil || m.Cost == nil || m.CostAt == nil {
		t.Fatalf("not priced: %s", f)
	}
	c := m.Cost
	if c.Provider != "anthropic" || strings.Join(c.Order, ",") != "tools,system,messages" || c.Tokenizer != "o200k_base" || !c.Estimate {
		t.Errorf("rate row %+v", c)
	}
	if c.HeaderTokens != header || c.KeptTokens != kept || c.LostTokens != lost {
		t.Errorf("header %d kept %d lost %d tokens, want %d, %d, %d", c.HeaderTokens, c.KeptTokens, c.LostTokens, header, kept, lost)
	}
	if c.WriteMultiplier != sonnetWrite || c.ReadMultiplier != sonnetRead || c.ExtraInputTokens != sonnetExtra(lost) {
		t.Errorf("extra %v (%v write, %v read), want %v", c.ExtraInputTokens, c.WriteMultiplier, c.ReadMultiplier, sonnetExtra(lost))
	}
	if c.MinCacheable != sonnetMin || c.BelowMinimum != (kept < sonnetMin) {
		t.Errorf("minimum %d, below %v", c.MinCacheable, c.BelowMinimum)
	}
	if *m.CostAt != (CachePlace{Segment: segment, Offset: offset, Length: length}) {
		t.Errorf("at %+v, want %s byte %d of %d", *m.CostAt, segment, offset, length)
	}
	text := f.String()
	for _, w := range []string{
		"\n  cache: anthropic caches the prefix tools → system → messages; first difference in that order: ",
		fmt.Sprintf("\n    header %d tokens; kept %d before the difference, lost %d from it", header, kept, lost),
		fmt.Sprintf("\n    next request: %s extra input-token equivalents (%d lost × (1.25 write − 0.1 read))",
			strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", sonnetExtra(lost)), "0"), "."), lost),
	} {
		if !strings.Contains(text, w) {
			t.Errorf("failure text lacks %q:\n%s", w, text)
		}
	}
	// The -json report carries the same object.
	js, err := json.Marshal(c)
	if err != nil || gjson.GetBytes(js, "lostTokens").Int() != int64(lost) || gjson.GetBytes(js, "extraInputTokens").Float() != sonnetExtra(lost) {
		t.Errorf("cache object %s (%v)", js, err)
	}
}

// TestRepeatFailurePricesTheDrift: a captured scenario whose second run
// sends its first two tools swapped fails the repeat pass, and the
// failure carries the cost of the drift from run 1's request to run 2's:
// the tools kept up to the first differing byte, the rest of the tools,
// the system text and the conversation lost.
func TestRepeatFailurePricesTheDrift(t *testing.T) {
	const system = `[{"type":"text","text":"Be brief. Cite the files you read."}]`
	const messages = `[{"role":"user","content":"What is in go.mod?"}]`
	t0, t1, t2 := pathTool("read_file", "Read a file from the workspace."), pathTool("grep", "Search the workspace for a pattern."), pathTool("list_dir", "List a directory.")
	toolsOf := func(run int64) string {
		if run == 1 {
			return "[" + t0 + "," + t1 + "," + t2 + "]"
		}
		return "[" + t1 + "," + t0 + "," + t2 + "]"
	}
	agent := runsAgent(system, messages, toolsOf)
	s := twoRunSuite(t, "swap", "the second run swaps two tools", agent)
	out, res := s.Check(s.Fixture("swap"))
	if out == nil {
		t.Fatalf("%v", res.Failures)
	}
	// The log holds the header as the agent sent it.
	if tools, sys := headerParts(t, out.Log, 1); string(tools) != toolsOf(1) || string(sys) != system {
		t.Fatalf("run 1's header: tools %s system %s", tools, sys)
	}
	f := failureWith(t, res.Failures, CheckRepeat, "differs from run 1", "reorder")
	a, b := []byte(toolsOf(1)), []byte(toolsOf(2))
	off := bytesAlike(a, b)
	kept := o200k(t, b[:off])
	lost := o200k(t, b[off:]) + o200k(t, []byte(system)) + o200k(t, []byte(messages))
	wantCost(t, f, o200k(t, b)+o200k(t, []byte(system)), kept, lost, "tools", off, len(b))
	if strings.Join(f.Mismatch.Kinds, ",") != "reorder" {
		t.Errorf("kinds %q", f.Mismatch.Kinds)
	}
}

// TestRepeatFailurePricesTheLaterRun: run 1's request is the one cached
// and the repeat run's the one sent next, so a run that adds a tool is
// priced on its own, longer header, and reports the tool added, not
// removed.
func TestRepeatFailurePricesTheLaterRun(t *testing.T) {
	const system = `[{"type":"text","text":"Be brief."}]`
	const messages = `[{"role":"user","content":"What is in go.mod?"}]`
	t0, t1, t2 := pathTool("read_file", "Read a file from the workspace."), pathTool("grep", "Search the workspace for a pattern."), pathTool("list_dir", "List a directory and every file in it, with sizes.")
	toolsOf := func(run int64) string {
		if run == 1 {
			return "[" + t0 + "," + t1 + "]"
		}
		return "[" + t0 + "," + t2 + "," + t1 + "]"
	}
	agent := runsAgent(system, messages, toolsOf)
	s := twoRunSuite(t, "grow", "the second run adds a tool", agent)
	_, res := s.Check(s.Fixture("grow"))
	f := failureWith(t, res.Failures, CheckRepeat, "run 2 differs from run 1", "differs at tools.1 (kinds: added)")
	if m := f.Mismatch; m == nil || strings.Join(m.Added, ",") != "list_dir" || len(m.Removed) != 0 || strings.Join(m.Kinds, ",") != "added" {
		t.Fatalf("mismatch %+v, want list_dir added", f.Mismatch)
	}
	// The tools part of run 2's request: kept up to the first byte of
	// list_dir's name, lost from there on, with the system text and
	// the conversation.
	a, b := []byte(toolsOf(1)), []byte(toolsOf(2))
	off := bytesAlike(a, b)
	if !bytes.HasPrefix(b[off:], []byte(`list_dir"`)) {
		t.Fatalf("the tools differ first at %q", b[off:])
	}
	kept := o200k(t, b[:off])
	lost := o200k(t, b[off:]) + o200k(t, []byte(system)) + o200k(t, []byte(messages))
	wantCost(t, f, o200k(t, b)+o200k(t, []byte(system)), kept, lost, "tools", off, len(b))
}

// pricedFixture is a reference fixture on a model the rate table prices,
// whose second plugin registers before step 2 (a change header there).
const pricedFixture = `{
  "description": "a tool turn on a priced model, a plugin registering before step 2",
  "config": {"persona": "You are a careful assistant working in a Go repository.", "model": "claude-sonnet-4-5"},
  "plugins": [
    {"name": "fs", "tools": [
      {"name": "grep", "description": "Search the files for a pattern.", "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}}},
      {"name": "ask_user", "description": "Ask the user a question and wait for the answer."}
    ]},
    {"name": "lsp", "registerAt": {"turn": 1, "step": 2}, "tools": [
      {"name": "lsp_definition", "description": "Find the definition of the symbol at a position."}
    ]}
  ],
  "turns": [{"user": "Where is serve defined?", "replies": [
    {"toolCalls": [{"id": "c1", "name": "grep", "arguments": {"pattern": "func serve"}}]},
    {"text": "In server.go."}
  ], "toolResults": {"c1": "server.go:12: func serve(addr string) {"}}]
}
`

// pricedSuite records pricedFixture in a temp layout and loads it again.
func pricedSuite(t *testing.T, shuffle int) (*Suite, Options) {
	t.Helper()
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 5, Shuffle: shuffle}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(opts.Fixtures, "priced.json"), pricedFixture)
	s := mustLoad(t, opts)
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	if fails := replayOne(t, s, "priced"); len(fails) > 0 {
		t.Fatalf("fresh record fails: %v", fails)
	}
	return mustLoad(t, opts), opts
}

// TestPermutationFailurePricesTheDrift: a permutation run whose first
// header names a tool otherwise fails the permutation pass, and the
// failure carries the cost of that header's drift from the listed
// order's run: the tools kept up to the differing byte, the rest of the
// tools and the system text lost (a reference log holds no
// conversation in a provider's form).
func TestPermutationFailurePricesTheDrift(t *testing.T) {
	s, _ := pricedSuite(t, 2)
	var first, again []byte
	s.run = func(f *Fixture, reg *registration) (*runResult, error) {
		r, err := runFixture(f, reg)
		if err != nil {
			return r, err
		}
		if reg == nil {
			first = r.fullLog()
		} else if again == nil {
			// Stand-in for a registry that leaks registration order.
			r.Log = bytes.Replace(r.fullLog(), []byte(`"name":"grep"`), []byte(`"name":"grep_files"`), 1)
			again = r.Log
		}
		return r, err
	}
	_, res := s.Check(s.Fixture("priced"))
	f := failureWith(t, res.Failures, CheckPermute, "permutation run 1", "data.header.tools.")
	ta, _ := headerParts(t, first, 1)
	tb, sys := headerParts(t, again, 1)
	off := bytesAlike(ta, tb)
	if off == 0 || off == len(tb) {
		t.Fatalf("tools do not differ inside: %s / %s", ta, tb)
	}
	wantCost(t, f, o200k(t, tb)+o200k(t, sys), o200k(t, tb[:off]), o200k(t, tb[off:])+o200k(t, sys), "tools", off, len(tb))
	if !strings.Contains(f.Mismatch.CostNote, "provider assumed") {
		t.Errorf("note %q", f.Mismatch.CostNote)
	}
}

// TestGoldenConfigFailurePricesTheDrift: a golden log (not a pin's)
// whose config names another model than the run's fails, and the
// failure carries the cost of a config change: nothing kept, the run's
// whole header lost, counted from the run's full header although the
// golden log holds placeholders for system and tools.
func TestGoldenConfigFailurePricesTheDrift(t *testing.T) {
	s, opts := pricedSuite(t, 0)
	path := filepath.Join(opts.Golden, "priced.golden")
	golden := string(readFile(t, path))
	if strings.Count(golden, `"model":"claude-sonnet-4-5"`) != 2 {
		t.Fatalf("golden log:\n%s", golden)
	}
	writeFile(t, path, strings.ReplaceAll(golden, `"model":"claude-sonnet-4-5"`, `"model":"claude-sonnet-4-0"`))
	out, _ := s.Check(s.Fixture("priced"))
	f := failureWith(t, replayOne(t, s, "priced"), CheckGolden, "data.header.config.model")
	tools, sys := headerParts(t, out.Log, 1)
	all := o200k(t, tools) + o200k(t, sys)
	wantCost(t, f, all, 0, all, "config", 0, 0)
	if !strings.Contains(f.String(), "first difference in that order: config (taken to invalidate the whole prefix)") ||
		!strings.Contains(f.Mismatch.CostNote, "system and tools are templated in A") {
		t.Errorf("failure:\n%s\nnote %q", f, f.Mismatch.CostNote)
	}
}

// TestGoldenChangeFailurePricesTheRunsChange: a golden log (not a pin's)
// that records no header change at step 2, where the run logs one (the
// late plugin's tool), fails, and the failure prices the run's change
// from its own headers: header 1, which the golden log's header matches
// in all it shows, is the cached prefix, and header 2 is lost from the
// first byte it differs at.
func TestGoldenChangeFailurePricesTheRunsChange(t *testing.T) {
	s, opts := pricedSuite(t, 0)
	path := filepath.Join(opts.Golden, "priced.golden")
	var kept []string
	for _, line := range strings.SplitAfter(string(readFile(t, path)), "\n") {
		if !strings.Contains(line, `"reason":"change"`) {
			kept = append(kept, line)
		}
	}
	writeFile(t, path, strings.Join(kept, ""))
	out, _ := s.Check(s.Fixture("priced"))
	f := failureWith(t, replayOne(t, s, "priced"), CheckGolden)
	t1, _ := headerParts(t, out.Log, 1)
	t2, sys := headerParts(t, out.Log, 2)
	off := bytesAlike(t1, t2)
	wantCost(t, f, o200k(t, t2)+o200k(t, sys), o200k(t, t2[:off]), o200k(t, t2[off:])+o200k(t, sys), "tools", off, len(t2))
	if !strings.Contains(f.Mismatch.CostNote, "A's header is taken to be B's header before this change") {
		t.Errorf("note %q", f.Mismatch.CostNote)
	}
}

// TestGoldenHiddenFailureSaysWhyNotPriced: a golden log (not a pin's)
// that records a header change the run does not make cannot be priced:
// what changed is in the system or tools its template leaves out, and the
// failure says so rather than give a figure.
func TestGoldenHiddenFailureSaysWhyNotPriced(t *testing.T) {
	_, opts := pricedSuite(t, 0)
	// A change at step 2 on the golden side only: the run's plugin is
	// registered from the start, so the run logs no change there.
	writeFile(t, filepath.Join(opts.Fixtures, "priced.json"), strings.Replace(pricedFixture, `"registerAt": {"turn": 1, "step": 2}, `, "", 1))
	s := mustLoad(t, opts)
	f := failureWith(t, replayOne(t, s, "priced"), CheckGolden)
	m := f.Mismatch
	if m == nil || m.Cost != nil || !strings.Contains(m.CostNote, "not priced: system and tools are templated in A") ||
		!strings.Contains(f.String(), "\n  cache: not priced: ") {
		t.Fatalf("failure:\n%s\nnote %q", f, m.CostNote)
	}
}

// pathTool is an Anthropic tool taking a path.
func pathTool(name, desc string) string {
	return fmt.Sprintf(`{"name":%q,"description":%q,"input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}`, name, desc)
}

// runsAgent posts one Anthropic request with the given system text and
// conversation, and the tools toolsOf gives for the run's number (from 1).
func runsAgent(system, messages string, toolsOf func(run int64) string) AgentFunc {
	var runs atomic.Int64
	return func(ctx context.Context, s *Session) error {
		body := `{"model":"claude-sonnet-4-5","max_tokens":100,"system":` + system + `,"tools":` + toolsOf(runs.Add(1)) + `,"messages":` + messages + `}`
		return postMessages(ctx, s, body)
	}
}

// twoRunSuite loads a suite of one in-process captured scenario, name,
// that runs agent twice for one scripted reply.
func twoRunSuite(t *testing.T, name, description string, agent AgentFunc) *Suite {
	t.Helper()
	opts := agentDirs(t, agent)
	writeFile(t, filepath.Join(opts.Fixtures, name+".json"), `{"description": "`+description+`", "runs": 2, "agent": {}, "replies": [{"text": "A Go module."}]}`)
	return mustLoad(t, opts)
}
