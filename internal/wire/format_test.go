package wire

import (
	"net/url"
	"testing"
)

// The Gemini API serves its models' methods under v1beta and v1 with the
// same bodies (the TypeScript SDK, @google/genai, defaults to v1): both
// route alike, by one rule.
func TestRouteGeminiVersions(t *testing.T) {
	for _, version := range []string{"/v1beta", "/v1"} {
		for _, c := range []struct {
			path        string
			want        Endpoint
			ok          bool
			format      Format // PathFormat's, "" for none
			geminiModel string
		}{
			{"/models/gemini-2.5-flash:generateContent", Endpoint{Format: Gemini, Model: "gemini-2.5-flash"}, true, Gemini, "gemini-2.5-flash"},
			{"/models/gemini-2.5-flash:streamGenerateContent", Endpoint{Format: Gemini, Model: "gemini-2.5-flash", Stream: true}, true, Gemini, "gemini-2.5-flash"},
			// A method the fake provider does not serve, a model of two
			// segments or none: under Gemini's API all the same.
			{"/models/gemini-2.5-flash:countTokens", Endpoint{}, false, Gemini, ""},
			{"/models/g:embedContent", Endpoint{}, false, Gemini, ""},
			{"/models/a/b:generateContent", Endpoint{}, false, Gemini, ""},
			{"/models/:generateContent", Endpoint{}, false, Gemini, ""},
		} {
			path := version + c.path
			e, ok := Route(path)
			if e != c.want || ok != c.ok {
				t.Errorf("Route(%s) = %+v, %v; want %+v, %v", path, e, ok, c.want, c.ok)
			}
			if f, named := PathFormat(path); f != c.format || named != (c.format != "") {
				t.Errorf("PathFormat(%s) = %q, %v; want %q", path, f, named, c.format)
			}
			if m := GeminiModel(path); m != c.geminiModel {
				t.Errorf("GeminiModel(%s) = %q, want %q", path, m, c.geminiModel)
			}
			u := &url.URL{Path: path, RawQuery: "alt=sse"}
			if e, ok := RouteURL(u); c.ok && (!ok || e.Array) {
				t.Errorf("RouteURL(%s) = %+v, %v: want server-sent events", u, e, ok)
			}
			u.RawQuery = ""
			if e, _ := RouteURL(u); c.want.Stream && !e.Array {
				t.Errorf("RouteURL(%s) = %+v: want a JSON array", u, e)
			}
		}
	}
}

// PathFormat names the format of every served path, and the API an
// unknown one is under, where a path tells it.
func TestPathFormat(t *testing.T) {
	for path, want := range map[string]Format{
		"/v1/messages":              Anthropic,
		"/v1/messages/count_tokens": Anthropic,
		"/v1/chat/completions":      OpenAIChat,
		"/v1/responses":             OpenAIResponses,
		"/v1/chat/other":            OpenAIChat,
		"/v1/responses/r1":          OpenAIResponses,
		"/v1beta/cachedContents":    Gemini,
		"/v1beta/models":            Gemini,
		"/v1/models/g:countTokens":  Gemini,
		// OpenAI serves /v1/models and /v1/models/MODEL too: only a
		// model's method (MODEL:METHOD) is Gemini's.
		"/v1/models":            "",
		"/v1/models/gpt-5":      "",
		"/v1/complete":          "",
		"/v2/models/g:generate": "",
	} {
		f, named := PathFormat(path)
		if f != want || named != (want != "") {
			t.Errorf("PathFormat(%s) = %q, %v; want %q", path, f, named, want)
		}
		if e, ok := Route(path); ok && e.Format != f {
			t.Errorf("Route(%s) is %s, PathFormat %s", path, e.Format, f)
		}
	}
}
