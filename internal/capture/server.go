package capture

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/headergold/headergold/internal/canon"
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

// Options configure a fake provider.
type Options struct {
	// Replies is the script: one reply per generation request.
	Replies []wire.Reply
	// Upstream, when set, makes the server a recording proxy: each
	// generation request of format f is forwarded, with the agent's own
	// HTTP headers (its API key among them), to Upstream(f) followed by
	// the request's path and query; the real response is streamed back
	// unchanged and kept as a recorded reply (see [Server.Recorded]).
	// Replies is then unused.
	Upstream func(f wire.Format) string
	// Client sends upstream requests; nil means a client with no
	// overall timeout (streams may be long) and a 60s header timeout.
	Client *http.Client
	// Listener, when set, is served instead of a new listener on
	// 127.0.0.1 at a free port.
	Listener net.Listener
}

// Server is a fake provider serving one scripted scenario.
type Server struct {
	replies  []wire.Reply
	upstream func(wire.Format) string
	client   *http.Client
	srv      *http.Server
	ln       net.Listener
	done     chan struct{}
	consumed chan struct{} // closed once every scripted reply is served
	failed   chan struct{} // closed at the first failure
	mu       sync.Mutex
	// proxying holds the numbers of the requests being proxied, which
	// Recorded and Failures wait for (idle signals each end): each is
	// forwarded outside mu, as a scripted reply is written, so that one
	// long upstream response holds up none of the agent's other
	// requests.
	proxying map[int]bool
	idle     *sync.Cond
	// runOver ends the requests being proxied when it is done
	// (StopProxying).
	runOver     context.Context
	stopProxies context.CancelFunc
	recorded    []wire.Reply // by request number, from 1
	requests    []Request
	failures    []string
	httpN       int // every HTTP request, for messages
	asked       int // every generation request, refused ones too, for messages
	format      wire.Format
}

// Start serves the script until Close.
func Start(opts Options) (*Server, error) {
	ln := opts.Listener
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, fmt.Errorf("fake provider: %w", err)
		}
	}
	client := opts.Client
	if client == nil {
		client = &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 60 * time.Second, Proxy: http.ProxyFromEnvironment},
			// A redirect is not followed (the proxy reports it as the
			// upstream's failure): following it would send the agent's
			// key (in a header Go keeps, or the query) to another host.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	s := &Server{replies: opts.Replies, upstream: opts.Upstream, client: client, ln: ln,
		done: make(chan struct{}), consumed: make(chan struct{}), failed: make(chan struct{}), proxying: map[int]bool{}}
	s.idle = sync.NewCond(&s.mu)
	s.runOver, s.stopProxies = context.WithCancel(context.Background())
	if opts.Upstream == nil && len(opts.Replies) == 0 {
		close(s.consumed)
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	if opts.Listener != nil {
		// An agent started elsewhere outlives this server: a connection
		// it kept alive would be closed under it at Close, and it would
		// send its next scenario's first request on it, a POST that no
		// client retries. Each request gets a connection of its own.
		s.srv.SetKeepAlivesEnabled(false)
	}
	go func() {
		defer close(s.done)
		s.srv.Serve(ln) // returns http.ErrServerClosed on Close
	}()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:PORT.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Client returns a client whose every request goes to the server,
// whatever its URL says: an SDK given the client but no base URL sends
// to its provider's address, and the request reaches the fake provider
// with its path and query, never the network.
func (s *Server) Client() *http.Client {
	addr := s.ln.Addr().String()
	return &http.Client{Transport: toServer{addr: addr, rt: &http.Transport{}}}
}

// toServer is the round tripper of [Server.Client].
type toServer struct {
	addr string
	rt   *http.Transport
}

func (t toServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "http" || r.URL.Host != t.addr {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.Host = "http", t.addr, ""
	}
	return t.rt.RoundTrip(r)
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// transport.
func (t toServer) CloseIdleConnections() { t.rt.CloseIdleConnections() }

// Close stops the server and waits for it; requests in flight are cut.
func (s *Server) Close() {
	s.stopProxies()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(ctx); err != nil {
		s.srv.Close()
	}
	<-s.done
	if b, ok := s.ln.(*borrowed); ok {
		b.release()
	}
}

// Requests returns the generation requests served so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// StopProxying ends the requests still being proxied, each a failure: the
// run they belong to is over (its agent exited, or was given up on), and
// an upstream that stalls mid-stream would otherwise keep them, and
// Failures and Recorded, waiting.
func (s *Server) StopProxying() { s.stopProxies() }

// Failures returns what went wrong, one message per failed request,
// once the requests being proxied when it is called have been answered.
func (s *Server) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waitProxied()
	return append([]string(nil), s.failures...)
}

// waitProxied waits, with s.mu held, until the requests taken so far are
// no longer being proxied, and returns their number. Those taken
// meanwhile are not waited for: an agent that keeps sending would keep
// the caller waiting.
func (s *Server) waitProxied() int {
	upTo := len(s.requests)
	for {
		open := false
		for n := range s.proxying {
			open = open || n <= upTo
		}
		if !open {
			return upTo
		}
		s.idle.Wait()
	}
}

// Unused returns how many scripted replies no request took.
func (s *Server) Unused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.upstream != nil {
		return 0
	}
	return max(len(s.replies)-len(s.requests), 0)
}

