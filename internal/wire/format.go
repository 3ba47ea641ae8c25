package wire

import (
	"fmt"
	"net/url"
	"strings"
)

// Format is a provider wire format.
type Format string

// The wire formats.
const (
	// Anthropic is the Anthropic Messages API.
	Anthropic Format = "anthropic"
	// OpenAIChat is the OpenAI Chat Completions API.
	OpenAIChat Format = "openai-chat"
	// OpenAIResponses is the OpenAI Responses API.
	OpenAIResponses Format = "openai-responses"
	// Gemini is the Gemini generateContent API.
	Gemini Format = "gemini"
)

// Formats lists every format, in a fixed order.
var Formats = [...]Format{Anthropic, OpenAIChat, OpenAIResponses, Gemini}

// ParseFormat returns the Format named s.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown wire format %q (want anthropic, openai-chat, openai-responses or gemini)", s)
}

// Endpoint is what a request path names.
type Endpoint struct {
	Format Format
	// CountTokens marks Anthropic's count_tokens: answered with an
	// estimate, never a generation step.
	CountTokens bool
	// Stream is set for Gemini's streamGenerateContent; the other formats
	// ask for a stream in the body (see [WantsStream]).
	Stream bool
	// Model is the model named in a Gemini path.
	Model string
	// Array is set for a Gemini stream asked for without alt=sse, which
	// the API answers with one JSON array streamed an element per chunk
	// rather than with server-sent events (see [RouteURL]).
	Array bool
}

// Route tells which endpoint a request path names (the query string
// already removed); ok is false for a path no format serves.
func Route(path string) (e Endpoint, ok bool) {
	switch path {
	case "/v1/messages":
		return Endpoint{Format: Anthropic}, true
	case "/v1/messages/count_tokens":
		return Endpoint{Format: Anthropic, CountTokens: true}, true
	case "/v1/chat/completions":
		return Endpoint{Format: OpenAIChat}, true
	case "/v1/responses":
		return Endpoint{Format: OpenAIResponses}, true
	}
	if rest, found := geminiRest(path); found {
		model, method, found := strings.Cut(rest, ":")
		if !found || model == "" || strings.Contains(model, "/") {
			return Endpoint{}, false
		}
		switch method {
		case "generateContent":
			return Endpoint{Format: Gemini, Model: model}, true
		case "streamGenerateContent":
			return Endpoint{Format: Gemini, Model: model, Stream: true}, true
		}
	}
	return Endpoint{}, false
}

// geminiRest returns what follows /VERSION/models/ in a Gemini path. The
// Gemini API serves its models' methods under two versions with the same
// bodies: v1beta (the Go and Python SDKs' default) and v1 (the default
// of @google/genai, the TypeScript SDK).
func geminiRest(path string) (string, bool) {
	for _, prefix := range [...]string{"/v1beta/models/", "/v1/models/"} {
		if rest, ok := strings.CutPrefix(path, prefix); ok {
			return rest, true
		}
	}
	return "", false
}

// PathFormat tells which format a request path belongs to, whether or
// not any format serves it (see [Route]): the format of an endpoint Route
// knows, else the one whose API the path is under: Gemini for a path
// under /v1beta, or a model's method under /v1/models/ (MODEL:METHOD,
// such as countTokens, which the fake provider does not serve); OpenAI
// Chat or Responses below /v1/chat or /v1/responses. ok is false for a
// path under no format's API in particular, such as /v1/models or
// /v1/models/MODEL without a method, which OpenAI's API serves as well.
// It picks the shape of the error an unknown path gets.
func PathFormat(path string) (f Format, ok bool) {
	if e, ok := Route(path); ok {
		return e.Format, true
	}
	rest, gemini := geminiRest(path)
	switch {
	case strings.HasPrefix(path, "/v1beta") || gemini && strings.Contains(rest, ":"):
		return Gemini, true
	case strings.HasPrefix(path, "/v1/chat"):
		return OpenAIChat, true
	case strings.HasPrefix(path, "/v1/responses"):
		return OpenAIResponses, true
	}
	return "", false
}

// GeminiModel returns the model a Gemini request path names
// (/v1beta/models/MODEL:generateContent, or under /v1/models/, as [Route]
// reads it), or "".
func GeminiModel(path string) string {
	if e, ok := Route(path); ok && e.Format == Gemini {
		return e.Model
	}
	return ""
}

// RouteURL is [Route] for a request's URL: its query tells, for Gemini's
// streamGenerateContent, server-sent events (alt=sse) from the JSON array
// the API streams otherwise.
func RouteURL(u *url.URL) (e Endpoint, ok bool) {
	e, ok = Route(u.Path)
	if ok && e.Stream && u.Query().Get("alt") != "sse" {
		e.Array = true
	}
	return e, ok
}

// Paths describes the endpoints every format serves, for error messages.
const Paths = "POST /v1/messages, /v1/messages/count_tokens, /v1/chat/completions, /v1/responses, " +
	"/v1beta/models/{model}:generateContent or :streamGenerateContent (or the same under /v1/models/)"
