// Command goagent runs the operations assistant of package goagent as a
// program: the same agent that the examples module's tests run
// in-process, configured from the process environment, so that
// headergold scenarios can run it as a subprocess:
//
//	"agent": {"exec": ["go", "run", "./goagent/cmd/goagent"], "dir": "..",
//	          "env": {"AGENT": "gemini", "PROMPT": "Weather in Oslo?"}}
//
// It reads AGENT, STREAM, TOOLS, PROMPT and TAG_SESSION, and the base URL
// and key of the API it talks to (ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
// GOOGLE_GEMINI_BASE_URL; ANTHROPIC_API_KEY, OPENAI_API_KEY,
// GEMINI_API_KEY or GOOGLE_API_KEY), prints the model's answer and exits 0;
// on an error it prints it to stderr and exits 1, 2 for a bad
// configuration.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/headergold/headergold/examples/goagent"
)

func main() {
	c, err := goagent.ConfigFromEnv(os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// A bounded client: a provider that stops answering must not hang
	// the agent forever (headergold kills it at the scenario's timeout,
	// but a user running it by hand has no such guard).
	c.HTTPClient = &http.Client{Timeout: 2 * time.Minute}
	answer, err := goagent.Answer(context.Background(), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(answer)
}
