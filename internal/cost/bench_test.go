package cost

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/headergold/headergold/internal/wire"
)

// header50KB is a realistic Anthropic request whose header (tools and
// system) is 50 KB: the corpus's longest system prompt, and the tool
// definitions of the corpus bodies, in turn and repeated, until the two
// reach 50 KB; its conversation is line 1's.
func header50KB(b *testing.B) Request {
	b.Helper()
	reqs := corpusRequests(b, "anthropic-messages.jsonl", wire.Anthropic, "messages")
	r := reqs[0]
	for _, o := range reqs {
		if len(o.System) > len(r.System) {
			r.System = o.System
		}
	}
	var tools [][]byte
	size := len(r.System) + 2
fill:
	for {
		for _, o := range reqs {
			for _, t := range gjson.ParseBytes(o.Tools).Array() {
				if size >= 50<<10 {
					break fill
				}
				tools = append(tools, []byte(t.Raw))
				size += len(t.Raw) + 1
			}
		}
	}
	r.Tools = append(append([]byte{'['}, bytes.Join(tools, []byte{','})...), ']')
	return r
}

func BenchmarkEstimate50KBHeader(b *testing.B) {
	r := header50KB(b)
	if _, err := CountTokens(nil); err != nil {
		b.Fatal(err)
	}
	mustEstimate(b, r, Place{Segment: Tools, Offset: 0}) // load the vocabulary outside the timing
	for _, at := range []Place{{Segment: Tools, Offset: len(r.Tools) / 2}, {Segment: System, Offset: len(r.System) / 2}, {Segment: Config}} {
		b.Run(fmt.Sprintf("%s-%dKB", at.Segment, (len(r.Tools)+len(r.System))>>10), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(r.Tools) + len(r.System) + len(r.Messages)))
			for b.Loop() {
				if _, err := Estimate(r, at); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

const loadChildEnv = "HEADERGOLD_COST_LOAD_CHILD"

// TestFirstLoadChild is the child process of BenchmarkTokenizerFirstLoad:
// a fresh process is the only place where the vocabulary is not loaded yet.
func TestFirstLoadChild(t *testing.T) {
	if os.Getenv(loadChildEnv) == "" {
		t.Skip("run by BenchmarkTokenizerFirstLoad in a child process")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	n, err := CountTokens([]byte("hello world"))
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	if err != nil || n != 2 {
		t.Fatalf("first count: %d tokens, %v", n, err)
	}
	fmt.Printf("first-load %d %d %d\n", elapsed.Nanoseconds(), after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs)
}

// BenchmarkTokenizerFirstLoad measures, in child processes, the first
// count of a process: loading the o200k_base vocabulary and compiling its
// split pattern. Its own ns/op and allocations are those of starting the
// child; ns/load, B/load and allocs/load are the child's measurements.
func BenchmarkTokenizerFirstLoad(b *testing.B) {
	var ns, bytes, allocs, runs int64
	for b.Loop() {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFirstLoadChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), loadChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			b.Fatalf("child: %v\n%s", err, out)
		}
		var n, by, al int64
		i := bytesIndex(out, "first-load ")
		if i < 0 {
			b.Fatalf("child printed no measurement:\n%s", out)
		}
		if _, err := fmt.Sscanf(string(out[i:]), "first-load %d %d %d", &n, &by, &al); err != nil {
			b.Fatalf("child output: %v\n%s", err, out)
		}
		ns, bytes, allocs, runs = ns+n, bytes+by, allocs+al, runs+1
	}
	b.ReportMetric(float64(ns)/float64(runs), "ns/load")
	b.ReportMetric(float64(bytes)/float64(runs), "B/load")
	b.ReportMetric(float64(allocs)/float64(runs), "allocs/load")
}

func bytesIndex(b []byte, s string) int { return bytes.Index(b, []byte(s)) }