// Consumed is closed once every scripted reply has been served: an agent
// started by someone else is then done.
func (s *Server) Consumed() <-chan struct{} { return s.consumed }

// Recorded returns the replies recorded from the upstream provider, one
// per generation request taken before the call, each with the response as
// received, once those requests have been answered (a request that
// failed, which Failures names, has a zero Reply).
func (s *Server) Recorded() []wire.Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.waitProxied()
	if s.upstream == nil {
		return nil
	}
	out := make([]wire.Reply, n)
	copy(out, s.recorded)
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	e, routed := wire.RouteURL(r.URL)
	var body []byte
	var readErr error
	if routed && r.Method == http.MethodPost {
		// Read before taking the lock: a body that never ends (a
		// client that stalls, or a background upload the agent left
		// behind) must hold up neither the agent's other requests nor
		// the end of the run, which reads what was served under the
		// lock and then closes the server, cutting the stalled read.
		body, readErr = readBody(r)
	}
	if write := s.take(w, r, e, routed, body, readErr); write != nil {
		write()
	}
}

// take numbers one request and takes its reply from the script, one
// request at a time: the script is a sequence, and the order in which a
// concurrent agent's requests arrive is for the repeat pass to judge. A
// request refused or answered with a count is answered here; otherwise
// the reply is written, or the request proxied, by the function
// returned, outside the lock, so that a client slow to read a long stream
// (or an upstream slow to send one) holds up no other request, as a real
// provider serves each on its own.
func (s *Server) take(w http.ResponseWriter, r *http.Request, e wire.Endpoint, routed bool, body []byte, readErr error) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.httpN++
	where := fmt.Sprintf("HTTP request %d (%s %s)", s.httpN, r.Method, r.URL.Path)
	fail := func(f wire.Format, status int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		s.addFailure(where + ": " + msg)
		wire.WriteError(w, f, status, "headergold fake provider: "+msg)
	}
	if !routed {
		// Answered in the format the path names, else in the
		// scenario's once a request set it, so that the agent's SDK can
		// read the error.
		f, named := wire.PathFormat(r.URL.Path)
		if !named {
			f = cmp.Or(s.format, wire.Anthropic)
		}
		fail(f, http.StatusNotFound, "unknown path; the fake provider serves %s%s", wire.Paths, pathHint(r.URL.Path))
		return nil
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		fail(e.Format, http.StatusMethodNotAllowed, "method %s; the fake provider serves POST", r.Method)
		return nil
	}
	if readErr != nil {
		fail(e.Format, http.StatusBadRequest, "reading the body: %v", readErr)
		return nil
	}
	if len(body) > MaxBody {
		fail(e.Format, http.StatusRequestEntityTooLarge, "body larger than %d bytes", MaxBody)
		return nil
	}
	if e.CountTokens {
		if !gjson.ValidBytes(body) {
			fail(e.Format, http.StatusBadRequest, "the body is not a JSON object")
			return nil
		}
		wire.WriteCountTokens(w, body)
		return nil
	}
	// n numbers the requests taken, which the script answers in turn;
	// asked, every generation request, refused ones too, for messages.
	n := len(s.requests) + 1
	s.asked++
	asked := s.asked
	if s.format != "" && e.Format != s.format {
		fail(e.Format, http.StatusBadRequest, "request %d is %s, but this scenario's requests are %s (its first request set the format)", asked, e.Format, s.format)
		return nil
	}
	if s.upstream == nil && n > len(s.replies) {
		fail(e.Format, http.StatusBadRequest, "request %d is past the script: the scenario scripts %d repl%s", asked, len(s.replies), plural(len(s.replies), "y", "ies"))
		return nil
	}
	var prev *wire.Parts
	if len(s.requests) > 0 {
		prev = s.requests[len(s.requests)-1].parts
	}
	parts, err := wire.SplitAfter(body, e.Format, prev)
	if err != nil {
		fail(e.Format, http.StatusBadRequest, "request %d: %v", asked, err)
		return nil
	}
	// A body the real API would refuse with a 400 is refused here too
	// (wire's body rule: the conversation, the types of the members a
	// provider reads, the members it requires), by a recording proxy as
	// well: a scenario recorded from it must replay.
	if err := parts.Refused(); err != nil {
		fail(e.Format, http.StatusBadRequest, "request %d: %v", asked, err)
		return nil
	}
	s.format = e.Format
	ask := wire.AskOf(e, parts)
	s.requests = append(s.requests, Request{N: n, Path: r.URL.Path, Format: e.Format, Stream: ask.Stream, Body: body, parts: parts})
	if s.upstream != nil {
		s.proxying[n] = true
		return func() {
			defer func() {
				s.mu.Lock()
				delete(s.proxying, n)
				s.idle.Broadcast()
				s.mu.Unlock()
			}()
			s.proxy(w, r, e, n, body, where)
		}
	}
	reply := s.replies[n-1]
	return func() {
		defer s.served(n)
		if rec := reply.Recorded; rec != nil {
			writeRecorded(w, rec)
			return
		}
		sw := &sentWriter{ResponseWriter: w}
		if err := wire.WriteResponse(sw, e, ask, n, reply); err != nil {
			s.mu.Lock()
			s.addFailure(fmt.Sprintf("%s: writing reply %d: %v", where, n, err))
			s.mu.Unlock()
			// A reply refused before writing still gets an error
			// response; one cut while streaming has nothing more to
			// say to the agent.
			if !sw.sent {
				wire.WriteError(w, e.Format, http.StatusInternalServerError, "headergold fake provider: "+err.Error())
			}
		}
	}
}

