package canon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
)

// MaxDepth is the deepest nesting the scanners accept.
const maxScanDepth = 10000

// errInvalid is what ScanObject reports for text that is not JSON.
var errInvalid = errors.New("not valid JSON")

// errDeep is what ScanObject reports past the nesting limit.
var errDeep = errors.New("nested deeper than 10000")

// ScanObject validates src as exactly one JSON object (surrounding
// whitespace allowed) in a single pass, and calls fn with the byte spans
// of the raw key and the value of each top-level member, in order. It
// does what a validation pass and a member walk would do together, for
// request bodies whose tool lists are read once. It returns an error for
// text that is not a JSON object, or nested deeper than 10,000.
func ScanObject(src []byte, fn func(keyStart, keyEnd, valStart, valEnd int)) error {
	return ScanObjectKnown(src, nil, fn)
}

// ScanObjectKnown is [ScanObject] for a body that repeats values of one
// scanned before, as an agent's requests repeat their tool list: a
// top-level member's value whose text begins with one of known is taken
// as that value, compared instead of scanned. Each of known must be a
// value that a scan accepted, and only strings, arrays and objects are
// used: such a value ends at its own closing byte, so a scan of text that
// begins with it ends where it ends and accepts it.
func ScanObjectKnown(src []byte, known [][]byte, fn func(keyStart, keyEnd, valStart, valEnd int)) error {
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '{' {
		return errors.New("not a JSON object")
	}
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		i++
	} else {
		for {
			ks := i
			ke, ok := scanKey(src, i)
			if !ok {
				return errInvalid
			}
			vs := skipSpace(src, ke)
			if vs >= len(src) || src[vs] != ':' {
				return errInvalid
			}
			vs = skipSpace(src, vs+1)
			if i = knownAt(src, vs, known); i < 0 {
				var err error
				if i, err = scanValue(src, vs); err != nil {
					return err
				}
			}
			fn(ks, ke, vs, i)
			i = skipSpace(src, i)
			if i >= len(src) {
				return errInvalid
			}
			if src[i] == '}' {
				i++
				break
			}
			if src[i] != ',' {
				return errInvalid
			}
			i = skipSpace(src, i+1)
		}
	}
	if skipSpace(src, i) != len(src) {
		return errInvalid
	}
	return nil
}

// knownAt returns the end of the value of known that src holds at i, or
// -1.
func knownAt(src []byte, i int, known [][]byte) int {
	for _, k := range known {
		if len(k) > 0 && (k[0] == '"' || k[0] == '[' || k[0] == '{') && bytes.HasPrefix(src[i:], k) {
			return i + len(k)
		}
	}
	return -1
}

// The scan keeps its position in a local and calls small functions of
// (src, i): a request body has thousands of short tokens, and their
// per-token cost, not the bytes of long strings, is most of a scan.

func skipSpace(src []byte, i int) int {
	for i < len(src) && src[i] <= ' ' && isSpaceByte(src[i]) {
		i++
	}
	return i
}

// scanKey scans the string at i (after any whitespace), returning the
// index after its closing quote.
func scanKey(src []byte, i int) (int, bool) {
	i = skipSpace(src, i)
	if i >= len(src) || src[i] != '"' {
		return i, false
	}
	return scanString(src, i+1)
}

// scanString scans string text from i, just after the opening quote,
// validating its escapes, and returns the index after the closing quote.
func scanString(src []byte, i int) (int, bool) {
	// Most strings of a request body are keys and short values: the
	// first two words settle them. The lowest flagged byte of a word is
	// exact (a borrow only runs upward from a true match).
	for range 2 {
		if i+8 > len(src) {
			break
		}
		if m := specialBits(binary.LittleEndian.Uint64(src[i:])); m != 0 {
			if j := i + bits.TrailingZeros64(m)>>3; src[j] == '"' {
				return j + 1, true
			}
			break
		}
		i += 8
	}
	return scanLongString(src, i)
}

