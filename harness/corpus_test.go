package harness

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/headergold/headergold/internal/corpustest"
	"github.com/tidwall/gjson"
)

// corpusDir finds the shared corpus or skips the test.
func corpusDir(t *testing.T) string { return corpustest.Dir(t) }

// TestCrossCheckDSHTextTurn registers the 19 tools of a header recorded by
// the TypeScript system, shuffled across plugins, and requires the pinned
// tools sidecar to be that recording byte for byte.
func TestCrossCheckDSHTextTurn(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(corpusDir(t), "dsh", "text-turn", "tool-schemas.expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	gjson.GetBytes(want, "initial").ForEach(func(_, v gjson.Result) bool {
		tools = append(tools, json.RawMessage(v.Raw))
		return true
	})
	if len(tools) != 19 {
		t.Fatalf("corpus has %d tools, want 19", len(tools))
	}
	for seed := uint64(1); seed <= 5; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		rng.Shuffle(len(tools), func(i, j int) { tools[i], tools[j] = tools[j], tools[i] })
		// Split the shuffled tools over four plugins.
		var plugins []Plugin
		for p := range 4 {
			pl := Plugin{Name: fmt.Sprintf("p%d", p)}
			for i := p; i < len(tools); i += 4 {
				var tool Tool
				if err := json.Unmarshal(tools[i], &tool); err != nil {
					t.Fatal(err)
				}
				pl.Tools = append(pl.Tools, tool)
			}
			plugins = append(plugins, pl)
		}
		f := &Fixture{Name: "dsh", Pin: true, Description: "dsh text-turn", Plugins: plugins,
			Config: Config{Persona: "x", Model: "m"},
			Turns:  []Turn{{User: "hi"}}}
		run, err := runFixture(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, err := outputs(f, run)
		if err != nil {
			t.Fatal(err)
		}
		if m := compareFile("tool-schemas.expected.json", want, out.Tools); m != nil {
			t.Fatalf("seed %d: tools sidecar differs from the recorded header: %s", seed, m)
		}
	}
}
