package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/cost"
)

// The members of the -json cache object, exactly (SPEC §7).
var cacheMembers = []string{"provider", "order", "headerTokens", "keptTokens", "lostTokens", "tokenizer", "estimate",
	"minCacheable", "belowMinimum", "writeMultiplier", "readMultiplier", "extraInputTokens", "ratesAsOf", "source"}

// diffJSON is what the cost tests read of replay diff -json.
type diffJSON struct {
	Identical bool            `json:"identical"`
	Cache     json.RawMessage `json:"cache"`
	CacheAt   *cost.Place     `json:"cacheAt"`
	CacheNote string          `json:"cacheNote"`
	CountNote string          `json:"countNote"`
	Unused    []string        `json:"unusedRedactions"`
	cache     *cost.Cache
}

// diffCost runs replay diff -json on two inputs written to files, checks
// the exit status and that the cache member is exactly the object SPEC §7
// names (or null), and returns the result.
func diffCost(t *testing.T, a, b string, code int, flags ...string) diffJSON {
	t.Helper()
	dir := t.TempDir()
	pa, pb := writeInput(t, dir, "a.jsonl", a), writeInput(t, dir, "b.jsonl", b)
	r := replay(t, nil, false, append(append([]string{"diff", "-json"}, flags...), pa, pb)...)
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	var got diffJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if string(got.Cache) == "null" || got.Cache == nil {
		return got
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(got.Cache, &members); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	want := slices.Sorted(slices.Values(cacheMembers))
	if !slices.Equal(keys, want) {
		t.Fatalf("cache members %v, want exactly %v", keys, want)
	}
	got.cache = new(cost.Cache)
	if err := json.Unmarshal(got.Cache, got.cache); err != nil {
		t.Fatal(err)
	}
	return got
}

// anthropicBody is an Anthropic request with n tools whose descriptions
// are long enough that the header passes every minimum cacheable length
// of the table; edit changes one part of it.
func anthropicBody(model string, n int, edit func(tools []string, system *string)) string {
	tools := make([]string, n)
	for i := range tools {
		tools[i] = fmt.Sprintf("Tool number %d reads the project's files under a path, lists what it finds with sizes and dates, "+
			"and reports errors in the words of the operating system; it never writes, never follows links out of the tree, "+
			"and stops after a thousand entries, saying how many it left out.", i)
	}
	system := strings.Repeat("You are a careful assistant working in a software repository. ", 20)
	if edit != nil {
		edit(tools, &system)
	}
	var ts []string
	for i, d := range tools {
		ts = append(ts, fmt.Sprintf(`{"name":"tool_%02d","description":%q,"input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}`, i, d))
	}
	return fmt.Sprintf(`{"model":%q,"max_tokens":1024,"system":%q,"tools":[%s],"messages":[{"role":"user","content":"List the files, please, and tell me which are largest."}]}`+"\n",
		model, system, strings.Join(ts, ","))
}

// TestDiffCostRenderOrder: for Anthropic (tools, then system, then
// messages) a drift in the first tool keeps fewer tokens than one in the
// last tool, which keeps fewer than one in the system prompt; kept + lost
// is never less than the header, and lost always counts the conversation.
func TestDiffCostRenderOrder(t *testing.T) {
	const model, n = "claude-sonnet-4-6", 40
	base := anthropicBody(model, n, nil)
	appendTo := func(s *string) { *s += " Mind the cost." }
	firstTool := diffCost(t, base, anthropicBody(model, n, func(ts []string, _ *string) { appendTo(&ts[0]) }), exitMismatch)
	lastTool := diffCost(t, base, anthropicBody(model, n, func(ts []string, _ *string) { appendTo(&ts[n-1]) }), exitMismatch)
	system := diffCost(t, base, anthropicBody(model, n, func(_ []string, s *string) { appendTo(s) }), exitMismatch)
	config := diffCost(t, base, strings.Replace(base, `"max_tokens":1024`, `"max_tokens":2048`, 1), exitMismatch)
	for name, r := range map[string]diffJSON{"first tool": firstTool, "last tool": lastTool, "system": system, "config": config} {
		c := r.cache
		if c == nil {
			t.Fatalf("%s: no cache: %s", name, r.CacheNote)
		}
		if c.KeptTokens+c.LostTokens < c.HeaderTokens {
			t.Errorf("%s: kept %d + lost %d < header %d", name, c.KeptTokens, c.LostTokens, c.HeaderTokens)
		}
		if c.Provider != cost.Anthropic || !slices.Equal(c.Order, []string{"tools", "system", "messages"}) || c.MinCacheable != 1024 {
			t.Errorf("%s: %+v", name, c)
		}
		if want := float64(c.LostTokens) * (1.25 - 0.1); c.ExtraInputTokens < want-0.01 || c.ExtraInputTokens > want+0.01 {
			t.Errorf("%s: extra %v, want %v", name, c.ExtraInputTokens, want)
		}
	}
	f, l, s := firstTool.cache, lastTool.cache, system.cache
	if !(f.KeptTokens < l.KeptTokens && l.KeptTokens < s.KeptTokens) {
		t.Fatalf("kept: first tool %d, last tool %d, system %d: want increasing in render order", f.KeptTokens, l.KeptTokens, s.KeptTokens)
	}
	if !(f.LostTokens > l.LostTokens && l.LostTokens > s.LostTokens) {
		t.Fatalf("lost: first tool %d, last tool %d, system %d: want decreasing", f.LostTokens, l.LostTokens, s.LostTokens)
	}
	if s.KeptTokens < s.HeaderTokens/2 || s.BelowMinimum || !f.BelowMinimum {
		t.Errorf("system drift keeps %d of %d (below minimum %v); first tool keeps %d (below minimum %v)",
			s.KeptTokens, s.HeaderTokens, s.BelowMinimum, f.KeptTokens, f.BelowMinimum)
	}
	if config.cache.KeptTokens != 0 || config.CacheAt.Segment != cost.Config {
		t.Errorf("a config drift keeps %d tokens at %+v, want 0 at config", config.cache.KeptTokens, config.CacheAt)
	}
	if at := system.CacheAt; at.Segment != cost.System || at.Offset != len(strings.Repeat("You are a careful assistant working in a software repository. ", 20))+1 || at.Length <= at.Offset {
		t.Errorf("system drift at %+v", system.CacheAt)
	}
	// The conversation is lost too: it is in every lost count, so a
	// drift at the very end of the system prompt still loses it.
	if s.LostTokens < 10 {
		t.Errorf("system drift loses %d tokens: the conversation is not counted", s.LostTokens)
	}
}

// TestDiffCostTinyHeader: a header far under the minimum cacheable
// length is reported as below it, in JSON and in text.
func TestDiffCostTinyHeader(t *testing.T) {
	a := `{"model":"claude-haiku-4-5","system":"Be brief.","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a","input_schema":{}}]}` + "\n"
	b := strings.Replace(a, "Be brief.", "Be brief!", 1)
	r := diffCost(t, a, b, exitMismatch)
	if c := r.cache; c == nil || !c.BelowMinimum || c.MinCacheable != 4096 || c.KeptTokens >= 4096 {
		t.Fatalf("cache %+v, note %q", c, r.CacheNote)
	}
	dir := t.TempDir()
	out := replay(t, nil, false, "diff", writeInput(t, dir, "a", a), writeInput(t, dir, "b", b))
	if out.code != exitMismatch || !strings.Contains(out.stdout, "minimum cacheable prefix 4096 tokens: the whole request") {
		t.Fatalf("exit %d\n%s", out.code, out.stdout)
	}
}

// TestDiffCostEveryRateRow prices a drift for a model of every row of the
// rate table, in a wire format the provider serves, and finds that row's
// numbers in the report.
func TestDiffCostEveryRateRow(t *testing.T) {
	for _, row := range cost.Table() {
		for _, model := range row.Models {
			t.Run(model, func(t *testing.T) {
				var a, b string
				var flags []string
				switch row.Provider {
				case cost.Anthropic:
					a = anthropicBody(model, 3, nil)
					b = anthropicBody(model, 3, func(ts []string, _ *string) { ts[2] += "!" })
				case cost.OpenAI, cost.DeepSeek:
					a = fmt.Sprintf(`{"model":%q,"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}]}`+"\n", model)
					b = strings.Replace(a, "Be brief.", "Be terse.", 1)
				case cost.Gemini:
					// Gemini names the model in the URL, not the body.
					a = `{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}]}` + "\n"
					b = strings.Replace(a, "Be brief.", "Be terse.", 1)
					flags = []string{"-model", model}
				}
				r := diffCost(t, a, b, exitMismatch, flags...)
				c := r.cache
				if c == nil {
					t.Fatalf("no cache: %s", r.CacheNote)
				}
				if c.Provider != row.Provider || !slices.Equal(c.Order, row.Order) || c.MinCacheable != row.MinCacheable ||
					c.WriteMultiplier != row.Write || c.ReadMultiplier != row.Read || c.Estimate != row.Estimate ||
					c.RatesAsOf != row.AsOf || c.Source != row.Source {
					t.Fatalf("cache %+v\nrow %+v", c, row)
				}
			})
		}
	}
}

// TestDiffCostNotPriced: an unknown model, a templated golden log and a
// header on one side only have no price, said in text and in -json; the
// exit status is the drift's.
func TestDiffCostNotPriced(t *testing.T) {
	unknown := `{"model":"m-9","system":"Be brief.","messages":[],"tools":[]}` + "\n"
	r := diffCost(t, unknown, strings.Replace(unknown, "brief", "terse", 1), exitMismatch)
	if string(r.Cache) != "null" || !strings.Contains(r.CacheNote, `no rate for model "m-9"`) {
		t.Fatalf("cache %s, note %q", r.Cache, r.CacheNote)
	}
	dir := t.TempDir()
	out := replay(t, nil, false, "diff", writeInput(t, dir, "a", unknown), writeInput(t, dir, "b", strings.Replace(unknown, "brief", "terse", 1)))
	if out.code != exitMismatch || !strings.Contains(out.stdout, "\n  cache: no rate for model \"m-9\"") {
		t.Fatalf("exit %d\n%s", out.code, out.stdout)
	}
	// -model prices it.
	if r := diffCost(t, unknown, strings.Replace(unknown, "brief", "terse", 1), exitMismatch, "-model", "claude-opus-4-5"); r.cache == nil || r.cache.MinCacheable != 4096 {
		t.Fatalf("with -model: %s %q", r.Cache, r.CacheNote)
	}

	golden := headerEvent(`{"config":{"model":"claude-sonnet-4-5"},"system":"<<system>>","tools":"<<tools>>"}`)
	r = diffCost(t, golden, strings.Replace(golden, "4-5", "4-6", 1), exitMismatch)
	if string(r.Cache) != "null" || !strings.Contains(r.CacheNote, "system and tools are templated in A and B") {
		t.Fatalf("templated: cache %s, note %q", r.Cache, r.CacheNote)
	}
	// A request on one side only is no header difference: nothing to
	// price, and the count says why the inputs are not identical.
	r = diffCost(t, unknown, unknown+unknown, exitMismatch)
	if string(r.Cache) != "null" || r.CacheNote != "" || r.CountNote != "A has 1 request, B has 2; the 1 they share has the same headers" {
		t.Fatalf("one side only: cache %s, note %q, count %q", r.Cache, r.CacheNote, r.CountNote)
	}
	r = diffCost(t, unknown, unknown, exitOK)
	if string(r.Cache) != "null" || r.CacheNote != "" {
		t.Fatalf("identical: cache %s, note %q", r.Cache, r.CacheNote)
	}
}

// TestDiffCostLogs: a reference-agent log names no wire format, so the
// provider is the model's and the report says so; a captured log names its
// format and request, and the conversation of its capture/request event
// is counted as lost.
func TestDiffCostLogs(t *testing.T) {
	ref := headerEvent(`{"config":{"model":"claude-sonnet-4-5"},"system":"Be brief.","tools":[{"name":"read","description":"Read a file","parameters":{"type":"object"}}]}`)
	r := diffCost(t, ref, strings.Replace(ref, "Be brief.", "Be terse.", 1), exitMismatch)
	if r.cache == nil || r.cache.Provider != cost.Anthropic || !strings.Contains(r.CacheNote, "provider assumed") ||
		!strings.Contains(r.CacheNote, "conversation is not counted") {
		t.Fatalf("reference log: cache %s, note %q", r.Cache, r.CacheNote)
	}

	captured := func(system, conversation string) string {
		return `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"claude-sonnet-4-5"},"system":"` + system + `","tools":[]}}}` + "\n" +
			`{"type":"capture/request","data":{"request":1,"format":"anthropic","path":"/v1/messages","body":{"model":"<<config>>","system":"<<system>>","tools":"<<tools>>","messages":[{"role":"user","content":"` + conversation + `"}]}}}` + "\n"
	}
	short := diffCost(t, captured("Be brief.", "hi"), captured("Be terse.", "hi"), exitMismatch)
	long := diffCost(t, captured("Be brief.", "hi"), captured("Be terse.", strings.Repeat("a long question ", 50)), exitMismatch)
	if short.cache == nil || long.cache == nil || long.cache.LostTokens < short.cache.LostTokens+50 || strings.Contains(long.CacheNote, "conversation") {
		t.Fatalf("conversation not counted: short %s, long %s (%q)", short.Cache, long.Cache, long.CacheNote)
	}
	dir := t.TempDir()
	out := replay(t, nil, false, "diff", writeInput(t, dir, "a", captured("Be brief.", "hi")), writeInput(t, dir, "b", captured("Be terse.", "hi")))
	if out.code != exitMismatch || !strings.Contains(out.stdout, "request 1 (line 2) under header 1 (line 1, log of anthropic requests, initial at request 1), data.header.system at byte") {
		t.Fatalf("captured header not named by its request: exit %d\n%s", out.code, out.stdout)
	}
	// A one-hour breakpoint prices the writes at 2x.
	hour := anthropicBody("claude-sonnet-4-6", 3, nil)
	hour = strings.Replace(hour, `"input_schema"`, `"cache_control":{"type":"ephemeral","ttl":"1h"},"input_schema"`, 1)
	if r := diffCost(t, hour, strings.Replace(hour, "Tool number 2", "Tool number two", 1), exitMismatch); r.cache == nil || r.cache.WriteMultiplier != 2 {
		t.Fatalf("1h breakpoint: %s %q", r.Cache, r.CacheNote)
	}
	// So does one asked for by the top-level cache_control (automatic
	// caching), or on a block of a tool result; without one, 1.25x.
	plain := `{"model":"claude-sonnet-4-6","system":"Be brief.","tools":[],"messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		name, body string
		write      float64
	}{
		{"none", plain, 1.25},
		{"top level", strings.Replace(plain, `{"model"`, `{"cache_control":{"type":"ephemeral","ttl":"1h"},"model"`, 1), 2},
		{"tool result block", strings.Replace(plain, `{"role":"user","content":"hi"}`, `{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{}}]},`+
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"12:00","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]}`, 1), 2},
	} {
		r := diffCost(t, c.body+"\n", strings.Replace(c.body, "Be brief.", "Be terse.", 1)+"\n", exitMismatch)
		if r.cache == nil || r.cache.WriteMultiplier != c.write {
			t.Errorf("%s: %s %q, want a write multiplier of %v", c.name, r.Cache, r.CacheNote, c.write)
		}
	}
}

