package cost

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/headergold/headergold/internal/wire"
)

// The token counts of corpus line 1 (see firstAnthropic), from OpenAI's
// tiktoken (see tokens_test.go): tools 1866, system 103, messages 938;
// tools[:1] 1 and tools[1:] 1865; tools[:8139] 1766 and tools[8139:] 100.
// Its first tool starts at byte 1 of tools, its last at byte 8139.
const (
	line1Tools    = 1866
	line1System   = 103
	line1Messages = 938
)

func TestEstimateLaterDriftKeepsMore(t *testing.T) {
	r := firstAnthropic(t)
	firstTool := mustEstimate(t, r, Place{Segment: Tools, Offset: 1})
	lastTool := mustEstimate(t, r, Place{Segment: Tools, Offset: 8139})
	system := mustEstimate(t, r, Place{Segment: System, Offset: 0})
	messages := mustEstimate(t, r, Place{Segment: Messages, Offset: 0})

	if !(firstTool.KeptTokens < lastTool.KeptTokens && lastTool.KeptTokens < system.KeptTokens &&
		system.KeptTokens < messages.KeptTokens) {
		t.Fatalf("kept tokens not increasing in render order: first tool %d, last tool %d, system %d, messages %d",
			firstTool.KeptTokens, lastTool.KeptTokens, system.KeptTokens, messages.KeptTokens)
	}
	if !(firstTool.LostTokens > lastTool.LostTokens && lastTool.LostTokens > system.LostTokens &&
		system.LostTokens > messages.LostTokens) {
		t.Fatalf("lost tokens not decreasing in render order: %d, %d, %d, %d",
			firstTool.LostTokens, lastTool.LostTokens, system.LostTokens, messages.LostTokens)
	}

	// The exact figures, from the independent counts above.
	for _, tc := range []struct {
		name       string
		c          *Cache
		kept, lost int
	}{
		{"first tool", firstTool, 1, 1865 + line1System + line1Messages},
		{"last tool", lastTool, 1766, 100 + line1System + line1Messages},
		{"system", system, line1Tools, line1System + line1Messages},
		{"messages", messages, line1Tools + line1System, line1Messages},
	} {
		if tc.c.KeptTokens != tc.kept || tc.c.LostTokens != tc.lost || tc.c.HeaderTokens != line1Tools+line1System {
			t.Errorf("%s: kept %d lost %d header %d, want %d, %d, %d", tc.name,
				tc.c.KeptTokens, tc.c.LostTokens, tc.c.HeaderTokens, tc.kept, tc.lost, line1Tools+line1System)
		}
	}
	if !firstTool.BelowMinimum || lastTool.BelowMinimum {
		t.Errorf("below minimum (1024 for Sonnet 4.6): first tool %v (kept 1), last tool %v (kept 1766)",
			firstTool.BelowMinimum, lastTool.BelowMinimum)
	}
}

// TestEstimateTotals checks kept + lost ≥ header at offsets all over every
// Anthropic corpus body, and that kept never exceeds the tokens before
// the segment plus the segment's own.
func TestEstimateTotals(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i, r := range corpusRequests(t, "anthropic-messages.jsonl", wire.Anthropic, "messages") {
		if r.Model == "" {
			r.Model = "claude-sonnet-4-6" // a Bedrock body names its model in the URL
		}
		for _, seg := range []string{Tools, System, Messages, Config} {
			var b []byte
			switch seg {
			case Tools:
				b = r.Tools
			case System:
				b = r.System
			case Messages:
				b = r.Messages
			}
			offs := []int{0, len(b)}
			for range 8 {
				offs = append(offs, rng.IntN(len(b)+1))
			}
			for _, off := range offs {
				c := mustEstimate(t, r, Place{Segment: seg, Offset: off})
				if c.KeptTokens+c.LostTokens < c.HeaderTokens {
					t.Errorf("body %d at %s %d: kept %d + lost %d < header %d", i+1, seg, off, c.KeptTokens, c.LostTokens, c.HeaderTokens)
				}
				if c.KeptTokens < 0 || c.LostTokens < 0 {
					t.Errorf("body %d at %s %d: negative counts %+v", i+1, seg, off, c)
				}
				if seg == Config && c.KeptTokens != 0 {
					t.Errorf("body %d: a config drift kept %d tokens", i+1, c.KeptTokens)
				}
			}
		}
	}
}

