package canon

import (
	"math/rand/v2"
	"testing"

	"github.com/tidwall/gjson"
)

func TestSkipValue(t *testing.T) {
	for src, want := range map[string]int{
		`"a"`: 3, `"a\"b"x`: 6, `"a\\"x`: 5, `"a\\\"b"`: 8, ` [1,"]",{"}":[]}] `: 17, `{}`: 2, `12.5,`: 4, `true}`: 4,
		`null`: 4, `"`: -1, `[1,2`: -1, `{"a":"}`: -1, ``: -1, `   `: -1,
	} {
		if got := SkipValue([]byte(src), 0); got != want {
			t.Errorf("SkipValue(%q) = %d, want %d", src, got, want)
		}
	}
}

// SkipValue agrees with gjson on the end of every value of random valid
// documents.
func TestSkipValueAgreesWithGjson(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		doc := randomJSON(rng, 0)
		v := gjson.Parse(doc)
		if got := SkipValue([]byte(doc), 0); got != v.Index+len(v.Raw) {
			t.Fatalf("SkipValue(%s) = %d, gjson says %d", doc, got, v.Index+len(v.Raw))
		}
	}
}

func randomJSON(rng *rand.Rand, depth int) string {
	switch k := rng.IntN(7); {
	case depth > 4 || k < 3:
		return [...]string{`"x"`, `"a\\"`, `"\"q\""`, `"\\\\\""`, `-1.5e3`, `0`, `true`, `false`, `null`, `"]}"`}[rng.IntN(10)]
	case k < 5:
		s := "{"
		for i := range rng.IntN(4) {
			if i > 0 {
				s += ","
			}
			s += `"k\"` + string(rune('a'+i)) + `": ` + randomJSON(rng, depth+1)
		}
		return s + "}"
	default:
		s := "[ "
		for i := range rng.IntN(4) {
			if i > 0 {
				s += " , "
			}
			s += randomJSON(rng, depth+1)
		}
		return s + "]"
	}
}

func TestMembers(t *testing.T) {
	src := []byte(` { "a" : 1 , "b\"":[1,{"x":"}"}],"c":{} } `)
	var got []string
	ok := Members(src, 0, func(key []byte, s, e int) bool {
		got = append(got, string(key)+"="+string(src[s:e]))
		return true
	})
	want := `"a"=1 "b\""=[1,{"x":"}"}] "c"={}`
	if !ok || joinSpace(got) != want {
		t.Errorf("Members = %v %q, want %q", ok, joinSpace(got), want)
	}
	if Members([]byte(`[1]`), 0, func([]byte, int, int) bool { return true }) {
		t.Error("Members accepted an array")
	}
	if Members([]byte(`{"a":1`), 0, func([]byte, int, int) bool { return true }) {
		t.Error("Members accepted an unclosed object")
	}
}

// Walk gives each member's value start and takes its end from fn, so a
// caller can walk into it; it agrees with Members, and refuses what
// Members refuses, or a value fn cannot read.
func TestWalk(t *testing.T) {
	src := []byte(` { "a" : 1 , "b\"":[1,{"x":"}"}],"c":{"d":{"e":"}"}} } `)
	var got []string
	var walk func(i int) int
	walk = func(i int) int {
		return Walk(src, i, func(key []byte, s int) int {
			if src[s] == '{' {
				got = append(got, string(key)+"{")
				return walk(s)
			}
			e := SkipValue(src, s)
			got = append(got, string(key)+"="+string(src[s:e]))
			return e
		})
	}
	end := walk(0)
	if want := `"a"=1 "b\""=[1,{"x":"}"}] "c"{ "d"{ "e"="}"`; end != len(src)-1 || joinSpace(got) != want {
		t.Errorf("Walk = %d %q, want %d %q", end, joinSpace(got), len(src)-1, want)
	}
	skip := func(key []byte, s int) int { return SkipValue(src, s) }
	for _, bad := range []string{`[1]`, `{"a":1`, `{"a":`, `{"a"`, ``} {
		src = []byte(bad)
		if end := Walk(src, 0, skip); end >= 0 {
			t.Errorf("Walk(%s) = %d, want -1", bad, end)
		}
	}
	if end := Walk([]byte(`{"a":1}`), 0, func([]byte, int) int { return -1 }); end >= 0 {
		t.Errorf("Walk went on after fn stopped: %d", end)
	}
}

func joinSpace(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
