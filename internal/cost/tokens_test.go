package cost

import (
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The expected counts below were computed with OpenAI's own tiktoken
// (the npm package tiktoken 1.0.22, WASM bindings of its Rust core, with
// its bundled o200k_base), not with the tokenizer under test.

func TestCountTokensKnownStrings(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2}, // [24912 2375]
		{"Hello, world!", 4},
		{`{"name":"get_weather"}`, 6},
		{`[{"name":"a"}]`, 7},
		{`[{"role":"user","content":"hello"}]`, 11},
		{"café au lait", 4},
	} {
		got, err := CountTokens([]byte(tc.text))
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestCountTokensRealSegments(t *testing.T) {
	r := firstAnthropic(t)
	for _, tc := range []struct {
		name string
		b    []byte
		want int
	}{
		{"tools", r.Tools, 1866},
		{"system", r.System, 103},
		{"messages", r.Messages, 938},
		{"tools[:1]", r.Tools[:1], 1},
		{"tools[1:]", r.Tools[1:], 1865},
		{"tools[:11]", r.Tools[:11], 5},
		{"tools[11:]", r.Tools[11:], 1862},
		{"tools[:8139]", r.Tools[:8139], 1766},
		{"tools[8139:]", r.Tools[8139:], 100},
	} {
		got, err := CountTokens(tc.b)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.name, got, tc.want)
		}
	}
}

func TestCountTokensConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			n, err := CountTokens([]byte("hello world"))
			if err == nil && n != 2 {
				t.Errorf("got %d tokens, want 2", n)
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestRuneStart(t *testing.T) {
	b := []byte("aé€😀z") // 1 + 2 + 3 + 4 + 1 bytes
	for _, tc := range []struct{ off, want int }{
		{0, 0}, {1, 1}, {2, 1}, {3, 3}, {4, 3}, {5, 3}, {6, 6}, {7, 6}, {8, 6}, {9, 6}, {10, 10}, {11, 11},
	} {
		if got := runeStart(b, tc.off); got != tc.want {
			t.Errorf("runeStart(%q, %d) = %d, want %d", b, tc.off, got, tc.want)
		}
	}
	bad := []byte{'a', 0x80, 0x80, 'b'} // continuation bytes with no lead byte
	for off := range len(bad) + 1 {
		if got := runeStart(bad, off); got != off {
			t.Errorf("runeStart(invalid, %d) = %d, want it unchanged", off, got)
		}
	}
}

// Counted a chunk at a time, cut where the tokenizer's pre-split cuts,
// text counts as it does whole: words and spaces, compact JSON in CJK,
// code, emoji, contractions, combining marks.
func TestCountChunksAsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	vocab := map[string][]string{
		"words":    {"tool", " the", "\n", "  ", "é", "JSON", "{\"a\":1}", "1234567", "\t", "naïve", "  \n  ", "x", "it's", "I'LL"},
		"cjk json": {`{"role":"user","content":"`, "中文", "日本語の", "。", "、", `"},`, "한국어", "１２３", "「", "」"},
		"code":     {"func ", "main", "() {", "\n\t", "x := ", "42", "\n}", "/*", "*/", "//", "a.b", "+=", "'s'", "e\u0301", "!\u0301"},
		"emoji":    {"👍", "🇳🇴", "👨‍👩‍👧", " ok", "!", "🎉🎉", "a", "\n"},
	}
	for _, name := range slices.Sorted(maps.Keys(vocab)) {
		words := vocab[name]
		var b []byte
		for n := 0; len(b) < 60_000; n++ {
			b = append(b, words[rng.IntN(len(words))]...)
			// A space at least every third word: every chunk, even of 97
			// bytes, then has a place to cut (see the test below for one
			// that has none).
			if rng.IntN(5) == 0 || n%3 == 2 {
				b = append(b, ' ')
			}
		}
		whole, err := o200k().Count(string(b))
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{97, 4096, 1 << 20} {
			got, err := countChunks(b, chunk)
			if err != nil || got != whole {
				t.Errorf("%s, chunk %d: %d tokens, %v; whole: %d", name, chunk, got, err, whole)
			}
		}
	}
}

// A chunk with no place to cut (a long run of emoji) is cut at a
// character boundary, which can miscount the token at the cut: at most one
// token per cut either way.
func TestCountChunksWithoutACut(t *testing.T) {
	b := []byte(strings.Repeat("👍🎉👨‍👩‍👧🇳🇴", 2000))
	whole, err := o200k().Count(string(b))
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 4096
	got, err := countChunks(b, chunk)
	if cuts := len(b) / chunk; err != nil || got < whole-cuts || got > whole+cuts {
		t.Errorf("%d tokens, %v; whole %d, %d cuts", got, err, whole, cuts)
	}
}

// Text exactly one chunk long is counted whole, with no cut (cutting
// would read past its end); one byte longer, it is cut where the
// pre-split cuts. "hello world" is 2 tokens whole, [hello][ world].
func TestCountChunksAtTheBoundary(t *testing.T) {
	b := []byte("hello world")
	for _, chunk := range []int{len(b) + 1, len(b), len(b) - 1, 6} {
		got, err := countChunks(b, chunk)
		if err != nil || got != 2 {
			t.Errorf("countChunks(%q, %d) = %d, %v; want 2", b, chunk, got, err)
		}
	}
}