// scanLongString is scanString for text that goes on: the closing quote
// and each backslash are found by [bytes.IndexByte], which is vectorised,
// and the text between them is checked for control characters a word at
// a time. Each byte is searched once for a quote, once for a backslash
// and once for a control character, so escapes cost no rescans.
func scanLongString(src []byte, i int) (int, bool) {
	for {
		q := bytes.IndexByte(src[i:], '"')
		if q < 0 {
			return len(src), false
		}
		q += i // no quote in [i, q)
		for {
			end := q
			if b := bytes.IndexByte(src[i:q], '\\'); b >= 0 {
				end = i + b
			}
			if hasControl(src[i:end]) {
				return i, false
			}
			if end == q {
				return q + 1, true
			}
			i = end // a backslash, before q
			switch src[i+1] {
			case '"': // the quote at q is escaped
				i = q + 1
			case '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
				continue
			case 'u': // a quote among the four is not hex
				if i+6 > len(src) || !IsHex(src[i+2]) || !IsHex(src[i+3]) || !IsHex(src[i+4]) || !IsHex(src[i+5]) {
					return i, false
				}
				i += 6
				continue
			default:
				return i, false
			}
			break
		}
	}
}

// hasControl reports a byte below 0x20 in b. The flags of all words are
// or-ed and tested once: a flagged byte that is not a control character
// has one below it in the same word, so the union is exact.
func hasControl(b []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var acc uint64
	for len(b) >= 16 {
		x, y := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		acc |= (x-ones*0x20)&^x | (y-ones*0x20)&^y
		b = b[16:]
	}
	if len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		acc |= (x - ones*0x20) &^ x
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return acc&highs != 0
}

// IsHex reports a hexadecimal digit, as a \\u escape has four of.
func IsHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// scanValue scans any value at i and returns the index after it.
// Containers are scanned with an explicit stack, so depth never grows the
// Go stack.
func scanValue(src []byte, i int) (int, error) {
	var buf [32]byte
	stack := buf[:0] // '{' or '['
	var ok bool
	for {
		i = skipSpace(src, i)
		if i >= len(src) {
			return i, errInvalid
		}
		// One scalar or the opening of a container.
		switch c := src[i]; c {
		case '"':
			if i, ok = scanString(src, i+1); !ok {
				return i, errInvalid
			}
		case '{', '[':
			if len(stack)+1 >= maxScanDepth { // the object holding the member is one level
				return i, errDeep
			}
			i = skipSpace(src, i+1)
			if i < len(src) && src[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = scanColon(src, i); !ok {
					return i, errInvalid
				}
			}
			continue
		case 't':
			if i, ok = scanLit(src, i, "true"); !ok {
				return i, errInvalid
			}
		case 'f':
			if i, ok = scanLit(src, i, "false"); !ok {
				return i, errInvalid
			}
		case 'n':
			if i, ok = scanLit(src, i, "null"); !ok {
				return i, errInvalid
			}
		default:
			if i, ok = scanNum(src, i); !ok {
				return i, errInvalid
			}
		}
		// After a value: close containers or go on to the next member.
		for {
			if len(stack) == 0 {
				return i, nil
			}
			i = skipSpace(src, i)
			if i >= len(src) {
				return i, errInvalid
			}
			top := stack[len(stack)-1]
			c := src[i]
			if c == ',' {
				i++
				if top == '{' {
					if i, ok = scanColon(src, i); !ok {
						return i, errInvalid
					}
				}
				break
			}
			if c != top+2 {
				return i, errInvalid
			}
			stack = stack[:len(stack)-1]
			i++
		}
	}
}

// scanColon scans `"key":` inside an object.
func scanColon(src []byte, i int) (int, bool) {
	i, ok := scanKey(src, i)
	if !ok {
		return i, false
	}
	i = skipSpace(src, i)
	if i >= len(src) || src[i] != ':' {
		return i, false
	}
	return i + 1, true
}

func scanLit(src []byte, i int, word string) (int, bool) {
	if len(src)-i < len(word) || string(src[i:i+len(word)]) != word {
		return i, false
	}
	return i + len(word), true
}

// scanNum scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func scanNum(src []byte, i int) (int, bool) {
	if i < len(src) && src[i] == '-' {
		i++
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case i < len(src) && '1' <= src[i] && src[i] <= '9':
		i = digits(src, i)
	default:
		return i, false
	}
	if i < len(src) && src[i] == '.' {
		if j := digits(src, i+1); j > i+1 {
			i = j
		} else {
			return i, false
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := digits(src, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

func digits(src []byte, i int) int {
	for i < len(src) && '0' <= src[i] && src[i] <= '9' {
		i++
	}
	return i
}

// specialBits is nonzero when a byte of x is '"', '\\' or below 0x20,
// with the usual bit tricks for "has a zero byte" (x^'"', x^'\\') and
// "has a byte less than 0x20", their high-bit masks taken once.
func specialBits(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := x^(ones*'"'), x^(ones*'\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & highs
}
