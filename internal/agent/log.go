package agent

import (
	"bytes"
	"fmt"
	"iter"
	"slices"
	"sync"
	"unsafe"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// Log is a session log in memory: JSON Lines, one event per line, each line
// ending in "\n". It is safe for concurrent use; the loop appends, readers
// take copies.
//
// It keeps what was written as it was written, in chunks, rather than in
// one growing buffer that every append may move: a chunk is never written
// to again. The header of a request/header event is a chunk of its own,
// the assembled header itself, shared with the loop's projection and every
// request under that header instead of copied into the line: its bytes
// are read from it only when the log's text is.
type Log struct {
	mu     sync.Mutex
	chunks []chunk
	// ends[i] is the number of chunks up to line i's newline: offsets
	// would need every header's length, which only reading the log's
	// bytes needs.
	ends  []int
	plain int // the length of the chunks other than headers
	// parsed is set when a request/header line came from ParseLog, whose
	// header this log only has as text.
	parsed bool
}

// chunk is a run of log bytes, never written to, or (header set, b nil)
// an assembled header's JSON.
type chunk struct {
	b      []byte
	header *assembler.Header
}

// bytes returns the chunk's bytes, for reading only.
func (c chunk) bytes() []byte {
	if c.header != nil {
		return unsafeBytes(c.header.JSON())
	}
	return c.b
}

// len returns the length of the chunk's bytes, without writing a
// header's.
func (c chunk) len() int {
	if c.header != nil {
		return c.header.Len()
	}
	return len(c.b)
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{} }

// ParseLog reads a log written by this package (or a copy of one), checking
// that every line is an event object {"type": string, "data": object}.
// Errors name the 1-based line.
func ParseLog(b []byte) (*Log, error) {
	b = bytes.Clone(b) // the log keeps its lines; the caller keeps b
	l := &Log{}
	for n, line := range logformat.Lines(b) {
		if line[len(line)-1] != '\n' {
			return nil, fmt.Errorf("line %d: no final newline", n)
		}
		ev, err := ParseEvent(line[:len(line)-1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		l.parsed = l.parsed || ev.Type == TypeRequestHeader
		l.append(line[:len(line):len(line)])
	}
	return l, nil
}

// append adds a line, which the log keeps: the caller must not write to it
// again.
func (l *Log) append(line []byte) {
	l.mu.Lock()
	l.chunks = append(l.chunks, chunk{b: line[:len(line):len(line)]})
	l.plain += len(line)
	l.ends = append(l.ends, len(l.chunks))
	l.mu.Unlock()
}

// appendHeader adds a request/header line: prefix, the header's JSON
// (the header itself, not a copy of its bytes), then suffix, which ends
// the line. The caller must not write to prefix or suffix again.
func (l *Log) appendHeader(prefix []byte, h *assembler.Header, suffix []byte) {
	l.mu.Lock()
	l.chunks = append(l.chunks, chunk{b: prefix[:len(prefix):len(prefix)]},
		chunk{header: h}, chunk{b: suffix[:len(suffix):len(suffix)]})
	l.plain += len(prefix) + len(suffix)
	l.ends = append(l.ends, len(l.chunks))
	l.mu.Unlock()
}

// unsafeBytes returns the bytes of s without copying them, for reading
// only: nothing may write to them.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Bytes returns a copy of the whole log.
func (l *Log) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return join(l.chunks)
}

// Len returns the number of events.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.ends)
}

// Prefix returns a copy of the first n events.
func (l *Log) Prefix(n int) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n <= 0 {
		return nil
	}
	return join(l.chunks[:l.ends[n-1]])
}

// join returns the bytes of chunks in one new array (nil when there are
// none).
func join(chunks []chunk) []byte {
	size := 0
	for _, c := range chunks {
		size += c.len()
	}
	if size == 0 {
		return nil
	}
	out := make([]byte, 0, size)
	for _, c := range chunks {
		out = append(out, c.bytes()...)
	}
	return out
}

// Equal reports whether l and o hold the same bytes. Two logs the loop
// wrote are compared chunk by chunk where they are, a request/header
// line's header by [assembler.Header.Equal], which finds the headers of
// two runs over the same registered tools equal without writing them.
// Anything else, a difference among them, is settled on the joined bytes.
func (l *Log) Equal(o *Log) bool {
	if l == o || sameChunks(l.snapshot(), o.snapshot()) {
		return true
	}
	return bytes.Equal(l.Bytes(), o.Bytes())
}