// An OpenAI Responses request that continues a conversation the provider
// stores (previous_response_id) holds only what it adds: the note says
// the stored turns are not counted.
func TestDiffStoredConversationIsNoted(t *testing.T) {
	body := func(instructions string) string {
		return `{"model":"gpt-4.1","instructions":"` + instructions + `","previous_response_id":"resp_0123","input":[{"role":"user","content":"And tomorrow?"}]}` + "\n"
	}
	r := diffCost(t, body("Be brief."), body("Be terse."), exitMismatch)
	if r.cache == nil || !strings.Contains(r.CacheNote, "the conversation the provider stores for previous_response_id is not counted") {
		t.Errorf("previous_response_id: %s %q", r.Cache, r.CacheNote)
	}
	plain := strings.Replace(body("Be brief."), `"previous_response_id":"resp_0123",`, "", 1)
	if r := diffCost(t, plain, strings.Replace(plain, "Be brief.", "Be terse.", 1), exitMismatch); strings.Contains(r.CacheNote, "stores") {
		t.Errorf("no stored conversation: %q", r.CacheNote)
	}
}

// TestDiffRedactPath: -redact takes a captured scenario's path rule as
// well as a regular expression; a rule that changes nothing is listed.
func TestDiffRedactPath(t *testing.T) {
	body := func(user string) string {
		return `{"model":"claude-sonnet-4-6","metadata":{"user_id":"` + user + `"},"system":"In /tmp/run-` + user + `.","messages":[],"tools":[]}` + "\n"
	}
	a, b := body("u-17"), body("u-42")
	diffCost(t, a, b, exitMismatch)
	r := diffCost(t, a, b, exitMismatch, "-redact", "path:config.metadata.user_id=<<user-id>>")
	if r.CacheAt == nil || r.CacheAt.Segment != cost.System {
		t.Fatalf("after the path rule the system should differ: %+v %q", r.CacheAt, r.CacheNote)
	}
	r = diffCost(t, a, b, exitOK, "-redact", "path:config.metadata.user_id=<<user-id>>", "-redact", `/tmp/run-[a-z0-9-]+=<<tmp>>`)
	if len(r.Unused) != 0 {
		t.Fatalf("unused %v", r.Unused)
	}
	r = diffCost(t, a, b, exitMismatch, "-redact", "path:config.metadata.userid=X")
	if len(r.Unused) != 1 || r.Unused[0] != `path "config.metadata.userid"` {
		t.Fatalf("unused %v", r.Unused)
	}
	dir := t.TempDir()
	out := replay(t, nil, false, "diff", "-redact", "path:config.metadata.userid=X", writeInput(t, dir, "a", a), writeInput(t, dir, "b", b))
	if !strings.Contains(out.stdout, `redactions that changed nothing: path "config.metadata.userid"`) {
		t.Fatalf("exit %d\n%s", out.code, out.stdout)
	}
	for _, bad := range []string{"path:messages.0=x", "path:config.model", "path:config=x"} {
		if out := replay(t, nil, false, "diff", "-redact", bad, "a", "b"); out.code != exitUsage || !strings.Contains(out.stderr, "redaction") {
			t.Errorf("-redact %s: exit %d\n%s", bad, out.code, out.stderr)
		}
	}
}

// TestDiffCostGeminiPath: a captured Gemini log names its model only in
// the request's path, under v1beta or v1 (the Gemini API serves both, and
// the fake provider routes both): either prices the drift as that model.
func TestDiffCostGeminiPath(t *testing.T) {
	for _, path := range []string{"/v1beta/models/gemini-2.5-flash:generateContent", "/v1/models/gemini-2.5-flash:streamGenerateContent"} {
		captured := func(system string) string {
			return `{"type":"request/header","data":{"request":1,"reason":"initial","format":"gemini","header":{"config":{},"system":{"parts":[{"text":"` + system + `"}]},"tools":[]}}}` + "\n" +
				`{"type":"capture/request","data":{"request":1,"format":"gemini","path":"` + path + `","body":{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"systemInstruction":"<<system>>","tools":"<<tools>>"}}}` + "\n"
		}
		r := diffCost(t, captured("Be brief."), captured("Be terse."), exitMismatch)
		if r.cache == nil || r.cache.Provider != cost.Gemini {
			t.Errorf("%s: cache %s, note %q", path, r.Cache, r.CacheNote)
		}
	}
}
