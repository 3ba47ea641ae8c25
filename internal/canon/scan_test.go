package canon

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestScanObjectMembers(t *testing.T) {
	src := []byte(` {"a" : 1 , "b\"":[1,{"x":"}"}], "c":{}} `)
	var got []string
	err := ScanObject(src, func(ks, ke, vs, ve int) {
		got = append(got, string(src[ks:ke])+"="+string(src[vs:ve]))
	})
	if err != nil || strings.Join(got, " ") != `"a"=1 "b\""=[1,{"x":"}"}] "c"={}` {
		t.Errorf("ScanObject = %q, %v", got, err)
	}
}

// ScanObject accepts exactly the objects encoding/json accepts.
func TestScanObjectValidity(t *testing.T) {
	cases := []string{`{}`, `{"a":[]}`, `{"a":-0.5e+3}`, `{"a":"\u00e9\n"}`, `{"a":tru}`, `{"a":01}`, `{"a":1.}`, `{"a":"\x"}`,
		`{"a":"` + "\x01" + `"}`, `{"a":1,}`, `{"a" 1}`, `{"a":[1,]}`, `{"a":[1 2]}`, `{"a":{"b":1}`, `{"a":1}}`, `[1]`, `"x"`, ``,
		`{"a":"\ud800"}`, `{"a":nul}`, `{"a":[{},{}],"b":{"c":[true,false,null]}}`, `{"a":1e}`, `{"a":-}`, `{"a":"é"}`, "{\"a\":\"\xff\"}"}
	for _, c := range cases {
		want := json.Valid([]byte(c)) && strings.HasPrefix(strings.TrimSpace(c), "{")
		if c == "{\"a\":\"\xff\"}" {
			want = true // invalid UTF-8 is left to the provider, as gjson does
		}
		got := ScanObject([]byte(c), func(int, int, int, int) {}) == nil
		if got != want {
			t.Errorf("ScanObject(%q) valid = %v, want %v", c, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		doc := `{"k":` + randomJSON(rng, 0) + `}`
		// Random cuts and byte flips of valid documents.
		b := []byte(doc)
		if rng.IntN(2) == 0 {
			b = b[:rng.IntN(len(b)+1)]
		} else {
			flips := "{}[]\",:0a\\ "
			b[rng.IntN(len(b))] = flips[rng.IntN(len(flips))]
		}
		want := json.Valid(b) && gjson.ParseBytes(b).IsObject()
		if got := ScanObject(b, func(int, int, int, int) {}) == nil; got != want {
			t.Fatalf("ScanObject(%q) valid = %v, encoding/json says %v", b, got, want)
		}
	}
}

func TestScanObjectDepth(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	err := ScanObject([]byte(deep), func(int, int, int, int) {})
	if err == nil || !strings.Contains(err.Error(), "deeper than 10000") {
		t.Errorf("deep input: %v", err)
	}
}

func FuzzScanObject(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c"}],"d":"\u0041"}`))
	f.Add([]byte(` {"a" : -0.5e3 } `))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := ScanObject(b, func(int, int, int, int) {}) == nil
		want := json.Valid(b) && strings.HasPrefix(strings.TrimLeft(string(b), " \t\r\n"), "{")
		if got != want {
			t.Fatalf("ScanObject(%q) valid = %v, encoding/json says %v", b, got, want)
		}
	})
}

func TestSpecial8(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := c == '"' || c == '\\' || c < 0x20
		for pos := range 8 {
			b := []byte("abcdefgh")
			b[pos] = byte(c)
			x := uint64(0)
			for i := 7; i >= 0; i-- {
				x = x<<8 | uint64(b[i])
			}
			if got := special8(x); got != want {
				t.Fatalf("special8 with %#x at %d = %v, want %v", c, pos, got, want)
			}
		}
	}
}

// scanBody is an Anthropic request body with about size bytes of tool
// definitions, the shape the fake provider validates most.
func scanBody(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"You are a careful agent.","tools":[`)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%03d","description":"%s","input_schema":{"type":"object","properties":{"path":{"type":"string","description":"Where to look."},"limit":{"type":"integer","minimum":1}},"required":["path"]}}`,
			i, strings.Repeat("Does one careful thing. ", 16))
	}
	b.WriteString(`],"messages":[{"role":"user","content":"List the files."}]}`)
	return []byte(b.String())
}

func BenchmarkScanObject(b *testing.B) {
	src := scanBody(50 << 10)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if err := ScanObject(src, func(int, int, int, int) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// Strings long enough to leave the one-word path, with an escape, a
// control character, a quote or the end of input at every position: the
// cases where the vectorised search and the word checks must agree.
func TestScanObjectLongStrings(t *testing.T) {
	inserts := []string{`\"`, `\\`, `\n`, `\u00e9`, `\u00"9`, `\x`, "\x01", "\x1f", `"`, `\`, "é", "\x7f", " "}
	for n := 0; n <= 40; n++ {
		text := strings.Repeat("abcdefgh", 6)[:n]
		for at := 0; at <= n; at++ {
			for _, ins := range inserts {
				for _, tail := range []string{`"}`, `"`, ``, `","b":[]}`} {
					doc := `{"a":"` + text[:at] + ins + text[at:] + tail
					want := json.Valid([]byte(doc))
					if got := ScanObject([]byte(doc), func(int, int, int, int) {}) == nil; got != want {
						t.Fatalf("ScanObject(%q) valid = %v, encoding/json says %v", doc, got, want)
					}
				}
			}
		}
	}
	// Members after long escaped strings are found where they are.
	src := []byte(`{"a":"` + strings.Repeat(`x\"y`, 20) + `","b":"` + strings.Repeat("z", 30) + `\\"}`)
	var keys []string
	if err := ScanObject(src, func(ks, ke, vs, ve int) { keys = append(keys, string(src[ks:ke])+"@"+fmt.Sprint(ve-vs)) }); err != nil {
		t.Fatal(err)
	}
	if want := []string{`"a"@82`, `"b"@34`}; fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Errorf("members = %v, want %v", keys, want)
	}
}
