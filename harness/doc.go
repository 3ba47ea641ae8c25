// Package harness replays and records golden session logs of the reference
// agent: the snapshot tests of the request header.
//
// A fixture (fixtures/NAME.json) is a scenario: config, prompt sections,
// tool plugins, listeners and scripted turns. Replaying it runs the agent
// with its scripted replies and checks three things:
//
//  1. rebuild: every request the adapter received is rebuilt byte for byte
//     from the log prefix before it;
//  2. compare: the templated log equals golden/NAME.golden, and for a pinned
//     fixture the full headers equal the sidecars NAME.system.md and
//     NAME.tools.json;
//  3. permute: more runs under seeded random and concurrent registration
//     orders produce the same bytes.
//
// Package harness/goldentest runs this from go test with goldie; the commands cmd/replay and
// cmd/record call the same [Suite] methods, so a fixture passes or fails the
// same way everywhere.
//
// The templating rule lives in template.go, the sidecar formats in pin.go,
// the layout guards in suite.go (orphans) and replay.go (CompareGolden),
// the dependency checks in trace.go.
package harness
