package harness

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// bigFixture writes a fixture of about size bytes whose bulk is of the
// given kind.
func bigFixture(t testing.TB, dir, kind string, size int) int {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"description": "big", "config": {"persona": "P.", "model": "m"}, "plugins": [{"name": "p", "tools": [`)
	switch kind {
	case "tools":
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(",\n")
			}
			fmt.Fprintf(&b, `{"name": "t%d", "description": "Tool %d reads a file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}`, i, i)
		}
	case "small-tools":
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"name":"t%d"}`, i)
		}
	case "wide-parameters":
		b.WriteString(`{"name": "t", "parameters": {"type": "object", "properties": {`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"p%d": {"type": "string"}`, i)
		}
		b.WriteString(`}}}`)
	case "description":
		b.WriteString(`{"name": "t", "description": "`)
		b.WriteString(strings.Repeat("x", size))
		b.WriteString(`"}`)
	}
	b.WriteString(`]}], "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]}`)
	if err := os.WriteFile(filepath.Join(dir, "big.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Len()
}

// maxLoadFactor bounds what loading a fixture allocates, in multiples of
// its size (README, "Limits"): the file, the decoded values, nothing that
// grows with the square of anything. A list of tiny tools is the worst
// case: a decoded tool is several times its JSON.
const maxLoadFactor = 8

// TestLoadMemory: loading a large fixture allocates a small multiple of
// its size, whatever its bulk is made of.
func TestLoadMemory(t *testing.T) {
	for _, kind := range []string{"tools", "small-tools", "wide-parameters", "description"} {
		dir := t.TempDir()
		size := bigFixture(t, dir, kind, 8<<20)
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		s, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden")})
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(s)
		factor := float64(m1.TotalAlloc-m0.TotalAlloc) / float64(size)
		t.Logf("%s: %d bytes, allocated %.1fx", kind, size, factor)
		if factor > maxLoadFactor {
			t.Errorf("%s: loading %d bytes allocated %.1fx its size, more than %dx", kind, size, factor, maxLoadFactor)
		}
	}
}
