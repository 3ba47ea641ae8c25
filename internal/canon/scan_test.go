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

// The nesting limit is encoding/json's, counting the body's own object:
// 10,000 levels in all pass, 10,001 do not.
func TestScanObjectDepthBoundary(t *testing.T) {
	for _, inner := range []int{9998, 9999, 10000} {
		doc := []byte(`{"a":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`)
		want := json.Valid(doc)
		if got := ScanObject(doc, func(int, int, int, int) {}) == nil; got != want {
			t.Errorf("%d levels: valid = %v, encoding/json says %v", inner+1, got, want)
		}
		if inner == 9999 && !want {
			t.Errorf("encoding/json refuses 10,000 levels; the limit moved")
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

// special8 reports whether any byte of x is '"', '\\' or below 0x20.
func special8(x uint64) bool { return specialBits(x) != 0 }

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

// scanResult is what a scan says of a text: its members' spans, or that
// it is not a JSON object.
func scanResult(src []byte, known [][]byte) string {
	var b strings.Builder
	err := ScanObjectKnown(src, known, func(ks, ke, vs, ve int) { fmt.Fprintf(&b, "%d:%d=%d:%d ", ks, ke, vs, ve) })
	if err != nil {
		return "error: " + err.Error()
	}
	return b.String()
}

// membersOf returns the member values of an object a scan accepted.
func membersOf(src []byte) [][]byte {
	var vals [][]byte
	if ScanObject(src, func(_, _, vs, ve int) { vals = append(vals, src[vs:ve]) }) != nil {
		return nil
	}
	return vals
}

// A scan that is told values it saw before says of every text what a
// plain scan says, including texts that repeat a known value and then go
// wrong right after it.
func TestScanObjectKnownAgrees(t *testing.T) {
	cases := []struct{ src, known string }{
		{`{"a":123}`, `12`},     // numbers are not self-delimiting: not used
		{`{"a":truex}`, `true`}, // nor literals
		{`{"a":[1]x}`, `[1]`},   // the text after a known value is still scanned
		{`{"a":[1],"b":[1]}`, `[1]`},
		{`{"a":[1,2]}`, `[1]`}, // a known value that is not a prefix
		{`{"a":{"b":[]}}`, `{"b":[]}`},
	}
	for _, c := range cases {
		got, want := scanResult([]byte(c.src), [][]byte{[]byte(c.known)}), scanResult([]byte(c.src), nil)
		if got != want {
			t.Errorf("%s knowing %s: %s, a plain scan says %s", c.src, c.known, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	hits := 0
	for range 5000 {
		// A previous body, and a next one made of some of its values
		// and new ones, then cut or flipped.
		var prev, next strings.Builder
		prev.WriteByte('{')
		n := 1 + rng.IntN(4)
		for i := range n {
			if i > 0 {
				prev.WriteByte(',')
			}
			fmt.Fprintf(&prev, `"k%d":%s`, i, randomJSON(rng, 0))
		}
		prev.WriteByte('}')
		known := membersOf([]byte(prev.String()))
		next.WriteByte('{')
		for i := range 1 + rng.IntN(4) {
			if i > 0 {
				next.WriteByte(',')
			}
			v := randomJSON(rng, 0)
			if rng.IntN(2) == 0 {
				v = string(known[rng.IntN(len(known))])
			}
			fmt.Fprintf(&next, `"k%d":%s`, i, v)
		}
		next.WriteByte('}')
		b := []byte(next.String())
		switch rng.IntN(3) {
		case 0:
			b = b[:rng.IntN(len(b)+1)]
		case 1:
			flips := "{}[]\",:0a\\ "
			b[rng.IntN(len(b))] = flips[rng.IntN(len(flips))]
		}
		got, want := scanResult(b, known), scanResult(b, nil)
		if got != want {
			t.Fatalf("%s knowing %q: %s, a plain scan says %s", b, known, got, want)
		}
		for _, k := range known {
			if len(k) > 0 && strings.ContainsRune(`"[{`, rune(k[0])) && strings.Contains(string(b), ":"+string(k)) {
				hits++
				break
			}
		}
	}
	if hits < 1000 {
		t.Errorf("only %d of 5000 texts repeated a known value: the test checks too little", hits)
	}
}

func FuzzScanObjectKnown(f *testing.F) {
	f.Add([]byte(`{"a":[1,{"b":"c"}],"d":"x"}`), []byte(`{"a":[1,{"b":"c"}],"d":"x","e":1}`))
	f.Add([]byte(`{"a":"q"}`), []byte(`{"a":"q"x}`))
	f.Fuzz(func(t *testing.T, prev, next []byte) {
		known := membersOf(prev)
		if got, want := scanResult(next, known), scanResult(next, nil); got != want {
			t.Fatalf("%q knowing %q: %s, a plain scan says %s", next, known, got, want)
		}
	})
}
