package assembler

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

// fuzzParameters are the parameters a fuzzed tool takes, by index: none,
// or a canonical schema.
var fuzzParameters = []json.RawMessage{nil, json.RawMessage(`{"type":"object"}`), json.RawMessage(`{"b":1,"a":"é"}`), json.RawMessage(`[1,2]`)}

// toolLayout writes a tool's fields member by member, each string through
// canon.AppendString. In the canonical layout, the one a registered
// tool's parts must make, the name comes first and an empty description
// is left out; otherwise the description comes first and is written even
// when empty, a layout only a parsed header gives.
func toolLayout(t Tool, canonical bool) []byte {
	b := []byte{'{'}
	member := func(key string, value []byte) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(b, key...), value...)
	}
	name, description := canon.AppendString(nil, t.Name), canon.AppendString(nil, t.Description)
	if canonical {
		member(`"name":`, name)
		if t.Description != "" {
			member(`"description":`, description)
		}
	} else {
		member(`"description":`, description)
		member(`"name":`, name)
	}
	if len(t.Parameters) > 0 {
		member(`"parameters":`, t.Parameters)
	}
	return append(b, '}')
}

// FuzzToolBytes holds a registered tool's bytes, written from its parts,
// to the member-by-member layout, or a parsed header's tool to the bytes it
// was given; its size to their length; its escaped copies to the strings
// that need them; and sameJSON to comparing two tools' bytes.
func FuzzToolBytes(f *testing.F) {
	f.Add("read", "Read a file.", uint8(1), "read", "Read a file.", uint8(1))
	f.Add("read", "", uint8(0), "read", "Read a file.", uint8(0))
	f.Add("q\"x", "a\nb\\c\x00\xff", uint8(2), "q\"x", "a\nb\\c\x00\xff", uint8(2))
	f.Add("é\U0001F600", "\u2028", uint8(3), "é\U0001F600", "\u2028", uint8(1))
	f.Add("a", "b", uint8(0), "a\"", "b", uint8(0))
	f.Add("read", "", uint8(1), "read", "", uint8(5))
	f.Add("read", "Read.", uint8(2), "read", "Read.", uint8(6))
	f.Add("read", "Read.", uint8(6), "read", "Read.", uint8(6))
	f.Fuzz(func(t *testing.T, n1, d1 string, p1 uint8, n2, d2 string, p2 uint8) {
		var cs [2]canonicalTool
		for i, tool := range []Tool{
			{Name: n1, Description: d1, Parameters: fuzzParameters[int(p1)%len(fuzzParameters)]},
			{Name: n2, Description: d2, Parameters: fuzzParameters[int(p2)%len(fuzzParameters)]},
		} {
			c, err := canonicalize(tool, "p")
			if tool.Name == "" {
				if err == nil {
					t.Fatal("a tool with an empty name was accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := toolLayout(tool, true)
			if []uint8{p1, p2}[i]&4 != 0 {
				// The tool as a parsed header gives it, its
				// description first: bytes not in the canonical
				// layout, which the tool keeps as they are.
				want = toolLayout(tool, false)
				h, err := ParseHeader(append(append([]byte(`{"config":{},"tools":[`), want...), "]}"...))
				if err != nil {
					t.Fatal(err)
				}
				c = *h.tools[0]
				if c.raw() == nil {
					t.Fatalf("parsed tool %s: bytes not kept", want)
				}
			}
			if got := c.json(); !bytes.Equal(got, want) {
				t.Fatalf("tool %d: bytes %q, want %q", i, got, want)
			}
			if c.size() != len(want) {
				t.Fatalf("tool %d: size %d, want %d", i, c.size(), len(want))
			}
			plain := string(canon.AppendString(nil, tool.Name)) == `"`+tool.Name+`"` &&
				string(canon.AppendString(nil, tool.Description)) == `"`+tool.Description+`"`
			if (c.alt == nil) != plain && c.raw() == nil {
				t.Fatalf("tool %d: escaped copies held: %v, but the strings need escapes: %v", i, c.alt != nil, !plain)
			}
			cs[i] = c
		}
		if got, want := sameJSON(&cs[0], &cs[1]), bytes.Equal(cs[0].json(), cs[1].json()); got != want {
			t.Fatalf("sameJSON = %v, but the bytes are equal: %v (%q, %q)", got, want, cs[0].json(), cs[1].json())
		}
	})
}