// sentWriter notes whether any of a response was sent, after which an
// error response cannot follow it.
type sentWriter struct {
	http.ResponseWriter
	sent bool
}

func (w *sentWriter) WriteHeader(code int) { w.sent = true; w.ResponseWriter.WriteHeader(code) }

func (w *sentWriter) Write(b []byte) (int, error) { w.sent = true; return w.ResponseWriter.Write(b) }

// Unwrap lets http.ResponseController reach the connection's Flush.
func (w *sentWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// pathHint says, for an unknown path that a misread base URL explains,
// how it was misread: the same variable name holds a base URL with /v1
// for one SDK and without it for another. For a known agent's request
// that is not the model's, it says how to turn the request off.
func pathHint(path string) string {
	switch {
	case path == "/api/hello":
		// Claude Code's connection check, sent (HEAD) before anything
		// else to the base URL it was given.
		return "; Claude Code checks its connection there first unless CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, which headergold sets unless agent.env changes it: pass it on to claude (a wrapper that clears the environment drops it)"
	case strings.HasPrefix(path, "/v1/v1/"):
		if _, ok := wire.Route(path[len("/v1"):]); ok {
			return "; the path has /v1 twice: OPENAI_BASE_URL already ends in /v1, and ANTHROPIC_BASE_URL and GOOGLE_GEMINI_BASE_URL have none"
		}
	case !strings.HasPrefix(path, "/v1"):
		if e, ok := wire.Route("/v1" + path); ok {
			hint := "; the path lacks /v1: the agent's base URL should end in /v1 (OPENAI_BASE_URL does; ANTHROPIC_BASE_URL does not, and its SDKs add /v1 themselves)"
			if e.Format == wire.Anthropic {
				// The AI SDK's Anthropic provider reads the same
				// variable as the official SDKs, with /v1 in it.
				hint += "; a client that reads ANTHROPIC_BASE_URL with /v1 in it (the AI SDK's @ai-sdk/anthropic) gets it from a wrapper: sh -c 'ANTHROPIC_BASE_URL=$ANTHROPIC_BASE_URL/v1 exec …'"
			}
			return hint
		}
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// addFailure records a failure; the first closes Failed. Callers hold mu.
func (s *Server) addFailure(msg string) {
	if len(s.failures) == 0 {
		close(s.failed)
	}
	s.failures = append(s.failures, msg)
}

// Failed is closed at the first failed request.
func (s *Server) Failed() <-chan struct{} { return s.failed }

// Stopped is closed once the server has stopped serving: after Close,
// or when its listener failed (an Options.Listener its owner closed).
func (s *Server) Stopped() <-chan struct{} { return s.done }

// served notes that reply n went out; the last one closes Consumed.
func (s *Server) served(n int) {
	if n == len(s.replies) {
		close(s.consumed)
	}
}

// writeRecorded serves a recorded response byte for byte.
func writeRecorded(w http.ResponseWriter, rec *wire.Recorded) {
	if rec.ContentType != "" {
		w.Header().Set("Content-Type", rec.ContentType)
	}
	status := rec.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, rec.Body)
}

// hopHeaders are not forwarded either way (RFC 9110 §7.6.1, with the
// proxy credentials of the hop: a Proxy-Authorization the agent sent
// this proxy is not the provider's to see); Accept-Encoding is left to
// the client so that the response read here is the decoded one.
var hopHeaders = map[string]bool{"Connection": true, "Keep-Alive": true, "Proxy-Connection": true, "Te": true,
	"Trailer": true, "Transfer-Encoding": true, "Upgrade": true, "Host": true, "Content-Length": true,
	"Accept-Encoding": true, "Content-Encoding": true, "Proxy-Authorization": true, "Proxy-Authenticate": true}

// copyEndToEnd copies the headers of src that are not hop-by-hop into
// dst: neither those of hopHeaders nor those src's Connection header
// names, which are this hop's too.
func copyEndToEnd(dst, src http.Header) {
	named := map[string]bool{}
	for _, v := range src.Values("Connection") {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				named[http.CanonicalHeaderKey(f)] = true
			}
		}
	}
	for k, vs := range src {
		if ck := http.CanonicalHeaderKey(k); !hopHeaders[ck] && !named[ck] {
			dst[k] = vs
		}
	}
}

