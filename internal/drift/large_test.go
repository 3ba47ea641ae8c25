package drift

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

// syntheticHeader is a header of realistic size (about 30 kB) that does
// not need the corpus.
func syntheticHeader() testHeader {
	h := testHeader{model: "m-1", system: strings.Repeat("You are a careful coding agent working in a sandbox. ", 60)}
	for i := range 19 {
		h.tools = append(h.tools, fmt.Appendf(nil,
			`{"name":"tool_%02d","description":%q,"parameters":{"type":"object","properties":{"path":{"type":"string","description":"A path."},"limit":{"type":"integer"}},"required":["path"]}}`,
			i, strings.Repeat(fmt.Sprintf("Tool %d does one thing well. ", i), 40)))
	}
	return h
}

// turnBlock is one turn of a session log with a header event and a few
// dozen other events, about 80 kB.
func turnBlock(h testHeader, turn int) []byte {
	var b bytes.Buffer
	hdr := logHeaderJSON(h)
	fmt.Fprintf(&b, `{"type":"turn/start","data":{"turn":%d}}`+"\n", turn)
	fmt.Fprintf(&b, `{"type":"user/message","data":{"turn":%d,"content":"Fix the failing test in ./pkg."}}`+"\n", turn)
	for step := 1; step <= 8; step++ {
		fmt.Fprintf(&b, `{"type":"step/start","data":{"turn":%d,"step":%d}}`+"\n", turn, step)
		if step == 1 {
			fmt.Fprintf(&b, `{"type":"request/header","data":{"turn":%d,"step":1,"reason":"change","header":%s}}`+"\n", turn, hdr)
		}
		fmt.Fprintf(&b, `{"type":"assistant/message","data":{"turn":%d,"step":%d,"text":%q}}`+"\n", turn, step, strings.Repeat("Reading the file now. ", 50))
		fmt.Fprintf(&b, `{"type":"tool/result","data":{"turn":%d,"step":%d,"callId":"c%d","name":"tool_01","output":%q}}`+"\n", turn, step, step, strings.Repeat("line of output\n", 300))
		fmt.Fprintf(&b, `{"type":"step/end","data":{"turn":%d,"step":%d}}`+"\n", turn, step)
	}
	fmt.Fprintf(&b, `{"type":"turn/end","data":{"turn":%d,"reason":"completed"}}`+"\n", turn)
	return b.Bytes()
}

// repeatReader streams head, then block n times, then tail, without
// holding more than those.
type repeatReader struct {
	head, block, tail []byte
	n                 int
	off               int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		var c int
		switch {
		case len(r.head) > 0:
			c = copy(p, r.head)
			r.head = r.head[c:]
		case r.n > 0:
			c = copy(p, r.block[r.off:])
			if r.off += c; r.off == len(r.block) {
				r.off, r.n = 0, r.n-1
			}
		case len(r.tail) > 0:
			c = copy(p, r.tail)
			r.tail = r.tail[c:]
		default:
			if total == 0 {
				return 0, io.EOF
			}
			return total, nil
		}
		p, total = p[c:], total+c
	}
	return total, nil
}

// streams holds the pieces of two log streams: equal but for the header of
// their last turn, which the second side changes when drift is set. A 6 MB
// user message opens both, then block repeats n times. The pieces are
// built once; every call of readers streams them afresh.
type streams struct {
	head, block, tailA, tailB []byte
	n                         int
}

func newStreams(size int, drift bool) *streams {
	h := syntheticHeader()
	block := turnBlock(h, 2)
	head := append(fmt.Appendf(nil, `{"type":"user/message","data":{"turn":1,"content":%q}}`+"\n", strings.Repeat("x", 6<<20)), turnBlock(h, 1)...)
	st := &streams{head: head, block: block, n: max(1, size/len(block)), tailA: turnBlock(h, 3), tailB: turnBlock(h, 3)}
	if drift {
		hb := h.clone()
		hb.tools[5] = bytes.Replace(hb.tools[5], []byte("does one thing"), []byte("does two things"), 1)
		st.tailB = turnBlock(hb, 3)
	}
	return st
}

// readers returns the two streams; they read shared pieces, which nothing
// writes to.
func (st *streams) readers() (a, b io.Reader) {
	return &repeatReader{head: st.head, block: st.block, n: st.n, tail: st.tailA},
		&repeatReader{head: st.head, block: st.block, n: st.n, tail: st.tailB}
}

// headers is the number of header events in each stream.
func (st *streams) headers() int { return st.n + 2 }

// allocated runs fn and returns the bytes it allocated.
func allocated(t *testing.T, fn func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLargeInputBoundedMemory streams two logs of a few hundred MB that
// differ only in their last header, and checks that everything Compare
// allocated (an upper bound of its peak heap) stays small and does not
// grow with the input: identical header events take the fast path and
// are never parsed (parsing one header allocates about 60 kB).
func TestLargeInputBoundedMemory(t *testing.T) {
	size := 320 << 20
	if testing.Short() || raceEnabled {
		size = 48 << 20
	}
	var used [2]uint64
	for i, sz := range []int{size / 4, size} {
		var res *Result
		st := newStreams(sz, true)
		a, b := st.readers()
		used[i] = allocated(t, func() {
			var err error
			res, err = Compare(Source{"A", a}, Source{"B", b}, Options{})
			if err != nil {
				t.Fatal(err)
			}
		})
		headers := st.headers()
		checkDrift(t, res, headers, "tools.5.description", Content)
		// The last turn's first step differs, and its 7 later steps,
		// sent under the same headers, with it.
		if res.Headers != (Counts{headers, headers}) || res.Requests != (Counts{8 * headers, 8 * headers}) ||
			res.First.Request != 8*(headers-1)+1 || res.LaterDiffering != 7 {
			t.Fatalf("got %+v", res)
		}
		t.Logf("%d MB per side, %d headers: allocated %.1f MB", sz>>20, headers, float64(used[i])/(1<<20))
	}
	// Two read buffers and the description of the last header; the 6 MB
	// line, not a header event, is dropped as it is read.
	if used[1] > 8<<20 {
		t.Errorf("allocated %d MB for %d MB of input", used[1]>>20, size>>20)
	}
	if used[1] > used[0]+(2<<20) {
		t.Errorf("allocation grows with the input: %d kB for %d MB, %d kB for %d MB", used[0]>>10, size/4>>20, used[1]>>10, size>>20)
	}
}
