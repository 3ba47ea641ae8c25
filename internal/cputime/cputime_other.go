//go:build !unix

// Package cputime is the clock of the benchmarks that measure a ratio
// inside one loop: the CPU time the process has used, where the system
// reports it.
package cputime

import "time"

// started is when the package was loaded, set once and never written.
var started = time.Now()

// Process falls back to the wall clock since the package was loaded where
// getrusage is not available: differences of it still time a code path.
func Process() time.Duration { return time.Since(started) }
