package agent

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/headergold/headergold/internal/canon"
	"github.com/tidwall/gjson"
)

// Log is a session log in memory: JSON Lines, one event per line, each line
// ending in "\n". It is safe for concurrent use; the loop appends, readers
// take copies.
//
// It keeps the lines as they were written rather than one growing buffer:
// a line is never written to again, so the loop's projection shares a
// header line with the log instead of holding a second copy, and appending
// never moves what is already there.
type Log struct {
	mu    sync.Mutex
	lines [][]byte // each ends in "\n"; never written to
	size  int      // total bytes
}

// NewLog returns an empty log.
func NewLog() *Log { return &Log{} }

// ParseLog reads a log written by this package (or a copy of one), checking
// that every line is an event object {"type": string, "data": object}.
// Errors name the 1-based line.
func ParseLog(b []byte) (*Log, error) {
	b = bytes.Clone(b) // the log keeps its lines; the caller keeps b
	l := &Log{}
	for n := 1; len(b) > 0; n++ {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil, fmt.Errorf("line %d: no final newline", n)
		}
		if _, err := ParseEvent(b[:i]); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		l.append(b[: i+1 : i+1])
		b = b[i+1:]
	}
	return l, nil
}

// append adds a line, which the log keeps: the caller must not write to it
// again.
func (l *Log) append(line []byte) {
	l.mu.Lock()
	l.lines = append(l.lines, line[:len(line):len(line)])
	l.size += len(line)
	l.mu.Unlock()
}

// Bytes returns a copy of the whole log.
func (l *Log) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.join(len(l.lines))
}

// Len returns the number of events.
func (l *Log) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// Prefix returns a copy of the first n events.
func (l *Log) Prefix(n int) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n <= 0 {
		return nil
	}
	return l.join(n)
}

// join returns the first n lines in one new array; l.mu is held.
func (l *Log) join(n int) []byte {
	size := l.size
	if n < len(l.lines) {
		size = 0
		for _, ln := range l.lines[:n] {
			size += len(ln)
		}
	}
	if size == 0 {
		return nil
	}
	out := make([]byte, 0, size)
	for _, ln := range l.lines[:n] {
		out = append(out, ln...)
	}
	return out
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

// forEachLine calls fn with every line of b, without its newline.
func forEachLine(b []byte, fn func(n int, line []byte) error) error {
	for n := 1; len(b) > 0; n++ {
		i := bytes.IndexByte(b, '\n')
		var ln []byte
		if i < 0 {
			ln, b = b, nil
		} else {
			ln, b = b[:i], b[i+1:]
		}
		if err := fn(n, ln); err != nil {
			return err
		}
	}
	return nil
}
