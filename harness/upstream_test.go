package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// secret is the API key of the tests' upstream: it must reach the
// upstream and no file.
const secret = "sk-upstream-secret-4f1c"

// upstream plays a real provider in every format: it checks the API key,
// answers the first request with a tool call and the second with text,
// with ids the fake provider would never make, and keeps every byte it
// sent.
type upstream struct {
	*httptest.Server
	mu    sync.Mutex
	sent  [][]byte // response bodies, in order
	keys  []string // the key of each request
	fault string   // "status", "drop", "cut" or ""
}

func startUpstream(t *testing.T, fault string) *upstream {
	u := &upstream{fault: fault}
	u.Server = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.Close)
	return u
}

type tee struct {
	http.ResponseWriter
	buf bytes.Buffer
}

func (t *tee) Write(b []byte) (int, error) { t.buf.Write(b); return t.ResponseWriter.Write(b) }
func (t *tee) Flush()                      { t.ResponseWriter.(http.Flusher).Flush() }

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e, ok := wire.Route(r.URL.Path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	key := r.Header.Get("x-api-key") + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") + r.Header.Get("x-goog-api-key")
	u.mu.Lock()
	u.keys = append(u.keys, key)
	n := len(u.keys)
	u.mu.Unlock()
	switch {
	case key != secret:
		wire.WriteError(w, e.Format, http.StatusUnauthorized, "invalid x-api-key")
		return
	case u.fault == "status":
		wire.WriteError(w, e.Format, http.StatusTooManyRequests, "rate limited: slow down")
		return
	case u.fault == "badutf8" && e.Format == wire.Anthropic:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"real-model\",\"content\":[{\"type\":\"text\",\"text\":\"Oslo \xff\xfe\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}")
		return
	case u.fault == "drop":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		io.WriteString(w, "event: message_start\ndata: {\"type\":\"message_start\"")
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
		return
	}
	reply := wire.Reply{ToolCalls: []wire.ToolCall{{ID: fmt.Sprintf("real_call_%d_%d", n, time.Now().Nanosecond()%7), Name: "lookup", Arguments: []byte(`{"q": "oslo"}`)}}}
	if n%2 == 0 {
		reply = wire.Reply{Text: "Oslo is 12 °C <today>."}
	}
	tw := &tee{ResponseWriter: w}
	stream := e.Stream || gjson.GetBytes(body, "stream").Bool()
	if u.fault == "cut" {
		// The stream stops before the event that ends it, and the
		// connection ends cleanly, as a proxy that gave up on it may
		// end it.
		rec := httptest.NewRecorder()
		wire.WriteResponse(rec, e, wire.Ask{Stream: stream, Model: "real-model"}, 100+n, reply)
		maps.Copy(w.Header(), rec.Header())
		for ev := range bytes.SplitAfterSeq(rec.Body.Bytes(), []byte("\n\n")) {
			if bytes.Contains(ev, []byte("message_stop")) || bytes.Contains(ev, []byte(`"finish_reason":"`)) ||
				bytes.Contains(ev, []byte("finishReason")) || bytes.Contains(ev, []byte("[DONE]")) {
				break
			}
			w.Write(ev)
		}
		return
	}
	wire.WriteResponse(tw, e, wire.Ask{Stream: stream, Model: "real-model"}, 100+n, reply)
	u.mu.Lock()
	u.sent = append(u.sent, tw.buf.Bytes())
	u.mu.Unlock()
}

// formatAgent is an in-process agent for any wire format: it sends one
// request, runs the tool calls of the reply and sends a second with the
// results. It keeps every response body it received.
type formatAgent struct {
	mu       sync.Mutex
	received [][]byte
	// blocked, when set, is called by an agent with BLOCK=1 once it
	// runs, before it waits for its context to end.
	blocked func()
}

