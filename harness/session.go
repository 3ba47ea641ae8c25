package harness

import (
	"context"
	"net/http"
	"slices"
	"strings"
)

// Session is what an in-process Go agent gets for one run of a captured
// scenario: where the fake provider listens and the scenario's
// environment. Point an official SDK at it with its base-URL option (or
// give it HTTPClient) and run the agent's own loop to its end.
type Session struct {
	// Scenario is the fixture's name.
	Scenario string
	// Run is the run of the repeat pass, counted from 1.
	Run int
	// AnthropicBaseURL is http://127.0.0.1:PORT (the Anthropic SDKs
	// append /v1/messages).
	AnthropicBaseURL string
	// OpenAIBaseURL is http://127.0.0.1:PORT/v1.
	OpenAIBaseURL string
	// GeminiBaseURL is http://127.0.0.1:PORT (the Go and Python genai
	// SDKs append /v1beta/models/…, @google/genai /v1/models/…; the
	// fake provider serves both).
	GeminiBaseURL string
	// HTTPClient sends every request to the fake provider, whatever its
	// URL's scheme and host (the path and query are kept): an SDK given
	// only this client, with its default base URL, reaches the fake
	// provider too, never the network.
	HTTPClient *http.Client
	// Env is what a subprocess agent would get on top of its inherited
	// environment: the base URLs, dummy API keys, NO_PROXY and no_proxy
	// (the process's, with loopback added), the variables that turn off
	// agents' own traffic (OPENAI_AGENTS_DISABLE_TRACING,
	// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC) and the fixture's
	// agent.env (which wins).
	Env map[string]string
	// Unset are the variables a subprocess agent does not inherit: the
	// machine's credentials other than the API keys Env replaces (none
	// when recording from a real provider, whose agent keeps them all).
	Unset []string
	// credentials are the machine's API keys and other credentials, when
	// recording from a real provider: a subprocess agent inherits them,
	// and Getenv gives them to an in-process one. They are kept out of
	// Env, which Exports prints.
	credentials map[string]string
}

// Getenv returns the session's value of an environment variable: Env's,
// or "" when Env has none. It never reads the process environment, so a
// run cannot depend on the machine it runs on (Env's proxy exceptions
// aside, which no agent's header should read), with one exception: when
// recording from a real provider (Options.Upstream), where Env has no
// dummy keys, it gives the process's API keys and other credentials, as
// a subprocess agent inherits them, so that the agent sends its real key.
func (s *Session) Getenv(key string) string {
	if v, ok := s.Env[key]; ok {
		return v
	}
	return s.credentials[key]
}

// AgentFunc runs an in-process agent against a session, to its end. An
// error fails the run (check agent), with its message.
//
// It is called concurrently: goldentest.Test runs each fixture in a
// parallel subtest, and concurrent Replay and Check calls run their
// agents at once, each with its own session. An agent that keeps global
// state (package variables, a shared cache, os.Setenv or os.Chdir) must
// guard it; settings are best read through [Session.Getenv], which is
// per run.
type AgentFunc func(ctx context.Context, s *Session) error

// Exports returns the shell lines that point an agent at the session's
// fake provider: the base URLs and, where the session sets them, the
// dummy keys, in a fixed order, then one unset line for Unset.
func (s *Session) Exports() []string {
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, "export "+k+"="+shellQuote(s.Env[k]))
	}
	if len(s.Unset) > 0 {
		out = append(out, "unset "+strings.Join(s.Unset, " "))
	}
	return out
}

// shellQuote quotes v for a POSIX shell when it needs it.
func shellQuote(v string) string {
	if v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@=,") == "" {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}
