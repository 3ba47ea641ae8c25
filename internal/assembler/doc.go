// Package assembler is the system-prompt service of the reference agent: it
// collects tool providers, prompt sections and system-prompt/assemble
// listeners, registered at any time from any goroutine, and assembles them
// into an immutable request [Header] whose bytes do not depend on the order
// or timing of registration.
//
// The tool-order rule lives in order.go; the canonical JSON bytes come from
// package canon, which writes what JavaScript's JSON.stringify writes.
package assembler
