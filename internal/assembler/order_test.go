package assembler_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// TestDefaultOrderIsUTF16Lexicographic: with no toolOrder, tools sort by
// name in UTF-16 code-unit order, whatever the registration order.
func TestDefaultOrderIsUTF16Lexicographic(t *testing.T) {
	t.Parallel()
	registered := []string{
		"write", "\uFF61tool", "bash", "Read", "read_file", "é", "read", "read-file",
		"_x", "\U0001F600tool", "a", "ab", "aB", "z", "0day",
	}
	want := []string{
		"0day", "Read", "_x", "a", "aB", "ab", "bash", "read", "read-file", "read_file",
		"write", "z", "é", "\U0001F600tool", "\uFF61tool",
	}
	s := mustNew(t, assembler.Config{})
	for i, name := range registered {
		mustAdd(t, s, "p"+itoa(i), tl(name))
	}
	h := mustAssemble(t, s)
	equalStrings(t, "ToolNames", h.ToolNames(), want)

	// The bytes carry the same order.
	var inBytes []string
	for _, n := range gjson.GetBytes(h.Bytes(), "tools.#.name").Array() {
		inBytes = append(inBytes, n.String())
	}
	equalStrings(t, "tools in Bytes()", inBytes, want)

	byteOrder := slices.Clone(registered)
	sort.Strings(byteOrder)
	if slices.Equal(byteOrder, want) {
		t.Fatal("test data does not tell UTF-16 order from Go's byte order")
	}
}

// TestRestEntryPlacement: listed tools take their list positions; the
// others fill the rest entry's position in code-unit order.
func TestRestEntryPlacement(t *testing.T) {
	t.Parallel()
	registered := []string{"e", "\uFF61x", "c", "a", "\U0001F600x", "d", "b"}
	for _, tc := range []struct {
		name  string
		order []string
		want  []string
	}{
		{"rest first", []string{RestEntry, "c", "a"},
			[]string{"b", "d", "e", "\U0001F600x", "\uFF61x", "c", "a"}},
		{"rest in the middle", []string{"c", RestEntry, "a"},
			[]string{"c", "b", "d", "e", "\U0001F600x", "\uFF61x", "a"}},
		{"rest last", []string{"c", "a", RestEntry},
			[]string{"c", "a", "b", "d", "e", "\U0001F600x", "\uFF61x"}},
		{"rest alone", []string{RestEntry},
			[]string{"a", "b", "c", "d", "e", "\U0001F600x", "\uFF61x"}},
		{"everything listed, rest empty", []string{"\uFF61x", "e", "d", RestEntry, "c", "b", "a", "\U0001F600x"},
			[]string{"\uFF61x", "e", "d", "c", "b", "a", "\U0001F600x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustNew(t, withOrder(tc.order...))
			mustAdd(t, s, "first", tools(registered[:3]...)...)
			mustAdd(t, s, "second", tools(registered[3:]...)...)
			equalStrings(t, "ToolNames", mustAssemble(t, s).ToolNames(), tc.want)
		})
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
