package cputime

import "testing"

// The clock moves with work done and never goes back.
func TestProcessAdvances(t *testing.T) {
	before := Process()
	x := 0
	for i := range 50_000_000 {
		x ^= i * i
	}
	after := Process()
	if after <= before {
		t.Errorf("Process() = %v after busy work, %v before (x=%d)", after, before, x)
	}
}
