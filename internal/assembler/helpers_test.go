package assembler_test

import (
	"encoding/json"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// tl returns a small tool whose bytes depend only on its name.
func tl(name string) assembler.Tool {
	return assembler.Tool{
		Name:        name,
		Description: "Tool " + name + ".",
		Parameters:  json.RawMessage(`{"type":"object"}`),
	}
}

// tools returns tl(name) for each name.
func tools(names ...string) []assembler.Tool {
	out := make([]assembler.Tool, len(names))
	for i, n := range names {
		out[i] = tl(n)
	}
	return out
}

// withOrder is a config with a present toolOrder.
func withOrder(names ...string) assembler.Config {
	return assembler.Config{ToolOrder: assembler.NewToolOrder(names...)}
}

func mustNew(t testing.TB, cfg assembler.Config) *assembler.Service {
	t.Helper()
	s, err := assembler.New(cfg)
	if err != nil {
		t.Fatalf("New(%+v): %v", cfg, err)
	}
	return s
}

func mustAdd(t testing.TB, s *assembler.Service, provider string, ts ...assembler.Tool) {
	t.Helper()
	if err := s.AddProvider(provider, ts...); err != nil {
		t.Fatalf("AddProvider(%q): %v", provider, err)
	}
}

func mustAssemble(t testing.TB, s *assembler.Service) *assembler.Header {
	t.Helper()
	h, err := s.Assemble()
	if err != nil {
		t.Fatalf("Assemble: %v", err)
	}
	return h
}

// equalStrings reports a difference between two string lists.
func equalStrings(t testing.TB, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d entries %q, want %d entries %q", what, len(got), got, len(want), want)
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: entry %d is %q, want %q\n got %q\nwant %q", what, i, got[i], want[i], got, want)
			return
		}
	}
}

const RestEntry = assembler.RestEntry
