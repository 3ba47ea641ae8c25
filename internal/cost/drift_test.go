package cost

import (
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	base := Request{Tools: []byte(`[{"name":"a"},{"name":"b"}]`), System: []byte(`"Be brief."`), Messages: []byte(`[{"role":"user"}]`)}
	with := func(f func(r *Request)) Request { r := base; f(&r); return r }
	anthropic, openai := []string{Tools, System, Messages}, []string{System, Tools, Messages}
	for _, tc := range []struct {
		name      string
		order     []string
		old, next Request
		want      Place
	}{
		{"tool name", anthropic, base, with(func(r *Request) { r.Tools = []byte(`[{"name":"a"},{"name":"c"}]`) }), Place{Segment: Tools, Offset: 23}},
		{"system under Anthropic", anthropic, base, with(func(r *Request) { r.System = []byte(`"Be brief!"`) }), Place{Segment: System, Offset: 9}},
		{"both, Anthropic: tools first", anthropic, base, with(func(r *Request) { r.System, r.Tools = []byte(`"x"`), []byte(`[]`) }), Place{Segment: Tools, Offset: 1}},
		{"both, OpenAI: system first", openai, base, with(func(r *Request) { r.System, r.Tools = []byte(`"x"`), []byte(`[]`) }), Place{Segment: System, Offset: 1}},
		{"system added", anthropic, with(func(r *Request) { r.System = nil }), base, Place{Segment: System, Offset: 0}},
		{"a strict prefix", anthropic, base, with(func(r *Request) { r.System = []byte(`"Be brief. Cite."`) }), Place{Segment: System, Offset: 10}},
		{"conversation of old unknown", anthropic, with(func(r *Request) { r.Messages = nil }), base, Place{Segment: Messages, Offset: len(base.Messages)}},
		{"conversation differs", anthropic, with(func(r *Request) { r.Messages = []byte(`[{"role":"user","x":1}]`) }), base, Place{Segment: Messages, Offset: 15}},
		{"nothing differs", anthropic, base, base, Place{Segment: Messages, Offset: len(base.Messages)}},
	} {
		if got := FirstDifference(tc.order, tc.old, tc.next); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestEstimateDrift(t *testing.T) {
	old := firstAnthropic(t)
	next := old
	next.System = append([]byte(nil), old.System...)
	next.System[200] ^= 1
	c, at, err := EstimateDrift(old, next, false)
	if err != nil || at != (Place{Segment: System, Offset: 200}) || c.KeptTokens <= line1Tools || c.KeptTokens >= c.HeaderTokens {
		t.Fatalf("system drift: %+v at %+v, %v", c, at, err)
	}
	c, at, err = EstimateDrift(old, old, true)
	if err != nil || at.Segment != Config || c.KeptTokens != 0 || c.LostTokens != line1Tools+line1System+line1Messages {
		t.Fatalf("config drift: %+v at %+v, %v", c, at, err)
	}
	next.Model = "claude-opus-4-9"
	if _, _, err := EstimateDrift(old, next, false); err == nil || !strings.Contains(err.Error(), "not in the rate table") {
		t.Fatalf("unknown model: %v", err)
	}
}

func TestCacheLines(t *testing.T) {
	c := &Cache{Provider: Anthropic, Order: []string{Tools, System, Messages}, HeaderTokens: 3000, KeptTokens: 100, LostTokens: 2950,
		Tokenizer: TokenizerName, Estimate: true, MinCacheable: 1024, BelowMinimum: true, WriteMultiplier: 1.25, ReadMultiplier: 0.1,
		ExtraInputTokens: 3392.5, RatesAsOf: "2026-10-01", Source: "https://example.com/rates"}
	sizes := map[string]int{Tools: 9000, System: 400, Messages: 2000}
	got := strings.Join(c.Lines(Place{Segment: Tools, Offset: 350}, sizes), "\n")
	want := `cache: anthropic caches the prefix tools → system → messages; first difference in that order: tools byte 350 of 9000
header 3000 tokens; kept 100 before the difference, lost 2950 from it to the end of the request
next request: 3392.5 extra input-token equivalents (2950 lost × (1.25 write − 0.1 read))
minimum cacheable prefix 1024 tokens: the 100 kept are below it, so the next request reads none of it from the cache: add up to 115 to the figure above
tokens: o200k_base (an estimate: not the model's own tokenizer); rates as of 2026-10-01, https://example.com/rates`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	c.MinCacheable, c.BelowMinimum, c.Estimate, c.ReadMultiplier = 0, false, false, 1.0/30
	got = strings.Join(c.Lines(Place{Segment: Config, Offset: 0}, sizes), "\n")
	for _, w := range []string{"first difference in that order: config (taken to invalidate the whole prefix)", "minimum cacheable prefix: none documented",
		"(the model's own tokenizer)", "− 0.03333 read"} {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in\n%s", w, got)
		}
	}
	c.MinCacheable, c.KeptTokens, c.LostTokens = 4096, 10, 20
	if got := strings.Join(c.Lines(Place{Segment: Tools, Offset: 3}, sizes), "\n"); !strings.Contains(got, "the whole request (about 30) is below it") {
		t.Errorf("whole request under the minimum:\n%s", got)
	}
	c.KeptTokens, c.LostTokens, c.BelowMinimum = 0, 5000, true
	if got := c.Lines(Place{Segment: Config}, sizes)[3]; got != "minimum cacheable prefix 4096 tokens: the 0 kept are below it, so the next request reads none of it from the cache" {
		t.Errorf("nothing kept: %s", got)
	}
	c.BelowMinimum = false
	c.KeptTokens, c.LostTokens = 2000, 0
	if got := c.Lines(Place{Segment: Messages, Offset: 2000}, sizes)[0]; !strings.HasSuffix(got, "first difference in that order: none in the rendered segments") {
		t.Errorf("nothing lost: %s", got)
	}
}
