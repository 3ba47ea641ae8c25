package harness

import (
	"os"
	"strings"
)

// InCI reports whether the CI environment variable says this is a CI run:
// any non-empty value but "false" and "0" (in any case).
func InCI() bool {
	switch strings.ToLower(os.Getenv("CI")) {
	case "", "false", "0":
		return false
	}
	return true
}
