package assembler_test

import (
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// TestSectionsOrder: sections sort by (order, id), ids in code-unit order,
// the persona is section "persona" at order 0, empty sections are skipped,
// and texts are joined with a blank line.
func TestSectionsOrder(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Persona: "You are careful."})
	for _, sec := range []assembler.Section{
		{ID: "tools", Order: 20, Text: "Use tools."},
		{ID: "\uFF61", Order: 5, Text: "halfwidth"},
		{ID: "\U0001F600", Order: 5, Text: "emoji"},
		{ID: "empty", Order: 1, Text: ""},
		{ID: "aaa", Order: 0, Text: "Before persona (same order, smaller id)."},
		{ID: "zzz", Order: 0, Text: "After persona."},
		{ID: "early", Order: -3, Text: "First of all."},
	} {
		if err := s.AddSection(sec); err != nil {
			t.Fatal(err)
		}
	}
	want := strings.Join([]string{
		"First of all.", "Before persona (same order, smaller id).", "You are careful.",
		"After persona.", "emoji", "halfwidth", "Use tools.",
	}, "\n\n")
	if got := mustAssemble(t, s).System(); got != want {
		t.Errorf("System\n got %q\nwant %q", got, want)
	}
}

func TestSectionRegistrationErrors(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{})
	if err := s.AddSection(assembler.Section{ID: "rules", Text: "a"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sec     assembler.Section
		contain string
	}{
		{assembler.Section{ID: "rules", Text: "b"}, `section "rules" is already registered`},
		{assembler.Section{ID: "persona", Text: "b"}, `"persona" is reserved`},
		{assembler.Section{Text: "b"}, "empty id"},
	} {
		if err := s.AddSection(tc.sec); err == nil || !strings.Contains(err.Error(), tc.contain) {
			t.Errorf("AddSection(%+v) error %v, want %q", tc.sec, err, tc.contain)
		}
	}
	if got := mustAssemble(t, s).System(); got != "a" {
		t.Errorf("a rejected section changed the system text: %q", got)
	}
}
