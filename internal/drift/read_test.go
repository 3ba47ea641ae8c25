package drift

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

func TestRecordReader(t *testing.T) {
	long := `{"a":"` + strings.Repeat("x", 3*readBufferSize) + `"}`
	tests := []struct {
		name  string
		in    string
		recs  []string
		lines []int
	}{
		{"lines", "{\"a\":1}\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}},
		{"no final newline", "{\"a\":1}\n{\"b\":2}", []string{`{"a":1}`, `{"b":2}`}, []int{1, 2}},
		{"blank lines", "\n  \n{\"a\":1}\n\r\n{\"b\":2}\n\n", []string{`{"a":1}`, `{"b":2}`}, []int{3, 5}},
		{"crlf", "{\"a\":1}\r\n{\"b\":2}\r\n", []string{"{\"a\":1}\r", "{\"b\":2}\r"}, []int{1, 2}},
		{"long line", "{}\n" + long + "\n{}\n", []string{`{}`, long, `{}`}, []int{1, 2, 3}},
		{"pretty", "{\n  \"a\": \"}{\",\n  \"b\": [1,\n 2]\n}\n{\n}\n", []string{"{\n  \"a\": \"}{\",\n  \"b\": [1,\n 2]\n}", "{\n}"}, []int{1, 6}},
		{"pretty then lines", "{\n\"a\":1}\n{\"b\":2}\n", []string{"{\n\"a\":1}", `{"b":2}`}, []int{1, 3}},
		{"unfinished", "{\n\"a\":", []string{"{\n\"a\":"}, []int{1}},
		{"escaped quote", "{\"a\":\"\\\"{\",\n\"b\":1}\n", []string{"{\"a\":\"\\\"{\",\n\"b\":1}"}, []int{1}},
		{"truncated first line", "{\"a\":\"b\n{}\n", []string{"{\"a\":\"b", "{}"}, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRecordReader("in", strings.NewReader(tt.in), MaxRecordSize)
			var recs []string
			var lines []int
			for {
				rec, line, err := r.next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				recs = append(recs, string(rec))
				lines = append(lines, line)
			}
			if len(recs) != len(tt.recs) {
				t.Fatalf("got %d records, want %d", len(recs), len(tt.recs))
			}
			for i := range recs {
				if recs[i] != tt.recs[i] || lines[i] != tt.lines[i] {
					t.Errorf("record %d: got line %d %.40q, want line %d %.40q", i, lines[i], recs[i], tt.lines[i], tt.recs[i])
				}
			}
		})
	}
}

// failingReader yields its data once, then an error.
type failingReader struct{ data []byte }

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestInvalidInput checks that invalid JSON, on either side, is an
// InputError naming the file and line.
func TestInvalidInput(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[]}`
	bodies := strings.Repeat(body+"\n", 5)
	hdr := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m"}}}}`
	logText := strings.Join([]string{
		`{"type":"turn/start","data":{"turn":1}}`,
		`{"type":"user/message","data":{"turn":1,"content":"hi"}}`,
		`{"type":"step/start","data":{"turn":1,"step":1}}`,
		hdr,
		`{"type":"turn/end","data":{"turn":1,"reason":"completed"}}`,
	}, "\n") + "\n"
	replaceLine := func(text string, n int, with string) string {
		lines := strings.Split(text, "\n")
		lines[n-1] = with
		return strings.Join(lines, "\n")
	}
	tests := []struct {
		name, a, b string
		want       string // in the error message
		line       int
	}{
		{"body on A", replaceLine(bodies, 3, `{"model":"m",}`), bodies, "A:3:", 3},
		{"body on B", bodies, replaceLine(bodies, 4, `{"model":"m","tools":[`), "B:4:", 4},
		{"header event", logText, replaceLine(logText, 4, `{"type":"request/header","data":{"header":{"config":}}}`), "B:4:", 4},
		{"truncated event", replaceLine(logText, 2, `{"type":"user/message","data":{"turn":1,"content":"h`), logText, "A:2:", 2},
		{"not canonical", logText, replaceLine(logText, 5, `{ "type": "turn/end", oops }`), "B:5:", 5},
		{"not an event", logText, replaceLine(logText, 3, body), "not a session-log event", 3},
		{"pretty body", "{\n  \"model\": \"m\",\n  \"messages\": [],\n  \"tools\": [,]\n}\n", body + "\n", "A:4:", 4},
		{"no format", `{"model":"m"}` + "\n", `{"model":"n"}` + "\n", "wire format", 1},
		{"long truncated event", logText, replaceLine(logText, 2, `{"type":"user/message","data":{"turn":1,"content":"`+strings.Repeat("x", 2*readBufferSize)), `B:2:524340: invalid JSON: unexpected end of the line`, 2},
		{"long truncated header", replaceLine(logText, 4, hdr[:len(hdr)-3]+strings.Repeat(" ", 2*readBufferSize)), logText, "A:4:", 4},
		{"bad header", logText, replaceLine(logText, 4, `{"type":"request/header","data":{"turn":1,"header":"no"}}`), "no header object", 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(Source{"A", strings.NewReader(tt.a)}, Source{"B", strings.NewReader(tt.b)}, Options{})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InputError", err)
			}
			if !strings.Contains(err.Error(), tt.want) || ie.Line != tt.line {
				t.Fatalf("got %q (line %d), want %q at line %d", err, ie.Line, tt.want, tt.line)
			}
		})
	}
	t.Run("read error", func(t *testing.T) {
		_, err := Compare(Source{"A", &failingReader{data: []byte(body + "\n" + body)}}, Source{"B", strings.NewReader(bodies)}, Options{})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "disk on fire") || ie.File != "A" {
			t.Fatalf("got %v, want the read error on A", err)
		}
	})
}

