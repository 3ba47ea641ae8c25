// Package external is a module of its own that uses headergold as any
// other module would: only through the harness package's exported API.
// Its test builds fixtures in Go with the public types, writes them,
// records them and replays them. It exists to fail the build when a type
// a user must write is internal to headergold, and to show that a
// fixture written from Go behaves as one written by hand.
package external
