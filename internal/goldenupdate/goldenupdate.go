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
// true), or goldie's -update flag when the binary registered it. As in
// goldie, a flag given on the command line wins over the variable:
// GOLDIE_UPDATE=1 go test -update=false records nothing.
func On() bool { return on(flag.CommandLine, os.Getenv) }

// on is On for the flags of fs and the environment of getenv.
func on(fs *flag.FlagSet, getenv func(string) string) bool {
	given, explicit := false, false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "update" {
			explicit = true
			given, _ = strconv.ParseBool(f.Value.String())
		}
	})
	if explicit {
		return given
	}
	if fl := fs.Lookup("update"); fl != nil {
		if v, _ := strconv.ParseBool(fl.Value.String()); v {
			return true
		}
	}
	switch strings.ToLower(getenv("GOLDIE_UPDATE")) {
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
