package ts_test

import (
	"testing"

	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// TestGolden replays every scenario of fixtures/ (each SDK, streaming and
// not, every reply shape) against its golden files, with the repeat pass.
func TestGolden(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden"})
}

// TestAnswers runs every scenario of fixtures/ once more and checks that
// the agent printed the scripted final text, which proves that the SDK
// read the last reply (the earlier ones are echoed in the requests the
// golden files pin); the captured logs must also be the committed golden
// files, byte for byte.
func TestAnswers(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	exampletest.Answers(t, "fixtures", "golden", nil)
}

// TestRepeatCatchesAsyncPlugins runs the agent whose plugins register
// after random delays: its tool list follows timing, and the repeat pass
// must fail with check repeat and name the drift a reorder.
func TestRepeatCatchesAsyncPlugins(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	exampletest.NewRepeat(t, "async-plugins", 20,
		"node", "agent/agent.mjs", "--api", "anthropic", "--async-plugins", "--prompt", "Weather in Oslo?").
		MustFail(t)
}

// TestRepeatPassesSortedPlugins runs the same agent with its default
// registration (plugins, then a sort by name): 20 runs out of 20 give
// the same log.
func TestRepeatPassesSortedPlugins(t *testing.T) {
	exampletest.NeedNode(t, "ts")
	exampletest.NewRepeat(t, "sorted-plugins", 20,
		"node", "agent/agent.mjs", "--api", "anthropic", "--prompt", "Weather in Oslo?").
		MustPass(t)
}
