package harness

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
)

// maxNesting is canon's nesting limit: deeper JSON is refused before
// anything recurses into it.
const maxNesting = 10000

// wideObject is the member count from which an object's keys are checked
// for duplicates through a hash set instead of a scan.
const wideObject = 16

// checkFixture checks the fixture text raw against s in one pass, before
// the typed decoder reads it: the syntax as canon.Compact (and so
// JSON.parse) reads it, with valid UTF-8 and nesting of at most 10,000;
// no key twice in any object, tool parameters and call arguments
// included; no unknown member; every value of the type its member
// takes. A syntax error anywhere wins; otherwise the first other problem
// in document order is returned. It keeps no copy of the text: besides a
// stack of the keys of the open objects (and a hash set for objects of
// more than wideObject members) it allocates only to report.
func checkFixture(raw []byte, s *shape) *shapeError {
	_, err := walkFixture(raw, s)
	return err
}

// walkFixture is checkFixture that also returns the element counts of the
// slot arrays, parents before their children.
func walkFixture(raw []byte, s *shape) ([]arrayCount, *shapeError) {
	w := &walker{src: raw, seed: maphash.MakeSeed()}
	w.space()
	if err := w.value(s, 0); err != nil {
		return nil, err
	}
	w.space()
	if w.pos < len(w.src) {
		return nil, w.syntaxf("invalid character %s after top-level value", quoteByte(w.src[w.pos]))
	}
	return w.counts, w.first
}

// arrayCount is the length of one slot array: slot names it, at holds
// the indices of the arrays it is inside (turns[at[0]].replies[at[1]]).
type arrayCount struct {
	slot string
	at   [2]int
	n    int
}

// walker is the state of one checkFixture pass.
type walker struct {
	src    []byte
	pos    int
	first  *shapeError // the first problem that is not a syntax error
	path   []pathSeg   // the members and elements being read
	keys   []keySpan   // the keys of the open objects, innermost last
	seed   maphash.Seed
	a, b   []byte       // scratch for decoded keys
	counts []arrayCount // of the slot arrays read so far
}

// pathSeg is one step of the path to the value being read: a key, or an
// array index when index >= 0.
type pathSeg struct {
	key   keySpan
	index int
}

// keySpan locates a key's text between its quotes.
type keySpan struct {
	start, end int
	escaped    bool // holds a backslash: compare it decoded
}

// checking reports whether shapes are still checked: after the first
// problem only the syntax is.
func (w *walker) checking(s *shape) bool { return s != nil && w.first == nil }

func (w *walker) syntaxf(format string, args ...any) *shapeError {
	return &shapeError{msg: fmt.Sprintf(format, args...), offset: w.pos, syntax: true}
}

// failAt records the first problem, at offset, with the current path.
func (w *walker) failAt(offset int, format string, args ...any) {
	if w.first == nil {
		w.first = &shapeError{path: w.pathString(), msg: fmt.Sprintf(format, args...), offset: offset}
	}
}

