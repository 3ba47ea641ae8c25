package goagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/headergold/headergold/harness"
)

// API names the provider API, and so the SDK, the agent talks to.
type API string

// The APIs the agent speaks; each is the value of AGENT that selects it.
const (
	Anthropic       API = "anthropic"        // Messages, anthropic-sdk-go
	OpenAIChat      API = "openai-chat"      // Chat Completions, openai-go
	OpenAIResponses API = "openai-responses" // Responses, openai-go
	Gemini          API = "gemini"           // generateContent, genai
)

// System is the agent's system prompt.
const System = `You are the operations assistant of a small platform team.
Use the tools for facts: weather and time zones for travel, currency conversion for expenses, the team's docs for procedures, and tickets for anything that needs follow-up.
Answer in at most three sentences; name the ticket id when you open one.`

// DefaultMaxSteps bounds the agent loop: a model that keeps calling tools
// gets this many requests and no more.
const DefaultMaxSteps = 8

// model is the model each API is asked for: fixed, since the model is part
// of the request header. "" for an API the agent does not speak.
func model(api API) string {
	switch api {
	case Anthropic:
		return "claude-sonnet-4-5"
	case OpenAIChat, OpenAIResponses:
		return "gpt-5.2"
	case Gemini:
		return "gemini-2.5-flash"
	}
	return ""
}

// Config is one run of the agent.
type Config struct {
	API    API    // which SDK and API
	Stream bool   // stream every reply rather than read one JSON response
	Tools  Order  // the order of the tool list
	Prompt string // the user's request
	// TagSession sends a random per-run session id with every request.
	TagSession bool
	// BaseURL is where the SDK sends its requests, in that SDK's form
	// (the OpenAI one ends in /v1); "" keeps the SDK's default: its
	// provider's address, or for openai-go and genai the process's
	// OPENAI_BASE_URL or GOOGLE_GEMINI_BASE_URL when set.
	BaseURL string
	// APIKey is the provider key.
	APIKey string
	// HTTPClient carries the requests; nil uses the SDK's default.
	HTTPClient *http.Client
	// MaxSteps bounds the loop; 0 means DefaultMaxSteps.
	MaxSteps int
}

// ConfigFromEnv reads a configuration through getenv (os.Getenv for the
// command, a session's Getenv in-process), so that both read the same
// variables the same way: AGENT, STREAM, TOOLS, PROMPT, TAG_SESSION, the
// API's base URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL or
// GOOGLE_GEMINI_BASE_URL) and its key (ANTHROPIC_API_KEY, OPENAI_API_KEY,
// GEMINI_API_KEY or else GOOGLE_API_KEY).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{API: API(getenv("AGENT")), Tools: Order(getenv("TOOLS")), Prompt: getenv("PROMPT")}
	var err error
	if c.Stream, err = flag(getenv, "STREAM"); err != nil {
		return c, err
	}
	if c.TagSession, err = flag(getenv, "TAG_SESSION"); err != nil {
		return c, err
	}
	if c.Tools == "" {
		c.Tools = OrderSorted
	}
	switch c.API {
	case Anthropic:
		c.BaseURL, c.APIKey = getenv("ANTHROPIC_BASE_URL"), getenv("ANTHROPIC_API_KEY")
	case OpenAIChat, OpenAIResponses:
		c.BaseURL, c.APIKey = getenv("OPENAI_BASE_URL"), getenv("OPENAI_API_KEY")
	case Gemini:
		c.BaseURL, c.APIKey = getenv("GOOGLE_GEMINI_BASE_URL"), getenv("GEMINI_API_KEY")
		if c.APIKey == "" {
			c.APIKey = getenv("GOOGLE_API_KEY")
		}
	}
	return c, c.validate()
}

// flag reads a 0/1 variable; anything else is an error rather than a
// silent false, so a typo in a scenario shows.
func flag(getenv func(string) string, name string) (bool, error) {
	switch v := getenv(name); v {
	case "", "0":
		return false, nil
	case "1":
		return true, nil
	default:
		return false, fmt.Errorf("goagent: %s=%q: want 0 or 1", name, v)
	}
}

