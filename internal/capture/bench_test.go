package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
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

// BenchmarkCaptureFloor measures what capturing a request costs at the
// least, with the fake provider's validator, against the same baseline as
// BenchmarkCaptureOverhead, alternating the two, to tell how much of a
// capture's cost the fake provider could still save. The floor server
// reads the body into two buffers it reuses (one for the request, one for
// the request before) and splits it as the fake provider does, which
// validates what is new (a body that is not JSON gets an error response,
// and the log holds only JSON) and compares what repeats the request
// before. With keep=log it then keeps in memory of its own what the log
// must hold (the conversation, and the header when it changed), for a
// scenario of 50 requests, as BenchmarkCaptureOverhead's are; with
// keep=none it keeps nothing, which no capture can do. It serves no reply
// and writes no log line. It is a benchmark of its own, not a third server
// in BenchmarkCaptureOverhead: a third server's garbage slows the other
// two and moves that figure.
func BenchmarkCaptureFloor(b *testing.B) {
	same := bigBody(50 << 10)
	other := bytes.Replace(same, []byte(`"tool_000"`), []byte(`"tool_00a"`), 1)
	for _, c := range []struct {
		name   string
		bodies [][]byte
		keep   bool
	}{
		{"header=repeated,keep=log", [][]byte{same}, true},
		{"header=new,keep=log", [][]byte{same, other}, true},
		{"header=new,keep=none", [][]byte{same, other}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			var mu sync.Mutex // the client sends one request at a time; the race detector does not know
			var bufs [2][]byte
			var last *wire.Parts // a view of the other buffer
			var held [][]byte    // what the log of the scenario holds so far
			n := 0
			floor := func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				buf := bytes.NewBuffer(bufs[n%2][:0])
				_, err := buf.ReadFrom(r.Body)
				bufs[n%2] = buf.Bytes()
				if n++; n%50 == 1 {
					held, last = nil, nil // a new scenario
				}
				var p *wire.Parts
				if err == nil {
					p, err = wire.SplitAfter(buf.Bytes(), wire.Anthropic, last)
				}
				if err != nil {
					http.Error(w, err.Error(), http.StatusBadRequest)
					return
				}
				switch {
				case !c.keep:
				case last == nil || !bytes.Equal(p.Tools, last.Tools) || !bytes.Equal(p.System, last.System) || !bytes.Equal(p.Config, last.Config):
					held = append(held, bytes.Clone(p.Config), bytes.Clone(p.System), bytes.Clone(p.Tools), bytes.Clone(p.Rest))
				default:
					held = append(held, bytes.Clone(p.Rest))
				}
				last = p
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte("{}"))
			}
			benchServers(b, c.bodies, discard, floor, "floor")
		})
	}
}

// BenchmarkValidate measures the fake provider's validating split of a
// body with a 50 KB header against the validators at hand, gjson's
// ValidBytes and encoding/json's Valid, alternating the three on the same
// bytes: BenchmarkCaptureFloor's floor validates with that split, and is
// only a floor if no validator here is faster.
func BenchmarkValidate(b *testing.B) {
	body := bigBody(50 << 10)
	var tSplit, tGjson, tJSON time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := wire.SplitAfter(body, wire.Anthropic, nil); err != nil {
			b.Fatal(err)
		}
		tSplit += time.Since(start)
		start = time.Now()
		if !gjson.ValidBytes(body) {
			b.Fatal("gjson: invalid")
		}
		tGjson += time.Since(start)
		start = time.Now()
		if !json.Valid(body) {
			b.Fatal("encoding/json: invalid")
		}
		tJSON += time.Since(start)
	}
	b.ReportMetric(float64(len(body))*float64(b.N)/tSplit.Seconds()/1e6, "split-MB/s")
	b.ReportMetric(float64(tGjson)/float64(tSplit), "gjson/split")
	b.ReportMetric(float64(tJSON)/float64(tSplit), "encoding-json/split")
}

// discard is the baseline: an httptest server that reads the body and
// answers {}.
func discard(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte("{}"))
}

// benchServers sends the bodies in turn, each to an httptest server with
// the baseline handler and to one with the variant, and reports their
// times per request and the variant's ratio to the baseline.
func benchServers(b *testing.B, bodies [][]byte, baseline, variant http.HandlerFunc, name string) {
	servers := []*httptest.Server{httptest.NewServer(baseline), httptest.NewServer(variant)}
	for _, s := range servers {
		defer s.Close()
	}
	client := &http.Client{}
	var t [2]time.Duration
	sent := 0
	for b.Loop() {
		body := bodies[sent%len(bodies)]
		sent++
		for i, s := range servers {
			start := time.Now()
			send(b, client, s.URL+"/v1/messages", body)
			t[i] += time.Since(start)
		}
	}
	b.ReportMetric(float64(t[0].Nanoseconds())/float64(b.N), "baseline-ns/req")
	b.ReportMetric(float64(t[1].Nanoseconds())/float64(b.N), name+"-ns/req")
	b.ReportMetric(float64(t[1])/float64(t[0]), name+"/baseline")
}

// send posts body to url and reads the whole answer, which must be 200.
func send(b *testing.B, client *http.Client, url string, body []byte) {
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

// benchCapture sends the bodies in turn, each to the baseline and to the
// fake provider.
func benchCapture(b *testing.B, bodies [][]byte) {
	base := httptest.NewServer(http.HandlerFunc(discard))
	defer base.Close()
	client := &http.Client{}
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
		send(b, client, base.URL+"/v1/messages", body)
		tBase += time.Since(start)
		start = time.Now()
		send(b, client, srv.URL()+"/v1/messages", body)
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
