package drift

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/headergold/headergold/internal/canon"
)

// InputError reports an input that cannot be read or is not what Compare
// expects. File and Line (1-based, 0 if unknown) name the place.
type InputError struct {
	File   string
	Line   int
	Column int // 1-based column in characters, 0 if unknown
	Err    error
}

// Error formats the error as FILE:LINE:COLUMN: message.
func (e *InputError) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Column, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the underlying error.
func (e *InputError) Unwrap() error { return e.Err }

// RecordError places err, found in the record that starts on line of
// file, as every log reader of this module places it: a
// *canon.SyntaxError at its own line and column, as "invalid JSON: what
// is wrong"; any other error on line.
func RecordError(file string, line int, err error) error {
	var se *canon.SyntaxError
	if errors.As(err, &se) {
		return &InputError{File: file, Line: line + se.Line - 1, Column: se.Column, Err: fmt.Errorf("invalid JSON: %s", se.Msg)}
	}
	return &InputError{File: file, Line: line, Err: err}
}

// readBufferSize is the bufio buffer of each input; longer lines are
// gathered in a growing buffer of their own.
const readBufferSize = 256 << 10

// Record modes of a recordReader.
const (
	modeUndecided = iota
	modeLines     // one record per line (JSON Lines)
	modeValues    // one record per complete JSON value, over several lines
)

// recordReader splits a stream into JSON records: one per non-blank line,
// or, when the first non-blank line opens a value it does not close (see
// opensValue), one per complete JSON value spread over lines
// (pretty-printed bodies). It holds one record at a time.
type recordReader struct {
	name string
	br   *bufio.Reader
	line int    // lines consumed
	long []byte // a line longer than br's buffer
	acc  []byte // a record spread over several lines
	mode int
	// skip, when set, is asked about the first bytes of a line longer
	// than br's buffer in JSON Lines; when it returns true the line is
	// read and dropped instead of gathered, and next returns its last
	// bytes with skipped set. Long lines nobody needs thus cost no memory.
	skip    func(head []byte) bool
	skipped bool
	tail    [2 * tailSize]byte
	sv      streamValidator // validates a dropped line
	limit   int             // the longest record held, in bytes
}

// tailSize is how many bytes of a dropped line next returns.
const tailSize = 16

// newRecordReader reads records of at most limit bytes from r. An input
// that says it is small (a bytes or strings Reader) gets a buffer of its
// size: comparing two short inputs need not allocate two full buffers.
func newRecordReader(name string, r io.Reader, limit int) *recordReader {
	size := readBufferSize
	if l, ok := r.(interface{ Len() int }); ok && l.Len() < size {
		size = l.Len() + 1 // room for the whole input: no line is long
	}
	return &recordReader{name: name, br: bufio.NewReaderSize(r, size), limit: limit}
}

// tooLong returns the error of a record that passes the size limit; the
// record starts on line.
func (r *recordReader) tooLong(line int) error {
	return &InputError{File: r.name, Line: line, Err: tooLong(r.limit)}
}

// readLine returns the next line without its "\n". The slice is valid until
// the next call. At the end of input it returns io.EOF.
func (r *recordReader) readLine() ([]byte, error) {
	r.skipped = false
	line, err := r.br.ReadSlice('\n')
	if err == nil {
		r.line++
		return line[:len(line)-1], nil
	}
	if errors.Is(err, bufio.ErrBufferFull) && r.skip != nil && r.mode != modeValues && r.skip(line) {
		return r.dropLine(line)
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > r.limit {
			return nil, r.tooLong(r.line + 1)
		}
		// Room for the limit and a newline, never more: a line past
		// the limit is refused with the bytes read so far held once,
		// not after doubling the buffer beyond it.
		most := r.limit + 1
		r.long = appendDoubling(r.long[:0], line, most)
		for {
			line, err = r.br.ReadSlice('\n')
			text := len(r.long) + len(line)
			if err == nil {
				text-- // the newline
			}
			if text > r.limit {
				return nil, r.tooLong(r.line + 1)
			}
			r.long = appendDoubling(r.long, line, most)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err == nil {
			r.line++
			return r.long[:len(r.long)-1], nil
		}
		line = r.long
	}
	if err == io.EOF {
		if len(line) == 0 {
			return nil, io.EOF
		}
		r.line++
		return line, nil // last line without a newline
	}
	at := r.line + 1
	if r.line == 0 && len(line) == 0 {
		at = 0 // nothing was read: the input itself, such as a directory
	}
	return nil, &InputError{File: r.name, Line: at, Err: err}
}

// dropLine reads the rest of a long line whose first bytes are head and
// returns its last tailSize bytes (without the newline). The line is
// validated as it is read, chunk by chunk (a JSON object, see
// streamValidator), so that a line nobody holds is still checked: one
// that is not valid JSON is an *InputError at its line and column.
func (r *recordReader) dropLine(head []byte) ([]byte, error) {
	r.skipped = true
	r.sv.reset()
	tail := r.tail[:0]
	keep := func(chunk []byte) {
		r.sv.feed(chunk)
		if len(chunk) >= tailSize {
			tail = append(tail[:0], chunk[len(chunk)-tailSize:]...)
			return
		}
		tail = append(tail, chunk...)
		if n := len(tail); n > tailSize {
			copy(tail, tail[n-tailSize:])
			tail = tail[:tailSize]
		}
	}
	keep(head)
	for {
		chunk, err := r.br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			keep(chunk)
			continue
		case err == nil:
			keep(chunk[:len(chunk)-1])
			r.line++
		case err == io.EOF:
			keep(chunk)
			r.line++
		default:
			return nil, &InputError{File: r.name, Line: r.line + 1, Err: err}
		}
		if msg, col := r.sv.finish(); msg != "" {
			return nil, &InputError{File: r.name, Line: r.line, Column: col, Err: errors.New(msg)}
		}
		return tail, nil
	}
}