// proxy forwards generation request n upstream, streams the answer back
// to the agent as it arrives and records it. It runs outside s.mu.
func (s *Server) proxy(w http.ResponseWriter, r *http.Request, e wire.Endpoint, n int, body []byte, where string) {
	addFailure := func(msg string) {
		s.mu.Lock()
		s.addFailure(msg)
		s.mu.Unlock()
	}
	// Messages name the upstream without its query, which may hold a
	// key, and without a password its URL may hold.
	fail := func(status int, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		addFailure(where + ": " + msg)
		wire.WriteError(w, e.Format, status, "headergold recording proxy: "+msg)
	}
	base := s.upstream(e.Format)
	if base == "" {
		fail(http.StatusBadGateway, "no upstream URL for %s requests: give one (-upstream URL, or -upstream %s=URL)", e.Format, e.Format)
		return
	}
	up, err := UpstreamURL(base, r.URL)
	if err != nil {
		fail(http.StatusBadGateway, "%v", err)
		return
	}
	shown := up.Shown()
	// The upstream request ends with the agent's, or with the run.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// The end of the run also ends a write to an agent that holds its
	// connection open and reads no more, which would otherwise block
	// for good; the deadline is set only while the handler runs.
	rc := http.NewResponseController(w)
	var (
		writing   sync.Mutex
		returned  bool
		stopWrite = func() {
			writing.Lock()
			defer writing.Unlock()
			if !returned {
				rc.SetWriteDeadline(time.Now())
			}
		}
	)
	defer func() {
		writing.Lock()
		returned = true
		writing.Unlock()
	}()
	defer context.AfterFunc(s.runOver, func() { cancel(); stopWrite() })()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, shown, bytes.NewReader(body))
	if err != nil {
		fail(http.StatusBadGateway, "upstream %s: %v", shown, up.Hide(err))
		return
	}
	req.URL = up.URL
	copyEndToEnd(req.Header, r.Header)
	resp, err := s.client.Do(req)
	switch {
	case err == nil:
	case s.runOver.Err() != nil:
		fail(http.StatusBadGateway, "the run was over (its agent exited or was given up on) before upstream %s answered", shown)
		return
	case r.Context().Err() != nil:
		fail(http.StatusBadGateway, "the agent's connection closed before upstream %s answered (the agent stopped, or gave up on the request)", shown)
		return
	default:
		// The error quotes the URL: it is shown as the messages show it.
		fail(http.StatusBadGateway, "upstream %s did not answer: %v", shown, up.Hide(err))
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// Neither followed nor passed on: the agent's client would follow
		// it, with the agent's key, to wherever it points.
		fail(http.StatusBadGateway, "upstream %s answered HTTP %d, a redirect, which the recording proxy does not follow or pass on", shown, resp.StatusCode)
		return
	}
	copyEndToEnd(w.Header(), resp.Header)
	w.WriteHeader(resp.StatusCode)
	var got bytes.Buffer
	buf := make([]byte, 32<<10)
	var readErr error
	agentGone := false
	for {
		k, err := resp.Body.Read(buf)
		if k > 0 {
			got.Write(buf[:k])
			if _, werr := w.Write(buf[:k]); werr != nil {
				// The agent's connection is gone, though its request's
				// context may not say so yet: what follows would be
				// recorded as a reply the agent never received.
				readErr = werr
				agentGone = true
				break
			}
			rc.Flush()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			readErr = err
			break
		}
	}
	switch {
	case readErr != nil:
		if s.runOver.Err() != nil {
			addFailure(fmt.Sprintf("%s: the run was over (its agent exited or was given up on) after %d bytes of the upstream response, which had not ended", where, got.Len()))
		} else if agentGone || r.Context().Err() != nil {
			// The upstream request is the agent's: it ended because
			// the agent's did, not because the provider broke off.
			addFailure(fmt.Sprintf("%s: the agent's connection closed after %d bytes of the upstream response (the agent stopped, or gave up on the response): %v", where, got.Len(), up.Hide(readErr)))
		} else {
			addFailure(fmt.Sprintf("%s: the upstream response broke off after %d bytes: %v", where, got.Len(), up.Hide(readErr)))
		}
		// The agent's response breaks off too: returning would end it
		// as a complete one, which a lenient client takes for the
		// reply. net/http closes the connection at this panic, which
		// it recovers without a word.
		panic(http.ErrAbortHandler)
	case resp.StatusCode >= 300:
		addFailure(fmt.Sprintf("%s: upstream %s answered HTTP %d: %s", where, shown, resp.StatusCode, upstreamMessage(got.Bytes())))
		return
	}
	if at := canon.InvalidUTF8(got.Bytes()); at >= 0 {
		// A fixture is JSON: it could keep only another text than the
		// one the agent received, and serve that at every replay.
		addFailure(fmt.Sprintf("%s: the upstream response is not valid UTF-8 (byte %d of %d): a scenario, which is JSON text, cannot keep it as the agent received it", where, at, got.Len()))
		return
	}
	ct := resp.Header.Get("Content-Type")
	reply, err := wire.ParseResponse(e.Format, ct, got.Bytes())
	if err != nil {
		addFailure(fmt.Sprintf("%s: reading the upstream response: %v", where, err))
		return
	}
	for i, c := range reply.ToolCalls {
		// A log line and a one-line reply hold no line break.
		if bytes.ContainsAny(c.Arguments, "\r\n") {
			if compact, err := canon.Compact(nil, c.Arguments); err == nil {
				reply.ToolCalls[i].Arguments = compact
			}
		}
	}
	reply.Recorded = &wire.Recorded{Status: resp.StatusCode, ContentType: ct, Body: got.String()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.recorded) < n {
		s.recorded = append(s.recorded, make([]wire.Reply, n-len(s.recorded))...)
	}
	s.recorded[n-1] = reply
}

// upstreamMessage is a provider error's message, or the start of the body.
func upstreamMessage(body []byte) string {
	for _, p := range []string{"error.message", "message", "0.error.message"} {
		if m := gjson.GetBytes(body, p); m.Type == gjson.String && m.Str != "" {
			return m.Str
		}
	}
	if len(body) > 300 {
		body = body[:300]
	}
	return strings.TrimSpace(string(body))
}

// readBody reads a request body of at most MaxBody+1 bytes (one more
// than allowed tells a body that is too large), into a buffer of the
// announced length when there is one. A gzip body (Content-Encoding:
// gzip, which some clients send) is decoded; any other encoding is
// refused by name.
func readBody(r *http.Request) ([]byte, error) {
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding gzip: %w", err)
		}
		body, err := io.ReadAll(io.LimitReader(zr, MaxBody+1))
		if err != nil {
			return nil, fmt.Errorf("Content-Encoding gzip: %w", err)
		}
		return body, nil
	default:
		return nil, fmt.Errorf("Content-Encoding %q: the fake provider reads plain and gzip bodies", enc)
	}
	if n := r.ContentLength; n >= 0 && n <= MaxBody {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
}
