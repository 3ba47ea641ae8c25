package canon_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
)

// FuzzCompact checks, for any input:
//   - Compact is idempotent and its output is valid JSON;
//   - Indent of the output compacts back to the output;
//   - what encoding/json accepts (valid UTF-8) Compact accepts, and what
//     Compact accepts encoding/json accepts;
//   - both texts decode (encoding/json, into any) to equal values.
//
// Run with: go test -fuzz FuzzCompact ./internal/canon
func FuzzCompact(f *testing.F) {
	for _, tc := range compactCases {
		f.Add([]byte(tc.in))
	}
	for _, tc := range syntaxCases {
		f.Add([]byte(tc.in))
	}
	g := newJSONGen(7)
	for range 50 {
		f.Add([]byte(g.text()))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := canon.Compact(nil, in)
		goValid := json.Valid(in) && utf8.Valid(in)
		if err != nil {
			if goValid {
				t.Fatalf("encoding/json accepts %q but Compact fails: %v", in, err)
			}
			return
		}
		// Compact nests up to one level deeper than encoding/json allows;
		// inputs that short cannot reach either limit.
		if !goValid && len(in) < 10000 {
			t.Fatalf("Compact accepts %q (as %q) but encoding/json rejects it", in, out)
		}
		if !json.Valid(out) {
			t.Fatalf("Compact(%q) = %q, not valid JSON", in, out)
		}
		again, err := canon.Compact(nil, out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: Compact(%q) = %q, Compact of that = %q (%v)", in, out, again, err)
		}
		ind, err := canon.Indent(nil, in, "  ")
		if err != nil {
			t.Fatalf("Indent(%q): %v", in, err)
		}
		if back, err := canon.Compact(nil, ind); err != nil || !bytes.Equal(back, out) {
			t.Fatalf("Compact(Indent(%q)) = %q (%v), want %q", in, back, err, out)
		}
		var vIn, vOut any
		if json.Unmarshal(in, &vIn) != nil {
			return // e.g. 1e400, which encoding/json cannot hold in a float64
		}
		if err := json.Unmarshal(out, &vOut); err != nil {
			t.Fatalf("Compact(%q) = %q does not decode: %v", in, out, err)
		}
		if !reflect.DeepEqual(vIn, vOut) {
			t.Fatalf("Compact(%q) = %q decodes to %#v, want %#v", in, out, vOut, vIn)
		}
	})
}