// sameChunks reports whether a and b are chunk for chunk the same: the
// same bytes, or headers with the same bytes. False says nothing: two
// logs may hold the same bytes in chunks cut otherwise.
func sameChunks(a, b []chunk) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		switch x, y := a[i], b[i]; {
		case x.header != nil && y.header != nil:
			if !x.header.Equal(y.header) {
				return false
			}
		case x.header != nil || y.header != nil || !bytes.Equal(x.b, y.b):
			return false
		}
	}
	return true
}

// snapshot returns the chunks written so far, which never change.
func (l *Log) snapshot() []chunk {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.chunks[:len(l.chunks):len(l.chunks)]
}

// AppendReplacingHeaders appends the whole log to dst with the header
// object of every request/header event replaced by what replace returns
// for that header, without reading the log: the loop wrote each header as
// a chunk of its own. It reports false, and appends nothing, when the log
// holds request/header events read by ParseLog, whose headers it only has
// as text.
func (l *Log) AppendReplacingHeaders(dst []byte, replace func(h *assembler.Header) []byte) ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.parsed {
		return dst, false
	}
	// Room for the log without its headers, and for short replacements.
	size := l.plain
	for _, c := range l.chunks {
		if c.header != nil {
			size += 64
		}
	}
	dst = slices.Grow(dst, size)
	for _, c := range l.chunks {
		if c.header != nil {
			dst = append(dst, replace(c.header)...)
		} else {
			dst = append(dst, c.b...)
		}
	}
	return dst, true
}

// Lines returns the log's lines as they are now, each without its
// newline, for reading only. A request/header line the loop wrote comes
// as the text before its header object and that header, whose bytes are
// the rest of the object up to the line's closing "}}"; every other line
// comes whole, with a nil header. Reading the lines writes no header's
// bytes, and chunks are never written to, so the lines stay valid however
// the log grows.
func (l *Log) Lines() iter.Seq2[[]byte, *assembler.Header] {
	chunks := l.snapshot()
	return func(yield func([]byte, *assembler.Header) bool) {
		for i := 0; i < len(chunks); i++ {
			// appendHeader writes a prefix, the header, then a suffix.
			if i+2 < len(chunks) && chunks[i+1].header != nil {
				if !yield(chunks[i].b, chunks[i+1].header) {
					return
				}
				i += 2
				continue
			}
			if !yield(bytes.TrimSuffix(chunks[i].b, []byte{'\n'}), nil) {
				return
			}
		}
	}
}

// LoggedHeader is the header of a request/header event and the event's
// 1-based line in the log.
type LoggedHeader struct {
	Line   int
	Header *assembler.Header
}

// Headers returns the header of every request/header event, in order,
// without reading the log: the loop wrote each header as a chunk of its
// own. It reports false, and returns none, when the log holds
// request/header events read by ParseLog, whose headers it only has as
// text.
func (l *Log) Headers() ([]LoggedHeader, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.parsed {
		return nil, false
	}
	var out []LoggedHeader
	line := 1
	for _, c := range l.chunks {
		switch {
		case c.header != nil:
			out = append(out, LoggedHeader{Line: line, Header: c.header})
		case len(c.b) > 0 && c.b[len(c.b)-1] == '\n':
			line++ // a whole line, or the end of a header's
		}
	}
	return out, true
}

// Event is one decoded log line. Data is the raw canonical data object.
type Event struct {
	Type string
	Data []byte
}

// ParseEvent decodes one log line (without or with its newline).
func ParseEvent(line []byte) (Event, error) {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if !gjson.ValidBytes(line) {
		if _, err := canon.Compact(nil, line); err != nil {
			return Event{}, err
		}
		return Event{}, fmt.Errorf("invalid JSON")
	}
	v := gjson.ParseBytes(line)
	if !v.IsObject() {
		return Event{}, fmt.Errorf("event is not a JSON object")
	}
	typ, data := v.Get("type"), v.Get("data")
	if typ.Type != gjson.String || typ.String() == "" {
		return Event{}, fmt.Errorf("event has no string \"type\"")
	}
	if !data.IsObject() {
		return Event{}, fmt.Errorf("%s event has no \"data\" object", typ.String())
	}
	return Event{Type: typ.String(), Data: []byte(data.Raw)}, nil
}