func (a *formatAgent) run(ctx context.Context, s *Session) error {
	f := wire.Format(s.Getenv("FORMAT"))
	stream := s.Getenv("STREAM") == "1"
	key := s.Getenv("ANTHROPIC_API_KEY")
	if key == "" {
		key = os.Getenv("HEADERGOLD_TEST_KEY") // the user's environment
	}
	if s.Getenv("BLOCK") == "1" {
		if a.blocked != nil {
			a.blocked()
		}
		<-ctx.Done()
		return ctx.Err()
	}
	var url string
	body := func(history string) string {
		tools := `[{"name":"lookup","description":"Look it up.","input_schema":{"type":"object"}}]`
		switch f {
		case wire.Anthropic:
			return `{"model":"m","max_tokens":9,"system":"Be brief.","tools":` + tools + `,"messages":[{"role":"user","content":"hi"}` + history + `]` + streamFlag(stream) + `}`
		case wire.OpenAIChat:
			return `{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}` + history + `],"tools":` + tools + streamFlag(stream) + `}`
		case wire.OpenAIResponses:
			return `{"model":"m","instructions":"Be brief.","input":[{"role":"user","content":"hi"}` + history + `],"tools":` + tools + streamFlag(stream) + `}`
		}
		geminiTools := `[{"functionDeclarations":[{"name":"lookup"}]}]`
		if s.Getenv("GEMINI_TOOLS") == "object" { // which Gemini's API takes too
			geminiTools = `{"functionDeclarations":[{"name":"lookup"}]}`
		}
		return `{"contents":[{"role":"user","parts":[{"text":"hi"}]}` + history + `],"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":` + geminiTools + `}`
	}
	switch f {
	case wire.Anthropic:
		url = s.AnthropicBaseURL + "/v1/messages"
	case wire.OpenAIChat:
		url = s.OpenAIBaseURL + "/chat/completions"
	case wire.OpenAIResponses:
		url = s.OpenAIBaseURL + "/responses"
	default:
		url = s.GeminiBaseURL + "/v1beta/models/m:generateContent"
		if stream {
			url = s.GeminiBaseURL + "/v1beta/models/m:streamGenerateContent?alt=sse"
		}
	}
	history := ""
	for step := 0; step < 3; step++ {
		req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body(history)))
		if err != nil {
			return err
		}
		req.Header.Set("x-api-key", key)
		resp, err := s.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.received = append(a.received, data)
		a.mu.Unlock()
		if resp.StatusCode != 200 {
			return fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
		}
		r, err := wire.ParseResponse(f, resp.Header.Get("Content-Type"), data)
		if err != nil {
			return err
		}
		if len(r.ToolCalls) == 0 {
			return nil
		}
		// The next request carries the call's id and the result.
		history += fmt.Sprintf(`,{"role":"user","content":"result of %s: sunny"}`, r.ToolCalls[0].ID)
	}
	return fmt.Errorf("no answer")
}

func streamFlag(on bool) string {
	if on {
		return `,"stream":true`
	}
	return ""
}

// upstreamSuite writes one captured scenario without replies.
func upstreamSuite(t *testing.T, env string, agent AgentFunc) Options {
	t.Helper()
	opts := agentDirs(t, agent)
	writeFile(t, filepath.Join(opts.Fixtures, "real.json"), `{
  "description": "one real session",
  "pin": true,
  "agent": {"env": {`+env+`}}
}
`)
	return opts
}

// noSecretIn fails when a file under dir holds the upstream's API key.
func noSecretIn(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && bytes.Contains(readFile(t, path), []byte(secret)) {
			t.Errorf("%s holds the API key", path)
		}
		return nil
	})
}

