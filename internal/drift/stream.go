package drift

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
)

// streamValidator checks, a chunk at a time, that a line is one JSON
// object, for the long events of a session log that are dropped as they
// are read (see the package documentation) and so are never held whole:
// every line of an input is validated, and these must not be the
// exception. It accepts what canon.ScanObject accepts, with the same
// nesting limit; its stack is one byte per level, so its memory is
// bounded by MaxDepth whatever the line's length.
type streamValidator struct {
	stack []byte // '{' or '[' per open container
	state byte
	key   bool   // the string being read is an object key
	esc   int8   // in a string: -1 after a backslash, 1..4 hex digits to read
	lit   string // the rest of a literal being read
	chars int    // characters of the chunks fed before the current one
	err   string // what is wrong, "" while valid
	at    int    // the column (1-based, in characters) of the error
	deep  bool   // the error is the nesting limit, not invalid JSON
}

// States of a streamValidator.
const (
	svStart    = iota // nothing read yet: an object must open
	svValue           // a value must come (after ':' or ',' in an array)
	svFirst           // after '[': a value or ']'
	svKeyFirst        // after '{': a key or '}'
	svKey             // after ',' in an object: a key
	svColon           // after a key
	svAfter           // after a value: ',' or a close (only space at the top)
	svString
	svLit
	svNumSign // after '-'
	svNumZero // after a leading 0
	svNumInt  // in the integer digits
	svNumDot  // after '.'
	svNumFrac // in the fraction digits
	svNumE    // after 'e'
	svNumESign
	svNumExp // in the exponent digits
)

// reset prepares v for a new line, keeping its stack's memory.
func (v *streamValidator) reset() {
	*v = streamValidator{stack: v.stack[:0]}
}

// fail records the first error, at byte i of the chunk c.
func (v *streamValidator) fail(c []byte, i int, format string, args ...any) {
	if v.err == "" {
		v.err = fmt.Sprintf(format, args...)
		v.at = v.chars + utf8.RuneCount(c[:min(i, len(c))]) + 1
	}
}

// feed validates the next chunk of the line. After an error it does
// nothing; finish reports it.
func (v *streamValidator) feed(c []byte) {
	if v.err != "" {
		return
	}
	q := -1 // the next quote at or after i in c (len(c) if none), -1 until needed
	for i := 0; i < len(c); {
		b := c[i]
		switch v.state {
		case svString:
			if v.esc != 0 {
				if !v.escape(b) {
					v.fail(c, i, "invalid escape in string")
					return
				}
				i++
				continue
			}
			// The string's text up to its closing quote, a backslash or
			// the end of the chunk, at IndexByte's speed.
			// The quote is searched once per quote, not once per escape,
			// so a long string with many escapes is read in linear time.
			if q < i {
				if q = bytes.IndexByte(c[i:], '"'); q < 0 {
					q = len(c)
				} else {
					q += i
				}
			}
			end := q
			if k := bytes.IndexByte(c[i:end], '\\'); k >= 0 {
				end = i + k
			}
			if k := controlAt(c[i:end]); k >= 0 {
				v.fail(c, i+k, "control character in string")
				return
			}
			i = end
			if i == len(c) {
				continue
			}
			if c[i] == '\\' {
				v.esc = -1
			} else if v.key {
				v.state = svColon
			} else {
				v.state = svAfter
			}
			i++
			continue
		case svLit:
			if b != v.lit[0] {
				v.fail(c, i, "invalid literal")
				return
			}
			if v.lit = v.lit[1:]; v.lit == "" {
				v.state = svAfter
			}
			i++
			continue
		case svNumSign, svNumZero, svNumInt, svNumDot, svNumFrac, svNumE, svNumESign, svNumExp:
			if v.number(b) {
				i++
				continue
			}
			if !numberEnds(v.state) {
				v.fail(c, i, "invalid number")
				return
			}
			v.state = svAfter // b is read again after the number
			continue
		}
		if b == ' ' || b == '\t' || b == '\n' || b == '\r' {
			i++
			continue
		}
		switch v.state {
		case svStart:
			if b != '{' {
				v.fail(c, i, "not a JSON object")
				return
			}
			v.open(c, i, b)
		case svValue, svFirst:
			switch {
			case b == ']' && v.state == svFirst:
				v.close(c, i, b)
			case b == '{' || b == '[':
				v.open(c, i, b)
			case b == '"':
				v.state, v.key = svString, false
			case b == 't':
				v.state, v.lit = svLit, "rue"
			case b == 'f':
				v.state, v.lit = svLit, "alse"
			case b == 'n':
				v.state, v.lit = svLit, "ull"
			case b == '-':
				v.state = svNumSign
			case b == '0':
				v.state = svNumZero
			case '1' <= b && b <= '9':
				v.state = svNumInt
			default:
				v.fail(c, i, "invalid character %q looking for a value", b)
				return
			}
		case svKeyFirst, svKey:
			switch {
			case b == '}' && v.state == svKeyFirst:
				v.close(c, i, b)
			case b == '"':
				v.state, v.key = svString, true
			default:
				v.fail(c, i, "invalid character %q looking for an object key", b)
				return
			}
		case svColon:
			if b != ':' {
				v.fail(c, i, "invalid character %q after an object key", b)
				return
			}
			v.state = svValue
		case svAfter:
			switch {
			case len(v.stack) == 0:
				v.fail(c, i, "invalid character %q after the top-level value", b)
				return
			case b == ',' && v.stack[len(v.stack)-1] == '{':
				v.state = svKey
			case b == ',':
				v.state = svValue
			case b == '}' || b == ']':
				v.close(c, i, b)
			default:
				v.fail(c, i, "invalid character %q after a value", b)
				return
			}
		}
		if v.err != "" {
			return
		}
		i++
	}
	v.chars += utf8.RuneCount(c)
}

