package harness_test

import (
	"testing"

	"github.com/headergold/headergold/harness"
)

// TestGolden replays the bundled fixtures against the bundled golden files.
func TestGolden(t *testing.T) {
	harness.Test(t, harness.Options{Fixtures: "../fixtures", Golden: "../golden"})
}
