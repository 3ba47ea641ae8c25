package main

import "github.com/headergold/headergold/internal/drift"

// runDiff finds where two hosts' headers drift apart: replay diff A B.
func runDiff(args []string, e env) int {
	return drift.Main(args, e.stdin, e.stdout, e.stderr)
}
