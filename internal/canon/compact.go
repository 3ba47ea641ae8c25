package canon

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 10000

// SyntaxError reports JSON text that JSON.parse would reject, or that is not
// valid UTF-8.
type SyntaxError struct {
	Offset int    // byte offset of the problem in the input
	Line   int    // 1-based line of Offset
	Column int    // 1-based column of Offset, counted in characters
	Msg    string // what is wrong
}

// Error formats the error as "line L, column C: message".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Position returns the 1-based line and column (in characters) of byte
// offset off in src.
func Position(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line = 1 + bytes.Count(src[:off], []byte{'\n'})
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(src[start:off])
}

// Compact appends the canonical compact form of the JSON text src to dst.
// On error dst is returned unchanged beside the *SyntaxError.
func Compact(dst, src []byte) ([]byte, error) {
	p := parser{src: src, out: dst}
	base := len(dst)
	p.skipSpace()
	if err := p.value(0); err != nil {
		return dst[:base], err
	}
	p.skipSpace()
	if p.pos < len(src) {
		return dst[:base], p.errorf("invalid character %s after top-level value", quoteByte(src[p.pos]))
	}
	return p.out, nil
}

// Valid reports whether src is JSON text Compact accepts.
func Valid(src []byte) bool {
	_, err := Compact(nil, src)
	return err == nil
}

type parser struct {
	src []byte
	pos int
	out []byte
}

func (p *parser) errorf(format string, args ...any) error {
	line, col := Position(p.src, p.pos)
	return &SyntaxError{Offset: p.pos, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02x", c)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
			// Indentation comes in runs of spaces after a line break:
			// skip them a word at a time, up to the first other byte.
			for p.pos+8 <= len(p.src) {
				if x := binary.LittleEndian.Uint64(p.src[p.pos:]) ^ 0x2020202020202020; x != 0 {
					p.pos += bits.TrailingZeros64(x) >> 3
					break
				}
				p.pos += 8
			}
		default:
			return
		}
	}
}

func (p *parser) value(depth int) error {
	if depth > maxDepth {
		return p.errorf("nesting deeper than %d", maxDepth)
	}
	if p.pos >= len(p.src) {
		return p.errorf("unexpected end of JSON input")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	default:
		return p.errorf("invalid character %s looking for beginning of value", quoteByte(c))
	}
}

func (p *parser) literal(word string) error {
	if !bytes.HasPrefix(p.src[p.pos:], []byte(word)) {
		return p.errorf("invalid literal, expected %s", word)
	}
	p.pos += len(word)
	p.out = append(p.out, word...)
	return nil
}

func (p *parser) array(depth int) error {
	p.pos++ // [
	p.out = append(p.out, '[')
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.out = append(p.out, ']')
		return nil
	}
	for {
		p.skipSpace()
		if err := p.value(depth + 1); err != nil {
			return err
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of JSON input in array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
			p.out = append(p.out, ',')
		case ']':
			p.pos++
			p.out = append(p.out, ']')
			return nil
		default:
			return p.errorf("invalid character %s after array element", quoteByte(p.src[p.pos]))
		}
	}
}

// member locates one encoded object member inside p.out.
type member struct {
	start, colon, end int // "key" is out[start:colon], value out[colon+1:end]
	index             int64
}

func (p *parser) object(depth int) error {
	p.pos++ // {
	open := len(p.out)
	p.out = append(p.out, '{')
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.out = append(p.out, '}')
		return nil
	}
	// Most objects of a schema are narrow: their members fit a buffer on
	// the stack, and a wide one grows past it.
	var buf [8]member
	members := buf[:0]
	var keys map[string]struct{} // member keys, once the object is wide
	reorder := false
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			if p.pos >= len(p.src) {
				return p.errorf("unexpected end of JSON input in object")
			}
			return p.errorf("invalid character %s looking for object key", quoteByte(p.src[p.pos]))
		}
		if len(members) > 0 {
			p.out = append(p.out, ',')
		}
		m := member{start: len(p.out)}
		if err := p.string(); err != nil {
			return err
		}
		m.colon = len(p.out)
		m.index = arrayIndex(p.out[m.start+1 : m.colon-1])
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			if p.pos >= len(p.src) {
				return p.errorf("unexpected end of JSON input after object key")
			}
			return p.errorf("invalid character %s after object key", quoteByte(p.src[p.pos]))
		}
		p.pos++
		p.out = append(p.out, ':')
		p.skipSpace()
		if err := p.value(depth + 1); err != nil {
			return err
		}
		m.end = len(p.out)
		if m.index >= 0 || duplicateKey(p.out, members, m, &keys) {
			reorder = true
		}
		members = append(members, m)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return p.errorf("unexpected end of JSON input in object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			if reorder {
				p.out = rewriteObject(p.out, open, members)
			}
			p.out = append(p.out, '}')
			return nil
		default:
			return p.errorf("invalid character %s after object member", quoteByte(p.src[p.pos]))
		}
	}
}

// wideObject is the member count from which duplicate keys are found with
// a map instead of a scan, keeping wide objects linear.
const wideObject = 16

