package cost

import (
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

// TokenizerName is the vocabulary every count uses.
const TokenizerName = "o200k_base"

// o200k loads the vocabulary on first use, once per process: building it
// takes tens of milliseconds and megabytes that a command which never
// prices a drift should not pay. The codec is immutable once built, so
// one value serves every goroutine.
var o200k = sync.OnceValues(func() (tokenizer.Codec, error) {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("cost: loading the %s vocabulary: %w", TokenizerName, err)
	}
	return c, nil
})

// CountTokens returns the number of o200k_base tokens in b.
func CountTokens(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c, err := o200k()
	if err != nil {
		return 0, err
	}
	n, err := c.Count(string(b))
	if err != nil {
		return 0, fmt.Errorf("cost: counting %d bytes with %s: %w", len(b), TokenizerName, err)
	}
	return n, nil
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
