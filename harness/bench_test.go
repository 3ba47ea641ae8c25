package harness

import (
	"bytes"
	"os"
	"testing"
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
	for _, name := range []string{"tool-turn", "large-toolset"} {
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
			out, _ := s.Check(f)
			prebuilt[f.Name] = out.Golden
		}
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range s.Fixtures() {
				want, err := os.ReadFile(s.goldenPath(f.Name))
				if err != nil || !bytes.Equal(want, prebuilt[f.Name]) {
					b.Fatal("golden differs", err)
				}
			}
		}
	})
}
