package cost

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// rowCases select every row of the table with a model ID as a client
// sends it; the expected numbers are the sources' own, written out here
// rather than read from the table.
var rowCases = []struct {
	format, model string
	provider      string
	min           int
	write, read   float64
	write1h       float64
	estimate      bool
}{
	{"anthropic", "claude-fable-5-1", Anthropic, 512, 1.25, 0.025, 2, true},
	{"anthropic", "claude-mythos-5-1", Anthropic, 512, 1.25, 0.025, 2, true},
	{"anthropic", "claude-opus-5-5", Anthropic, 512, 1.25, 0.05, 2, true},
	{"anthropic", "claude-opus-5", Anthropic, 512, 1.25, 0.1, 2, true},
	{"anthropic", "claude-sonnet-5-5", Anthropic, 512, 1.25, 0.1, 2, true},
	{"anthropic", "claude-fable-5", Anthropic, 512, 1.25, 0.1, 2, true},
	{"anthropic", "claude-opus-4-8", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-sonnet-5", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-sonnet-4-6", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-sonnet-4-5-20250929", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-sonnet-4-20250514", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-opus-4-1-20250805", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-opus-4-20250514", Anthropic, 1024, 1.25, 0.1, 2, true},
	{"anthropic", "claude-opus-4-7", Anthropic, 2048, 1.25, 0.1, 2, true},
	{"anthropic", "claude-mythos-preview", Anthropic, 2048, 1.25, 0.1, 2, true},
	{"anthropic", "claude-3-5-haiku-20241022", Anthropic, 2048, 1.25, 0.1, 2, true},
	{"anthropic", "claude-opus-4-6", Anthropic, 4096, 1.25, 0.1, 2, true},
	{"anthropic", "claude-opus-4-5-20251101", Anthropic, 4096, 1.25, 0.1, 2, true},
	{"anthropic", "claude-haiku-4-5", Anthropic, 4096, 1.25, 0.1, 2, true},
	{"anthropic", "claude-haiku-4-5-20251001", Anthropic, 4096, 1.25, 0.1, 2, true},
	// Gateways: a routing prefix and dots in the version.
	{"openai-chat", "anthropic/claude-sonnet-4.6", Anthropic, 1024, 1.25, 0.1, 2, true},
	// The routing prefix goes up to the last "/", however many there are.
	{"openai-chat", "openrouter/anthropic/claude-opus-4.6", Anthropic, 4096, 1.25, 0.1, 2, true},
	{"gemini", "publishers/google/models/gemini-2.5-pro", Gemini, 2048, 1, 0.1, 0, true},
	{"anthropic", "claude-opus-4-6[1m]", Anthropic, 4096, 1.25, 0.1, 2, true},
	{"anthropic", "claude-sonnet-4-5@20250929", Anthropic, 1024, 1.25, 0.1, 2, true},

	{"openai-responses", "gpt-5.6", OpenAI, 1024, 1.25, 0.1, 0, false},
	{"openai-responses", "gpt-5.6-sol", OpenAI, 1024, 1.25, 0.1, 0, false},
	{"openai-chat", "gpt-5.6-terra", OpenAI, 1024, 1.25, 0.1, 0, false},
	{"openai-chat", "gpt-5", OpenAI, 1024, 1, 0.1, 0, false},
	{"openai-chat", "gpt-5-nano", OpenAI, 1024, 1, 0.1, 0, false},
	{"openai-responses", "gpt-5.2", OpenAI, 1024, 1, 0.1, 0, false},
	{"openai-responses", "gpt-5.4", OpenAI, 1024, 1, 0.1, 0, false},
	{"openai-responses", "gpt-4.1", OpenAI, 1024, 1, 0.25, 0, false},
	{"openai-chat", "gpt-4.1-mini", OpenAI, 1024, 1, 0.25, 0, false},
	{"openai-chat", "gpt-4o", OpenAI, 1024, 1, 0.5, 0, false},
	{"openai-chat", "gpt-4o-mini", OpenAI, 1024, 1, 0.5, 0, false},
	{"openai-responses", "gpt-4o-2024-08-06", OpenAI, 1024, 1, 0.5, 0, false},

	{"gemini", "gemini-2.5-flash", Gemini, 2048, 1, 0.1, 0, true},
	{"gemini", "gemini-2.5-pro", Gemini, 2048, 1, 0.1, 0, true},
	{"gemini", "models/gemini-2.5-flash-lite", Gemini, 2048, 1, 0.1, 0, true},
	{"gemini", "gemini-3-flash-preview", Gemini, 4096, 1, 0.1, 0, true},
	{"gemini", "gemini-3.1-pro-preview", Gemini, 4096, 1, 0.1, 0, true},
	{"gemini", "gemini-3.8-flash", Gemini, 4096, 1, 0.1, 0, true},
	{"gemini", "gemini-4-argon", Gemini, 4096, 1, 0.05, 0, true},

	{"openai-chat", "deepseek-flash", DeepSeek, 0, 1, 0.02, 0, true},
	{"anthropic", "deepseek-v4-flash", DeepSeek, 0, 1, 0.02, 0, true},
	{"openai-chat", "deepseek-v4-pro", DeepSeek, 0, 1, 1.0 / 30, 0, true},
}

