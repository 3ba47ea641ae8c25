package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/corpustest"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// paths is where each format's generation requests go.
var paths = map[wire.Format]string{
	wire.Anthropic:       "/v1/messages",
	wire.OpenAIChat:      "/v1/chat/completions",
	wire.OpenAIResponses: "/v1/responses",
	wire.Gemini:          "/v1beta/models/gemini-2.5-flash:generateContent",
}

// post sends one body and returns the status and response body.
func post(t *testing.T, url, path string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-api-key", "sk-secret-never-logged")
	req.Header.Set("Authorization", "Bearer sk-secret-never-logged")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}

func start(t *testing.T, replies ...wire.Reply) *Server {
	t.Helper()
	s, err := Start(Options{Replies: replies})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
		t.Fatalf("server at %s, want loopback", s.URL())
	}
	return s
}

func text(s string) wire.Reply { return wire.Reply{Text: s} }

// roundTrip sends bodies of one format through a fake provider, builds the
// log and checks that it rebuilds every body and keeps every header part
// verbatim.
func roundTrip(t *testing.T, f wire.Format, bodies [][]byte) []byte {
	t.Helper()
	replies := make([]wire.Reply, len(bodies))
	for i := range replies {
		replies[i] = text(fmt.Sprintf("answer %d", i+1))
	}
	s := start(t, replies...)
	for i, b := range bodies {
		if code, out := post(t, s.URL(), paths[f], b); code != http.StatusOK {
			t.Fatalf("%s body %d: HTTP %d: %s", f, i+1, code, out)
		}
	}
	if fails := s.Failures(); len(fails) > 0 {
		t.Fatalf("failures: %v", fails)
	}
	built, err := BuildLog(s.Requests(), replies, nil)
	if err != nil {
		t.Fatal(err)
	}
	log, logged := built.Log, built.Bodies
	// The templated log written beside the full one is the templating
	// rule applied to the full log.
	if want := templateForTest(t, log); !bytes.Equal(built.Templated, want) {
		t.Fatalf("templated log differs from the full log templated:\n got %.400s\nwant %.400s", built.Templated, want)
	}
	for i := range bodies {
		if !bytes.Equal(logged[i], bodies[i]) {
			t.Fatalf("body %d was changed without a redaction rule", i+1)
		}
	}
	if err := CheckRebuild(log, logged); err != nil {
		t.Fatalf("%s: %v", f, err)
	}
	// Each line is one JSON value, and the header parts are the body's
	// own bytes (for a body that is not pretty-printed).
	for n, line := range bytes.Split(bytes.TrimSuffix(log, []byte("\n")), []byte("\n")) {
		if !gjson.ValidBytes(line) {
			t.Fatalf("log line %d is not JSON: %.200s", n+1, line)
		}
	}
	for i, b := range bodies {
		if wire.Pretty(b) {
			continue
		}
		p, err := wire.Split(b, f)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tools != nil && !bytes.Contains(b, p.Tools) {
			t.Errorf("body %d: tools are not verbatim", i+1)
		}
		if p.System != nil && f != wire.OpenAIChat && !bytes.Contains(b, p.System) {
			t.Errorf("body %d: system is not verbatim", i+1)
		}
	}
	return log
}

func TestRebuildEveryCorpusBodyThroughTheFakeProvider(t *testing.T) {
	dir := corpustest.Dir(t)
	files := map[string]wire.Format{"anthropic-messages.jsonl": wire.Anthropic, "openai-chat.jsonl": wire.OpenAIChat,
		"openai-responses.jsonl": wire.OpenAIResponses, "gemini.jsonl": wire.Gemini}
	total := 0
	for file, f := range files {
		fh, err := os.Open(filepath.Join(dir, "real", file))
		if err != nil {
			t.Fatal(err)
		}
		var bodies [][]byte
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if len(bytes.TrimSpace(sc.Bytes())) > 0 {
				bodies = append(bodies, bytes.Clone(sc.Bytes()))
			}
		}
		fh.Close()
		if len(bodies) != 24 {
			t.Fatalf("%s: %d bodies, want the 24 of the corpus", file, len(bodies))
		}
		log := roundTrip(t, f, bodies)
		if got := bytes.Count(log, []byte(`"type":"capture/request"`)); got != len(bodies) {
			t.Errorf("%s: %d capture/request events for %d bodies", file, got, len(bodies))
		}
		total += len(bodies)
	}
	if total != 96 {
		t.Errorf("sent %d corpus bodies, want 96", total)
	}
	// real/extra holds further real bodies, which the fake provider
	// takes as well.
	extra := 0
	for file, f := range files {
		data, err := os.ReadFile(filepath.Join(dir, "real", "extra", file))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		var bodies [][]byte
		for _, line := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				bodies = append(bodies, line)
			}
		}
		roundTrip(t, f, bodies)
		extra += len(bodies)
	}
	if extra == 0 {
		t.Error("no body in real/extra")
	}
}

