// Package goldenupdate says whether a go test run records golden files:
// the one definition harness.Updating and the test helpers share.
package goldenupdate

import (
	"flag"
	"os"
	"strconv"
	"strings"
)

// On reports whether this run records golden files: GOLDIE_UPDATE=1 (or
// true), or goldie's -update flag when the binary registered it.
func On() bool {
	if fl := flag.Lookup("update"); fl != nil {
		if on, _ := strconv.ParseBool(fl.Value.String()); on {
			return true
		}
	}
	switch strings.ToLower(os.Getenv("GOLDIE_UPDATE")) {
	case "1", "true", "t":
		return true
	}
	return false
}
