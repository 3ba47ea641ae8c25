package drift

import (
	"bufio"
	"bytes"
	"io"
	"testing"
)

// benchSize is the size of each input of the throughput benchmarks.
const benchSize = 100 << 20

// benchLogs returns two 100 MB session logs, equal or differing only in
// the header of their last turn. They are built in memory, in separate
// buffers so that comparing them really reads both.
func benchLogs(b *testing.B, drift bool) (x, y []byte) {
	b.Helper()
	ra, rb := newStreams(benchSize, drift).readers()
	x, err := io.ReadAll(ra)
	if err != nil {
		b.Fatal(err)
	}
	y, err = io.ReadAll(rb)
	if err != nil {
		b.Fatal(err)
	}
	return x, y
}

// benchBodies returns two 100 MB files of request bodies (OpenAI Chat,
// each with the synthetic header and a growing conversation).
func benchBodies(b *testing.B) (x, y []byte) {
	b.Helper()
	h := syntheticHeader()
	var buf bytes.Buffer
	for i := 0; buf.Len() < benchSize; i++ {
		buf.Write(renderBody("openai-chat", h, 1+i%40, "Please look at the failing test again"))
		buf.WriteByte('\n')
	}
	return buf.Bytes(), bytes.Clone(buf.Bytes())
}

func benchCompare(b *testing.B, x, y []byte, identical bool) {
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Compare(Source{"A", bytes.NewReader(x)}, Source{"B", bytes.NewReader(y)}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Identical != identical {
			b.Fatalf("identical = %v", res.Identical)
		}
	}
}

// benchBaselineStream is the baseline: read both inputs line by line with
// bufio and compare each pair of lines with bytes.Equal.
func benchBaselineStream(b *testing.B, x, y []byte) {
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		ra := bufio.NewReaderSize(bytes.NewReader(x), readBufferSize)
		rb := bufio.NewReaderSize(bytes.NewReader(y), readBufferSize)
		differ := 0
		for {
			la, errA := ra.ReadSlice('\n')
			lb, errB := rb.ReadSlice('\n')
			if !bytes.Equal(la, lb) {
				differ++
			}
			if (errA != nil && errA != bufio.ErrBufferFull) || (errB != nil && errB != bufio.ErrBufferFull) {
				break
			}
		}
		_ = differ
	}
}

// benchBaselineSplit is the bare baseline: bytes.Equal over lines already
// split in memory (no reading at all).
func benchBaselineSplit(b *testing.B, x, y []byte) {
	la, lb := bytes.Split(x, []byte("\n")), bytes.Split(y, []byte("\n"))
	b.SetBytes(int64(len(x)))
	b.ReportAllocs()
	for b.Loop() {
		differ := 0
		for i := range min(len(la), len(lb)) {
			if !bytes.Equal(la[i], lb[i]) {
				differ++
			}
		}
		_ = differ
	}
}

// BenchmarkThroughput compares two 100 MB inputs: session logs (equal, or
// differing only at the end) and request bodies, beside the baselines.
// Throughput is that of one input (b.SetBytes of one side).
func BenchmarkThroughput(b *testing.B) {
	b.Run("logs/identical", func(b *testing.B) {
		x, y := benchLogs(b, false)
		benchCompare(b, x, y, true)
	})
	b.Run("logs/differ-at-end", func(b *testing.B) {
		x, y := benchLogs(b, true)
		benchCompare(b, x, y, false)
	})
	b.Run("logs/baseline-bufio-equal", func(b *testing.B) {
		x, y := benchLogs(b, false)
		benchBaselineStream(b, x, y)
	})
	b.Run("logs/baseline-split-equal", func(b *testing.B) {
		x, y := benchLogs(b, false)
		benchBaselineSplit(b, x, y)
	})
	b.Run("bodies/identical", func(b *testing.B) {
		x, y := benchBodies(b)
		benchCompare(b, x, y, true)
	})
	b.Run("bodies/baseline-bufio-equal", func(b *testing.B) {
		x, y := benchBodies(b)
		benchBaselineStream(b, x, y)
	})
	b.Run("bodies/baseline-split-equal", func(b *testing.B) {
		x, y := benchBodies(b)
		benchBaselineSplit(b, x, y)
	})
}

// BenchmarkMemory compares logs of growing size: bytes/op must not grow
// with the input.
func BenchmarkMemory(b *testing.B) {
	for _, mb := range []int{16, 64, 256} {
		b.Run(itoa(mb)+"MB", func(b *testing.B) {
			st := newStreams(mb<<20, true)
			b.SetBytes(int64(len(st.head) + st.n*len(st.block) + len(st.tailA)))
			b.ReportAllocs()
			for b.Loop() {
				ra, rb := st.readers()
				if _, err := Compare(Source{"A", ra}, Source{"B", rb}, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