// TestCountMismatch checks that a request on one side only is drift,
// not identical, and said as such: the requests both inputs hold are
// compared, and the count is the difference.
func TestCountMismatch(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}]}` + "\n"
	res := compareBytes(t, []byte(strings.Repeat(body, 3)), []byte(strings.Repeat(body, 5)), Options{})
	if res.Identical || res.First != nil || res.LaterDiffering != 0 || res.Headers != (Counts{3, 5}) || res.Requests != (Counts{3, 5}) ||
		res.CountNote != "A has 3 requests, B has 5; the 3 they share have the same headers" {
		t.Fatalf("got %+v", res)
	}
	var text strings.Builder
	res.WriteText(&text)
	if want := "drift: A has 3 requests, B has 5; the 3 they share have the same headers\n(requests: A 3, B 5)\n"; text.String() != want {
		t.Fatalf("text %q, want %q", text.String(), want)
	}
	// B with events but no request is a log of none; B with no line but
	// blank ones is an input cut short or never written, either way round.
	res = compareBytes(t, []byte(strings.Repeat(body, 2)), []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n"), Options{})
	if res.Identical || res.First != nil || res.CountNote != "A has 2 requests, B has none" || res.Headers != (Counts{2, 0}) {
		t.Fatalf("got %+v", res)
	}
	for _, c := range [][2]string{{strings.Repeat(body, 2), ""}, {"", body}, {body, "\n"}, {" \n\n", body}} {
		if _, err := Compare(Source{"A", strings.NewReader(c[0])}, Source{"B", strings.NewReader(c[1])}, Options{}); !errors.Is(err, ErrEmptyInput) {
			t.Errorf("%q against %q: err = %v, want ErrEmptyInput", c[0], c[1], err)
		}
	}
	// A differing request and one more on B: the extra one counts as a
	// later difference.
	other := `{"model":"n","messages":[{"role":"user","content":"hi"}]}` + "\n"
	res = compareBytes(t, []byte(body+body), []byte(body+other+other), Options{})
	checkDrift(t, res, 2, "config.model", Content)
	if res.LaterDiffering != 1 || res.CountNote != "A has 2 requests, B has 3" || res.First.Request != 2 {
		t.Fatalf("got %+v", res)
	}
	if _, err := Compare(Source{"A", strings.NewReader("")}, Source{"B", strings.NewReader("")}, Options{}); !errors.Is(err, ErrNothingToCompare) {
		t.Fatalf("two empty inputs: err = %v, want ErrNothingToCompare", err)
	}
}

// TestPrettyLog reads a session log whose events are indented over several
// lines: the same headers compare identical, and against the compact log
// the first header differs in whitespace.
func TestPrettyLog(t *testing.T) {
	h := syntheticHeader()
	compact := renderLog([]testHeader{h, h}, "hi", false)
	var pretty []byte
	for _, line := range bytes.Split(bytes.TrimSpace(compact), []byte("\n")) {
		var err error
		if pretty, err = canon.Indent(pretty, line, "  "); err != nil {
			t.Fatal(err)
		}
		pretty = append(pretty, '\n')
	}
	if res := compareBytes(t, pretty, bytes.Clone(pretty), Options{}); !res.Identical || res.Headers.A != 2 {
		t.Fatalf("pretty log against itself: %+v", res)
	}
	res := compareBytes(t, compact, pretty, Options{})
	checkDrift(t, res, 1, "", Encoding)
	if res.First.B.Line != 21 || res.LaterDiffering != 1 {
		t.Fatalf("first differing header at B line %d, later %d", res.First.B.Line, res.LaterDiffering)
	}
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestRecordPastLimitHeldOnce: a record past the limit is refused after
// reading at most one buffer past it, and holds no more than the limit
// (and a newline) in memory meanwhile: the gathering buffer does not
// double beyond the limit before the refusal.
func TestRecordPastLimitHeldOnce(t *testing.T) {
	limit := 3*readBufferSize + readBufferSize/2
	text := strings.Repeat("x", 40*readBufferSize)
	for _, tc := range []struct {
		name string
		in   string
		held func(r *recordReader) int
	}{
		{"a line", `{"a":"` + text + `"}` + "\n", func(r *recordReader) int { return cap(r.long) }},
		{"a value over lines", "{\n" + strings.Repeat(`"a":"`+strings.Repeat("x", readBufferSize/4)+`",`+"\n", 160) + `"b":1}` + "\n",
			func(r *recordReader) int { return cap(r.acc) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &countingReader{r: strings.NewReader(tc.in)}
			r := newRecordReader("in", src, limit)
			_, _, err := r.next()
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "record longer than") || ie.Line != 1 {
				t.Fatalf("err = %v, want the record on line 1 refused", err)
			}
			if held := tc.held(r); held > limit+1 {
				t.Errorf("held %d bytes for a limit of %d", held, limit)
			}
			if src.n > limit+2*readBufferSize {
				t.Errorf("read %d bytes before refusing, for a limit of %d", src.n, limit)
			}
		})
	}
}