func TestRecordFromUpstreamEveryFormat(t *testing.T) {
	t.Setenv("HEADERGOLD_TEST_KEY", secret)
	for _, f := range wire.Formats {
		for _, stream := range []string{"0", "1"} {
			t.Run(string(f)+"/stream="+stream, func(t *testing.T) {
				up := startUpstream(t, "")
				agent := &formatAgent{}
				opts := upstreamSuite(t, `"FORMAT": "`+string(f)+`", "STREAM": "`+stream+`"`, agent.run)
				opts.Upstream = &Upstream{URL: up.URL}
				s := mustLoad(t, opts)
				changes, failed, err := s.Record(RecordOptions{})
				if err != nil {
					t.Fatalf("record: %v %v", err, failed)
				}
				var created []string
				for _, c := range changes {
					created = append(created, filepath.Base(c.File)+" "+string(c.Status))
				}
				if got := strings.Join(created, ", "); got != "real.golden created, real.json changed, real.system.md created, real.tools.json created" {
					t.Errorf("changes: %s", got)
				}
				// The agent saw the upstream's bytes unchanged.
				if len(up.sent) != 2 || len(agent.received) < 2 || !bytes.Equal(agent.received[0], up.sent[0]) || !bytes.Equal(agent.received[1], up.sent[1]) {
					t.Fatalf("the agent's first two responses differ from what the upstream sent:\n%q\n%q", agent.received, up.sent)
				}
				for i, k := range up.keys {
					if k != secret {
						t.Errorf("upstream request %d had key %q", i+1, k)
					}
				}
				noSecretIn(t, filepath.Dir(opts.Fixtures))
				// The fixture now scripts the real replies, served back byte
				// for byte: the recorded scenario replays green without the
				// upstream, and the agent gets the upstream's bytes again.
				fixture := string(readFile(t, filepath.Join(opts.Fixtures, "real.json")))
				if !strings.Contains(fixture, `"recorded":{"status":200`) || !strings.Contains(fixture, `"name":"lookup","arguments":{"q": "oslo"}`) {
					t.Errorf("fixture after recording:\n%s", fixture)
				}
				up.Close()
				agent.received = nil
				opts.Upstream = nil
				if fails := replayOne(t, mustLoad(t, opts), "real"); len(fails) > 0 {
					t.Fatalf("replay of the recorded scenario: %v", fails)
				}
				if !bytes.Equal(agent.received[0], up.sent[0]) || !bytes.Equal(agent.received[1], up.sent[1]) {
					t.Error("the replay did not serve the recorded bytes")
				}
			})
		}
	}
}

func TestRecordFromUpstreamFailuresWriteNothing(t *testing.T) {
	t.Setenv("HEADERGOLD_TEST_KEY", secret)
	cases := map[string]struct {
		fault, env string
		cancel     bool
		want       string
	}{
		"HTTP error":  {fault: "status", env: `"FORMAT": "anthropic"`, want: "answered HTTP 429: rate limited: slow down"},
		"wrong key":   {env: `"FORMAT": "anthropic", "ANTHROPIC_API_KEY": "sk-wrong"`, want: "answered HTTP 401: invalid x-api-key"},
		"dropped":     {fault: "drop", env: `"FORMAT": "anthropic", "STREAM": "1"`, want: "the upstream response broke off"},
		"cut cleanly": {fault: "cut", env: `"FORMAT": "anthropic", "STREAM": "1"`, want: "anthropic stream ended without message_stop"},
		"cut chat":    {fault: "cut", env: `"FORMAT": "openai-chat", "STREAM": "1"`, want: "openai-chat stream ended with neither a finish_reason nor data: [DONE]"},
		"cut gemini":  {fault: "cut", env: `"FORMAT": "gemini", "STREAM": "1"`, want: "gemini stream ended without a chunk giving a finishReason"},
		"interrupted": {env: `"FORMAT": "anthropic", "BLOCK": "1"`, cancel: true, want: "context canceled"},
		"no upstream": {env: `"FORMAT": "openai-chat"`, want: "did not answer"},
		"not UTF-8":   {fault: "badutf8", env: `"FORMAT": "anthropic"`, want: "the upstream response is not valid UTF-8"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			up := startUpstream(t, c.fault)
			agent := &formatAgent{}
			opts := upstreamSuite(t, c.env, agent.run)
			opts.Upstream = &Upstream{URL: up.URL}
			if name == "no upstream" {
				// Port 0 is never listened on (listening on it picks
				// another port): nothing answers there.
				opts.Upstream = &Upstream{URL: "http://127.0.0.1:0"}
			}
			if c.cancel {
				// Cancelled once the agent runs, as an interrupt of the
				// record under way: a timer started here could fire
				// before the first run on a loaded machine, and the
				// record would then stop before running anything, with
				// no failure to report.
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				agent.blocked = cancel
				opts.Context = ctx
			}
			dir := filepath.Dir(opts.Fixtures)
			before := checksums(t, dir)
			_, failed, err := mustLoad(t, opts).Record(RecordOptions{})
			if err == nil {
				t.Fatal("record succeeded")
			}
			var msgs []string
			for _, r := range failed {
				for _, f := range r.Failures {
					msgs = append(msgs, f.String())
				}
			}
			if got := strings.Join(msgs, "\n"); !strings.Contains(got, c.want) {
				t.Errorf("failures %q lack %q", got, c.want)
			}
			after := checksums(t, dir)
			if len(before) != len(after) {
				t.Errorf("files before %d, after %d", len(before), len(after))
			}
			for path, sum := range before {
				if after[path] != sum {
					t.Errorf("%s changed", path)
				}
			}
			noSecretIn(t, dir)
		})
	}
}

