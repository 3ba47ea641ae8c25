package goagent_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"sync"
	"testing"

	"github.com/headergold/headergold/examples/goagent"
	"github.com/headergold/headergold/harness"
)

// defaultHosts are the addresses each SDK sends to when given no base URL
// and none is set in the process environment.
var defaultHosts = map[goagent.API]string{
	goagent.Anthropic:       "https://api.anthropic.com",
	goagent.OpenAIChat:      "https://api.openai.com",
	goagent.OpenAIResponses: "https://api.openai.com",
	goagent.Gemini:          "https://generativelanguage.googleapis.com",
}

// sdkEnv are the process variables the three SDKs read by default that
// could send a request elsewhere or change its headers.
var sdkEnv = []string{
	"ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "ANTHROPIC_PROFILE",
	"OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "OPENAI_CUSTOM_HEADERS",
	"GOOGLE_GEMINI_BASE_URL", "GOOGLE_API_KEY", "GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_GENAI_USE_ENTERPRISE",
}

// unsetenv unsets key for the rest of t, restoring it at the end (an SDK
// tells an empty variable from an unset one: OPENAI_BASE_URL="" is a base
// URL).
func unsetenv(t *testing.T, key string) {
	t.Setenv(key, "") // restores the value when t ends
	os.Unsetenv(key)
}

// addressing wraps the session's client so that hit learns where the SDK
// addressed each request (its scheme and host) before the session's
// transport sends it to the fake provider, whatever they say.
func addressing(s *harness.Session, hit func(addr string)) *http.Client {
	c := *s.HTTPClient
	rt := c.Transport
	c.Transport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		hit(r.URL.Scheme + "://" + r.URL.Host)
		return rt.RoundTrip(r)
	})
	return &c
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestDefaultBaseURL: the agent given the session's HTTPClient and no base
// URL (Config.BaseURL "", so each SDK builds its requests for its
// provider's own address) still passes the pinned trip scenarios, JSON and
// streamed, of every API against their committed golden files: every
// request reaches the fake provider, with the bytes a base URL pointing
// there gives. And nothing leaks: with the SDKs' variables unset each SDK
// addresses its default host (so the session's client alone kept it off
// the network); with the base-URL variables pointing at a loopback trap,
// which openai-go and genai read when given no base URL, the trap is never
// contacted.
func TestDefaultBaseURL(t *testing.T) {
	for _, mode := range []string{"unset", "trap"} {
		t.Run(mode, func(t *testing.T) {
			for _, k := range sdkEnv {
				unsetenv(t, k)
			}
			want := defaultHosts
			var trapMu sync.Mutex
			var trapped []string
			if mode == "trap" {
				trap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					trapMu.Lock()
					trapped = append(trapped, r.Method+" "+r.URL.Path)
					trapMu.Unlock()
					http.Error(w, "a request left the session's client", http.StatusTeapot)
				}))
				defer trap.Close()
				t.Setenv("ANTHROPIC_BASE_URL", trap.URL)
				t.Setenv("OPENAI_BASE_URL", trap.URL+"/v1") // in the SDK's form, so the path is the pinned one
				t.Setenv("GOOGLE_GEMINI_BASE_URL", trap.URL)
				// goagent gives anthropic-sdk-go WithoutEnvironmentDefaults;
				// openai-go and genai take the variable for their default.
				want = map[goagent.API]string{goagent.Anthropic: defaultHosts[goagent.Anthropic],
					goagent.OpenAIChat: trap.URL, goagent.OpenAIResponses: trap.URL, goagent.Gemini: trap.URL}
			}

			var mu sync.Mutex
			addrs := map[goagent.API][]string{}
			agent := func(ctx context.Context, s *harness.Session) error {
				c, err := goagent.ConfigFromEnv(s.Getenv)
				if err != nil {
					return err
				}
				c.BaseURL = "" // the SDK's default: what Run would set is not used
				c.HTTPClient = addressing(s, func(addr string) {
					mu.Lock()
					addrs[c.API] = append(addrs[c.API], addr)
					mu.Unlock()
				})
				_, err = goagent.Answer(ctx, c)
				return err
			}
			suite, err := harness.Load(harness.Options{
				Fixtures: "../fixtures",
				Golden:   "../golden",
				Run:      regexp.MustCompile(`^[a-z]+-trip(-stream)?$`),
				Agent:    agent,
			})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(suite.Fixtures()); n != 2*len(apis) {
				t.Fatalf("%d trip scenarios, want %d: JSON and streamed for each API", n, 2*len(apis))
			}
			for _, f := range suite.Fixtures() {
				if res := suite.Replay(f); !res.Passed() {
					t.Errorf("%s: %v", f.Name, res.Failures)
				}
			}

			for _, api := range apis {
				got := addrs[api]
				if len(got) == 0 {
					t.Errorf("%s: the agent made no request", api)
					continue
				}
				if i := slices.IndexFunc(got, func(a string) bool { return a != want[api] }); i >= 0 {
					t.Errorf("%s: request %d addressed %s, want %s", api, i+1, got[i], want[api])
				}
			}
			trapMu.Lock()
			defer trapMu.Unlock()
			if len(trapped) > 0 {
				t.Errorf("the trap at the base-URL variables was contacted: %v", trapped)
			}
		})
	}
}