// open enters the object or array that b opens.
func (v *streamValidator) open(c []byte, i int, b byte) {
	if len(v.stack) >= MaxDepth {
		v.fail(c, i, "nesting deeper than the limit of %d", MaxDepth)
		v.deep = true
		return
	}
	v.stack = append(v.stack, b)
	if b == '{' {
		v.state = svKeyFirst
	} else {
		v.state = svFirst
	}
}

// close leaves the container that b closes.
func (v *streamValidator) close(c []byte, i int, b byte) {
	if n := len(v.stack); n == 0 || v.stack[n-1]+2 != b { // '}' is '{'+2, ']' is '['+2
		v.fail(c, i, "invalid character %q", b)
		return
	}
	v.stack = v.stack[:len(v.stack)-1]
	v.state = svAfter
}

// escape reads one byte of an escape sequence.
func (v *streamValidator) escape(b byte) bool {
	if v.esc > 0 {
		if !canon.IsHex(b) {
			return false
		}
		v.esc--
		return true
	}
	switch b {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		v.esc = 0
	case 'u':
		v.esc = 4
	default:
		return false
	}
	return true
}

// number reads b as the next byte of a number, reporting whether it is
// one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (v *streamValidator) number(b byte) bool {
	digit := '0' <= b && b <= '9'
	switch v.state {
	case svNumSign:
		switch {
		case b == '0':
			v.state = svNumZero
		case digit:
			v.state = svNumInt
		default:
			return false
		}
	case svNumZero, svNumInt:
		switch {
		case digit && v.state == svNumInt:
		case b == '.':
			v.state = svNumDot
		case b == 'e' || b == 'E':
			v.state = svNumE
		default:
			return false
		}
	case svNumDot, svNumFrac:
		switch {
		case digit:
			v.state = svNumFrac
		case (b == 'e' || b == 'E') && v.state == svNumFrac:
			v.state = svNumE
		default:
			return false
		}
	case svNumE:
		switch {
		case b == '+' || b == '-':
			v.state = svNumESign
		case digit:
			v.state = svNumExp
		default:
			return false
		}
	case svNumESign, svNumExp:
		if !digit {
			return false
		}
		v.state = svNumExp
	}
	return true
}

// numberEnds reports whether a number may end in state s.
func numberEnds(s byte) bool {
	return s == svNumZero || s == svNumInt || s == svNumFrac || s == svNumExp
}

// finish reports whether the line fed was one JSON object, and if not,
// what is wrong and at which column.
func (v *streamValidator) finish() (msg string, col int) {
	if v.err == "" && (v.state != svAfter || len(v.stack) != 0) {
		v.err, v.at = "unexpected end of the line", v.chars+1
	}
	if v.err != "" && !v.deep {
		return "invalid JSON: " + v.err, v.at
	}
	return v.err, v.at
}

// controlAt returns the index of the first byte below 0x20 in b, or -1.
// Eight bytes are tested at a time: the usual "has a byte less than n"
// trick is exact for the lowest flagged byte of a word.
func controlAt(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if (x-ones*0x20)&^x&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}
