// Package goldenupdate says whether a run records golden files, and
// whether CI forbids it: the one definition that goldentest.Updating,
// cmd/record and the test helpers share.
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

// InCI reports whether the CI environment variable says this is a CI run:
// any non-empty value but "false" and "0" (in any case). A record there
// is refused: golden files are written by people, on purpose.
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "false", "0":
		return false
	}
	return true
}
