package harness

import (
	"sync"
	"testing"
)

// Replay and Check may be called concurrently on one suite, as the
// parallel subtests of goldentest do, for the same fixture as well as for
// different ones; run under -race, this test checks that they share no
// unguarded state.
func TestConcurrentReplays(t *testing.T) {
	captured, _ := capturedSuite(t, map[string]string{
		"a": capturedFixture(`"PROMPT": "What is in go.mod?"`, ""),
		"b": capturedFixture(`"PROMPT": "And in go.sum?"`, ""),
	})
	if _, failed, err := captured.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	captured = mustLoad(t, captured.opts)
	for _, s := range []*Suite{mustLoad(t, copyBundled(t)), captured} {
		var wg sync.WaitGroup
		for _, f := range s.Fixtures() {
			for range 2 {
				wg.Go(func() {
					if res := s.Replay(f); !res.Passed() {
						t.Errorf("%s: %v", f.Name, res.Failures)
					}
				})
				wg.Go(func() {
					if _, res := s.Check(f); !res.Passed() {
						t.Errorf("%s: %v", f.Name, res.Failures)
					}
				})
			}
		}
		wg.Wait()
	}
}