func TestListenServesAnAgentStartedElsewhere(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
	os.MkdirAll(opts.Fixtures, 0o755)
	writeFile(t, filepath.Join(opts.Fixtures, "ide.json"), `{
  "description": "an agent that the harness does not start",
  "agent": {"exec": ["false"]},
  "replies": [{"toolCalls": [{"id": "c1", "name": "lookup", "arguments": {"q": "x"}}]}, {"text": "done"}]
}
`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close() // the harness never closes it: its owner does
	opts.Listen = ln
	agent := &formatAgent{}
	var exports []string
	opts.OnListen = func(s *Session) {
		exports = s.Exports()
		// The agent starts on its own, from the exported URLs only.
		env := map[string]string{"FORMAT": "openai-chat"}
		for _, l := range exports {
			k, v, _ := strings.Cut(strings.TrimPrefix(l, "export "), "=")
			env[k] = v
		}
		go agent.run(context.Background(), &Session{OpenAIBaseURL: env["OPENAI_BASE_URL"], HTTPClient: &http.Client{}, Env: env})
	}
	if _, failed, err := mustLoad(t, opts).Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	want := "export OPENAI_BASE_URL=http://" + ln.Addr().String() + "/v1"
	if !strings.Contains(strings.Join(exports, "\n"), want) {
		t.Errorf("exports %v lack %s", exports, want)
	}
	// The machine's other credentials are unset in the agent's shell too.
	if last := exports[len(exports)-1]; last != "unset ANTHROPIC_AUTH_TOKEN AZURE_OPENAI_API_KEY OPENAI_ADMIN_KEY GOOGLE_APPLICATION_CREDENTIALS" {
		t.Errorf("the last export line is %q", last)
	}
	golden := string(readFile(t, filepath.Join(opts.Golden, "ide.golden")))
	if strings.Count(golden, `"type":"capture/request"`) != 2 || !strings.Contains(golden, `"format":"openai-chat"`) {
		t.Errorf("golden:\n%s", golden)
	}
}

// One listener serves every scenario of a suite, one after another, and
// one scenario run after another: the fake provider of a run stops using
// it without closing it. A listener its owner closes while a run waits
// fails that run instead of leaving it waiting.
func TestListenServesScenarioAfterScenario(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
	os.MkdirAll(opts.Fixtures, 0o755)
	for _, name := range []string{"a", "b"} {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), `{
  "description": "an agent that the harness does not start",
  "agent": {"exec": ["false"]},
  "replies": [{"text": "done `+name+`"}]
}
`)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	opts.Listen = ln
	var served []string
	client := &http.Client{Transport: &http.Transport{}}
	opts.OnListen = func(s *Session) {
		served = append(served, s.Scenario)
		agent := &formatAgent{}
		// One client for every run, as a long-lived agent has: a
		// connection it kept alive must not carry a request into the
		// next run.
		go agent.run(context.Background(), &Session{OpenAIBaseURL: s.OpenAIBaseURL, HTTPClient: client, Env: map[string]string{"FORMAT": "openai-chat"}})
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, failed, err := mustLoad(t, opts).Record(RecordOptions{}); err != nil {
			t.Errorf("record: %v %v", err, failed)
		}
		s := mustLoad(t, opts)
		for range 2 {
			if res := s.Replay(s.Fixture("b")); !res.Passed() {
				t.Errorf("replay of b: %v", res.Failures)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a run on the shared listener did not end")
	}
	if want := []string{"a", "b", "b", "b"}; !slices.Equal(served, want) {
		t.Errorf("served %v, want %v", served, want)
	}

	// Runs started at once (goldentest's parallel subtests) take turns:
	// each agent is served by its own scenario's script.
	s := mustLoad(t, opts)
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if res := s.Replay(s.Fixture(name)); !res.Passed() {
				t.Errorf("parallel replay of %s: %v", name, res.Failures)
			}
		}()
	}
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("runs started at once on the shared listener did not end")
	}

	// The owner closes the listener while a run waits for its agent.
	opts.OnListen = func(*Session) { ln.Close() }
	s = mustLoad(t, opts)
	res := s.Replay(s.Fixture("a"))
	if res.Passed() || !strings.Contains(fmt.Sprint(res.Failures), "the listener stopped serving") {
		t.Errorf("replay on a closed listener: %v", res.Failures)
	}
}