// duplicateKey reports whether m's key was already seen among members.
// Small objects are scanned; from wideObject members on, *keys holds them.
func duplicateKey(out []byte, members []member, m member, keys *map[string]struct{}) bool {
	key := out[m.start:m.colon]
	if len(members) < wideObject {
		for _, o := range members {
			if bytes.Equal(out[o.start:o.colon], key) {
				return true
			}
		}
		return false
	}
	if *keys == nil {
		*keys = make(map[string]struct{}, 2*len(members))
		for _, o := range members {
			(*keys)[string(out[o.start:o.colon])] = struct{}{}
		}
	}
	if _, ok := (*keys)[string(key)]; ok {
		return true
	}
	(*keys)[string(key)] = struct{}{}
	return false
}

// arrayIndex returns the value of an array-index key (canonical decimal,
// at most 2^32-2), or -1. Canonical key bytes are the decoded key, since
// digits are never escaped on output.
func arrayIndex(key []byte) int64 {
	if len(key) == 0 || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return -1
	}
	var n int64
	for _, c := range key {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int64(c-'0')
	}
	if n > 1<<32-2 {
		return -1
	}
	return n
}

// rewriteObject reorders the members written after out[open] the way a
// JavaScript object holds them: array indices ascending first, then the
// other keys by first insertion, each with the value written last.
func rewriteObject(out []byte, open int, members []member) []byte {
	type entry struct {
		key, val []byte
		index    int64
	}
	entries := make([]entry, 0, len(members))
	byKey := make(map[string]int, len(members))
	for _, m := range members {
		key, val := out[m.start:m.colon], out[m.colon+1:m.end]
		if i, ok := byKey[string(key)]; ok {
			entries[i].val = val
			continue
		}
		byKey[string(key)] = len(entries)
		entries = append(entries, entry{key: key, val: val, index: m.index})
	}
	// Index keys to the front, ascending (they are distinct by now).
	indexed, named := make([]entry, 0, len(entries)), make([]entry, 0, len(entries))
	for _, e := range entries {
		if e.index >= 0 {
			indexed = append(indexed, e)
		} else {
			named = append(named, e)
		}
	}
	slices.SortFunc(indexed, func(a, b entry) int { return cmp.Compare(a.index, b.index) })
	body := make([]byte, 0, len(out)-open)
	for i, e := range append(indexed, named...) {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, e.key...)
		body = append(body, ':')
		body = append(body, e.val...)
	}
	return append(out[:open+1], body...)
}

func (p *parser) number() error {
	start := p.pos
	s := p.src
	i := p.pos
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return p.errorf("invalid number: expected digit")
	}
	simple := true
	if i < len(s) && s[i] == '.' {
		simple = false
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.pos = i
			return p.errorf("invalid number: expected digit after decimal point")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		simple = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.pos = i
			return p.errorf("invalid number: expected digit in exponent")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	p.pos = i
	lit := s[start:i]
	// Integers of at most 15 digits are exact doubles already in JavaScript's
	// spelling, except negative zero.
	if simple && len(lit) <= 15 {
		if string(lit) == "-0" {
			p.out = append(p.out, '0')
		} else {
			p.out = append(p.out, lit...)
		}
		return nil
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil && !isRangeError(err) {
		p.pos = start
		return p.errorf("invalid number %s", lit)
	}
	p.out = AppendFloat(p.out, f)
	return nil
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// string reads a JSON string at p.pos and writes its canonical form.
func (p *parser) string() error {
	p.pos++ // opening quote
	p.out = append(p.out, '"')
	s := p.src
	for {
		// Copy the longest run that needs no attention.
		run := plainRun(s, p.pos)
		p.out = append(p.out, s[p.pos:run]...)
		p.pos = run
		if p.pos >= len(s) {
			return p.errorf("unexpected end of JSON input in string")
		}
		c := s[p.pos]
		switch {
		case c == '"':
			p.pos++
			p.out = append(p.out, '"')
			return nil
		case c < 0x20:
			return p.errorf("invalid control character %s in string", quoteByte(c))
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s[p.pos:])
			if r == utf8.RuneError && size == 1 {
				return p.errorf("invalid UTF-8 in string")
			}
			p.out = append(p.out, s[p.pos:p.pos+size]...)
			p.pos += size
		default: // backslash
			if err := p.escape(); err != nil {
				return err
			}
		}
	}
}

func (p *parser) escape() error {
	s := p.src
	if p.pos+1 >= len(s) {
		p.pos = len(s)
		return p.errorf("unexpected end of JSON input in string escape")
	}
	c := s[p.pos+1]
	switch c {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		p.pos += 2
		p.out = appendRune(p.out, rune(Unescape(c)))
		return nil
	case 'u':
		u, ok := hex4(s, p.pos+2)
		if !ok {
			return p.errorf("invalid \\u escape in string")
		}
		p.pos += 6
		if u >= 0xD800 && u < 0xDC00 {
			if lo, ok := hex4(s, p.pos+2); ok && p.pos+1 < len(s) && s[p.pos] == '\\' && s[p.pos+1] == 'u' && lo >= 0xDC00 && lo < 0xE000 {
				p.pos += 6
				p.out = utf8.AppendRune(p.out, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
				return nil
			}
		}
		p.out = appendRune(p.out, u)
		return nil
	default:
		return p.errorf("invalid escape \\%c in string", c)
	}
}

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// Unescape maps the letter of a short JSON escape (\n, \t, \" …) to the
// byte it stands for.
func Unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\' and '/' stand for themselves
}
