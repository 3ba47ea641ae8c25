//go:build unix

// Package cputime is the clock of the benchmarks that measure a ratio
// inside one loop: the CPU time the process has used (user and system,
// all threads, the garbage collector's too). On a shared machine it is a
// steadier clock for comparing two code paths than the wall clock, which
// also counts the time spent waiting for a CPU another process holds.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time the process has used so far, or 0 when
// getrusage fails.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