// A pinned Gemini scenario whose body holds its tools as one object, as
// Gemini's API takes them, records and replays like any other.
func TestPinnedGeminiToolsObject(t *testing.T) {
	dir := t.TempDir()
	agent := &formatAgent{}
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1, Agent: agent.run}
	os.MkdirAll(opts.Fixtures, 0o755)
	writeFile(t, filepath.Join(opts.Fixtures, "g.json"), `{
  "description": "tools as one object", "pin": true,
  "agent": {"env": {"FORMAT": "gemini", "GEMINI_TOOLS": "object"}},
  "replies": [{"text": "done"}]
}
`)
	if _, failed, err := mustLoad(t, opts).Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	if fails := replayOne(t, mustLoad(t, opts), "g"); len(fails) > 0 {
		t.Errorf("replay: %v", fails)
	}
	tools := string(readFile(t, filepath.Join(opts.Golden, "g.tools.json")))
	if !strings.Contains(tools, `"initial": {`) || !strings.Contains(tools, `"name": "lookup"`) {
		t.Errorf("tools sidecar:\n%s", tools)
	}
}

// A subprocess agent recorded from a real provider keeps the machine's
// API keys and its other credentials (the proxy forwards what it sends):
// no dummy key replaces them, none is unset.
func TestRecordFromUpstreamAgentKeepsItsCredentials(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	t.Setenv("ANTHROPIC_API_KEY", secret)
	for _, k := range []string{"ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "GOOGLE_APPLICATION_CREDENTIALS"} {
		t.Setenv(k, "REAL-"+k)
	}
	out := filepath.Join(t.TempDir(), "env.out")
	script := `printf '%s|%s|%s|%s\n' "$ANTHROPIC_AUTH_TOKEN" "$AZURE_OPENAI_API_KEY" "$OPENAI_ADMIN_KEY" "$GOOGLE_APPLICATION_CREDENTIALS" >> ` + out + `
curl -sS -f -o /dev/null -H 'content-type: application/json' -H "x-api-key: $ANTHROPIC_API_KEY" \
  -d '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}' "$ANTHROPIC_BASE_URL/v1/messages"`
	b, _ := json.Marshal([]string{"sh", "-c", script})
	recordSendsSecret(t, `{"exec":`+string(b)+`}`, nil)
	got := string(readFile(t, out))
	if want := "REAL-ANTHROPIC_AUTH_TOKEN|REAL-AZURE_OPENAI_API_KEY|REAL-OPENAI_ADMIN_KEY|REAL-GOOGLE_APPLICATION_CREDENTIALS\n"; got != want {
		t.Errorf("the agent saw %q, want %q", got, want)
	}
}

// An in-process agent recording from a real provider gets the machine's
// API key from Session.Getenv, as a subprocess agent inherits it, and the
// key stays out of Env and of what Exports prints.
func TestRecordFromUpstreamInProcessAgentGetsItsKey(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", secret)
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "REAL-TOKEN")
	var seen []string
	agent := func(ctx context.Context, s *Session) error {
		if _, ok := s.Env["ANTHROPIC_API_KEY"]; ok {
			return fmt.Errorf("Env holds the API key")
		}
		if ex := strings.Join(s.Exports(), "\n"); strings.Contains(ex, secret) {
			return fmt.Errorf("Exports print the API key: %s", ex)
		}
		seen = append(seen, s.Getenv("ANTHROPIC_AUTH_TOKEN"))
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.AnthropicBaseURL+"/v1/messages",
			strings.NewReader(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			return err
		}
		req.Header.Set("content-type", "application/json")
		req.Header.Set("x-api-key", s.Getenv("ANTHROPIC_API_KEY"))
		resp, err := s.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d", resp.StatusCode)
		}
		return nil
	}
	recordSendsSecret(t, `{}`, agent)
	if !slices.Equal(seen, []string{"REAL-TOKEN"}) {
		t.Errorf("the agent saw ANTHROPIC_AUTH_TOKEN %q, want the machine's", seen)
	}
}

