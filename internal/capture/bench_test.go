package capture

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/wire"
)

// bigBody is an Anthropic request whose header (tools and system) is
// about size bytes, with a short conversation.
func bigBody(size int) []byte {
	var tools []string
	n := 0
	for i := 0; n < size; i++ {
		t := fmt.Sprintf(`{"name":"tool_%03d","description":"%s","input_schema":{"type":"object","properties":{"path":{"type":"string","description":"Where to look."},"limit":{"type":"integer"}},"required":["path"]}}`,
			i, strings.Repeat("Does one careful thing. ", 16))
		tools = append(tools, t)
		n += len(t)
	}
	return []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"You are a careful agent.","tools":[` + strings.Join(tools, ",") +
		`],"messages":[{"role":"user","content":"List the files."}]}`)
}

// BenchmarkCaptureOverhead measures one request through the fake
// provider, including its share of writing the log (full and
// templated), against an httptest server that reads the body and answers
// {}. Both run in the same loop, alternating, so the ratio holds on a
// busy machine. The rebuild check that a replay then runs over the log
// is reported beside them (rebuild-ns/req), not in the ratio: it is
// replay's check of the log, not the cost of capturing.
//
// header=repeated is an agent loop, each request repeating the header of
// the one before, which the fake provider compares instead of validating
// again; header=new gives every request a tool list that differs from
// the one before, so each is validated whole.
func BenchmarkCaptureOverhead(b *testing.B) {
	same := bigBody(50 << 10)
	other := bytes.Replace(same, []byte(`"tool_000"`), []byte(`"tool_00a"`), 1)
	b.Run("header=repeated", func(b *testing.B) { benchCapture(b, [][]byte{same}) })
	b.Run("header=new", func(b *testing.B) { benchCapture(b, [][]byte{same, other}) })
}

// benchCapture sends the bodies in turn, each to the baseline and to the
// fake provider.
func benchCapture(b *testing.B, bodies [][]byte) {
	base := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("{}"))
	}))
	defer base.Close()
	client := &http.Client{}
	send := func(url string, body []byte) {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("HTTP %d", resp.StatusCode)
		}
	}
	const batch = 50
	replies := make([]wire.Reply, batch)
	for i := range replies {
		replies[i] = wire.Reply{Text: "ok"}
	}
	var tBase, tCapture, tRebuild time.Duration
	var srv *Server
	served, sent := 0, 0
	flush := func() {
		// The log of a batch is built and checked once, as a replay does.
		start := time.Now()
		built, err := BuildLog(srv.Requests(), replies, nil)
		if err != nil {
			b.Fatal(err)
		}
		tCapture += time.Since(start)
		start = time.Now()
		if err := CheckRebuild(built.Log, built.Bodies); err != nil {
			b.Fatal(err)
		}
		tRebuild += time.Since(start)
		srv.Close()
		srv = nil
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(bodies[0])))
	for b.Loop() {
		if srv == nil {
			var err error
			if srv, err = Start(Options{Replies: replies}); err != nil {
				b.Fatal(err)
			}
			served = 0
		}
		body := bodies[sent%len(bodies)]
		sent++
		start := time.Now()
		send(base.URL+"/v1/messages", body)
		tBase += time.Since(start)
		start = time.Now()
		send(srv.URL()+"/v1/messages", body)
		tCapture += time.Since(start)
		if served++; served == batch {
			flush()
		}
	}
	if srv != nil && served > 0 {
		replies = replies[:served]
		flush()
	}
	b.ReportMetric(float64(tBase.Nanoseconds())/float64(b.N), "baseline-ns/req")
	b.ReportMetric(float64(tCapture.Nanoseconds())/float64(b.N), "capture-ns/req")
	b.ReportMetric(float64(tRebuild.Nanoseconds())/float64(b.N), "rebuild-ns/req")
	b.ReportMetric(float64(tCapture)/float64(tBase), "capture/baseline")
	b.ReportMetric(float64(tCapture+tRebuild)/float64(tBase), "capture+rebuild/baseline")
}
