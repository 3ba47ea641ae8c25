package assembler_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// TestAddProviderValidates: a bad provider registers nothing.
func TestAddProviderValidates(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{})
	mustAdd(t, s, "fs", tl("read"))
	for _, tc := range []struct {
		provider string
		tools    []assembler.Tool
		contain  string
	}{
		{"", tools("x"), "empty name"},
		{"fs", tools("x"), `provider "fs" is already registered`},
		{"bad", []assembler.Tool{tl("ok"), {Name: "broken", Parameters: json.RawMessage(`{"a":1,}`)}},
			`provider "bad": tool "broken": parameters: line 1, column 8`},
		{"nameless", []assembler.Tool{{Description: "?"}}, "empty name"},
	} {
		if err := s.AddProvider(tc.provider, tc.tools...); err == nil || !strings.Contains(err.Error(), tc.contain) {
			t.Errorf("AddProvider(%q) error %v, want %q", tc.provider, err, tc.contain)
		}
	}
	equalStrings(t, "ToolNames", mustAssemble(t, s).ToolNames(), []string{"read"})
	// A failed registration does not reserve the provider name.
	mustAdd(t, s, "bad", tl("ok"))
	equalStrings(t, "ToolNames", mustAssemble(t, s).ToolNames(), []string{"ok", "read"})
}
