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
	if rest, found := strings.CutPrefix(path, "/v1beta/models/"); found {
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
	"/v1beta/models/{model}:generateContent or :streamGenerateContent"
