package agent

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// TestPlanLargeBatches holds the plans of large batches (through counts
// and a heap) to the pairwise plans, which the property and fuzz tests
// hold to a brute-force reference: random batches of up to 120 calls of up
// to 40 tools, whose dependencies may repeat, point at a tool itself, form
// cycles or name tools the batch does not call. Both policies.
func TestPlanLargeBatches(t *testing.T) {
	const seed = 0x9a11
	rng := rand.New(rand.NewPCG(seed, 0))
	for c := range 1500 {
		tools := 1 + rng.IntN(40)
		name := func(i int) string { return fmt.Sprintf("t%d", i) }
		deps := assembler.Deps{}
		density := rng.Float64() * 0.2
		acyclic := rng.IntN(2) == 0
		for a := range tools {
			for b := range tools + 2 { // two tools no call names
				if (acyclic && b >= a) || rng.Float64() >= density {
					continue
				}
				deps[name(a)] = append(deps[name(a)], name(b))
				if rng.IntN(10) == 0 {
					deps[name(a)] = append(deps[name(a)], name(b)) // a repeat
				}
			}
		}
		batch := make([]string, rng.IntN(120))
		for i := range batch {
			batch[i] = name(rng.IntN(tools))
		}
		if got, want := planIndexed(batch, deps), planPairs(batch, deps); !slices.Equal(got, want) {
			t.Fatalf("case %d (seed %#x): batch %v deps %v: plan %v, want %v", c, seed, batch, deps, got, want)
		}
		if got, want := firstEdgeIndexed(batch, deps), firstEdgePairs(batch, deps); (got == nil) != (want == nil) || (got != nil && *got != *want) {
			t.Fatalf("case %d (seed %#x): batch %v deps %v: first edge %v, want %v", c, seed, batch, deps, got, want)
		}
	}
}
