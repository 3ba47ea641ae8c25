package examples

import (
	"testing"

	"github.com/headergold/headergold/examples/goagent"
	"github.com/headergold/headergold/examples/internal/exampletest"
	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/harness/goldentest"
)

// TestGolden pins the Go agent's request headers: every scenario in
// fixtures/ runs against the fake provider (in-process through
// goagent.Run, or as a subprocess where it has an agent.exec), with the
// repeat pass, and its templated log, and for pinned scenarios its system
// prompt and tool list, must equal the files in golden/. Record them with
// GOLDIE_UPDATE=1 go test.
func TestGolden(t *testing.T) {
	goldentest.Test(t, harness.Options{Fixtures: "fixtures", Golden: "golden", Agent: goagent.Run})
}

// TestAnswers checks that the Go agent read its last reply: what it
// answers in-process, and what it prints as a subprocess, is the text of
// each scenario's last reply.
func TestAnswers(t *testing.T) {
	exampletest.Answers(t, "fixtures", "golden", goagent.SessionAnswer)
}
