package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The harness's own cost is a replay minus running the scenario; the
// baseline is the least any golden test does: read the golden file and
// compare it with a pre-built log.

func benchSuite(b *testing.B, shuffle int) *Suite {
	b.Helper()
	s, err := Load(Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: shuffle, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkReplay(b *testing.B) {
	for _, name := range []string{"tool-turn", "large-toolset"} { // reference fixtures only: captured ones run a process
		s := benchSuite(b, -1)
		f := s.Fixture(name)
		b.Run(name+"/scenario", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runFixture(f, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/replay", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if res := s.Replay(f); !res.Passed() {
					b.Fatal(res.Failures)
				}
			}
		})
		b.Run(name+"/baseline", func(b *testing.B) {
			out, _ := s.Check(f)
			prebuilt := bytes.Clone(out.Golden)
			b.ReportAllocs()
			for b.Loop() {
				want, err := os.ReadFile(s.goldenPath(name))
				if err != nil || !bytes.Equal(want, prebuilt) {
					b.Fatal("golden differs", err)
				}
			}
		})
		b.Run(name+"/permutation-run", func(b *testing.B) {
			b.ReportAllocs()
			i := uint64(0)
			for b.Loop() {
				i++
				if _, err := runFixture(f, newRegistration(i, i%2 == 0)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkReplaySuite(b *testing.B) {
	for _, tc := range []struct {
		name    string
		shuffle int
	}{{"no-shuffle", -1}, {"shuffle-8", 8}} {
		s := benchSuite(b, tc.shuffle)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, f := range s.Fixtures() {
					if f.Captured() {
						continue // a process per run; see BenchmarkCapturedCompare
					}
					if res := s.Replay(f); !res.Passed() {
						b.Fatal(res.Failures)
					}
				}
			}
		})
	}
	s := benchSuite(b, -1)
	b.Run("scenarios", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range s.Fixtures() {
				if f.Captured() {
					continue
				}
				if _, err := runFixture(f, nil); err != nil {
					b.Fatal(err)
				}
				if f.addsNothing() { // the uniformity guard runs the pin again
					runFixture(s.Fixture(f.Extends), nil)
				}
			}
		}
	})
	b.Run("baseline", func(b *testing.B) {
		prebuilt := map[string][]byte{}
		for _, f := range s.Fixtures() {
			if f.Captured() {
				continue
			}
			out, _ := s.Check(f)
			prebuilt[f.Name] = out.Golden
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range s.Fixtures() {
				if f.Captured() {
					continue
				}
				want, err := os.ReadFile(s.goldenPath(f.Name))
				if err != nil || !bytes.Equal(want, prebuilt[f.Name]) {
					b.Fatal("golden differs", err)
				}
			}
		}
	})
}

// BenchmarkCapturedCompare measures the comparison layer on a captured
// log with a 50 KB header and ten requests, each variant against a
// baseline run in the same loop: read the golden file and compare it with
// a prebuilt templated log (bytes.Equal), the least a golden test does.
//
//   - template: Template over the full log, then read and compare; the
//     general path, which must skip the whole tool list to template it.
//   - replay: what a replay of a captured scenario does, CompareGolden on
//     the outputs of a run; the capture's log writer templated the log
//     as it wrote it (that cost is inside BenchmarkCaptureOverhead).
func BenchmarkCapturedCompare(b *testing.B) {
	var tools []string
	for i := 0; len(strings.Join(tools, ",")) < 50<<10; i++ {
		tools = append(tools, fmt.Sprintf(`{"name":"tool_%03d","description":"%s","input_schema":{"type":"object"}}`, i, strings.Repeat("Does one careful thing. ", 16)))
	}
	var log []byte
	log = fmt.Appendf(log, `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"m","max_tokens":64},"system":"Be careful.","tools":[%s]}}}`+"\n", strings.Join(tools, ","))
	for n := 1; n <= 10; n++ {
		log = fmt.Appendf(log, `{"type":"capture/request","data":{"request":%d,"format":"anthropic","path":"/v1/messages","body":{"model":"<<config>>","max_tokens":"<<config>>","system":"<<system>>","tools":"<<tools>>","messages":[{"role":"user","content":"step %d"}]}}}`+"\n", n, n)
		log = fmt.Appendf(log, `{"type":"capture/reply","data":{"request":%d,"reply":{"text":"ok"}}}`+"\n", n)
	}
	golden, err := Template(log)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden")}
	os.Mkdir(opts.Fixtures, 0o755)
	os.Mkdir(opts.Golden, 0o755)
	os.WriteFile(filepath.Join(opts.Fixtures, "x.json"), []byte(`{"description":"d","agent":{},"replies":[{"text":"ok"}]}`), 0o644)
	file := filepath.Join(opts.Golden, "x.golden")
	if err := os.WriteFile(file, golden, 0o644); err != nil {
		b.Fatal(err)
	}
	s, err := Load(opts)
	if err != nil {
		b.Fatal(err)
	}
	f := s.Fixture("x")
	out := &Outputs{Log: log, Golden: bytes.Clone(golden)}
	prebuilt := bytes.Clone(golden)
	baseline := func() {
		want, err := os.ReadFile(file)
		if err != nil || !bytes.Equal(want, prebuilt) {
			b.Fatal("baseline differs", err)
		}
	}
	variants := map[string]func(){
		"template": func() {
			want, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			got, err := Template(log)
			if err != nil {
				b.Fatal(err)
			}
			if m := compareFile(file, want, got); m != nil {
				b.Fatal(m)
			}
		},
		"replay": func() {
			if fails := s.CompareGolden(f, out); len(fails) > 0 {
				b.Fatal(fails)
			}
		},
	}
	for _, name := range []string{"template", "replay"} {
		variant := variants[name]
		b.Run(name, func(b *testing.B) {
			var tVariant, tBase time.Duration
			b.ReportAllocs()
			for b.Loop() {
				start := time.Now()
				baseline()
				tBase += time.Since(start)
				start = time.Now()
				variant()
				tVariant += time.Since(start)
			}
			b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "baseline-ns/op")
			b.ReportMetric(float64(tVariant.Nanoseconds())/float64(b.N), "variant-ns/op")
			b.ReportMetric(float64(tVariant)/float64(tBase), "variant/baseline")
		})
	}
}
