package drift

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays a record may have,
// the limit internal/canon uses too. The comparison walks values
// recursively; a record nested deeper is refused, found by an iterative
// scan before anything recursive reads it, so that no input can exhaust
// the stack or make the walk's cost grow with the square of its depth.
const MaxDepth = 10000

// MaxRecordSize is the largest record, in bytes, that is held in memory to
// be compared: a line of JSON Lines, or a value spread over several lines.
// A longer one is refused as soon as it is seen to be longer, before more
// of it is read. Events of a session log that are dropped as they are read
// (see the package documentation) are not held and not limited.
const MaxRecordSize = 256 << 20

// checkDepth returns a *placedError when src nests objects and arrays
// deeper than MaxDepth, naming the deepest nesting it holds and where the
// limit is first passed.
func checkDepth(src []byte) error {
	// No more opening brackets than the limit, in strings or not: no
	// deeper nesting either. Counting a byte runs at memory speed; most
	// records are settled by it.
	if bytes.Count(src, []byte{'{'})+bytes.Count(src, []byte{'['}) <= MaxDepth {
		return nil
	}
	deepest, at := scanDepth(src)
	if at < 0 {
		return nil
	}
	return &placedError{Offset: at, err: fmt.Errorf("nesting %d deep, deeper than the limit of %d", deepest, MaxDepth)}
}

// nesting returns the deepest nesting of objects and arrays in src.
func nesting(src []byte) int {
	deepest, _ := scanDepth(src)
	return deepest
}

// scanDepth reads src once, without recursion, and returns its deepest
// nesting and the offset of the first bracket deeper than MaxDepth (-1 if
// none). Brackets inside strings do not count.
func scanDepth(src []byte) (deepest, at int) {
	depth := 0
	at = -1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			// To the closing quote: the next one that an even number
			// of backslashes precede (IndexByte runs at memory speed
			// through string text).
			start := i
			for {
				j := bytes.IndexByte(src[i+1:], '"')
				if j < 0 {
					i = len(src)
					break
				}
				i += j + 1
				n := 0
				for b := i - 1; b > start && src[b] == '\\'; b-- {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		case '{', '[':
			depth++
			if depth > deepest {
				deepest = depth
				if depth > MaxDepth && at < 0 {
					at = i
				}
			}
		case '}', ']':
			depth--
		}
	}
	return deepest, at
}

// position returns the 1-based line and column (in characters) of byte
// off of src.
func position(src []byte, off int) (line, col int) {
	off = min(off, len(src))
	line = 1 + bytes.Count(src[:off], []byte{'\n'})
	start := bytes.LastIndexByte(src[:off], '\n') + 1
	return line, 1 + utf8.RuneCount(src[start:off])
}

// recordLimit returns the record size limit of opts: MaxRecordSize unless
// opts lowers it.
func recordLimit(opts Options) int {
	if opts.MaxRecordSize > 0 && opts.MaxRecordSize < MaxRecordSize {
		return opts.MaxRecordSize
	}
	return MaxRecordSize
}

// tooLong is the error for a record longer than limit bytes.
func tooLong(limit int) error {
	return fmt.Errorf("record longer than %d bytes, the limit (MaxRecordSize is %d)", limit, MaxRecordSize)
}

// CheckRecord reports whether rec, one JSON record starting on line line
// of file, is within the limits every reader of logs and bodies in this
// module holds to: at most MaxRecordSize bytes, nested at most MaxDepth
// deep. A record past either is an *InputError naming the file, the line
// and column where the limit is passed and the depth (or the size). It
// reads rec once, without recursion, and parses nothing, so it is safe
// on any input; call it before anything recursive (gjson, encoding/json)
// reads a record. A reader that gathers a long line should stop gathering
// one byte past MaxRecordSize and give CheckRecord what it has.
func CheckRecord(file string, line int, rec []byte) error {
	if len(rec) > MaxRecordSize {
		return &InputError{File: file, Line: line, Err: tooLong(MaxRecordSize)}
	}
	err := checkDepth(rec)
	if err == nil {
		return nil
	}
	l, c := position(rec, err.(*placedError).Offset)
	return &InputError{File: file, Line: line + l - 1, Column: c, Err: err}
}

// CheckLines applies [CheckRecord] to every line of data, a file of JSON
// Lines such as a golden log, and returns the first error.
func CheckLines(file string, data []byte) error {
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if err := CheckRecord(file, n, line); err != nil {
			return err
		}
	}
	return nil
}