// randomValue writes a random JSON value with random spacing.
func randomValue(rng *rand.Rand, depth int, sp func() string) string {
	switch k := rng.IntN(8); {
	case depth > 3 || k < 3:
		return [...]string{`"a"`, `"\u003c\/x\u003e"`, `12.50`, `-0`, `1E3`, `true`, `null`, `"é\n\t"`, `""`}[rng.IntN(9)]
	case k < 6:
		n := rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"k%d"%s:%s%s`, rng.IntN(3)+i*3, sp(), sp(), randomValue(rng, depth+1, sp))
		}
		return "{" + sp() + strings.Join(parts, sp()+","+sp()) + sp() + "}"
	default:
		n := rng.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomValue(rng, depth+1, sp)
		}
		return "[" + strings.Join(parts, ","+sp()) + "]"
	}
}

// randomBody writes a random request body of format f that the provider
// takes: its conversation member and the members the provider requires
// are always there, and the members whose type a provider checks have a
// value of a type it takes; every other member has any value.
func randomBody(rng *rand.Rand, f wire.Format) []byte {
	sp := func() string { return [...]string{"", "", "", " ", "\n  ", "\t"}[rng.IntN(6)] }
	members := map[wire.Format][]string{
		wire.Anthropic:       {"system", "tools", "stream", "metadata", "tool_choice"},
		wire.OpenAIChat:      {"model", "tools", "stream", "stream_options", "temperature", "user"},
		wire.OpenAIResponses: {"instructions", "input", "tools", "previous_response_id", "stream", "store"},
		wire.Gemini:          {"systemInstruction", "tools", "generationConfig", "safetySettings"},
	}[f]
	always := map[wire.Format][]string{
		wire.Anthropic:       {"model", "max_tokens", "messages"},
		wire.OpenAIChat:      {"messages"},
		wire.OpenAIResponses: {"model"},
		wire.Gemini:          {"contents"},
	}[f]
	// The types a provider takes, by first byte ('0' a number), for the
	// members whose type it checks.
	takes := map[wire.Format]map[string]string{
		wire.Anthropic:       {"model": `"`, "max_tokens": "0", "messages": "[", "system": `"[n`, "tools": "[n"},
		wire.OpenAIChat:      {"model": `"n`, "messages": "[", "tools": "[n"},
		wire.OpenAIResponses: {"model": `"`, "instructions": `"n`, "input": `"[n`, "tools": "[n"},
		wire.Gemini:          {"contents": "[{", "systemInstruction": "{n", "tools": "[{n"},
	}[f]
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	members = members[:rng.IntN(len(members)+1)]
	if f == wire.OpenAIResponses && !slices.ContainsFunc(members, func(m string) bool {
		return m == "input" || m == "instructions" || m == "previous_response_id"
	}) {
		members = append(members, [...]string{"input", "instructions", "previous_response_id"}[rng.IntN(3)])
	}
	for _, m := range always {
		if !slices.Contains(members, m) {
			i := rng.IntN(len(members) + 1)
			members = slices.Insert(members, i, m)
		}
	}
	parts := make([]string, len(members))
	for i, m := range members {
		v := randomValue(rng, 0, sp)
		if kinds, ok := takes[m]; ok {
			for strings.IndexByte(kinds, kindOf(v)) < 0 {
				v = randomValue(rng, 0, sp)
			}
		}
		if f == wire.OpenAIChat && m == "messages" {
			var msgs []string
			for range rng.IntN(5) {
				role := [...]string{"system", "developer", "user", "assistant"}[rng.IntN(4)]
				msgs = append(msgs, `{"role":"`+role+`","content":`+randomValue(rng, 2, sp)+`}`)
			}
			v = "[" + strings.Join(msgs, ","+sp()) + "]"
		}
		parts[i] = `"` + m + `"` + sp() + ":" + sp() + v
	}
	return []byte(sp() + "{" + sp() + strings.Join(parts, sp()+","+sp()) + sp() + "}" + sp())
}

// kindOf is the first byte of a JSON value's type: '0' for a number,
// 't' for a boolean, else the value's first byte.
func kindOf(v string) byte {
	switch c := v[0]; {
	case c == '-' || '0' <= c && c <= '9':
		return '0'
	case c == 'f':
		return 't'
	default:
		return c
	}
}

func TestRebuildPropertyRandomBodies(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, f := range wire.Formats {
		var bodies [][]byte
		for range 300 {
			b := randomBody(rng, f)
			if !gjson.ValidBytes(b) {
				t.Fatalf("generator wrote invalid JSON: %q", b)
			}
			bodies = append(bodies, b)
		}
		roundTrip(t, f, bodies)
	}
}

func TestHeaderEventOnlyWhenTheHeaderChanges(t *testing.T) {
	a := []byte(`{"model":"m","max_tokens":5,"system":"s","tools":[{"name":"a"}],"messages":[{"role":"user","content":"1"}]}`)
	b := []byte(`{"model":"m","max_tokens":5,"system":"s","tools":[{"name":"a"}],"messages":[{"role":"user","content":"2"}]}`)
	c := []byte(`{"model":"m","max_tokens":5,"system":"s","tools":[{"name":"b"},{"name":"a"}],"messages":[]}`)
	log := roundTrip(t, wire.Anthropic, [][]byte{a, b, c})
	var reasons []string
	for _, line := range strings.Split(strings.TrimSpace(string(log)), "\n") {
		if gjson.Get(line, "type").String() == TypeRequestHeader {
			reasons = append(reasons, fmt.Sprintf("%d:%s", gjson.Get(line, "data.request").Int(), gjson.Get(line, "data.reason").String()))
		}
	}
	if got := strings.Join(reasons, " "); got != "1:initial 3:change" {
		t.Errorf("header events %s, want 1:initial 3:change", got)
	}
	if bytes.Contains(log, []byte("sk-secret")) {
		t.Error("an API key reached the log")
	}
}

// The whitespace of a pretty-printed body moves only with what it is in:
// the templated log (a golden log) of a body does not change when its
// system text or a tool description changes length, while the full log
// keeps what is inside the header values and rebuilds each body.
func TestPrettyBodyTemplatesWithoutItsHeader(t *testing.T) {
	for _, c := range []struct {
		f    wire.Format
		body string
	}{
		{wire.Anthropic, "{\n  \"model\": \"m\",\n  \"max_tokens\": 5,\n  \"metadata\": {\n    \"user_id\": \"u\"\n  },\n  \"system\": [\n    {\"type\": \"text\", \"text\": \"SYS\"}\n  ],\n" +
			"  \"tools\": [\n    {\n      \"name\": \"a\",\n      \"description\": \"DESC\"\n    },\n    {\"name\": \"b\"}\n  ],\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n"},
		{wire.OpenAIChat, "{\n  \"messages\": [\n    {\"role\": \"system\", \"content\": \"SYS\"},\n    {\"role\": \"developer\", \"content\": \"more\"},\n" +
			"    {\"role\": \"user\", \"content\": \"hi\"}\n  ],\n  \"tools\": [\n    {\"type\": \"function\", \"function\": {\"name\": \"a\", \"description\": \"DESC\"}}\n  ],\n  \"model\": \"m\"\n}"},
		{wire.Gemini, "{\n  \"contents\": [\n    {\"role\": \"user\", \"parts\": [{\"text\": \"hi\"}]}\n  ],\n  \"tools\": [\n    {\"functionDeclarations\": [\n" +
			"      {\"name\": \"a\", \"description\": \"DESC\"}\n    ]}\n  ],\n  \"systemInstruction\": {\n    \"parts\": [{\"text\": \"SYS\"}]\n  },\n  \"generationConfig\": {\n    \"temperature\": 0\n  }\n}\n"},
	} {
		short := strings.NewReplacer("SYS", "s", "DESC", "d").Replace(c.body)
		long := strings.NewReplacer("SYS", "a much longer system text", "DESC", "a much longer description").Replace(c.body)
		full := roundTrip(t, c.f, [][]byte{[]byte(short)})
		if !bytes.Contains(full, []byte(`"headerSpaces":[[`)) || !bytes.Contains(full, []byte(`"spaces":[[`)) {
			t.Errorf("%s: the full log keeps no whitespace of the header or of the rest:\n%s", c.f, full)
		}
		a, b := templateForTest(t, full), templateForTest(t, roundTrip(t, c.f, [][]byte{[]byte(long)}))
		if !bytes.Equal(a, b) {
			t.Errorf("%s: the templated log moves with the length of the header values:\n%s\n%s", c.f, a, b)
		}
		if bytes.Contains(a, []byte("headerSpaces")) || !bytes.Contains(a, []byte(`"spaces":[[`)) {
			t.Errorf("%s: the templated log keeps the header's whitespace, or loses the rest's:\n%s", c.f, a)
		}
	}
}

// A body the real API refuses with a 400 gets a 400 in the format's own
// error shape, and fails the scenario naming the request, the member and
// what the provider expects; it takes no reply.
func TestServerRefusesWhatTheProviderRefuses(t *testing.T) {
	for _, c := range []struct {
		f    wire.Format
		body string
		want string
	}{
		{wire.Anthropic, `{"model":"m","max_tokens":5,"tools":[]}`, `member "messages" is missing; Anthropic expects an array`},
		{wire.Anthropic, `{"model":"m","max_tokens":5,"messages":[],"tools":{"name":"a"}}`, `member "tools" is an object; Anthropic expects an array`},
		{wire.Anthropic, `{"model":"m","max_tokens":5,"messages":[],"system":{"text":"s"}}`, `member "system" is an object; Anthropic expects an array or a string`},
		{wire.Anthropic, `{"model":"m","messages":[]}`, `member "max_tokens" is missing; Anthropic expects a number`},
		{wire.Anthropic, `{"model":"m","max_tokens":"5","messages":[]}`, `member "max_tokens" is a string; Anthropic expects a number`},
		{wire.Anthropic, `{"max_tokens":5,"messages":[]}`, `member "model" is missing; Anthropic expects a string (a body without one has anthropic_version and names its model in the URL, as Amazon Bedrock and Google Vertex AI take it)`},
		{wire.OpenAIChat, `{"model":"m"}`, `member "messages" is missing; OpenAI Chat expects an array`},
		{wire.OpenAIChat, `{"model":"m","messages":[],"tools":{}}`, `member "tools" is an object; OpenAI Chat expects an array`},
		{wire.OpenAIResponses, `{"model":"m","tools":[]}`, `it has none of the members "input", "instructions", "previous_response_id", "conversation", "prompt" or "max_output_tokens"; OpenAI Responses expects one of them`},
		{wire.OpenAIResponses, `{"model":"m","input":"hi","instructions":["x"]}`, `member "instructions" is an array; OpenAI Responses expects a string`},
		{wire.OpenAIResponses, `{"input":"hi"}`, `member "model" is missing; OpenAI Responses expects a string (or a prompt whose stored settings name the model)`},
		{wire.Gemini, `{"generationConfig":{}}`, `member "contents" is missing; Gemini expects an array or an object`},
		{wire.Gemini, `{"contents":[],"systemInstruction":"be brief"}`, `member "systemInstruction" is a string; Gemini expects an object`},
	} {
		s := start(t, text("hi"))
		path := paths[c.f]
		code, out := post(t, s.URL(), path, []byte(c.body))
		if code != http.StatusBadRequest {
			t.Errorf("%s %s: HTTP %d, want 400", c.f, c.body, code)
		}
		if c.f == wire.Gemini && gjson.GetBytes(out, "error.status").String() != "INVALID_ARGUMENT" ||
			c.f != wire.Gemini && gjson.GetBytes(out, "error.type").String() != "invalid_request_error" ||
			c.f == wire.Anthropic && gjson.GetBytes(out, "type").String() != "error" {
			t.Errorf("%s: %s is not the format's error shape", c.f, out)
		}
		if got := gjson.GetBytes(out, "error.message").String(); got != "headergold fake provider: request 1: "+c.want {
			t.Errorf("%s %s: error message\n%s\nwant\n%s", c.f, c.body, got, "headergold fake provider: request 1: "+c.want)
		}
		if got, want := strings.Join(s.Failures(), "\n"), "HTTP request 1 (POST "+path+"): request 1: "+c.want; got != want {
			t.Errorf("%s %s: failures\n%s\nwant\n%s", c.f, c.body, got, want)
		}
		select {
		case <-s.Failed():
		default:
			t.Errorf("%s: the refusal did not fail the scenario", c.f)
		}
		if s.Unused() != 1 || len(s.Requests()) != 0 {
			t.Errorf("%s: a refused request took a reply or was captured", c.f)
		}
	}
}

// What the real APIs take, the fake provider takes: null for an optional
// member, Gemini's single object for a repeated field, the Bedrock and
// Vertex AI form of an Anthropic body (no model, anthropic_version), a
// Responses body whose stored prompt names the model, and an OpenAI Chat
// body without a model (Azure OpenAI deployments take the model in the
// URL).
func TestServerTakesWhatTheProviderTakes(t *testing.T) {
	for _, c := range []struct {
		f    wire.Format
		body string
	}{
		{wire.Anthropic, `{"model":"m","max_tokens":5,"messages":[],"system":null,"tools":null}`},
		{wire.Anthropic, `{"model":"m","max_tokens":5,"messages":[],"system":[{"type":"text","text":"s"}],"tools":[]}`},
		{wire.Anthropic, `{"anthropic_version":"bedrock-2023-05-31","max_tokens":5,"system":"s","messages":[],"tools":[]}`},
		{wire.OpenAIChat, `{"model":"m","messages":[],"tools":null}`},
		{wire.OpenAIChat, `{"messages":[{"role":"user","content":"hi"}],"tools":[]}`},
		{wire.OpenAIResponses, `{"model":"m","input":null,"previous_response_id":"r1","instructions":null,"tools":null}`},
		{wire.OpenAIResponses, `{"prompt":{"id":"pmpt_1"},"input":"hi"}`},
		{wire.Gemini, `{"contents":{"parts":{"text":"hi"}},"tools":{"function_declarations":[{"name":"f"}]}}`},
		{wire.Gemini, `{"contents":[],"tools":null,"systemInstruction":null}`},
	} {
		roundTrip(t, c.f, [][]byte{[]byte(c.body)})
	}
}

// TestPathHintAISDK: the wrapper that gives a client /v1 in
// ANTHROPIC_BASE_URL is suggested for an Anthropic path only; an OpenAI
// client's base URL is OPENAI_BASE_URL, which has it already.
func TestPathHintAISDK(t *testing.T) {
	const wrapper = "ANTHROPIC_BASE_URL=$ANTHROPIC_BASE_URL/v1 exec"
	for path, want := range map[string]bool{"/messages": true, "/messages/count_tokens": true, "/chat/completions": false, "/responses": false} {
		h := pathHint(path)
		if !strings.Contains(h, "the path lacks /v1") {
			t.Errorf("%s: hint %q", path, h)
		}
		if got := strings.Contains(h, wrapper); got != want {
			t.Errorf("%s: wrapper suggested %v, want %v: %q", path, got, want, h)
		}
	}
}

func TestServerFailures(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":5,"messages":[]}`)
	cases := []struct {
		name, path string
		body       []byte
		want       []string
		status     int
	}{
		{"unknown path", "/v1/complete", body, []string{"HTTP request 1 (POST /v1/complete)", "unknown path", "/v1/messages"}, 404},
		{"/v1 twice", "/v1/v1/chat/completions", body, []string{"unknown path", "the path has /v1 twice: OPENAI_BASE_URL already ends in /v1"}, 404},
		{"no /v1", "/messages", body, []string{"unknown path", "the path lacks /v1", "ANTHROPIC_BASE_URL=$ANTHROPIC_BASE_URL/v1 exec"}, 404},
		{"Claude Code's check", "/api/hello", body, []string{"unknown path", "unless CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, which headergold sets unless agent.env changes it: pass it on to claude"}, 404},
		{"empty body", "/v1/messages", []byte{}, []string{"request 1: the body is empty"}, 400},
		{"not JSON", "/v1/messages", []byte(`{"model":`), []string{"request 1: the body is not valid JSON: line 1, column 10: "}, 400},
		{"not JSON, further on", "/v1/messages", []byte("{\n \"model\": \"m\",,\n}"), []string{"not valid JSON: line 2, column 15: "}, 400},
		{"not an object", "/v1/messages", []byte(`[1]`), []string{"not a JSON object"}, 400},
		{"duplicate member", "/v1/messages", []byte(`{"model":"a","model":"b"}`), []string{`member "model" twice`}, 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := start(t, text("hi"))
			code, out := post(t, s.URL(), c.path, c.body)
			if code != c.status {
				t.Errorf("HTTP %d, want %d", code, c.status)
			}
			if !gjson.ValidBytes(out) || !gjson.GetBytes(out, "error").Exists() {
				t.Errorf("response %s is not a provider-style error", out)
			}
			got := strings.Join(s.Failures(), "\n")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("failures %q lack %q", got, w)
				}
			}
			if s.Unused() != 1 {
				t.Errorf("%d unused, want 1: a refused request takes no reply", s.Unused())
			}
		})
	}
	t.Run("past the script", func(t *testing.T) {
		s := start(t, text("one"))
		post(t, s.URL(), "/v1/messages", body)
		code, _ := post(t, s.URL(), "/v1/messages", body)
		if code != 400 {
			t.Errorf("HTTP %d, want 400", code)
		}
		if got := strings.Join(s.Failures(), "\n"); !strings.Contains(got, "request 2 is past the script: the scenario scripts 1 reply") {
			t.Errorf("failures %q", got)
		}
		// Each request past the script has a number of its own.
		post(t, s.URL(), "/v1/messages", body)
		if got := strings.Join(s.Failures(), "\n"); !strings.Contains(got, "HTTP request 3 (POST /v1/messages): request 3 is past the script") {
			t.Errorf("failures %q", got)
		}
	})
	t.Run("another format", func(t *testing.T) {
		s := start(t, text("one"), text("two"))
		post(t, s.URL(), "/v1/messages", body)
		post(t, s.URL(), "/v1/chat/completions", body)
		if got := strings.Join(s.Failures(), "\n"); !strings.Contains(got, "request 2 is openai-chat, but this scenario's requests are anthropic") {
			t.Errorf("failures %q", got)
		}
	})
	t.Run("unknown path after an OpenAI request", func(t *testing.T) {
		// The error is in the scenario's format, which its SDK reads.
		s := start(t, text("one"), text("two"))
		post(t, s.URL(), "/v1/chat/completions", body)
		code, out := post(t, s.URL(), "/v1/embeddings", body)
		if code != 404 || !gjson.GetBytes(out, "error.message").Exists() || gjson.GetBytes(out, "type").String() == "error" {
			t.Errorf("HTTP %d %s: not an OpenAI-shaped error", code, out)
		}
	})
	t.Run("unknown path that names a format", func(t *testing.T) {
		// The path's own format wins over the scenario's.
		s := start(t, text("one"), text("two"))
		post(t, s.URL(), "/v1/messages", body)
		code, out := post(t, s.URL(), "/v1beta/models/x:countTokens", body)
		if code != 404 || gjson.GetBytes(out, "error.status").String() == "" {
			t.Errorf("HTTP %d %s: not a Gemini-shaped error", code, out)
		}
	})
	t.Run("count_tokens takes no reply", func(t *testing.T) {
		s := start(t, text("one"))
		code, out := post(t, s.URL(), "/v1/messages/count_tokens", body)
		if code != 200 || gjson.GetBytes(out, "input_tokens").Int() < 1 {
			t.Errorf("count_tokens: HTTP %d %s", code, out)
		}
		if s.Unused() != 1 || len(s.Requests()) != 0 {
			t.Errorf("count_tokens took a reply or was captured")
		}
	})
	t.Run("GET", func(t *testing.T) {
		s := start(t, text("one"))
		resp, err := http.Get(s.URL() + "/v1/messages")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || !strings.Contains(strings.Join(s.Failures(), ""), "method GET") {
			t.Errorf("GET: HTTP %d, failures %v", resp.StatusCode, s.Failures())
		}
	})
}

func TestRedactionBeforeLogging(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":5,"metadata":{"user_id":"u-123"},"system":"cwd /tmp/abc.1 and /tmp/x","tools":[{"name":"a","description":"in /tmp/q"}],"messages":[{"role":"user","content":"see /tmp/zz"}]}`)
	s := start(t, text("ok"))
	post(t, s.URL(), "/v1/messages", body)
	rules := []redact.Rule{
		{Path: "config.metadata.user_id", With: "<<user-id>>"},
		{Regex: regexp.MustCompile(`/tmp/[A-Za-z0-9._-]+`), With: "<<tmp>>"},
	}
	built, err := BuildLog(s.Requests(), []wire.Reply{text("ok")}, rules)
	if err != nil {
		t.Fatal(err)
	}
	log, bodies := built.Log, built.Bodies
	want := `{"model":"m","max_tokens":5,"metadata":{"user_id":"<<user-id>>"},"system":"cwd <<tmp>> and <<tmp>>","tools":[{"name":"a","description":"in <<tmp>>"}],"messages":[{"role":"user","content":"see <<tmp>>"}]}`
	if string(bodies[0]) != want {
		t.Errorf("redacted body\n%s\nwant\n%s", bodies[0], want)
	}
	if bytes.Contains(log, []byte("/tmp/")) || bytes.Contains(log, []byte("u-123")) {
		t.Errorf("the log holds redacted text: %s", log)
	}
	if err := CheckRebuild(log, bodies); err != nil {
		t.Error(err)
	}
	// A rule that matches nothing in the run is an error naming it.
	_, err = BuildLog(s.Requests(), nil, append(rules, redact.Rule{Path: "config.metadata.session", With: "x"}))
	if err == nil || !strings.Contains(err.Error(), `redact[2]: path "config.metadata.session" matched nothing`) {
		t.Errorf("unmatched rule: %v", err)
	}
	// Every one of them, not the first alone.
	_, err = BuildLog(s.Requests(), nil, []redact.Rule{{Path: "config.metadata.session", With: "x"}, rules[0], {Path: "config.nope", With: "y"}})
	var re *RuleError
	if !errors.As(err, &re) || !slices.Equal(re.Unmatched, []int{0, 2}) ||
		!strings.Contains(err.Error(), `redact[0]: path "config.metadata.session" matched nothing`) || !strings.Contains(err.Error(), `redact[2]: path "config.nope" matched nothing`) {
		t.Errorf("two unmatched rules: %v", err)
	}
}

// A rule whose path can reach nothing in the run's format says what to
// write instead: the system part of an OpenAI Chat body is messages.
func TestUnmatchedRuleSaysWhy(t *testing.T) {
	s := start(t, text("ok"))
	post(t, s.URL(), "/v1/chat/completions", []byte(`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`))
	_, err := BuildLog(s.Requests(), []wire.Reply{text("ok")}, []redact.Rule{{Path: "system", With: "x"}})
	if err == nil || !strings.Contains(err.Error(), `redact[0]: path "system" matched nothing`) || !strings.Contains(err.Error(), "name one, as in system.0.content") {
		t.Errorf("BuildLog = %v", err)
	}
}

func TestRebuildDetectsATamperedLog(t *testing.T) {
	body := []byte(`{"model":"m","tools":[{"name":"a"}],"messages":[],"max_tokens":5}`)
	log := roundTrip(t, wire.Anthropic, [][]byte{body})
	bad := bytes.Replace(log, []byte(`"name":"a"`), []byte(`"name":"b"`), 1)
	err := CheckRebuild(bad, [][]byte{body})
	if err == nil || !strings.Contains(err.Error(), "request 1") || !strings.Contains(err.Error(), "byte 31") {
		t.Errorf("tampered log: %v", err)
	}
}

// templateForTest applies the golden templating rule to a full captured
// log independently of BuildLog: it decodes each header event and sets
// system and tools to the placeholders with sjson-free splicing by gjson
// offsets.
func templateForTest(t *testing.T, log []byte) []byte {
	t.Helper()
	var out []byte
	for _, line := range bytes.SplitAfter(log, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		switch gjson.GetBytes(line, "type").String() {
		case TypeRequest:
			// The whitespace inside the header values goes with them:
			// the member ,"headerSpaces":[…] is cut out.
			if v := gjson.GetBytes(line, "data.headerSpaces"); v.Exists() {
				from := bytes.LastIndex(line[:v.Index], []byte(`,"headerSpaces"`))
				if from < 0 {
					t.Fatalf("headerSpaces is not after another member: %.200s", line)
				}
				line = append(bytes.Clone(line[:from]), line[v.Index+len(v.Raw):]...)
			}
			out = append(out, line...)
			continue
		case TypeRequestHeader:
		default:
			out = append(out, line...)
			continue
		}
		type cut struct {
			at, end int
			with    string
		}
		var cuts []cut
		for _, m := range []struct{ path, with string }{{"data.header.system", `"<<system>>"`}, {"data.header.tools", `"<<tools>>"`}} {
			if v := gjson.GetBytes(line, m.path); v.Exists() {
				cuts = append(cuts, cut{v.Index, v.Index + len(v.Raw), m.with})
			}
		}
		prev := 0
		for _, c := range cuts {
			out = append(out, line[prev:c.at]...)
			out = append(out, c.with...)
			prev = c.end
		}
		out = append(out, line[prev:]...)
	}
	return out
}

// headerLine takes every request/header line BuildLog writes, finding the
// header the whole line's parse finds; a line laid out otherwise it
// refuses, or its header's layout check does.
func TestHeaderLineAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	lines := 0
	for _, f := range wire.Formats {
		var reqs []Request
		var replies []wire.Reply
		for i := range 200 {
			reqs = append(reqs, Request{N: i + 1, Path: "/p", Format: f, Body: randomBody(rng, f)})
			replies = append(replies, wire.Reply{Text: "ok"})
		}
		built, err := BuildLog(reqs, replies, nil)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(built.Log)) {
			line = strings.TrimSuffix(line, "\n")
			if gjson.Get(line, "type").String() != TypeRequestHeader {
				continue
			}
			for k, variant := range []string{line,
				strings.Replace(line, `"data":{`, `"data": {`, 1),
				strings.Replace(line, `,"header":`, `,"extra":1,"header":`, 1),
				strings.TrimSuffix(line, "}}") + `},"x":{}}`,
				strings.Replace(line, `"reason":"`, `"reason":"\u0063`, 1),
			} {
				d := gjson.Get(variant, "data")
				want := d.Get("header").Raw
				gf, h, ok := headerLine([]byte(variant))
				if k == 0 && !ok {
					t.Fatalf("headerLine refused %s, as BuildLog wrote it", variant)
				}
				if !ok {
					continue
				}
				if _, laidOut := wire.ReadHeader(gf, h); !laidOut {
					continue
				}
				if string(h) != want || string(gf) != d.Get("format").String() {
					t.Fatalf("headerLine(%s) = %s %s, the line's parse %s %s", variant, gf, h, d.Get("format").String(), want)
				}
				if k == 0 {
					lines++
				}
			}
		}
	}
	if lines < 100 {
		t.Errorf("only %d header lines read", lines)
	}
}

