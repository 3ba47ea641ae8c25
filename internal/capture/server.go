package capture

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// MaxBody is the largest request body the fake provider reads.
const MaxBody = 64 << 20

// Request is one captured generation request.
type Request struct {
	N      int    // 1-based among generation requests
	Path   string // without the query string
	Format wire.Format
	Stream bool
	Body   []byte
	parts  *wire.Parts // Body split, kept so the log need not split it again
}

// Server is a fake provider serving one scripted scenario.
type Server struct {
	replies []wire.Reply
	srv     *http.Server
	ln      net.Listener
	done    chan struct{}

	mu       sync.Mutex
	requests []Request
	failures []string
	httpN    int // every HTTP request, for messages
	format   wire.Format
}

// Start serves replies on 127.0.0.1 at a free port until Close.
func Start(replies []wire.Reply) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fake provider: %w", err)
	}
	s := &Server{replies: replies, ln: ln, done: make(chan struct{})}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Close stops the server and waits for it; requests in flight are cut.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.done
}

// Requests returns the generation requests served so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Failures returns what went wrong, one message per failed request.
func (s *Server) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// Unused returns how many scripted replies no request took.
func (s *Server) Unused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return max(len(s.replies)-len(s.requests), 0)
}

// guessFormat picks the error shape for a path no format serves.
func guessFormat(path string) wire.Format {
	switch {
	case strings.HasPrefix(path, "/v1beta"):
		return wire.Gemini
	case strings.HasPrefix(path, "/v1/chat"):
		return wire.OpenAIChat
	case strings.HasPrefix(path, "/v1/responses"):
		return wire.OpenAIResponses
	}
	return wire.Anthropic
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	// One request at a time: the script is a sequence, and the order in
	// which a concurrent agent's requests arrive is for the repeat pass
	// to judge.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.httpN++
	where := fmt.Sprintf("HTTP request %d (%s %s)", s.httpN, r.Method, r.URL.Path)
	fail := func(f wire.Format, status int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		s.failures = append(s.failures, where+": "+msg)
		wire.WriteError(w, f, status, "headergold fake provider: "+msg)
	}
	e, ok := wire.Route(r.URL.Path)
	if !ok {
		fail(guessFormat(r.URL.Path), http.StatusNotFound, "unknown path; the fake provider serves %s", wire.Paths)
		return
	}
	if r.Method != http.MethodPost {
		fail(e.Format, http.StatusMethodNotAllowed, "method %s; the fake provider serves POST", r.Method)
		return
	}
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0)+1, MaxBody+1)))
	_, err := buf.ReadFrom(io.LimitReader(r.Body, MaxBody+1))
	body := buf.Bytes()
	if err != nil {
		fail(e.Format, http.StatusBadRequest, "reading the body: %v", err)
		return
	}
	if len(body) > MaxBody {
		fail(e.Format, http.StatusRequestEntityTooLarge, "body larger than %d bytes", MaxBody)
		return
	}
	if e.CountTokens {
		if !gjson.ValidBytes(body) {
			fail(e.Format, http.StatusBadRequest, "the body is not a JSON object")
			return
		}
		wire.WriteCountTokens(w, body)
		return
	}
	n := len(s.requests) + 1
	if s.format != "" && e.Format != s.format {
		fail(e.Format, http.StatusBadRequest, "request %d is %s, but this scenario's requests are %s (its first request set the format)", n, e.Format, s.format)
		return
	}
	if n > len(s.replies) {
		fail(e.Format, http.StatusBadRequest, "request %d is past the script: the scenario scripts %d repl%s", n, len(s.replies), plural(len(s.replies), "y", "ies"))
		return
	}
	parts, err := wire.Split(body, e.Format)
	if err != nil {
		fail(e.Format, http.StatusBadRequest, "request %d: %v", n, err)
		return
	}
	s.format = e.Format
	stream := e.Stream || parts.Stream
	s.requests = append(s.requests, Request{N: n, Path: r.URL.Path, Format: e.Format, Stream: stream, Body: body, parts: parts})
	model := e.Model
	if model == "" {
		model = gjson.GetBytes(parts.Config, "model").String()
	}
	if err := wire.WriteResponse(w, e, stream, model, n, s.replies[n-1]); err != nil {
		// A reply refused before writing still gets an error response;
		// one cut while streaming has nothing more to say to the agent.
		s.failures = append(s.failures, fmt.Sprintf("%s: writing reply %d: %v", where, n, err))
		wire.WriteError(w, e.Format, http.StatusInternalServerError, "headergold fake provider: "+err.Error())
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
