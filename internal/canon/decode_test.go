package canon_test

import (
	"slices"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

func TestDecodeString(t *testing.T) {
	for _, tc := range []struct {
		body   string
		text   string
		starts []int
	}{
		{`a\u003cb`, "a<b", []int{0, 1, 7, 8}},
		{`\ud83d\ude00!`, "\U0001F600!", []int{0, 0, 0, 0, 12, 13}},
		{`é\n`, "é\n", []int{0, 0, 2, 4}},
		{`\ud800x`, "\uFFFDx", []int{0, 0, 0, 6, 7}}, // a lone surrogate reads as U+FFFD
		{`\q`, "q", []int{0, 2}},
	} {
		text, starts := canon.DecodeString([]byte(tc.body))
		if text != tc.text || !slices.Equal(starts, tc.starts) {
			t.Errorf("DecodeString(%s) = %q %v, want %q %v", tc.body, text, starts, tc.text, tc.starts)
		}
	}
}
