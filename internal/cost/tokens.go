package cost

import (
	"fmt"
	"sync"
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
	if len(b) == 0 {
		return 0, nil
	}
	n, err := o200k().Count(string(b))
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