// next returns the next record and the line it starts on. The slice is
// valid until the next call. At the end of input it returns io.EOF. When
// r.skipped is set, the record is only the last bytes of a dropped line.
func (r *recordReader) next() ([]byte, int, error) {
	for {
		l, err := r.readLine()
		if err != nil {
			return nil, 0, err
		}
		start := r.line
		if r.skipped {
			if r.mode == modeUndecided {
				r.mode = modeLines
			}
			return l, start, nil
		}
		if blank(l) {
			continue
		}
		if len(l) > r.limit {
			return nil, 0, r.tooLong(start)
		}
		if r.mode == modeLines {
			return l, start, nil
		}
		if r.mode == modeUndecided {
			r.mode = modeLines
			if opensValue(l) {
				r.mode = modeValues
			}
			if r.mode == modeLines {
				return l, start, nil
			}
		}
		var sc valueScanner
		sc.feed(l)
		r.acc = append(r.acc[:0], l...)
		for !sc.complete() {
			l, err = r.readLine()
			if err == io.EOF {
				break // unfinished: parsing reports where
			}
			if err != nil {
				return nil, 0, err
			}
			if len(r.acc)+1+len(l) > r.limit {
				return nil, 0, r.tooLong(start)
			}
			r.acc = append(r.acc, '\n')
			r.acc = appendDoubling(r.acc, l, r.limit)
			sc.feed(l)
		}
		return r.acc, start, nil
	}
}

// opensValue reports whether the first line of an input leaves a JSON value
// open, as a pretty-printer's first line does ("{", "[", or a member and a
// comma). Any other first line makes the input JSON Lines; a truncated
// line is then reported as invalid where it is, rather than swallowing the
// lines after it.
func opensValue(l []byte) bool {
	l = bytes.TrimRight(l, " \t\r")
	switch l[len(l)-1] {
	case '{', '[', ',', ':':
		return true
	}
	return false
}

// appendDoubling appends b to buf, at least doubling its capacity when it
// has to grow, so that gathering a line of n bytes allocates about 2n in
// all rather than the 5n of append's gentler growth for large slices. The
// capacity grows no further than most (when the bytes fit in it): the
// caller's limit, past which it refuses the record.
func appendDoubling(buf, b []byte, most int) []byte {
	if need := len(buf) + len(b); need > cap(buf) {
		grown := make([]byte, len(buf), max(need, min(max(2*cap(buf), readBufferSize), most)))
		copy(grown, buf)
		buf = grown
	}
	return append(buf, b...)
}

// blank reports whether l holds only JSON whitespace.
func blank(l []byte) bool {
	for _, c := range l {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

// valueScanner follows JSON nesting across lines, to tell where a value
// written over several lines ends.
type valueScanner struct {
	depth  int
	inStr  bool
	escape bool
	seen   bool
}

func (s *valueScanner) feed(b []byte) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if s.inStr {
			switch {
			case s.escape:
				s.escape = false
			case c == '\\':
				s.escape = true
			case c == '"':
				s.inStr = false
			default:
				// Skip to the next quote or backslash.
				j := bytes.IndexAny(b[i:], "\"\\")
				if j < 0 {
					return
				}
				i += j - 1
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
		case '"':
			s.inStr, s.seen = true, true
		case '{', '[':
			s.depth++
			s.seen = true
		case '}', ']':
			s.depth--
		default:
			s.seen = true
		}
	}
}

// complete reports whether a whole value has been fed. Unbalanced closing
// brackets also end the value, so that parsing reports them.
func (s *valueScanner) complete() bool { return s.seen && !s.inStr && s.depth <= 0 }
