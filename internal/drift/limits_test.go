package drift

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

// nested returns n opening brackets, value, and n closing ones.
func nested(n int, value string) string {
	return strings.Repeat("[", n) + value + strings.Repeat("]", n)
}

// TestDeepInputRefused: a body nested 100,000 deep is refused where it
// passes the limit (the 10,001st bracket), in memory proportional to its
// size, naming the file, line, column and depth. Its time is logged, not
// asserted: a wall-clock bound measures the machine (the race detector,
// a loaded CI runner) more than the scan.
func TestDeepInputRefused(t *testing.T) {
	ok := `{"model":"m","messages":[],"tools":[{"name":"a"}]}` + "\n"
	deep := `{"model":"m","messages":[],"tools":` + nested(100000, "1") + "}\n"
	for _, tc := range []struct {
		name string
		a, b string
		file string
		line int
	}{
		{"on B, second record", ok + ok, ok + deep, "B", 2},
		{"on A, first record", deep, ok, "A", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			start := time.Now()
			used := allocated(t, func() {
				_, err = Compare(Source{"A", strings.NewReader(tc.a)}, Source{"B", strings.NewReader(tc.b)}, Options{})
			})
			took := time.Since(start)
			t.Logf("%d-byte input refused in %v, %d kB allocated", len(deep), took, used>>10)
			var ie *InputError
			// The body object is one level: the limit is passed at the
			// 10,000th bracket of tools, after 35 bytes.
			if !errors.As(err, &ie) || ie.File != tc.file || ie.Line != tc.line || ie.Column != 35+10000 {
				t.Fatalf("err = %v, want an InputError at %s:%d:10035", err, tc.file, tc.line)
			}
			if want := "nesting 100001 deep, deeper than the limit of 10000"; !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %q, want %q", err, want)
			}
			if used > 8<<20 {
				t.Errorf("allocated %d kB to refuse a %d kB input", used>>10, len(deep)>>10)
			}
		})
	}
}

// TestVeryDeepLineNoStackOverflow: a line nested ten million deep (a
// recursive validation would overflow the stack) is refused by the
// iterative scan.
func TestVeryDeepLineNoStackOverflow(t *testing.T) {
	deep := []byte(`{"type":"request/header","data":{"header":{"tools":` + nested(10_000_000, "") + "}}}\n")
	start := time.Now()
	_, err := Compare(Source{"a.log", bytes.NewReader(deep)}, Source{"b.log", bytes.NewReader(deep)}, Options{})
	t.Logf("%d MB line refused in %v", len(deep)>>20, time.Since(start))
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "a.log" || ie.Line != 1 || !strings.Contains(err.Error(), "nesting 10000003 deep") {
		t.Fatalf("err = %v", err)
	}
}

// TestDepthLimitExact: a record MaxDepth deep is accepted (and compared),
// one level more is refused; brackets inside strings do not count.
func TestDepthLimitExact(t *testing.T) {
	// A log line nests its header in two objects, and the header is one
	// level: the record is depth deep.
	record := func(depth int, leaf string) string {
		return logLine(`{"system":` + nested(depth-3, leaf) + `}`)
	}
	res := compareBytes(t, []byte(record(MaxDepth, "1")), []byte(record(MaxDepth, "2")), Options{})
	if res.Identical || res.First.Path != "system"+strings.Repeat(".0", MaxDepth-3) {
		t.Fatalf("at the limit: identical %v, path of %d bytes", res.Identical, len(res.First.Path))
	}
	_, err := Compare(Source{"A", strings.NewReader(record(MaxDepth, "[]"))}, Source{"B", strings.NewReader(record(MaxDepth, "1"))}, Options{})
	if err == nil || !strings.Contains(err.Error(), "A:1:") || !strings.Contains(err.Error(), "nesting 10001 deep") {
		t.Fatalf("one level deeper: err = %v", err)
	}
	brackets := logLine(`{"system":"` + strings.Repeat("[{", MaxDepth) + `\"]"}`)
	if _, err := Compare(Source{"A", strings.NewReader(brackets)}, Source{"B", strings.NewReader(brackets)}, Options{}); err != nil {
		t.Fatalf("brackets in a string: %v", err)
	}
}

// TestDeepWalkBounded: a difference at the bottom of a header nested
// close to the limit is found in memory linear in the input (paths share
// one stack instead of copying their parents).
func TestDeepWalkBounded(t *testing.T) {
	const depth = MaxDepth - 3
	a := []byte(logLine(`{"system":` + nested(depth, `"x"`) + `}`))
	b := []byte(logLine(`{"system":` + nested(depth, `"y"`) + `}`))
	var res *Result
	start := time.Now()
	used := allocated(t, func() { res = compareBytes(t, a, b, Options{}) })
	t.Logf("%d deep: %v, %d MB allocated", depth, time.Since(start), used>>20)
	checkDrift(t, res, 1, "system"+strings.Repeat(".0", depth), Content)
	if used > 64<<20 {
		t.Errorf("allocated %d MB for two %d kB records", used>>20, len(a)>>10)
	}
}

// TestRecordSizeLimit: a record longer than the limit is refused where it
// starts, in JSON Lines (short and gathered long lines) and in values
// spread over lines; a record at the limit is read.
func TestRecordSizeLimit(t *testing.T) {
	body := func(n int) string {
		// A body of exactly n bytes.
		head := `{"model":"m","messages":[],"system":"`
		return head + strings.Repeat("x", n-len(head)-2) + `"}`
	}
	long := 3 * readBufferSize
	for _, tc := range []struct {
		name  string
		limit int
		a     string
		line  int // 0: accepted
	}{
		{"short line at the limit", 1000, body(1000) + "\n", 0},
		{"short line past the limit", 1000, body(1000) + "\n" + body(1001) + "\n", 2},
		{"long line at the limit", long, body(long) + "\n", 0},
		{"long line past the limit", long, "\n" + body(long+1) + "\n", 2},
		{"long line without a newline", long, body(long + readBufferSize), 1},
		{"pretty value past the limit", 1000, "{\n\"model\":\"m\",\n\"messages\":[],\n\"system\":\"" + strings.Repeat("x", 1000) + "\"\n}\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(Source{"A", strings.NewReader(tc.a)}, Source{"B", strings.NewReader(tc.a)}, Options{MaxRecordSize: tc.limit})
			if tc.line == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line != tc.line || !strings.Contains(err.Error(), "record longer than") {
				t.Fatalf("err = %v, want the record on line %d refused", err, tc.line)
			}
		})
	}
	if recordLimit(Options{MaxRecordSize: MaxRecordSize * 2}) != MaxRecordSize || recordLimit(Options{}) != MaxRecordSize {
		t.Fatal("the limit can be raised")
	}
}
