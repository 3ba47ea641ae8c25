//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package harness

import (
	"context"
	"time"
)

// lockDir does not lock on this system, which has no flock: two records
// run at once in one golden directory are not kept apart (README,
// "Limits and reliability").
func lockDir(ctx context.Context, dir string, wait time.Duration) (func() error, error) {
	return func() error { return nil }, nil
}
