package cost

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
)

// TokenizerName is the vocabulary every count uses.
const TokenizerName = "o200k_base"

// o200k loads the vocabulary on first use, once per process: building it
// costs milliseconds and megabytes that a command which never prices a
// drift should not pay. The codec is immutable once built, so one value serves
// every goroutine. It comes from the codec package rather than
// tokenizer.Get, whose switch over every encoding would link all five
// vocabularies (megabytes more) into the binary.
var o200k = sync.OnceValue(codec.NewO200kBase)

// CountTokens returns the number of o200k_base tokens in b.
func CountTokens(b []byte) (int, error) {
	return countChunks(b, countChunk)
}

// countChunk is how much text is tokenized at once. The tokenizer's
// memory grows with its input many times over (a 200 MB conversation
// took gigabytes): longer text is counted a chunk at a time.
const countChunk = 1 << 20

// countChunks counts the tokens of b a chunk of at most chunk bytes at a
// time, each cut where the tokenizer's pre-split cuts too (before the
// whitespace after a word or a number: "a b" is "a" and " b"), so the sum
// is the count of the whole; only a chunk with no such place (a long
// base64 blob) is cut at a character boundary, which can miscount a token
// at the cut.
func countChunks(b []byte, chunk int) (int, error) {
	total := 0
	for len(b) > 0 {
		end := len(b)
		if end > chunk {
			// The last run of whitespace that starts within the chunk
			// right after a letter or a digit: a piece of the pre-split
			// never goes on past either into whitespace (punctuation may
			// take the line breaks after it), and the run begins the
			// next piece.
			end = runeStart(b, chunk)
			for p := chunk; p > 0; p-- {
				if !isSpace(b[p]) || isSpace(b[p-1]) {
					continue
				}
				if r, _ := utf8.DecodeLastRune(b[:p]); unicode.IsLetter(r) || unicode.IsNumber(r) {
					end = p
					break
				}
			}
		}
		n, err := o200k().Count(string(b[:end]))
		if err != nil {
			return 0, fmt.Errorf("cost: counting %d bytes with %s: %w", end, TokenizerName, err)
		}
		total += n
		b = b[end:]
	}
	return total, nil
}

// runeStart moves a byte offset back to the start of the UTF-8 sequence it
// falls in, so that neither side of a cut holds half a character (the
// tokenizer would read each half as a replacement character). An offset
// at a character boundary, or in bytes that are not UTF-8, stays put.
func runeStart(b []byte, off int) int {
	if off <= 0 || off >= len(b) || utf8.RuneStart(b[off]) {
		return off
	}
	for i := off - 1; i >= 0 && i > off-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if r, size := utf8.DecodeRune(b[i:]); (r != utf8.RuneError || size > 1) && i+size > off {
				return i
			}
			return off
		}
	}
	return off
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
