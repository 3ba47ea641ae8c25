package harness_test

import (
	"testing"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// TestGolden replays the bundled fixtures against the bundled golden files.
func TestGolden(t *testing.T) {
	goldentest.Test(t, harness.Options{Fixtures: "../fixtures", Golden: "../golden"})
}
