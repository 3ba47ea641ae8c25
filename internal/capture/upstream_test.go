package capture

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

const key = "REALKEY-abc123"

// proxied sends one Gemini request with the key in its query and in a
// header through a recording proxy to upstream, and returns what the
// proxy reported.
func proxied(t *testing.T, upstream, path string) []string {
	t.Helper()
	srv, err := Start(Options{Upstream: func(wire.Format) string { return upstream }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+path+"?key="+key, strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-goog-api-key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fails := srv.Failures()
	if strings.Contains(string(body), key) || strings.Contains(strings.Join(fails, "\n"), key) {
		t.Errorf("the key is in what the proxy said:\nto the agent: %s\nfailures: %q", body, fails)
	}
	return fails
}

// The recording proxy names its upstream without the query (Gemini's key
// may be there) or user information, whatever the error quotes: a path
// the URL escapes again, a password in the upstream URL, a URL that does
// not parse.
func TestProxyMessagesHideTheKey(t *testing.T) {
	// Port 0 is never listened on (listening on it picks another port),
	// so nothing answers there, whatever else runs on the machine.
	const closed = "127.0.0.1:0"
	for _, c := range []struct{ upstream, path, want string }{
		// No upstream for the request's format (FORMAT=URL for others).
		{"", "/v1beta/models/m:generateContent", "no upstream URL for gemini requests: give one (-upstream URL, or -upstream gemini=URL)"},
		{"http://" + closed, "/v1beta/models/my%20model:generateContent", "did not answer"},
		{"http://bob:PWSECRET@" + closed, "/v1beta/models/m:generateContent", "did not answer"},
		{"http://api.example.com:port", "/v1beta/models/m:generateContent", "upstream URL http://api.example.com:port"},
		{"http://" + closed + "/?key=" + key, "/v1beta/models/m:generateContent", "a base URL has no query"},
	} {
		fails := proxied(t, c.upstream, c.path)
		got := strings.Join(fails, "\n")
		if !strings.Contains(got, c.want) || strings.Contains(got, "PWSECRET") || strings.Contains(got, "bob@") {
			t.Errorf("upstream %s: failures %q, want %q and no user information", c.upstream, fails, c.want)
		}
	}
}

// An upstream that redirects is a failure, neither followed by the proxy
// nor passed on to the agent, whose client would follow it: the agent's
// key goes to no other host.
func TestProxyDoesNotFollowRedirects(t *testing.T) {
	var hits atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer elsewhere.Close()
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)+"/elsewhere", http.StatusTemporaryRedirect)
	}))
	defer up.Close()
	fails := proxied(t, up.URL, "/v1beta/models/m:generateContent")
	if !strings.Contains(strings.Join(fails, "\n"), "answered HTTP 307, a redirect") || hits.Load() != 0 {
		t.Errorf("failures %q, %d requests elsewhere", fails, hits.Load())
	}
}

func TestUpstreamURL(t *testing.T) {
	agent, _ := url.Parse("/v1beta/models/my%2Fmodel:generateContent?alt=sse&key=" + key)
	up, err := UpstreamURL("https://bob:pw@example.com/base/", agent)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := up.URL.String(), "https://bob:pw@example.com/base/v1beta/models/my%2Fmodel:generateContent?alt=sse&key="+key; got != want {
		t.Errorf("URL = %s, want %s", got, want)
	}
	if got, want := up.Shown(), "https://example.com/base/v1beta/models/my%2Fmodel:generateContent"; got != want {
		t.Errorf("Shown = %s, want %s", got, want)
	}
	err = &url.Error{Op: "Post", URL: up.URL.String(), Err: errors.New("dial: refused at " + up.URL.RawQuery)}
	if got := up.Hide(err); strings.Contains(got, key) || strings.Contains(got, "pw") || !strings.Contains(got, up.Shown()) {
		t.Errorf("Hide = %s", got)
	}
	for _, bad := range []string{"ftp://example.com", "http://", "http://h:port?key=" + key, "http://u:p@h:port",
		"http://bob:pa/ss@h.example", "http://bob:p?ss@h.example", "https://gw/v1?key=" + key, "https://gw/v1#frag"} {
		_, err := UpstreamURL(bad, agent)
		if err == nil || strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "u:p") ||
			strings.Contains(err.Error(), "bob") || strings.Contains(err.Error(), "pa/ss") || strings.Contains(err.Error(), "p?ss") {
			t.Errorf("UpstreamURL(%q) = %v", bad, err)
		}
	}
}

// An upstream response that breaks off breaks off for the agent too: its
// client reads an error, not a complete response that is shorter than
// the real one, and the proxy says what happened.
func TestProxyPassesOnABrokenResponse(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "100")
		io.WriteString(w, `{"candidates":`) // 14 of the 100 bytes promised
	}))
	defer up.Close()
	srv, err := Start(Options{Upstream: func(wire.Format) string { return up.URL }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	resp, err := http.Post(srv.URL()+"/v1beta/models/m:generateContent", "application/json", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("the agent read a complete response: %q", body)
	}
	if fails := strings.Join(srv.Failures(), "\n"); !strings.Contains(fails, "the upstream response broke off after 14 bytes") {
		t.Errorf("failures %q", fails)
	}
}
