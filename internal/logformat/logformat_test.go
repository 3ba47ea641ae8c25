package logformat

import (
	"fmt"
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for log, want := range map[string]string{
		"":              "",
		"a\n":           `1:"a\n" `,
		"a\nb":          `1:"a\n" 2:"b" `,
		"a\n\nb\n":      `1:"a\n" 2:"\n" 3:"b\n" `,
		"{\"x\":1}\n{}": `1:"{\"x\":1}\n" 2:"{}" `,
	} {
		var b strings.Builder
		for n, line := range Lines([]byte(log)) {
			fmt.Fprintf(&b, "%d:%q ", n, line)
		}
		if b.String() != want {
			t.Errorf("Lines(%q) = %s, want %s", log, b.String(), want)
		}
	}
	// Stopping early stops the iteration.
	count := 0
	for range Lines([]byte("a\nb\nc\n")) {
		count++
		break
	}
	if count != 1 {
		t.Errorf("%d lines after break", count)
	}
}