func TestEstimateConfigDriftLosesEverything(t *testing.T) {
	r := firstAnthropic(t)
	c := mustEstimate(t, r, Place{Segment: Config, Offset: 0})
	if c.KeptTokens != 0 || c.LostTokens != line1Tools+line1System+line1Messages || !c.BelowMinimum {
		t.Fatalf("config drift: kept %d lost %d below %v, want 0, %d, true", c.KeptTokens, c.LostTokens, c.BelowMinimum,
			line1Tools+line1System+line1Messages)
	}
	// 2907 × (1.25 − 0.1) = 3343.05, by hand.
	if c.ExtraInputTokens != 3343.05 {
		t.Errorf("extra input tokens %v, want 3343.05", c.ExtraInputTokens)
	}
}

func TestEstimateWithoutConversation(t *testing.T) {
	r := firstAnthropic(t)
	r.Messages = nil
	c := mustEstimate(t, r, Place{Segment: System, Offset: 0})
	if c.KeptTokens != line1Tools || c.LostTokens != line1System || c.HeaderTokens != line1Tools+line1System {
		t.Fatalf("no conversation: kept %d lost %d header %d, want %d, %d, %d", c.KeptTokens, c.LostTokens, c.HeaderTokens,
			line1Tools, line1System, line1Tools+line1System)
	}
}

func TestEstimateTinyHeaderIsBelowMinimum(t *testing.T) {
	r := Request{
		Format:   "anthropic",
		Model:    "claude-sonnet-4-6",
		Tools:    []byte(`[{"name":"a"}]`), // 7 tokens
		System:   []byte(`"hi"`),           // 3 tokens
		Messages: []byte(`[{"role":"user","content":"hello"}]`),
	}
	c := mustEstimate(t, r, Place{Segment: Messages, Offset: 0})
	if c.HeaderTokens != 10 || c.KeptTokens != 10 || c.MinCacheable != 1024 || !c.BelowMinimum {
		t.Fatalf("tiny header: header %d kept %d min %d below %v, want 10, 10, 1024, true",
			c.HeaderTokens, c.KeptTokens, c.MinCacheable, c.BelowMinimum)
	}
	// The same request at a real header's size is not below.
	big := firstAnthropic(t)
	if c := mustEstimate(t, big, Place{Segment: Messages, Offset: 0}); c.BelowMinimum {
		t.Errorf("kept %d of min %d reported below the minimum", c.KeptTokens, c.MinCacheable)
	}
	// A provider that documents no minimum never reports one.
	r.Format, r.Model = "openai-chat", "deepseek-v4-pro"
	if c := mustEstimate(t, r, Place{Segment: Config, Offset: 0}); c.BelowMinimum || c.MinCacheable != 0 {
		t.Errorf("deepseek: min %d below %v, want 0 and false", c.MinCacheable, c.BelowMinimum)
	}
}

func TestEstimateExtraInputTokens(t *testing.T) {
	// A config drift on a request whose only segment is "hello world"
	// (2 tokens) loses exactly 2 tokens; a real header loses 2907.
	hello := Request{System: []byte("hello world")}
	real := firstAnthropic(t)
	for _, tc := range []struct {
		r            Request
		format, mod  string
		ttl          string
		write, read  float64
		lost         int
		extra        float64
		wantEstimate bool
	}{
		{hello, "anthropic", "claude-sonnet-4-6", "", 1.25, 0.1, 2, 2.3, true},        // 2 × 1.15
		{hello, "anthropic", "claude-sonnet-4-6", "5m", 1.25, 0.1, 2, 2.3, true},      // 2 × 1.15
		{hello, "anthropic", "claude-sonnet-4-6", "1h", 2, 0.1, 2, 3.8, true},         // 2 × 1.9
		{hello, "anthropic", "claude-fable-5-1", "1h", 2, 0.025, 2, 3.95, true},       // 2 × 1.975
		{hello, "openai-chat", "gpt-4o", "", 1, 0.5, 2, 1, false},                     // 2 × 0.5
		{hello, "openai-responses", "gpt-5.6-sol", "", 1.25, 0.1, 2, 2.3, false},      // 2 × 1.15
		{hello, "openai-chat", "deepseek-v4-pro", "", 1, 1.0 / 30, 2, 1.93, true},     // 2 × 29/30 = 1.9333…
		{hello, "gemini", "gemini-2.5-flash", "", 1, 0.1, 2, 1.8, true},               // 2 × 0.9
		{real, "anthropic", "claude-sonnet-4-6", "1h", 2, 0.1, 2907, 5523.3, true},    // 2907 × 1.9
		{real, "anthropic", "claude-opus-5-5", "", 1.25, 0.05, 2907, 3488.4, true},    // 2907 × 1.2
		{real, "openai-chat", "gpt-4.1", "", 1, 0.25, 2907, 2180.25, false},           // 2907 × 0.75
		{real, "openai-chat", "deepseek-flash", "", 1, 0.02, 2907, 2848.86, true},     // 2907 × 0.98
		{real, "anthropic", "claude-haiku-4-5", "5m", 1.25, 0.1, 2907, 3343.05, true}, // 2907 × 1.15
	} {
		r := tc.r
		r.Format, r.Model, r.TTL = tc.format, tc.mod, tc.ttl
		c := mustEstimate(t, r, Place{Segment: Config, Offset: 0})
		if c.LostTokens != tc.lost || c.WriteMultiplier != tc.write || c.ReadMultiplier != tc.read ||
			c.ExtraInputTokens != tc.extra || c.Estimate != tc.wantEstimate {
			t.Errorf("%s %s ttl %q: lost %d write %v read %v extra %v estimate %v; want %d, %v, %v, %v, %v",
				tc.format, tc.mod, tc.ttl, c.LostTokens, c.WriteMultiplier, c.ReadMultiplier, c.ExtraInputTokens, c.Estimate,
				tc.lost, tc.write, tc.read, tc.extra, tc.wantEstimate)
		}
	}
}