func TestRateForSelectsEveryRow(t *testing.T) {
	used := make([]bool, len(table))
	for _, tc := range rowCases {
		r, err := RateFor(tc.format, tc.model)
		if err != nil {
			t.Errorf("RateFor(%s, %s): %v", tc.format, tc.model, err)
			continue
		}
		if r.Provider != tc.provider || r.MinCacheable != tc.min || r.Write != tc.write ||
			r.Read != tc.read || r.Write1h != tc.write1h || r.Estimate != tc.estimate {
			t.Errorf("RateFor(%s, %s) = %s %q: min %d write %v/%v read %v estimate %v; want %s min %d write %v/%v read %v estimate %v",
				tc.format, tc.model, r.Provider, r.Family, r.MinCacheable, r.Write, r.Write1h, r.Read, r.Estimate,
				tc.provider, tc.min, tc.write, tc.write1h, tc.read, tc.estimate)
		}
		for i := range table {
			if table[i].Family == r.Family {
				used[i] = true
			}
		}
	}
	for i, u := range used {
		if !u {
			t.Errorf("no test case selects row %d (%s %s)", i, table[i].Provider, table[i].Family)
		}
	}
}

func TestRateForRefuses(t *testing.T) {
	for _, tc := range []struct{ format, model, want string }{
		{"bedrock", "claude-sonnet-4-6", "unknown wire format"},
		{"", "gpt-4o", "unknown wire format"},
		{"anthropic", "", "no model"},
		{"gemini", "  ", "no model"},
		// Versions no source lists: a neighbour's rates would be a guess.
		{"anthropic", "claude-opus-4-9", "not in the rate table"},
		{"anthropic", "claude-haiku-5-5", "not in the rate table"},
		{"anthropic", "claude-3-7-sonnet-20250219", "not in the rate table"},
		{"openai-chat", "gpt-6.1-terra", "not in the rate table"},
		{"openai-chat", "gpt-4", "not in the rate table"},
		{"openai-chat", "gpt-50", "not in the rate table"},
		{"openai-chat", "deepseek-reasoner", "not in the rate table"},
		{"gemini", "gemini-3.9-flash", "not in the rate table"},
		{"gemini", "gemini-2.0-flash", "not in the rate table"},
		{"anthropic", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "not in the rate table"},
	} {
		_, err := RateFor(tc.format, tc.model)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RateFor(%q, %q) error = %v, want one saying %q", tc.format, tc.model, err, tc.want)
		}
	}
}

// TestTableRows checks what every row must have, so that a row added
// later cannot lack its source or its date.
func TestTableRows(t *testing.T) {
	asOf, err := time.Parse(time.DateOnly, TableAsOf)
	if err != nil {
		t.Fatalf("TableAsOf %q: %v", TableAsOf, err)
	}
	seen := map[string]string{}
	for i, r := range Table() {
		name := r.Provider + " " + r.Family
		if r.Provider == "" || r.Family == "" || len(r.Models) == 0 || r.Note == "" {
			t.Errorf("row %d (%s): provider, family, models and note are required", i, name)
		}
		if u, err := url.Parse(r.Source); err != nil || u.Scheme != "https" || u.Host == "" {
			t.Errorf("row %d (%s): source %q is not an https URL", i, name, r.Source)
		}
		if d, err := time.Parse(time.DateOnly, r.AsOf); err != nil || d.After(asOf) {
			t.Errorf("row %d (%s): as-of %q is not a date on or before %s", i, name, r.AsOf, TableAsOf)
		}
		if o := slices.Sorted(slices.Values(r.Order)); !slices.Equal(o, []string{Messages, System, Tools}) {
			t.Errorf("row %d (%s): order %v is not tools, system and messages in some order", i, name, r.Order)
		}
		if r.Order[len(r.Order)-1] != Messages {
			t.Errorf("row %d (%s): the conversation must come last, got %v", i, name, r.Order)
		}
		if r.Write < 1 || r.Read <= 0 || r.Read >= 1 || (r.Write1h != 0 && r.Write1h < r.Write) || r.MinCacheable < 0 {
			t.Errorf("row %d (%s): implausible numbers: write %v/%v read %v min %d", i, name, r.Write, r.Write1h, r.Read, r.MinCacheable)
		}
		for _, m := range r.Models {
			if other, dup := seen[normModel(m)]; dup {
				t.Errorf("model prefix %q is in row %q and in row %q", m, other, name)
			}
			seen[normModel(m)] = name
		}
	}
}

func TestTableIsACopy(t *testing.T) {
	rows := Table()
	rows[0].MinCacheable = -1
	rows[0].Models[0] = "changed"
	rows[0].Order[0] = "changed"
	if table[0].MinCacheable == -1 || table[0].Models[0] == "changed" || table[0].Order[0] == "changed" {
		t.Fatal("Table shares its rows with the table")
	}
}

func TestRenderOrders(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  []string
	}{
		{"claude-sonnet-4-6", []string{"tools", "system", "messages"}},
		{"gpt-4o", []string{"system", "tools", "messages"}},
		{"gemini-2.5-pro", []string{"system", "tools", "messages"}},
		{"deepseek-v4-pro", []string{"system", "tools", "messages"}},
	} {
		r, err := RateFor("openai-chat", tc.model)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Order, tc.want) {
			t.Errorf("%s: order %v, want %v", tc.model, r.Order, tc.want)
		}
	}
}