// validate checks what every run needs.
func (c Config) validate() error {
	if model(c.API) == "" {
		return fmt.Errorf("goagent: AGENT=%q: want anthropic, openai-chat, openai-responses or gemini", c.API)
	}
	if c.Tools != OrderSorted && c.Tools != OrderMap {
		return fmt.Errorf("goagent: TOOLS=%q: want sorted or map", c.Tools)
	}
	if strings.TrimSpace(c.Prompt) == "" {
		return errors.New("goagent: PROMPT is empty: the agent needs a request to answer")
	}
	if c.TagSession && c.API == Gemini {
		return errors.New("goagent: TAG_SESSION: the Gemini API has no per-request user field")
	}
	return nil
}

// Run is the agent as a [harness.AgentFunc]: it reads its configuration
// from the session's environment, points the SDK at the session's fake
// provider and runs to the model's text answer.
func Run(ctx context.Context, s *harness.Session) error {
	_, err := SessionAnswer(ctx, s)
	return err
}

// SessionAnswer runs the agent as [Run] does and returns the model's final
// text.
func SessionAnswer(ctx context.Context, s *harness.Session) (string, error) {
	c, err := ConfigFromEnv(s.Getenv)
	if err != nil {
		return "", err
	}
	switch c.API {
	case Anthropic:
		c.BaseURL = s.AnthropicBaseURL
	case OpenAIChat, OpenAIResponses:
		c.BaseURL = s.OpenAIBaseURL
	case Gemini:
		c.BaseURL = s.GeminiBaseURL
	}
	c.HTTPClient = s.HTTPClient
	return Answer(ctx, c)
}

// Answer runs the agent loop of c and returns the model's final text.
func Answer(ctx context.Context, c Config) (string, error) {
	if err := c.validate(); err != nil {
		return "", err
	}
	reg := NewRegistry()
	tag := ""
	if c.TagSession {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", fmt.Errorf("goagent: session id: %w", err)
		}
		tag = "sess_" + hex.EncodeToString(b[:])
	}
	conv, err := newConversation(ctx, c, reg.List(c.Tools), tag)
	if err != nil {
		return "", fmt.Errorf("goagent: %s client: %w", c.API, err)
	}
	steps := c.MaxSteps
	if steps <= 0 {
		steps = DefaultMaxSteps
	}
	answer, err := loop(ctx, conv, reg, steps)
	if err != nil {
		return "", fmt.Errorf("goagent (%s, stream=%t): %w", c.API, c.Stream, err)
	}
	return answer, nil
}

// newConversation starts a conversation with c's API, holding the system
// prompt, the tools and the user's prompt.
func newConversation(ctx context.Context, c Config, tools []Tool, tag string) (conversation, error) {
	m := model(c.API)
	switch c.API {
	case Anthropic:
		return newAnthropic(c, m, tools, tag), nil
	case OpenAIChat:
		return newChat(c, m, tools, tag), nil
	case OpenAIResponses:
		return newResponses(c, m, tools, tag), nil
	case Gemini:
		return newGemini(ctx, c, m, tools)
	}
	return nil, fmt.Errorf("unknown API %q", c.API) // validate refused it already
}

// toolCall is a tool call of the model, in any API.
type toolCall struct {
	ID   string
	Name string
	Args json.RawMessage
}

// toolResult is what a call returned.
type toolResult struct {
	Call    toolCall
	Output  string
	IsError bool
}

// turn is one reply of the model: text, calls or both.
type turn struct {
	Text  string
	Calls []toolCall
}

// conversation is the history of one run in one API's own types: each
// SDK keeps the messages it sends.
type conversation interface {
	// send sends the history, appends the model's reply to it and
	// returns the reply.
	send(ctx context.Context) (turn, error)
	// addResults appends the results of the reply's calls, in order.
	addResults(rs []toolResult)
}

// loop is the agent loop: until the model answers without calling a tool,
// run the calls it made and send their results back.
func loop(ctx context.Context, conv conversation, reg *Registry, maxSteps int) (string, error) {
	for step := 1; step <= maxSteps; step++ {
		t, err := conv.send(ctx)
		if err != nil {
			return "", fmt.Errorf("step %d: %w", step, err)
		}
		if len(t.Calls) == 0 {
			if t.Text == "" {
				return "", fmt.Errorf("step %d: the model answered neither text nor tool calls", step)
			}
			return t.Text, nil
		}
		results := make([]toolResult, len(t.Calls))
		for i, c := range t.Calls {
			out, isErr := reg.call(c)
			results[i] = toolResult{Call: c, Output: out, IsError: isErr}
		}
		conv.addResults(results)
	}
	return "", fmt.Errorf("no answer after %d steps", maxSteps)
}