func TestEstimateOpenAIRendersSystemFirst(t *testing.T) {
	// In OpenAI's assumed order a system drift loses the tools too, and a
	// tools drift keeps the system prompt.
	r := Request{Format: "openai-chat", Model: "gpt-4o",
		Tools: []byte(`[{"name":"a"}]`), System: []byte("hello world")}
	sys := mustEstimate(t, r, Place{Segment: System, Offset: 0})
	tools := mustEstimate(t, r, Place{Segment: Tools, Offset: 0})
	if sys.KeptTokens != 0 || sys.LostTokens != 9 || tools.KeptTokens != 2 || tools.LostTokens != 7 {
		t.Fatalf("system drift kept %d lost %d, tools drift kept %d lost %d; want 0, 9, 2, 7",
			sys.KeptTokens, sys.LostTokens, tools.KeptTokens, tools.LostTokens)
	}
}

func TestEstimateCutInsideACharacter(t *testing.T) {
	// "café au lait": the cut at byte 4, inside "é", counts from byte 3:
	// "caf" is 1 token and "é au lait" the rest.
	r := Request{Format: "anthropic", Model: "claude-sonnet-4-6", System: []byte("café au lait")}
	at3 := mustEstimate(t, r, Place{Segment: System, Offset: 3})
	at4 := mustEstimate(t, r, Place{Segment: System, Offset: 4})
	if at3.KeptTokens != 1 {
		t.Fatalf("kept %d tokens before byte 3, want the 1 of \"caf\"", at3.KeptTokens)
	}
	if at4.KeptTokens != at3.KeptTokens || at4.LostTokens != at3.LostTokens {
		t.Fatalf("a cut inside é (%d/%d) differs from one before it (%d/%d)",
			at4.KeptTokens, at4.LostTokens, at3.KeptTokens, at3.LostTokens)
	}
	if at4.HeaderTokens != 4 {
		t.Errorf("header %d tokens, want the 4 of the whole string", at4.HeaderTokens)
	}
}

func TestEstimateRefuses(t *testing.T) {
	ok := Request{Format: "anthropic", Model: "claude-sonnet-4-6", Tools: []byte(`[]`), System: []byte(`"s"`)}
	for _, tc := range []struct {
		name string
		r    Request
		at   Place
		want string
	}{
		{"unknown format", Request{Format: "cohere", Model: "claude-sonnet-4-6"}, Place{Segment: Config, Offset: 0}, "unknown wire format"},
		{"unknown model", Request{Format: "anthropic", Model: "claude-9"}, Place{Segment: Config, Offset: 0}, "not in the rate table"},
		{"unknown segment", ok, Place{Segment: "header", Offset: 0}, "unknown segment"},
		{"empty segment", ok, Place{Segment: "", Offset: 0}, "unknown segment"},
		{"negative offset", ok, Place{Segment: Tools, Offset: -1}, "outside the tools segment"},
		{"offset past the end", ok, Place{Segment: System, Offset: 4}, "outside the system segment (3 bytes)"},
		{"offset into absent messages", ok, Place{Segment: Messages, Offset: 1}, "outside the messages segment (0 bytes)"},
		{"no 1-hour cache", Request{Format: "openai-chat", Model: "gpt-4o"}, Place{Segment: Config, Offset: 0}, "no 1-hour"},
		{"unknown lifetime", Request{Format: "anthropic", Model: "claude-sonnet-4-6", TTL: "30m"}, Place{Segment: Config, Offset: 0}, "unknown cache lifetime"},
	} {
		if tc.name == "no 1-hour cache" {
			tc.r.TTL = "1h"
		}
		c, err := Estimate(tc.r, tc.at)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Estimate = %+v, %v; want an error saying %q", tc.name, c, err, tc.want)
		}
	}
}

