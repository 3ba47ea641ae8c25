// Package python pins the request headers of a Python agent that speaks
// the providers' HTTP APIs with the standard library alone (urllib and
// json, as an agent without an SDK does, so that it needs nothing but
// python3), run as a subprocess against headergold's fake provider:
// every fixture in fixtures/ (all four wire formats, streaming and not;
// the scenarios that do not stream are pinned, and each streamed one's
// headers are held to its pinned twin's) is replayed against golden/, the
// agent is shown to print the scripted answer, and the repeat pass, which
// gives each run another PYTHONHASHSEED, is shown to catch a tool list
// that follows the order of a set.
//
// The tests need python3 on PATH. Record the golden files again with
// GOLDIE_UPDATE=1 go test ./python/... from examples/.
//
// The package has no code besides its tests.
package python
