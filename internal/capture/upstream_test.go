package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
	srv := startProxy(t, up.URL)
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

// A proxied request whose upstream response is still coming holds up no
// other request: an agent that waits for a count, or for a second
// generation request, before it reads the first stream is answered, and
// each recorded reply is the one of its own request.
func TestProxyHoldsUpNoOne(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		first := strings.Contains(string(body), `"first"`)
		text := "second"
		if first {
			text = "first"
		}
		rec := httptest.NewRecorder()
		wire.WriteResponse(rec, wire.Endpoint{Format: wire.Anthropic}, wire.Ask{Model: "m"}, 1, wire.Reply{Text: text})
		maps.Copy(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		if first {
			// The first response starts, then waits for the test.
			w.(http.Flusher).Flush()
			<-release
		}
		w.Write(rec.Body.Bytes())
	}))
	defer up.Close()
	defer close(release) // on failure, before up.Close waits for the handler
	srv := startProxy(t, up.URL)
	post := func(path, content string) <-chan string {
		done := make(chan string, 1)
		go func() {
			resp, err := http.Post(srv.URL()+path, "application/json", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"`+content+`"}]}`))
			if err != nil {
				done <- err.Error()
				return
			}
			defer resp.Body.Close()
			out, _ := io.ReadAll(resp.Body)
			done <- string(out)
		}()
		return done
	}
	first := post("/v1/messages", "first")
	waitTaken(t, srv, 1)
	for _, c := range []struct{ path, content, want string }{
		{"/v1/messages/count_tokens", "count", "input_tokens"},
		{"/v1/messages", "second", `"second"`},
	} {
		select {
		case got := <-post(c.path, c.content):
			if !strings.Contains(got, c.want) {
				t.Errorf("%s: %s", c.path, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s waited 10s behind a proxied response still coming", c.path)
		}
	}
	release <- struct{}{}
	if got := <-first; !strings.Contains(got, `"first"`) {
		t.Errorf("first: %s", got)
	}
	rec := srv.Recorded()
	if len(rec) != 2 || rec[0].Text != "first" || rec[1].Text != "second" || len(srv.Failures()) > 0 {
		t.Errorf("recorded %+v, failures %q", rec, srv.Failures())
	}
}

// A response that is not valid UTF-8 is passed on as received, but not
// recorded: a scenario, which is JSON, could only keep another text.
func TestProxyRefusesToRecordInvalidUTF8(t *testing.T) {
	const sent = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"Oslo \xff\xfe\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, sent)
	}))
	defer up.Close()
	srv := startProxy(t, up.URL)
	resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != sent {
		t.Errorf("the agent got %q, not the response as sent", body)
	}
	want := fmt.Sprintf("the upstream response is not valid UTF-8 (byte %d of %d)", strings.Index(sent, "\xff"), len(sent))
	if fails := strings.Join(srv.Failures(), "\n"); !strings.Contains(fails, want) {
		t.Errorf("failures %q, want %q", fails, want)
	}
	if rec := srv.Recorded(); len(rec) != 1 || rec[0].Recorded != nil {
		t.Errorf("recorded %+v, want the zero reply of a failed request", rec)
	}
}

// Failures and Recorded may be read while an agent is still sending
// requests through the proxy (an agent started elsewhere, after a failed
// request): go test -race checks that they wait without a race.
func TestProxyReadWhileProxying(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		wire.WriteResponse(w, wire.Endpoint{Format: wire.Anthropic}, wire.Ask{Model: "m"}, 1, wire.Reply{Text: "ok"})
	}))
	defer up.Close()
	srv := startProxy(t, up.URL)
	const agents, each = 4, 10
	var wg sync.WaitGroup
	for range agents {
		wg.Go(func() {
			for range each {
				resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`))
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	stop := make(chan struct{})
	go func() { wg.Wait(); close(stop) }()
	for reading := true; reading; {
		select {
		case <-stop:
			reading = false
		default:
			if f := srv.Failures(); len(f) > 0 {
				t.Fatalf("failures %q", f)
			}
			_ = srv.Recorded()
		}
	}
	if rec := srv.Recorded(); len(rec) != agents*each || slices.ContainsFunc(rec, func(r wire.Reply) bool { return r.Text != "ok" }) {
		t.Errorf("%d replies recorded of %d: %+v", len(rec), agents*each, rec)
	}
}