// pathString renders the current path as plugins[0].tools[2].parameters.x;
// keys that would read ambiguously are written ["like this"].
func (w *walker) pathString() string {
	var b strings.Builder
	for _, seg := range w.path {
		if seg.index >= 0 {
			fmt.Fprintf(&b, "[%d]", seg.index)
			continue
		}
		key := string(w.decode(nil, seg.key))
		if plainKey(key) {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(key)
		} else {
			b.WriteByte('[')
			b.Write(canon.AppendString(nil, key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// plainKey reports whether key can be written bare in a dotted path.
func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, r := range key {
		switch {
		case r == '.' || r == '[' || r == ']' || r == '"' || r == '\\' || r <= ' ' || r == utf8.RuneError:
			return false
		}
	}
	return true
}

func (w *walker) space() {
	for w.pos < len(w.src) {
		switch w.src[w.pos] {
		case ' ', '\t', '\n', '\r':
			w.pos++
		default:
			return
		}
	}
}

// jsonKind names the kind of the value starting with c, as encoding/json's
// type errors do.
func jsonKind(c byte) string {
	switch c {
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	case '"':
		return "a JSON string"
	case 't', 'f':
		return "a JSON bool"
	case 'n':
		return "JSON null"
	}
	return "a JSON number"
}

// accept checks that a value starting with c may stand where s is
// expected and returns the shape to read it with: nil when its content
// is not checked further.
func (w *walker) accept(s *shape, c byte, at int) *shape {
	ok := false
	switch s.kind {
	case kindAny:
		return s
	case kindAnyObject:
		if c == '{' {
			return anything
		}
	case kindObject:
		ok = c == '{' || (s.orString && c == '"')
	case kindDict:
		ok = c == '{'
	case kindArray:
		ok = c == '['
	case kindString:
		ok = c == '"'
	case kindBool:
		ok = c == 't' || c == 'f'
	case kindInt:
		ok = c == '-' || (c >= '0' && c <= '9')
	}
	ok = ok || (c == 'n' && s.nullable)
	if ok {
		return s
	}
	switch {
	case s.hint != "":
		w.failAt(at, "%s", s.hint)
	case c == 'n':
		w.failAt(at, "expected %s, found JSON null (leave the member out instead)", s.expected())
	default:
		w.failAt(at, "expected %s, found %s", s.expected(), jsonKind(c))
	}
	return nil
}

func (w *walker) value(s *shape, depth int) *shapeError {
	if depth > maxNesting {
		return w.syntaxf("nesting deeper than %d", maxNesting)
	}
	if w.pos >= len(w.src) {
		return w.syntaxf("unexpected end of JSON input")
	}
	start := w.pos
	c := w.src[start]
	if w.checking(s) {
		s = w.accept(s, c, start)
	} else {
		s = nil
	}
	switch {
	case c == '{':
		return w.object(s, depth)
	case c == '[':
		return w.array(s, depth)
	case c == '"':
		escaped, err := w.string()
		if err != nil {
			return err
		}
		if w.checking(s) && s.check != nil {
			if cerr := s.check(string(w.decode(nil, keySpan{start + 1, w.pos - 1, escaped}))); cerr != nil {
				w.failAt(start, "%v", cerr)
			}
		}
		return nil
	case c == '-' || (c >= '0' && c <= '9'):
		if err := w.number(); err != nil {
			return err
		}
		if w.checking(s) && s.kind == kindInt {
			lit := string(w.src[start:w.pos])
			if _, err := strconv.ParseInt(lit, 10, strconv.IntSize); err != nil {
				w.failAt(start, "expected int, found a JSON number %s", lit)
			}
		}
		return nil
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	}
	return w.syntaxf("invalid character %s looking for beginning of value", quoteByte(c))
}

func (w *walker) literal(word string) *shapeError {
	if !bytes.HasPrefix(w.src[w.pos:], []byte(word)) {
		return w.syntaxf("invalid literal, expected %s", word)
	}
	w.pos += len(word)
	return nil
}

func (w *walker) array(s *shape, depth int) *shapeError {
	w.pos++ // [
	w.space()
	if w.pos < len(w.src) && w.src[w.pos] == ']' {
		w.pos++
		return nil
	}
	var elem *shape
	count := -1 // index in w.counts
	if s != nil {
		elem = anything
		if s.kind == kindArray {
			elem = s.elem
		}
		if s.slot != "" {
			c := arrayCount{slot: s.slot}
			k := 0
			for _, seg := range w.path {
				if seg.index >= 0 && k < len(c.at) {
					c.at[k] = seg.index
					k++
				}
			}
			count = len(w.counts)
			w.counts = append(w.counts, c)
		}
	}
	for i := 0; ; i++ {
		w.space()
		w.path = append(w.path, pathSeg{index: i})
		err := w.value(elem, depth+1)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
		w.space()
		if w.pos >= len(w.src) {
			return w.syntaxf("unexpected end of JSON input in array")
		}
		switch w.src[w.pos] {
		case ',':
			w.pos++
		case ']':
			w.pos++
			if count >= 0 {
				w.counts[count].n = i + 1
			}
			return nil
		default:
			return w.syntaxf("invalid character %s after array element", quoteByte(w.src[w.pos]))
		}
	}
}

func (w *walker) object(s *shape, depth int) *shapeError {
	w.pos++ // {
	w.space()
	if w.pos < len(w.src) && w.src[w.pos] == '}' {
		w.pos++
		return nil
	}
	frame := len(w.keys)
	defer func() { w.keys = w.keys[:frame] }()
	var wide *keySet // the keys, once there are wideObject of them
	for {
		w.space()
		if w.pos >= len(w.src) {
			return w.syntaxf("unexpected end of JSON input in object")
		}
		if w.src[w.pos] != '"' {
			return w.syntaxf("invalid character %s looking for object key", quoteByte(w.src[w.pos]))
		}
		at := w.pos
		escaped, err := w.string()
		if err != nil {
			return err
		}
		key := keySpan{at + 1, w.pos - 1, escaped}
		w.space()
		if w.pos >= len(w.src) {
			return w.syntaxf("unexpected end of JSON input after object key")
		}
		if w.src[w.pos] != ':' {
			return w.syntaxf("invalid character %s after object key", quoteByte(w.src[w.pos]))
		}
		w.pos++
		w.space()
		w.path = append(w.path, pathSeg{key: key, index: -1})
		var sub *shape
		if w.checking(s) {
			sub = w.member(s, key, at, frame, &wide)
		}
		err = w.value(sub, depth+1)
		w.path = w.path[:len(w.path)-1]
		if err != nil {
			return err
		}
		w.space()
		if w.pos >= len(w.src) {
			return w.syntaxf("unexpected end of JSON input in object")
		}
		switch w.src[w.pos] {
		case ',':
			w.pos++
		case '}':
			w.pos++
			return nil
		default:
			return w.syntaxf("invalid character %s after object member", quoteByte(w.src[w.pos]))
		}
	}
}

// keySet holds the keys of a wide object by the hash of their decoded
// text: the offset of each key's text, and in more the rare keys whose
// hash another key already has.
type keySet struct {
	first map[uint64]int
	more  map[uint64][]int
}

// member checks the key at offset at of an object of shape s whose keys
// so far are w.keys[frame:] (or in *wide, once it is wide), records it,
// and returns the shape of its value.
func (w *walker) member(s *shape, key keySpan, at, frame int, wide **keySet) *shape {
	w.a = w.decode(w.a[:0], key)
	if first, dup := w.duplicate(key, frame, wide); dup {
		line, col := canon.Position(w.src, first-1)
		w.failAt(at, "field %q appears twice (first at line %d, column %d)", w.a, line, col)
		return nil
	}
	switch s.kind {
	case kindObject:
		sub := s.fields[string(w.a)]
		if sub == nil {
			w.failAt(at, "unknown field %q (known: %s)", w.a, knownFields(s))
		}
		return sub
	case kindDict:
		return s.elem
	}
	return anything
}

// duplicate reports whether an earlier key of this object equals key
// (decoded in w.a), and where that key's text starts; otherwise it
// records key. Small objects keep their keys on w.keys and are scanned;
// from wideObject members on, a set of hashes finds the candidates, so a
// wide object costs a map entry per key and no scan.
func (w *walker) duplicate(key keySpan, frame int, wide **keySet) (int, bool) {
	if *wide == nil {
		for _, k := range w.keys[frame:] {
			if w.sameKey(k, key) {
				return k.start, true
			}
		}
		if len(w.keys)-frame < wideObject {
			w.keys = append(w.keys, key)
			return 0, false
		}
		set := &keySet{first: make(map[uint64]int, 4*wideObject)}
		for _, k := range w.keys[frame:] {
			w.b = w.decode(w.b[:0], k)
			set.first[maphash.Bytes(w.seed, w.b)] = k.start
		}
		*wide = set
	}
	set := *wide
	h := maphash.Bytes(w.seed, w.a)
	start, ok := set.first[h]
	if !ok {
		set.first[h] = key.start
		return 0, false
	}
	for _, off := range append([]int{start}, set.more[h]...) {
		if w.sameKey(w.keyAt(off), key) {
			return off, true
		}
	}
	if set.more == nil {
		set.more = map[uint64][]int{}
	}
	set.more[h] = append(set.more[h], key.start)
	return 0, false
}

// keyAt returns the span of the key whose text starts at off.
func (w *walker) keyAt(off int) keySpan {
	k := keySpan{start: off}
	for i := off; ; i++ {
		switch w.src[i] {
		case '\\':
			k.escaped = true
			i++
		case '"':
			k.end = i
			return k
		}
	}
}

// sameKey compares an earlier key k with key, whose decoded bytes are in
// w.a.
func (w *walker) sameKey(k, key keySpan) bool {
	if !k.escaped && !key.escaped {
		return bytes.Equal(w.src[k.start:k.end], w.src[key.start:key.end])
	}
	w.b = w.decode(w.b[:0], k)
	return bytes.Equal(w.b, w.a)
}

// decode appends the decoded text of k to dst. A lone surrogate escape is
// written in the generalized UTF-8 of its code point, which valid UTF-8
// never holds, so "\ud800" equals only itself, as in JavaScript.
func (w *walker) decode(dst []byte, k keySpan) []byte {
	raw := w.src[k.start:k.end]
	if !k.escaped {
		return append(dst, raw...)
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		e := raw[i+1] // the syntax was checked: an escape is complete
		if e != 'u' {
			dst = append(dst, canon.Unescape(e))
			i += 2
			continue
		}
		u := hex4(raw[i+2:])
		i += 6
		if u >= 0xD800 && u < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
			if lo := hex4(raw[i+2:]); lo >= 0xDC00 && lo < 0xE000 {
				dst = utf8.AppendRune(dst, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
				i += 6
				continue
			}
		}
		if u >= 0xD800 && u < 0xE000 {
			dst = append(dst, byte(0xE0|u>>12), byte(0x80|(u>>6)&0x3F), byte(0x80|u&0x3F))
			continue
		}
		dst = utf8.AppendRune(dst, u)
	}
	return dst
}

// hex4 reads four hex digits the syntax check has seen.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		default:
			r = r<<4 | rune(c-'A'+10)
		}
	}
	return r
}

// string reads the string at w.pos and reports whether it holds escapes.
func (w *walker) string() (escaped bool, err *shapeError) {
	w.pos++ // opening quote
	s := w.src
	for w.pos < len(s) {
		c := s[w.pos]
		switch {
		case c == '"':
			w.pos++
			return escaped, nil
		case c < 0x20:
			return escaped, w.syntaxf("invalid control character %s in string", quoteByte(c))
		case c == '\\':
			escaped = true
			if w.pos+1 >= len(s) {
				w.pos = len(s)
				return escaped, w.syntaxf("unexpected end of JSON input in string escape")
			}
			switch s[w.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				w.pos += 2
			case 'u':
				if w.pos+6 > len(s) || !canon.IsHex(s[w.pos+2]) || !canon.IsHex(s[w.pos+3]) || !canon.IsHex(s[w.pos+4]) || !canon.IsHex(s[w.pos+5]) {
					return escaped, w.syntaxf("invalid \\u escape in string")
				}
				w.pos += 6
			default:
				return escaped, w.syntaxf("invalid escape \\%c in string", s[w.pos+1])
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s[w.pos:])
			if r == utf8.RuneError && size == 1 {
				return escaped, w.syntaxf("invalid UTF-8 in string")
			}
			w.pos += size
		default:
			w.pos++
		}
	}
	return escaped, w.syntaxf("unexpected end of JSON input in string")
}

func (w *walker) number() *shapeError {
	s, i := w.src, w.pos
	digits := func() {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		digits()
	default:
		w.pos = i
		return w.syntaxf("invalid number: expected digit")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			w.pos = i
			return w.syntaxf("invalid number: expected digit after decimal point")
		}
		digits()
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			w.pos = i
			return w.syntaxf("invalid number: expected digit in exponent")
		}
		digits()
	}
	w.pos = i
	return nil
}

func quoteByte(c byte) string {
	if c < utf8.RuneSelf {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02x", c)
}
