package harness

import "testing"

// The doc comments give these constants' values, which go doc does not
// show for a constant defined as another package's: they must agree.
func TestDocumentedConstantValues(t *testing.T) {
	for got, want := range map[string]string{
		SystemPlaceholder: "<<system>>",
		ToolsPlaceholder:  "<<tools>>",
		UnlistedTools:     "<unlisted-tools>",
		PolicyReorder:     "reorder",
		PolicyReject:      "reject",
	} {
		if got != want {
			t.Errorf("constant is %q, its doc says %q", got, want)
		}
	}
}