// The fake provider answers as the API does what a request asks beyond
// its path: Gemini's stream as events under alt=sse and as a JSON array
// without it; an OpenAI Chat stream's usage only under include_usage. The
// log is the same whichever way the answer went.
func TestServerAnswersAsAsked(t *testing.T) {
	gemini := []byte(`{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`)
	for _, c := range []struct {
		path, body, contentType, has, hasNot string
	}{
		{"/v1beta/models/g:streamGenerateContent?alt=sse", string(gemini), "text/event-stream", `data: {"candidates"`, "\n["},
		{"/v1beta/models/g:streamGenerateContent", string(gemini), "application/json; charset=UTF-8", `[{"candidates"`, "data: "},
		{"/v1beta/models/g:streamGenerateContent?alt=json", string(gemini), "application/json; charset=UTF-8", `[{"candidates"`, "data: "},
		{"/v1/chat/completions", `{"model":"m","stream":true,"messages":[]}`, "text/event-stream", `"finish_reason":"stop"`, `"usage"`},
		{"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, "text/event-stream", `"choices":[],"usage":{"prompt_tokens"`, `"finish_reason":"stop"}],"usage":{`},
		{"/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]}`, "text/event-stream", `"finish_reason":"stop"}],"usage":null}`, `"finish_reason":null}]}`},
	} {
		s := start(t, text("hi"))
		resp, err := http.Post(s.URL()+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: HTTP %d, %v: %s", c.path, resp.StatusCode, err, out)
		}
		if ct := resp.Header.Get("Content-Type"); ct != c.contentType {
			t.Errorf("%s %s: Content-Type %q, want %q", c.path, c.body, ct, c.contentType)
		}
		if !bytes.Contains(out, []byte(c.has)) || bytes.Contains(out, []byte(c.hasNot)) {
			t.Errorf("%s %s: want %s and not %s in\n%s", c.path, c.body, c.has, c.hasNot, out)
		}
		if f := s.Failures(); len(f) > 0 {
			t.Errorf("%s: %v", c.path, f)
		}
		if reqs := s.Requests(); len(reqs) != 1 || !reqs[0].Stream {
			t.Errorf("%s: requests %+v, want one stream", c.path, reqs)
		}
	}
}

// A gzip body is read decoded, as a provider reads it; another encoding
// is refused by name rather than as "not JSON".
func TestServerBodyEncodings(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(body)
	zw.Close()
	s := start(t, text("hi"))
	send := func(enc string, b []byte) (int, []byte) {
		req, err := http.NewRequest(http.MethodPost, s.URL()+"/v1/messages", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Encoding", enc)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, out
	}
	if code, out := send("gzip", zb.Bytes()); code != http.StatusOK {
		t.Fatalf("gzip: HTTP %d: %s", code, out)
	}
	if reqs := s.Requests(); len(reqs) != 1 || !bytes.Equal(reqs[0].Body, body) {
		t.Errorf("requests %+v, want the decoded body", reqs)
	}
	code, out := send("br", body)
	if code != http.StatusBadRequest || !bytes.Contains(out, []byte(`Content-Encoding \"br\": the fake provider reads plain and gzip bodies`)) {
		t.Errorf("br: HTTP %d: %s", code, out)
	}
	if f := s.Failures(); len(f) != 1 || !strings.Contains(f[0], `Content-Encoding "br"`) {
		t.Errorf("failures %q", f)
	}
}

// The Gemini API serves generateContent and streamGenerateContent under
// v1 as under v1beta, and so does the fake provider (@google/genai, the
// TypeScript SDK, defaults to v1): the same reply, a function call as
// well as text, streamed or not. An unknown path under either version's
// models is answered with a Gemini error, which the Gemini SDKs read,
// even when the scenario's requests are another format.
func TestServerGeminiVersions(t *testing.T) {
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	call := wire.Reply{Text: "checking", ToolCalls: []wire.ToolCall{{ID: "fc_1", Name: "get_weather", Arguments: []byte(`{"city":"Oslo"}`)}}}
	for _, version := range []string{"v1beta", "v1"} {
		for _, c := range []struct {
			method, query, contentType string
			stream                     bool
		}{
			{"generateContent", "", "application/json", false},
			{"streamGenerateContent", "?alt=sse", "text/event-stream", true},
			{"streamGenerateContent", "", "application/json; charset=UTF-8", true},
		} {
			path := "/" + version + "/models/gemini-2.5-flash:" + c.method
			s := start(t, call)
			resp, err := http.Post(s.URL()+path+c.query, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			out, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s%s: HTTP %d, %v: %s", path, c.query, resp.StatusCode, err, out)
			}
			if ct := resp.Header.Get("Content-Type"); ct != c.contentType {
				t.Errorf("%s%s: Content-Type %q, want %q", path, c.query, ct, c.contentType)
			}
			got, err := wire.ParseResponse(wire.Gemini, resp.Header.Get("Content-Type"), out)
			if err != nil || got.Text != "checking" || len(got.ToolCalls) != 1 || got.ToolCalls[0].Name != "get_weather" {
				t.Errorf("%s%s: %+v, %v in\n%s", path, c.query, got, err, out)
			}
			if f := s.Failures(); len(f) > 0 {
				t.Errorf("%s: %v", path, f)
			}
			if reqs := s.Requests(); len(reqs) != 1 || reqs[0].Format != wire.Gemini || reqs[0].Path != path || reqs[0].Stream != c.stream {
				t.Errorf("%s%s: requests %+v", path, c.query, reqs)
			}
		}
		for _, path := range []string{"/" + version + "/models/gemini-2.5-flash:countTokens", "/" + version + "/models/gemini-2.5-flash:embedContent"} {
			for _, after := range []string{"", "/v1/messages"} {
				s := start(t, text("one"), text("two"))
				if after != "" {
					post(t, s.URL(), after, []byte(`{"model":"m","max_tokens":8,"messages":[]}`))
				}
				code, out := post(t, s.URL(), path, []byte(body))
				if code != http.StatusNotFound || gjson.GetBytes(out, "error.status").String() != "NOT_FOUND" || gjson.GetBytes(out, "error.code").Int() != 404 {
					t.Errorf("%s (after %q): HTTP %d %s: not a Gemini-shaped error", path, after, code, out)
				}
				if f := s.Failures(); len(f) != 1 || !strings.Contains(f[0], "unknown path") || !strings.Contains(f[0], "/v1/models/") {
					t.Errorf("%s: failures %q", path, f)
				}
			}
		}
	}
}

// count_tokens is answered only for a body that is JSON: anything else is
// a provider-style error and a failure of the scenario, and takes no reply.
func TestServerCountTokensRefusesABodyThatIsNotJSON(t *testing.T) {
	s := start(t, text("one"))
	code, out := post(t, s.URL(), "/v1/messages/count_tokens", []byte(`{"model":`))
	if code != http.StatusBadRequest || gjson.GetBytes(out, "type").String() != "error" || !gjson.GetBytes(out, "error.message").Exists() {
		t.Errorf("HTTP %d %s, want 400 and an Anthropic-shaped error", code, out)
	}
	if got := strings.Join(s.Failures(), "\n"); !strings.Contains(got, "HTTP request 1 (POST /v1/messages/count_tokens)") || !strings.Contains(got, "not a JSON object") {
		t.Errorf("failures %q", got)
	}
	if s.Unused() != 1 || len(s.Requests()) != 0 {
		t.Errorf("%d unused, %d captured; want 1 and 0", s.Unused(), len(s.Requests()))
	}
}

// Consumed is closed once the last scripted reply is served, not before.
// (The handler marks a reply served before it returns, so by the time the
// client has read a whole small JSON response the mark is made.)
func TestServerConsumedAfterTheLastReply(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":5,"messages":[]}`)
	s := start(t, text("one"), text("two"), text("three"))
	consumed := func() bool {
		select {
		case <-s.Consumed():
			return true
		default:
			return false
		}
	}
	for i := 1; i <= 3; i++ {
		if code, out := post(t, s.URL(), "/v1/messages", body); code != http.StatusOK {
			t.Fatalf("request %d: HTTP %d %s", i, code, out)
		}
		if got, want := consumed(), i == 3; got != want {
			t.Errorf("after request %d of 3: consumed %v, want %v", i, got, want)
		}
		if got := s.Unused(); got != 3-i {
			t.Errorf("after request %d of 3: %d unused, want %d", i, got, 3-i)
		}
	}
}

// CheckRebuild compares counts as well as bytes: a log that rebuilds more
// bodies than were captured, or fewer, is an error naming the counts.
func TestCheckRebuildCountsBodies(t *testing.T) {
	a := []byte(`{"model":"m","tools":[{"name":"a"}],"messages":[{"role":"user","content":"1"}],"max_tokens":5}`)
	b := []byte(`{"model":"m","tools":[{"name":"a"}],"messages":[{"role":"user","content":"2"}],"max_tokens":5}`)
	log := roundTrip(t, wire.Anthropic, [][]byte{a, b})
	for _, c := range []struct {
		bodies [][]byte
		want   string
	}{
		{[][]byte{a}, "the log rebuilds 2 bodies, 1 were captured"},
		{[][]byte{a, b, b}, "the log rebuilds 2 bodies, 3 were captured"},
	} {
		err := CheckRebuild(log, c.bodies)
		var re *RebuildError
		if !errors.As(err, &re) || re.Offset != -1 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckRebuild with %d bodies = %v, want a RebuildError (offset -1) with %q", len(c.bodies), err, c.want)
		}
	}
}

// A request event whose format is not its header's is a tampered log, not
// a body to rebuild under the other format's header.
func TestRebuildRefusesARequestInAnotherFormat(t *testing.T) {
	body := []byte(`{"model":"m","tools":[{"name":"a"}],"messages":[],"max_tokens":5}`)
	log := roundTrip(t, wire.Anthropic, [][]byte{body})
	old := []byte(`{"type":"` + TypeRequest + `","data":{"request":1,"format":"anthropic"`)
	if !bytes.Contains(log, old) {
		t.Fatalf("the log has no request event starting %s:\n%s", old, log)
	}
	bad := bytes.Replace(log, old, []byte(`{"type":"`+TypeRequest+`","data":{"request":1,"format":"openai-chat"`), 1)
	if _, err := Rebuild(bad); err == nil || !strings.Contains(err.Error(), "request in format openai-chat under a anthropic header") {
		t.Errorf("Rebuild of a request in another format = %v", err)
	}
}

// A client that does not read a long streamed reply holds up no other
// request: the reply is written outside the lock that orders requests.
func TestSlowReaderHoldsUpNoOne(t *testing.T) {
	s := start(t, text(strings.Repeat("x", 16<<20)), text("second"))
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"a"}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	// The first request has its reply once the server numbered it; it
	// is never read.
	waitTaken(t, s, 1)
	done := make(chan string, 1)
	go func() {
		resp, err := http.Post(s.URL()+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"b"}]}`))
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		done <- fmt.Sprint(resp.StatusCode, " ", string(out))
	}()
	select {
	case got := <-done:
		if !strings.HasPrefix(got, "200 ") || !strings.Contains(got, "second") {
			t.Errorf("the second request got %s", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the second request waited 10s behind a client that does not read")
	}
}