// recordSendsSecret records a scenario of one run of the agent agentSpec
// (the fixture's "agent" member; fn runs an in-process one) from a test
// upstream, and requires the one request the agent sends to have reached
// it with the machine's API key, secret.
func recordSendsSecret(t *testing.T, agentSpec string, fn AgentFunc) {
	t.Helper()
	up := startUpstream(t, "")
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1,
		Upstream: &Upstream{URL: up.URL}, Agent: fn}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(opts.Fixtures, "x.json"), `{"description":"d","runs":1,"agent":`+agentSpec+`}`+"\n")
	if _, failed, err := mustLoad(t, opts).Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	up.mu.Lock()
	keys := slices.Clone(up.keys)
	up.mu.Unlock()
	if len(keys) != 1 || keys[0] != secret {
		t.Errorf("the upstream got keys %q, want the machine's", keys)
	}
}

// An agent that times out while recording from an upstream is not told it
// was served every scripted reply: there is no script, and the timeout
// alone is reported.
func TestRecordFromUpstreamTimeoutHasNoScript(t *testing.T) {
	t.Parallel() // it waits out the timeout
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the sh agent")
	}
	up := startUpstream(t, "")
	script := `curl -sS -f -o /dev/null -H 'content-type: application/json' -H 'x-api-key: ` + secret + `' \
  -d '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}' "$ANTHROPIC_BASE_URL/v1/messages" || exit 3; exec sleep 30`
	agent, err := json.Marshal(map[string]any{"exec": []string{"sh", "-c", script}, "timeout": "5s"})
	if err != nil {
		t.Fatal(err)
	}
	opts := agentDirs(t, testAgent)
	writeFile(t, filepath.Join(opts.Fixtures, "x.json"), `{"description": "d", "runs": 1, "agent": `+string(agent)+`}`)
	opts.Upstream = &Upstream{URL: up.URL}
	_, failed, err := mustLoad(t, opts).Record(RecordOptions{})
	if err == nil || len(failed) != 1 {
		t.Fatalf("record: %v %v", err, failed)
	}
	f := failureWith(t, failed[0].Failures, CheckAgent, "timed out after 5s (agent.timeout)")
	if strings.Contains(f.Msg, "scripted reply") {
		t.Errorf("a record from an upstream has no script, and the failure speaks of one:\n%s", f.Msg)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	if len(up.keys) != 1 {
		t.Errorf("the upstream had %d requests, want 1", len(up.keys))
	}
}

// TestListenWithUpstreamRefused: a run served on Options.Listen ends when
// its script is used, and a recording from the upstream has none, so the
// two together could only end by failing: Load refuses them.
func TestListenWithUpstreamRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	_, err = Load(Options{Fixtures: dir, Golden: dir, Listen: ln, Upstream: &Upstream{URL: "http://127.0.0.1:1"}})
	if err == nil || !strings.Contains(err.Error(), "Options.Listen with Options.Upstream") {
		t.Fatalf("Load: %v", err)
	}
}

// TestRecordGivesUpOnAStalledProxy: an in-process agent that ignores its
// context, with a request proxied to an upstream that stalls mid-stream,
// is given up on after its timeout and grace, and the record fails then,
// naming the request, rather than waiting on the stream.
func TestRecordGivesUpOnAStalledProxy(t *testing.T) {
	stall := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "event: ping\ndata: {\"type\":\"ping\"}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-stall:
		case <-r.Context().Done():
		}
	}))
	defer up.Close()
	defer close(stall)
	agent := func(_ context.Context, s *Session) error {
		// Not the run's context: the request outlives the run.
		return postMessages(context.Background(), s, `{"model":"m","max_tokens":9,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	}
	opts := agentDirs(t, agent)
	opts.Upstream = &Upstream{URL: up.URL}
	writeFile(t, filepath.Join(opts.Fixtures, "stalled.json"), `{"description":"d","runs":1,"agent":{"timeout":"1s"}}`+"\n")
	done := make(chan string, 1)
	go func() {
		_, failed, err := mustLoad(t, opts).Record(RecordOptions{})
		var msgs []string
		for _, r := range failed {
			for _, f := range r.Failures {
				msgs = append(msgs, f.String())
			}
		}
		done <- fmt.Sprint(err, "\n", strings.Join(msgs, "\n"))
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "HTTP request 1 (POST /v1/messages): the run was over") {
			t.Errorf("record: %s", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("record still running 20s after a run of 1s timeout: it waits on the stalled proxied stream")
	}
}
