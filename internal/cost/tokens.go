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
// time, each cut where the tokenizer's pre-split cuts too (see cutAt), so
// the sum is the count of the whole; only a chunk with no such place (a
// long run of one base64 word) is cut at a character boundary, which can
// miscount a token at the cut.
func countChunks(b []byte, chunk int) (int, error) {
	total := 0
	for len(b) > 0 {
		end := len(b)
		if end > chunk {
			end = cutAt(b, chunk)
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

// cutAt returns the last place at or before chunk where the tokenizer's
// pre-split cuts whatever follows: right after a letter or a digit,
// before whitespace or a punctuation mark or
// symbol. A word's piece never goes on past those (its one suffix, a
// contraction such as 's, starts with an apostrophe, which is not cut
// before), and whatever follows begins a piece of its own: the
// whitespace, or the punctuation, which may take the letters after it.
// Compact JSON of any script has such places at every quote. Without
// one, the cut is at a character boundary.
func cutAt(b []byte, chunk int) int {
	for p := chunk; p > 0; p-- {
		if !utf8.RuneStart(b[p]) {
			continue
		}
		prev, _ := utf8.DecodeLastRune(b[:p])
		if (b[p] == ' ' || b[p] == '\t') && !unicode.IsSpace(prev) {
			// A space or tab ends any piece but whitespace's.
			return p
		}
		next, _ := utf8.DecodeRune(b[p:])
		if !isSpace(b[p]) && (next == '\'' || unicode.IsLetter(next) || unicode.IsNumber(next) || unicode.IsMark(next) || next == utf8.RuneError) {
			continue
		}
		// Not after a mark: one after punctuation belongs to its piece.
		if unicode.IsLetter(prev) || unicode.IsNumber(prev) {
			return p
		}
	}
	return runeStart(b, chunk)
}