// An agent that gives up on a proxied response is named as the cause,
// not the provider: the upstream request ended because the agent's did.
func TestProxyNamesAnAgentThatGaveUp(t *testing.T) {
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: ping\ndata: {\"type\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer up.Close()
	defer close(release)
	srv := startProxy(t, up.URL)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	io.ReadFull(resp.Body, buf) // the stream has begun
	cancel()
	resp.Body.Close()
	fails := strings.Join(srv.Failures(), "\n")
	if !strings.Contains(fails, "the agent's connection closed after") || strings.Contains(fails, "the upstream response broke off") {
		t.Errorf("failures %q", fails)
	}
}

// Recorded waits for the requests taken before it is called and returns
// their replies alone: one taken while it waits, still being proxied, is
// not given a zero reply as if it had failed.
func TestProxyRecordedIsOfTheRequestsBeforeIt(t *testing.T) {
	hold := map[string]chan struct{}{"first": make(chan struct{}), "second": make(chan struct{})}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		for k, c := range hold {
			if strings.Contains(string(body), `"`+k+`"`) {
				select {
				case <-c:
				case <-r.Context().Done():
				}
			}
		}
		wire.WriteResponse(w, wire.Endpoint{Format: wire.Anthropic}, wire.Ask{Model: "m"}, 1, wire.Reply{Text: "ok"})
	}))
	defer up.Close()
	srv := startProxy(t, up.URL)
	defer close(hold["second"]) // before Close, which waits for it
	post := func(content string) {
		go func() {
			resp, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"`+content+`"}]}`))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	post("first")
	waitTaken(t, srv, 1)
	got := make(chan []wire.Reply, 1)
	go func() { got <- srv.Recorded() }()
	time.Sleep(50 * time.Millisecond) // Recorded is waiting for request 1
	post("second")
	waitTaken(t, srv, 2)
	close(hold["first"])
	select {
	case rec := <-got:
		if len(rec) != 1 || rec[0].Text != "ok" {
			t.Errorf("recorded %+v, want request 1's reply alone", rec)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Recorded waited 10s, for a request taken after it was called")
	}
}

// StopProxying ends what the run's requests still do, and says so: a
// proxy waiting for the upstream's answer, and one blocked writing to an
// agent that holds its connection open and reads no more.
func TestStopProxyingEndsEveryRequest(t *testing.T) {
	for _, c := range []struct {
		name, want string
		big        bool
	}{
		{"before the upstream answers", "the run was over (its agent exited or was given up on) before upstream", false},
		{"writing to an agent that reads no more", "the run was over (its agent exited or was given up on) after", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if !c.big {
					select {
					case <-release:
					case <-r.Context().Done():
					}
					return
				}
				w.Header().Set("Content-Type", "application/json")
				chunk := []byte(strings.Repeat("x", 1<<20))
				for range 64 { // far more than the sockets between hold
					if _, err := w.Write(chunk); err != nil {
						return
					}
				}
			}))
			defer up.Close()
			defer close(release)
			srv, err := Start(Options{Upstream: func(wire.Format) string { return up.URL }})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			resp := make(chan *http.Response, 1)
			go func() {
				r, err := http.Post(srv.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`))
				if err == nil {
					resp <- r // held open, never read
				}
			}()
			waitTaken(t, srv, 1)
			time.Sleep(300 * time.Millisecond) // waiting for the upstream, or blocked writing
			srv.StopProxying()
			got := make(chan []string, 1)
			go func() { got <- srv.Failures() }()
			select {
			case f := <-got:
				if s := strings.Join(f, "\n"); !strings.Contains(s, c.want) {
					t.Errorf("failures %q, want %q", s, c.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Failures still waiting 10s after StopProxying")
			}
			select {
			case r := <-resp:
				r.Body.Close()
			default:
			}
		})
	}
}

// An agent that gives up before the upstream answers is named as the
// cause, not the upstream.
func TestProxyNamesAnAgentThatGaveUpEarly(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then a closed connection cancels r's context
		<-r.Context().Done()
	}))
	defer up.Close()
	srv := startProxy(t, up.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"hi"}]}`))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the request was answered")
	}
	if fails := strings.Join(srv.Failures(), "\n"); !strings.Contains(fails, "the agent's connection closed before upstream") {
		t.Errorf("failures %q", fails)
	}
}

// startProxy starts a recording proxy to the upstream at url, closed when
// the test ends, after its deferred calls (which may release a handler
// the proxy waits on).
func startProxy(t *testing.T, url string) *Server {
	t.Helper()
	srv, err := Start(Options{Upstream: func(wire.Format) string { return url }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// waitTaken waits until the server has taken n generation requests,
// failing after 10s. Requests takes the server's lock, which a regression
// may hold for good: it is called aside, so that the test fails in time.
func waitTaken(t *testing.T, srv *Server, n int) {
	t.Helper()
	taken := make(chan struct{})
	go func() {
		for len(srv.Requests()) < n {
			time.Sleep(5 * time.Millisecond)
		}
		close(taken)
	}()
	select {
	case <-taken:
	case <-time.After(10 * time.Second):
		t.Fatalf("%d requests not taken within 10s, or the server's lock is held", n)
	}
}
