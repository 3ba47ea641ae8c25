// Package harness replays and records golden session logs: the snapshot
// tests of the request header, of the reference agent or of your own.
//
// A fixture (fixtures/NAME.json) is a scenario. For the reference agent it
// gives config, prompt sections, tool plugins, listeners and scripted
// turns; a captured scenario instead names an agent (a subprocess, or an
// in-process Go agent given as [Options.Agent]) and the replies a fake
// provider sends it. Replaying a fixture runs it with its scripted replies
// and checks (see [Check]):
//
//  1. rebuild: every request is rebuilt byte for byte from the log prefix
//     before it;
//  2. golden and sidecar: the templated log equals golden/NAME.golden, and
//     for a pinned fixture the full headers equal the sidecars
//     NAME.system.md and NAME.tools.json;
//  3. permute (reference agent): more runs under seeded random and
//     concurrent registration orders produce the same bytes;
//  4. repeat (captured agents): more runs of the agent, under varied
//     GOMAXPROCS and PYTHONHASHSEED, log the same bytes;
//  5. trace: no tool call ran before a tool it depends on;
//
// besides the guards of the golden layout (guard, uniformity) and the
// checks that the scenario could run at all (agent, invalid).
//
// Package harness/goldentest runs this from go test with goldie; the commands cmd/replay and
// cmd/record call the same [Suite] methods, so a fixture passes or fails the
// same way everywhere.
//
// The templating rule lives in template.go, the sidecar formats in pin.go,
// the layout guards in suite.go (orphans) and replay.go (CompareGolden),
// the dependency checks in trace.go, the write transaction in record.go
// and the journal by which a killed record is rolled back in journal.go.
package harness