func TestCacheJSONMembers(t *testing.T) {
	c := mustEstimate(t, firstAnthropic(t), Place{Segment: System, Offset: 0})
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	gjson.ParseBytes(b).ForEach(func(k, _ gjson.Result) bool {
		keys = append(keys, k.String())
		return true
	})
	want := []string{"provider", "order", "headerTokens", "keptTokens", "lostTokens", "tokenizer", "estimate",
		"minCacheable", "belowMinimum", "writeMultiplier", "readMultiplier", "extraInputTokens", "ratesAsOf", "source"}
	if !slices.Equal(keys, want) {
		t.Fatalf("members %v, want %v", keys, want)
	}
	wantJSON := `{"provider":"anthropic","order":["tools","system","messages"],"headerTokens":1969,"keptTokens":1866,` +
		`"lostTokens":1041,"tokenizer":"o200k_base","estimate":true,"minCacheable":1024,"belowMinimum":false,` +
		`"writeMultiplier":1.25,"readMultiplier":0.1,"extraInputTokens":1197.15,"ratesAsOf":"2026-10-01",` +
		`"source":"https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations"}`
	if string(b) != wantJSON {
		t.Errorf("JSON\n%s\nwant\n%s", b, wantJSON)
	}
}

func TestEstimateOrderIsACopy(t *testing.T) {
	c := mustEstimate(t, Request{Format: "anthropic", Model: "claude-sonnet-4-6"}, Place{Segment: Config, Offset: 0})
	c.Order[0] = "changed"
	if anthropicOrder[0] == "changed" {
		t.Fatal("Cache.Order shares the table's slice")
	}
}

func TestEstimateConcurrently(t *testing.T) {
	r := firstAnthropic(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			c, err := Estimate(r, Place{Segment: Tools, Offset: 1 + i})
			if err != nil {
				t.Error(err)
				return
			}
			if c.HeaderTokens != line1Tools+line1System {
				t.Errorf("header %d, want %d", c.HeaderTokens, line1Tools+line1System)
			}
		})
	}
	wg.Wait()
}

// TestEstimateEveryFormat prices a drift in the middle of every segment
// of every corpus body whose model the table knows, in all four formats.
func TestEstimateEveryFormat(t *testing.T) {
	for _, tc := range []struct {
		file     string
		format   wire.Format
		messages string // the conversation member ("" to leave it out)
		model    string // for bodies that do not name one
		known    int    // bodies whose model the table knows
	}{
		{"anthropic-messages.jsonl", wire.Anthropic, "messages", "claude-sonnet-4-6", 24},
		// OpenAI Chat's system part is the leading messages: the rest of
		// the array is not split out here, so the conversation is left out.
		// Not known: deepseek-reasoner (twice), gpt-4 and gpt-3.5-turbo.
		{"openai-chat.jsonl", wire.OpenAIChat, "", "gpt-4o", 20},
		{"openai-responses.jsonl", wire.OpenAIResponses, "input", "gpt-4o", 24},
		{"gemini.jsonl", wire.Gemini, "contents", "gemini-2.5-flash", 24},
	} {
		known := 0
		for i, r := range corpusRequests(t, tc.file, tc.format, tc.messages) {
			if tc.messages == "" {
				r.Messages = nil
			}
			if r.Model == "" {
				r.Model = tc.model
			}
			if _, err := RateFor(r.Format, r.Model); err != nil {
				continue
			}
			known++
			for _, at := range []Place{{Segment: Tools, Offset: len(r.Tools) / 2}, {Segment: System, Offset: len(r.System) / 2}, {Segment: Messages, Offset: len(r.Messages) / 2}, {Segment: Config}} {
				c := mustEstimate(t, r, at)
				if c.HeaderTokens == 0 || c.KeptTokens+c.LostTokens < c.HeaderTokens {
					t.Errorf("%s line %d (%s) at %+v: header %d kept %d lost %d", tc.file, i+1, r.Model, at,
						c.HeaderTokens, c.KeptTokens, c.LostTokens)
				}
			}
		}
		if known != tc.known {
			t.Errorf("%s: the table knows the model of %d bodies, want %d", tc.file, known, tc.known)
		}
	}
}
