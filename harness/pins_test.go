package harness

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestPins(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden"})
	for _, c := range []struct {
		fixture string
		want    Pinning
	}{
		{"text-turn", Pinning{Kind: PinSidecars, Files: []string{filepath.Join("../golden", "text-turn.system.md"), filepath.Join("../golden", "text-turn.tools.json")}}},
		{"extends-text-turn", Pinning{Kind: PinUniform, Pin: "text-turn"}},
		{"tool-order", Pinning{Kind: PinDeterminism}},              // extends the pin, with its own config
		{"tool-turn", Pinning{Kind: PinUniform, Pin: "text-turn"}}, // extends the pin with turns only
		{"late-registration", Pinning{Kind: PinDeterminism}},       // extends the pin, with its own plugins
		{"captured-weather", Pinning{Kind: PinDeterminism}},        // a captured scenario, not pinned
		{"unicode-order", Pinning{Kind: PinDeterminism}},           // extends nothing
	} {
		f := s.Fixture(c.fixture)
		if f == nil {
			t.Fatalf("no bundled fixture %s", c.fixture)
		}
		got := s.Pins(f)
		if got.Kind != c.want.Kind || got.Pin != c.want.Pin || !slices.Equal(got.Files, c.want.Files) {
			t.Errorf("%s: %+v, want %+v", c.fixture, got, c.want)
		}
	}
}
