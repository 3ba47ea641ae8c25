package canon

import (
	"encoding/binary"
	"errors"
)

// MaxDepth is the deepest nesting the scanners accept.
const maxScanDepth = 10000

// errInvalid is what ScanObject reports for text that is not JSON.
var errInvalid = errors.New("not valid JSON")

// strPlain marks the bytes a string scan may pass over: not a quote, a
// backslash or a control character.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// ScanObject validates src as exactly one JSON object (surrounding
// whitespace allowed) in a single pass, and calls fn with the byte spans
// of the raw key and the value of each top-level member, in order. It
// does what a validation pass and a member walk would do together, for
// request bodies whose tool lists are read once. It returns an error for
// text that is not a JSON object, or nested deeper than 10,000.
func ScanObject(src []byte, fn func(keyStart, keyEnd, valStart, valEnd int)) error {
	s := scanner{src: src}
	s.space()
	if s.i >= len(src) || src[s.i] != '{' {
		return errors.New("not a JSON object")
	}
	s.i++
	s.space()
	if s.i < len(src) && src[s.i] == '}' {
		s.i++
	} else {
		for {
			s.space()
			ks := s.i
			if s.i >= len(src) || src[s.i] != '"' || !s.str() {
				return errInvalid
			}
			ke := s.i
			s.space()
			if s.i >= len(src) || src[s.i] != ':' {
				return errInvalid
			}
			s.i++
			s.space()
			vs := s.i
			if !s.value() {
				return s.failure()
			}
			fn(ks, ke, vs, s.i)
			s.space()
			if s.i >= len(src) {
				return errInvalid
			}
			if src[s.i] == '}' {
				s.i++
				break
			}
			if src[s.i] != ',' {
				return errInvalid
			}
			s.i++
		}
	}
	s.space()
	if s.i != len(src) {
		return errInvalid
	}
	return nil
}

type scanner struct {
	src  []byte
	i    int
	deep bool // the nesting limit was hit
}

func (s *scanner) failure() error {
	if s.deep {
		return errors.New("nested deeper than 10000")
	}
	return errInvalid
}

func (s *scanner) space() {
	for s.i < len(s.src) && isSpaceByte(s.src[s.i]) {
		s.i++
	}
}

// str scans the string at s.i, validating its escapes.
func (s *scanner) str() bool {
	src := s.src
	i := s.i + 1
	for {
		// Eight bytes at a time while none of them is a quote, a
		// backslash or a control character: tool descriptions are long.
		for i+16 <= len(src) && specialBits(binary.LittleEndian.Uint64(src[i:i+8]))|specialBits(binary.LittleEndian.Uint64(src[i+8:i+16])) == 0 {
			i += 16
		}
		for i+8 <= len(src) && specialBits(binary.LittleEndian.Uint64(src[i:i+8])) == 0 {
			i += 8
		}
		for i < len(src) && strPlain[src[i]] {
			i++
		}
		if i >= len(src) {
			return false
		}
		switch c := src[i]; {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(src) {
				return false
			}
			switch src[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(src) || !IsHex(src[i+2]) || !IsHex(src[i+3]) || !IsHex(src[i+4]) || !IsHex(src[i+5]) {
					return false
				}
				i += 6
			default:
				return false
			}
		default: // a control character
			return false
		}
	}
}

// IsHex reports a hexadecimal digit, as a \\u escape has four of.
func IsHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// value scans any value at s.i. Containers are scanned with an explicit
// stack, so depth never grows the Go stack.
func (s *scanner) value() bool {
	src := s.src
	var stack []byte // '{' or '['
	for {
		s.space()
		if s.i >= len(src) {
			return false
		}
		// One scalar or the opening of a container.
		switch c := src[s.i]; c {
		case '{', '[':
			if len(stack) >= maxScanDepth {
				s.deep = true
				return false
			}
			stack = append(stack, c)
			s.i++
			s.space()
			if s.i < len(src) && (src[s.i] == '}' && c == '{' || src[s.i] == ']' && c == '[') {
				stack = stack[:len(stack)-1]
				s.i++
				break
			}
			if c == '{' {
				if !s.key() {
					return false
				}
			}
			continue
		case '"':
			if !s.str() {
				return false
			}
		case 't':
			if !s.lit("true") {
				return false
			}
		case 'f':
			if !s.lit("false") {
				return false
			}
		case 'n':
			if !s.lit("null") {
				return false
			}
		default:
			if !s.num() {
				return false
			}
		}
		// After a value: close containers or go on to the next member.
		for {
			if len(stack) == 0 {
				return true
			}
			s.space()
			if s.i >= len(src) {
				return false
			}
			top := stack[len(stack)-1]
			c := src[s.i]
			if c == ',' {
				s.i++
				if top == '{' && !s.key() {
					return false
				}
				break
			}
			if top == '{' && c == '}' || top == '[' && c == ']' {
				stack = stack[:len(stack)-1]
				s.i++
				continue
			}
			return false
		}
	}
}

// key scans `"key":` inside an object.
func (s *scanner) key() bool {
	s.space()
	if s.i >= len(s.src) || s.src[s.i] != '"' || !s.str() {
		return false
	}
	s.space()
	if s.i >= len(s.src) || s.src[s.i] != ':' {
		return false
	}
	s.i++
	return true
}

func (s *scanner) lit(word string) bool {
	if len(s.src)-s.i < len(word) || string(s.src[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}

// num scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) num() bool {
	src, i := s.src, s.i
	if i < len(src) && src[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(src) && '0' <= src[i] && src[i] <= '9' {
			i++
		}
		return i > start
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(src) && src[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	s.i = i
	return true
}

// special8 reports whether any byte of x is '"', '\\' or below 0x20.
func special8(x uint64) bool { return specialBits(x) != 0 }

// specialBits is nonzero when a byte of x is '"', '\\' or below 0x20,
// with the usual bit tricks for "has a zero byte" (x^'"', x^'\\') and
// "has a byte less than 0x20", their high-bit masks taken once.
func specialBits(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, b := x^(ones*'"'), x^(ones*'\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & highs
}
