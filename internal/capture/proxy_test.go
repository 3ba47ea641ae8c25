package capture

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

// hopRequest is what the agent sends through the proxy besides its key:
// every hop-by-hop header, one its Connection header names, a proxy
// credential, and an Accept-Encoding of its own.
var hopRequest = map[string]string{
	"Connection":          "keep-alive, X-Hop-Only",
	"X-Hop-Only":          "1",
	"Proxy-Authorization": "Basic cHJveHk6c2VjcmV0",
	"Keep-Alive":          "timeout=7",
	"Proxy-Connection":    "keep-alive",
	"Te":                  "trailers",
	"Upgrade":             "hop-test/1",
	"Accept-Encoding":     "gzip, deflate, br",
}

// hopResponse is what the upstream answers besides the reply: every
// hop-by-hop header a handler can set, a proxy challenge, and one header
// its Connection header names (set apart, in the handler).
var hopResponse = map[string]string{
	"Proxy-Authenticate": `Basic realm="hop"`,
	"X-Upstream-Hop":     "1",
	"Keep-Alive":         "timeout=9",
	"Proxy-Connection":   "keep-alive",
	"Te":                 "trailers",
	"Upgrade":            "hop-test/2",
}

// The recording proxy forwards the agent's end-to-end headers and none of
// its hop-by-hop ones, Accept-Encoding among them: the proxy's own client
// asks for gzip and decodes it, so the reply is read, recorded and passed
// on decoded, even from an upstream that compresses whatever it may. Nor
// does a hop-by-hop header of the upstream's response reach the agent.
// The tool call's argument bytes are recorded as sent (a space after the
// colon), and the recorded reply is served again byte for byte.
func TestProxyHopByHopHeaders(t *testing.T) {
	e, _ := wire.Route("/v1/messages")
	var plain bytes.Buffer
	rec := httptest.NewRecorder()
	reply := wire.Reply{ToolCalls: []wire.ToolCall{{ID: "toolu_real_1", Name: "get_weather", Arguments: []byte(`{"city": "Oslo"}`)}}}
	if err := wire.WriteResponse(rec, e, wire.Ask{Model: "real-model"}, 1, reply); err != nil {
		t.Fatal(err)
	}
	plain.Write(rec.Body.Bytes())
	ct := rec.Header().Get("Content-Type")

	for _, gz := range []bool{false, true} {
		name := "plain"
		if gz {
			name = "gzip"
		}
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			var seen http.Header
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				mu.Lock()
				seen = r.Header.Clone()
				mu.Unlock()
				for k, v := range hopResponse {
					w.Header().Set(k, v)
				}
				w.Header().Set("Connection", "X-Upstream-Hop")
				w.Header().Set("Request-Id", "req_real_1")
				w.Header().Set("Content-Type", ct)
				if gz && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
					w.Header().Set("Content-Encoding", "gzip")
					zw := gzip.NewWriter(w)
					zw.Write(plain.Bytes())
					zw.Close()
					return
				}
				w.Write(plain.Bytes())
			}))
			defer up.Close()
			srv, err := Start(Options{Upstream: func(wire.Format) string { return up.URL }})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()

			req, err := http.NewRequest(http.MethodPost, srv.URL()+"/v1/messages", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"Weather in Oslo?"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("x-api-key", key)
			req.Header.Set("Anthropic-Version", "2023-06-01")
			for k, v := range hopRequest {
				req.Header.Set(k, v)
			}
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if fails := srv.Failures(); len(fails) > 0 {
				t.Fatalf("failures: %q", fails)
			}

			mu.Lock()
			defer mu.Unlock()
			if seen.Get("X-Api-Key") != key || seen.Get("Anthropic-Version") != "2023-06-01" {
				t.Errorf("the upstream lacks the agent's own headers: %v", seen)
			}
			for k := range hopRequest {
				// Accept-Encoding reaches it as the proxy's client asks:
				// gzip, not the agent's list.
				if v := seen.Values(k); len(v) > 0 && !(k == "Accept-Encoding" && len(v) == 1 && v[0] == "gzip") {
					t.Errorf("the upstream got the agent's %s: %q", k, v)
				}
			}

			if resp.StatusCode != http.StatusOK || resp.Header.Get("Request-Id") != "req_real_1" || resp.Header.Get("Content-Type") != ct {
				t.Errorf("to the agent: HTTP %d, headers %v", resp.StatusCode, resp.Header)
			}
			for k := range hopResponse {
				if v := resp.Header.Values(k); len(v) > 0 {
					t.Errorf("the agent got the upstream's %s: %q", k, v)
				}
			}
			if v := resp.Header.Get("Content-Encoding"); v != "" {
				t.Errorf("the agent got Content-Encoding %q", v)
			}
			if !bytes.Equal(got, plain.Bytes()) {
				t.Fatalf("the agent got\n%q\nwant the upstream's decoded bytes\n%q", got, plain.Bytes())
			}

			recorded := srv.Recorded()
			if len(recorded) != 1 || recorded[0].Recorded == nil {
				t.Fatalf("recorded %+v", recorded)
			}
			r := recorded[0]
			if *r.Recorded != (wire.Recorded{Status: 200, ContentType: ct, Body: plain.String()}) {
				t.Errorf("recorded response %+v", *r.Recorded)
			}
			if len(r.ToolCalls) != 1 || r.ToolCalls[0].ID != "toolu_real_1" || string(r.ToolCalls[0].Arguments) != `{"city": "Oslo"}` {
				t.Errorf("recorded tool calls %+v (arguments %s), want the bytes the upstream sent", r.ToolCalls, r.ToolCalls[0].Arguments)
			}

			// Served again, the recorded reply is the upstream's bytes.
			again, err := Start(Options{Replies: recorded})
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			resp, err = http.Post(again.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","max_tokens":9,"messages":[{"role":"user","content":"Weather in Oslo?"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			got, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.Header.Get("Content-Type") != ct || !bytes.Equal(got, plain.Bytes()) {
				t.Errorf("served again: %s\n%q\nwant %s\n%q", resp.Header.Get("Content-Type"), got, ct, plain.Bytes())
			}
		})
	}
}
