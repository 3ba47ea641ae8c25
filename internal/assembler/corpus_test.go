package assembler_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/corpustest"
	"github.com/tidwall/gjson"
)

// corpusDir finds the shared corpus or skips the test.
func corpusDir(t *testing.T) string { return corpustest.Dir(t) }

// corpusTool is one tool of a recorded tool-schemas file, with its raw
// bytes exactly as recorded.
type corpusTool struct {
	name string
	raw  []byte // the tool object as written (indented by JSON.stringify)
	tool assembler.Tool
}

// loadCorpusTools reads the "initial" tool list of a recorded
// tool-schemas.expected.json, keeping raw bytes (no map round trip).
func loadCorpusTools(t *testing.T, scenario string) (file []byte, out []corpusTool) {
	t.Helper()
	path := filepath.Join(corpusDir(t), "dsh", scenario, "tool-schemas.expected.json")
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("corpus file: %v", err)
	}
	if !gjson.ValidBytes(file) {
		t.Fatalf("%s is not valid JSON", path)
	}
	initial := gjson.GetBytes(file, "initial")
	if !initial.IsArray() {
		t.Fatalf("%s: initial is not an array", path)
	}
	for _, v := range initial.Array() {
		var keys []string
		v.ForEach(func(k, _ gjson.Result) bool {
			keys = append(keys, k.String())
			return true
		})
		equalStrings(t, "keys of a recorded tool", keys, []string{"name", "description", "parameters"})
		out = append(out, corpusTool{
			name: v.Get("name").String(),
			raw:  []byte(v.Raw),
			tool: assembler.Tool{
				Name:        v.Get("name").String(),
				Description: v.Get("description").String(),
				Parameters:  json.RawMessage(v.Get("parameters").Raw),
			},
		})
	}
	return file, out
}

// registerShuffled registers the tools shuffled across several providers.
func registerShuffled(t *testing.T, s *assembler.Service, ts []corpusTool, r *rand.Rand) {
	t.Helper()
	k := 2 + r.IntN(4)
	groups := make([][]assembler.Tool, k)
	for _, i := range r.Perm(len(ts)) {
		g := r.IntN(k)
		groups[g] = append(groups[g], ts[i].tool)
	}
	for _, g := range r.Perm(k) {
		mustAdd(t, s, fmt.Sprintf("plugin-%d", g), groups[g]...)
	}
}

// compactStd removes insignificant whitespace with encoding/json, which
// keeps every escape as written: JSON.stringify wrote the file, so its
// compacted bytes are JavaScript's compact bytes.
func compactStd(t *testing.T, raw []byte) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCorpusCanonicalOrder: the recorded headers of the TypeScript agent
// this rule comes from, registered in shuffled order across providers,
// come out in the recorded order with the recorded bytes.
func TestCorpusCanonicalOrder(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scenario string
		order    assembler.ToolOrder
		count    int
	}{
		{"text-turn", assembler.ToolOrder{}, 19},
		{"lsp-definition", assembler.ToolOrder{}, 20},
		{"advanced-toolchain", assembler.ToolOrder{}, 27},
		{"pwsh-tool-turn", assembler.NewToolOrder("pwsh", RestEntry), 4},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			file, ts := loadCorpusTools(t, tc.scenario)
			if len(ts) != tc.count {
				t.Fatalf("%d tools in the corpus, want %d", len(ts), tc.count)
			}
			initial := gjson.GetBytes(file, "initial").Raw
			wantHeader := `{"config":{},"tools":` + compactStd(t, []byte(initial)) + `}`
			wantNames := make([]string, len(ts))
			for i, ct := range ts {
				wantNames[i] = ct.name
			}
			r := rand.New(rand.NewPCG(42, uint64(len(ts))))
			for round := range 25 {
				s := mustNew(t, assembler.Config{ToolOrder: tc.order})
				registerShuffled(t, s, ts, r)
				h := mustAssemble(t, s)
				equalStrings(t, fmt.Sprintf("round %d order", round), h.ToolNames(), wantNames)
				for i, ct := range ts {
					if got, want := string(h.ToolJSON(i)), compactStd(t, ct.raw); got != want {
						t.Fatalf("round %d tool %q:\n got %s\nwant %s", round, ct.name, got, want)
					}
				}
				if string(h.Bytes()) != wantHeader {
					t.Fatalf("round %d: header bytes differ from the recorded tool list", round)
				}
			}
		})
	}
}

// TestCorpusIndentReproducesFile: the recorded sidecar is
// JSON.stringify({initial, changes}, null, 2) plus a newline; rebuilding it
// from the canonical tool bytes reproduces the file byte for byte.
func TestCorpusIndentReproducesFile(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"text-turn", "pwsh-tool-turn"} {
		file, ts := loadCorpusTools(t, scenario)
		cfg := assembler.Config{}
		if scenario == "pwsh-tool-turn" {
			cfg.ToolOrder = assembler.NewToolOrder("pwsh", RestEntry)
		}
		s := mustNew(t, cfg)
		registerShuffled(t, s, ts, rand.New(rand.NewPCG(7, 7)))
		h := mustAssemble(t, s)

		doc := []byte(`{"initial":[`)
		for i := range h.NumTools() {
			if i > 0 {
				doc = append(doc, ',')
			}
			doc = append(doc, h.ToolJSON(i)...)
		}
		doc = append(doc, `],"changes":[]}`...)
		got, err := canon.Indent(nil, doc, "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		if !bytes.Equal(got, file) {
			i := 0
			for i < min(len(got), len(file)) && got[i] == file[i] {
				i++
			}
			t.Fatalf("%s: rebuilt sidecar differs from the recording at byte %d:\n got …%q…\nwant …%q…",
				scenario, i, got[max(0, i-40):min(len(got), i+40)], file[max(0, i-40):min(len(file), i+40)])
		}
	}
}
