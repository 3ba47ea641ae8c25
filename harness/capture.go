package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/headergold/headergold/internal/capture"
	"github.com/headergold/headergold/internal/drift"
	"github.com/headergold/headergold/internal/wire"
)

// Dummy API keys given to captured agents: SDKs refuse to start without
// one, and the fake provider never looks at them.
const dummyKey = "headergold-fake-provider-key"

// agentFailure is a captured run that failed because of the agent or its
// script: a non-zero exit, a timeout, a request the script does not
// allow, an unused reply, a redaction rule that matched nothing.
type agentFailure struct{ msg string }

func (e *agentFailure) Error() string { return e.msg }

// variation says what a run of the repeat pass varies, and what the
// agent gets instead where the scenario's agent.env sets a variable the
// pass would vary (agent.env wins).
type variation struct {
	run       int
	gomaxproc int // 0 for in-process agents
	hashSeed  uint64
	// procs and seed are agent.env's GOMAXPROCS and PYTHONHASHSEED, for
	// a subprocess agent.
	procs, seed fixedVar
}

// fixedVar is a variable of the repeat pass that agent.env may set.
type fixedVar struct {
	set   bool
	value string
}

// varied is one variable of a subprocess run as the agent got it.
type varied struct {
	name, value string
	fixed       bool // set by agent.env, not varied
}

// vars lists GOMAXPROCS and PYTHONHASHSEED as a subprocess run's agent
// gets them; nil for an in-process agent's run.
func (v variation) vars() []varied {
	if v.gomaxproc == 0 {
		return nil
	}
	one := func(name, own string, f fixedVar) varied {
		if f.set {
			return varied{name: name, value: f.value, fixed: true}
		}
		return varied{name: name, value: own}
	}
	return []varied{
		one("GOMAXPROCS", strconv.Itoa(v.gomaxproc), v.procs),
		one("PYTHONHASHSEED", strconv.FormatUint(v.hashSeed, 10), v.seed),
	}
}

// String is name=value, a value that would not read as one quoted.
func (x varied) String() string {
	val := x.value
	if val == "" || strings.ContainsAny(val, " \t\r\n\"'(),;") {
		val = strconv.Quote(val)
	}
	return x.name + "=" + val
}

func (v variation) String() string {
	vs := v.vars()
	if vs == nil {
		return fmt.Sprintf("run %d", v.run)
	}
	parts := make([]string, len(vs))
	for i, x := range vs {
		parts[i] = x.String()
		if x.fixed {
			parts[i] += " (agent.env)"
		}
	}
	return fmt.Sprintf("run %d (%s)", v.run, strings.Join(parts, ", "))
}

// notVaried is the sentence that says which variables of the repeat pass
// agent.env sets, so that the pass does not vary them, or "" when it
// sets none (or the agent is in-process, whose runs vary neither).
func (v variation) notVaried() string {
	var set []string
	hash := ""
	for _, x := range v.vars() {
		if !x.fixed {
			continue
		}
		set = append(set, x.String())
		if x.name == "PYTHONHASHSEED" {
			switch x.value {
			case "random":
				hash = " (with random, Python draws a seed of its own in each run, which -seed does not reproduce)"
			case "0":
				hash = " (0 turns Python's hash randomisation off)"
			}
		}
	}
	if len(set) == 0 {
		return ""
	}
	them := "it"
	if len(set) > 1 {
		them = "them"
	}
	return fmt.Sprintf("agent.env sets %s, so the repeat pass does not vary %s%s", strings.Join(set, " and "), them, hash)
}

// causes says what can make two runs of an agent differ, given what the
// pass varied between them: a process's GOMAXPROCS changes Go
// scheduling and PYTHONHASHSEED Python's hashing, but the timing of
// asynchronous work varies in every run, in-process too, and is the
// likely cause for an agent in another language. A variable agent.env
// sets is not said to vary.
func (v variation) causes() string {
	if v.gomaxproc == 0 {
		return "map iteration order, goroutine scheduling, or the timing of work registering tools concurrently"
	}
	hashing, sched := "Python hashing, which PYTHONHASHSEED varies", "thread and goroutine scheduling (which GOMAXPROCS varies)"
	if v.seed.set {
		hashing = "Python hashing"
	}
	if v.procs.set {
		sched = "thread and goroutine scheduling"
	}
	return "map or dict iteration order (Go maps; " + hashing + "), " + sched + ", or, in any language, the timing of asynchronous work such as plugins that register tools when they are ready"
}

// variationOf is run n's variation: GOMAXPROCS 1, 2, 4, 8 in turn, and
// PYTHONHASHSEED 1 for run 1, whose log is the one recorded and compared
// with the golden (so it is the same on every host and every replay),
// then one drawn from the suite's seed, the fixture and the run, so that
// every replay tries other hash orders (fixed seeds give two tools from a
// Python set one order under all of them for many pairs of names) and
// -seed replays the same ones. 0 would turn hash randomisation off.
// agent.env's value of either wins, and is what the run's labels show.
func variationOf(f *Fixture, n int, seed uint64) variation {
	v := variation{run: n}
	if len(f.Agent.Exec) > 0 {
		v.gomaxproc = 1 << ((n - 1) % 4)
		v.hashSeed = 1
		if n > 1 {
			v.hashSeed = 1 + permutationSeed(seed, f.Name, n)%4294967295
		}
		v.procs = envVar(f, "GOMAXPROCS")
		v.seed = envVar(f, "PYTHONHASHSEED")
	}
	return v
}

// envVar is agent.env's value of the variable name.
func envVar(f *Fixture, name string) fixedVar {
	val, ok := f.Agent.Env[name]
	return fixedVar{set: ok, value: val}
}

// otherCredentials are the variables beside the API keys through which
// the official SDKs take a credential: a bearer token (Anthropic's), the
// keys of Azure OpenAI and of OpenAI's admin API, a Google service
// account's file (Vertex AI). A subprocess agent does not inherit them
// (agent.env may set them): one that sent a request elsewhere, its base
// URL from another variable, must not carry the machine's token there.
// They are left out, not emptied: the Python SDKs read an empty
// ANTHROPIC_AUTH_TOKEN as a token, and send a header httpx refuses.
func otherCredentials() []string {
	return []string{"ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "GOOGLE_APPLICATION_CREDENTIALS"}
}

// apiKeys are the variables of the API keys a captured agent gets dummy
// values of; GOOGLE_GENERATIVE_AI_API_KEY is the AI SDK's
// (@ai-sdk/google).
func apiKeys() []string {
	return []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"}
}

// sessionEnv is the environment a captured agent gets for a fake
// provider at url, the fixture's agent.env on top.
// A recording proxy forwards the agent's own API keys, so then the
// agent keeps the keys of the environment it inherits.
func sessionEnv(f *Fixture, url string, v variation, upstream bool) map[string]string {
	env := map[string]string{
		"ANTHROPIC_BASE_URL":     url,
		"OPENAI_BASE_URL":        url + "/v1",
		"GOOGLE_GEMINI_BASE_URL": url,
	}
	if !upstream {
		for _, k := range apiKeys() {
			env[k] = dummyKey
		}
	}
	// Agents' own traffic besides their model requests, which would leave
	// the machine or fail the scenario, turned off where a well-known
	// variable does it: the OpenAI Agents SDK (JavaScript and Python)
	// uploads a trace of every run, model inputs and outputs included, to
	// api.openai.com whatever OPENAI_BASE_URL says; Claude Code sends
	// telemetry, and first checks its connection with HEAD /api/hello on
	// the base URL, a path no provider serves.
	env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
	env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
	// The fake provider is on loopback: an HTTP(S)_PROXY of the machine
	// must not take the agent's requests elsewhere (Python's urllib and
	// httpx, curl and others proxy loopback too unless told not to).
	for _, k := range []string{"NO_PROXY", "no_proxy"} {
		switch v := os.Getenv(k); v {
		case "*":
			env[k] = v // no proxy for any host already
		case "":
			env[k] = "127.0.0.1,localhost"
		default:
			env[k] = v + ",127.0.0.1,localhost"
		}
	}
	if v.gomaxproc > 0 {
		env["GOMAXPROCS"] = strconv.Itoa(v.gomaxproc)
		env["PYTHONHASHSEED"] = strconv.FormatUint(v.hashSeed, 10)
	}
	maps.Copy(env, f.Agent.Env)
	return env
}

// captureRun says how one run of a captured scenario reaches a provider.
type captureRun struct {
	replies  []wire.Reply
	upstream bool // a recording proxy to Options.Upstream
	listen   bool // serve Options.Listen and wait for an agent started elsewhere
}

// runCaptured runs a captured scenario once: a fake provider, the agent
// against it, then the log of what it sent. An *agentFailure says the
// agent or its script failed; any other error that the scenario cannot
// run here.
func (s *Suite) runCaptured(ctx context.Context, f *Fixture, v variation, cr captureRun) (*runResult, error) {
	if s.Skips(f) {
		return nil, errAt(f.File, f.raw, "agent", "%s has an in-process agent (no agent.exec) and Options.Agent is nil: set Options.Agent to the harness.AgentFunc that runs the agent, or give the fixture an agent.exec", f.Name)
	}
	copts := capture.Options{Replies: cr.replies}
	if cr.upstream {
		copts.Upstream = s.opts.Upstream.base
	}
	if cr.listen {
		// Held until the fake provider below has stopped (defers run
		// last in, first out).
		s.listen.mu.Lock()
		defer s.listen.mu.Unlock()
		if s.listen.spent {
			return nil, errors.New("Options.Listen served one run and was closed: it has no SetDeadline to lend it with (a *net.TCPListener has one), so each run needs a listener of its own")
		}
		ln, reusable := capture.Borrow(s.opts.Listen)
		copts.Listener, s.listen.spent = ln, !reusable
	}
	if len(f.Agent.Exec) > 0 && !cr.listen {
		if err := f.checkAgentDir(); err != nil {
			return nil, err
		}
	}
	srv, err := capture.Start(copts)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	env := sessionEnv(f, srv.URL(), v, cr.upstream)
	timeout := time.Duration(f.Agent.Timeout)
	if timeout == 0 {
		timeout = DefaultAgentTimeout
	}
	sess := &Session{Scenario: f.Name, Run: v.run, AnthropicBaseURL: srv.URL(), OpenAIBaseURL: srv.URL() + "/v1",
		GeminiBaseURL: srv.URL(), HTTPClient: srv.Client(), Env: env}
	if !cr.upstream {
		sess.Unset = otherCredentials()
	} else {
		sess.credentials = map[string]string{}
		for _, k := range append(apiKeys(), otherCredentials()...) {
			if v, ok := os.LookupEnv(k); ok {
				sess.credentials[k] = v
			}
		}
	}
	defer sess.HTTPClient.CloseIdleConnections()
	var runErr error
	var stderrTail string // a subprocess agent's
	switch {
	case cr.listen:
		if s.opts.OnListen != nil {
			s.opts.OnListen(sess)
		}
		select {
		case <-srv.Consumed():
		case <-srv.Failed():
		case <-srv.Stopped():
			runErr = errors.New("the listener stopped serving (closed by its owner?) before the script was consumed")
		case <-ctx.Done():
			runErr = fmt.Errorf("interrupted while waiting for the agent: %w", ctx.Err())
		}
	case len(f.Agent.Exec) > 0:
		runErr = capture.Run(ctx, capture.Command{Argv: f.Agent.Exec, Dir: f.agentDir(), Env: env, Unset: sess.Unset, Timeout: timeout, Stderr: &stderrTail})
		if ee, ok := runErr.(*capture.ExecError); ok && ee.NotStarted {
			// The directory says where a relative program was looked
			// for: agent.dir, which defaults to the fixture's own.
			return nil, errAt(f.File, f.raw, "agent.exec", "cannot start %s in %s: %v", f.describeExec(), f.agentDir(), ee.Err)
		}
	default:
		runErr = runInProcess(ctx, s.opts.Agent, sess, timeout)
	}
	// The run is over: a request still being proxied (an agent given up
	// on, its upstream stalled mid-stream) is ended now, so that what the
	// server saw can be read without waiting on it.
	srv.StopProxying()
	// What the fake provider saw goes first: it is the cause when the
	// agent then failed (a request past the script, then exit 1), and the
	// agent's error ends with its stderr, which must stay last.
	problems := srv.Failures()
	// Nothing reached the fake provider: a subprocess agent talked to
	// another address, or to none.
	silent := len(problems) == 0 && len(srv.Requests()) == 0 && len(cr.replies) > 0 && len(f.Agent.Exec) > 0 && s.opts.Listen == nil
	const baseURLs = "does it take its base URL from ANTHROPIC_BASE_URL, OPENAI_BASE_URL or GOOGLE_GEMINI_BASE_URL (not an older name such as OPENAI_API_BASE)?"
	const unreached = "nothing reached the fake provider; if the agent sent requests, they went elsewhere: " + baseURLs
	if runErr != nil {
		var ee *capture.ExecError
		switch {
		case silent && errors.As(runErr, &ee) && ee.TimedOut > 0:
			// A slow start (a CLI on node takes seconds) looks the same
			// from here as requests waiting on another address.
			problems = append(problems, "nothing reached the fake provider before the timeout: the agent may take longer to start than agent.timeout allows, "+
				"or it sent its requests elsewhere: "+baseURLs)
		case silent:
			problems = append(problems, unreached)
		case errors.As(runErr, &ee) && ee.TimedOut > 0 && !cr.upstream && srv.Unused() == 0 && len(srv.Requests()) > 0:
			problems = append(problems, "every scripted reply had been served: the agent did not exit after its last answer")
		}
		problems = append(problems, runErr.Error())
	}
	if n := srv.Unused(); n > 0 && runErr == nil {
		msg := fmt.Sprintf("%d scripted repl%s left unused: the agent sent %d generation request(s), the scenario scripts %d",
			n, plural(n, "y", "ies"), len(srv.Requests()), len(cr.replies))
		if silent {
			msg += "; " + unreached
		}
		problems = append(problems, msg)
	}
	if len(problems) > 0 {
		msg := fmt.Sprintf("%s, %s:%s", who(f, cr), v, joinProblems(problems))
		if runErr == nil {
			// The agent exited 0 and the scenario failed all the same:
			// what it wrote to stderr is likely why (an error it caught).
			msg += capture.StderrBlock(stderrTail)
		}
		return nil, &agentFailure{msg: msg}
	}
	replies := cr.replies
	if cr.upstream {
		replies = srv.Recorded()
		if len(replies) == 0 {
			return nil, &agentFailure{msg: fmt.Sprintf("%s, %s: the agent sent no generation request; nothing to record", who(f, cr), v) + capture.StderrBlock(stderrTail)}
		}
	}
	built, err := capture.BuildLog(srv.Requests(), replies, f.rules())
	if err != nil {
		return nil, &agentFailure{msg: fmt.Sprintf("%s: %v", v, f.locateRules(err))}
	}
	return &runResult{Log: built.Log, Requests: built.Bodies, templated: built.Templated, recorded: replies}, nil
}

// who names the agent of a run for messages: with -listen it is the one
// started elsewhere, whatever the fixture's exec says.
func who(f *Fixture, cr captureRun) string {
	if cr.listen {
		return "the agent started elsewhere (-listen)"
	}
	return f.describeExec()
}

// agentGrace is the most an in-process agent is given to return once its
// context is done (no more than its timeout) before the run is given up
// on.
const agentGrace = 2 * time.Second

// runInProcess runs an in-process agent under the scenario's timeout. An
// agent that does not return within agentGrace of its context ending is
// left running (a goroutine cannot be stopped) and the run fails, rather
// than the test waiting on it.
func runInProcess(ctx context.Context, agent AgentFunc, sess *Session, timeout time.Duration) error {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		returned := false
		defer func() {
			// A panic, or runtime.Goexit (t.Fatal called from the agent),
			// ends the agent's goroutine, not the test.
			if returned {
				return
			}
			if r := recover(); r != nil {
				done <- fmt.Errorf("the agent panicked: %v\n%s", r, debug.Stack())
				return
			}
			done <- errors.New("the agent's goroutine exited without returning (runtime.Goexit: t.Fatal or t.FailNow called from the agent?)")
		}()
		err := agent(actx, sess)
		returned = true
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-actx.Done():
		grace := min(agentGrace, timeout)
		select {
		case err = <-done:
		case <-time.After(grace):
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted (%v), and the agent had not returned %s later", context.Cause(ctx), grace)
			}
			return fmt.Errorf("timed out after %s, and the agent had not returned %s later: an AgentFunc must return when its context is done", timeout, grace)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted: %v", context.Cause(ctx))
	}
	if errors.Is(actx.Err(), context.DeadlineExceeded) {
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("timed out after %s: %w", timeout, err)
		}
		return fmt.Errorf("timed out after %s", timeout)
	}
	return err
}

// joinProblems joins one-line problems with "; " after a space, and puts
// each on a line of its own once one of them (an agent's stderr) has
// several.
func joinProblems(ps []string) string {
	if !slices.ContainsFunc(ps, func(p string) bool { return strings.Contains(p, "\n") }) {
		return " " + strings.Join(ps, "; ")
	}
	return "\n  " + strings.Join(ps, "\n  ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// checkCaptured runs a captured scenario and its repeat pass.
func (s *Suite) checkCaptured(ctx context.Context, f *Fixture, res *Result) *Outputs {
	fail := func(check Check, format string, args ...any) {
		res.Failures = append(res.Failures, Failure{Check: check, File: f.File, Msg: fmt.Sprintf(format, args...)})
	}
	cr := captureRun{replies: wireReplies(f.Replies), upstream: s.opts.Upstream != nil, listen: s.opts.Listen != nil}
	if len(f.Replies) == 0 && !cr.upstream {
		how := "record -upstream URL"
		if len(f.Agent.Exec) == 0 {
			// record cannot run an in-process agent: go test records it.
			how = "GOLDIE_UPDATE=1 go test, with harness.Options{Upstream: &harness.Upstream{URL: …}}"
		}
		fail(CheckInvalid, "%s has no \"replies\": script one per generation request of the agent, or record them from a real provider with %s", f.Name, how)
		return nil
	}
	first, err := s.runCaptured(ctx, f, variationOf(f, 1, s.opts.Seed), cr)
	if err != nil {
		var af *agentFailure
		if errors.As(err, &af) {
			fail(CheckAgent, "%v", err)
		} else {
			fail(CheckInvalid, "cannot run: %v", err)
		}
		return nil
	}
	res.Runs = 1
	out, err := outputs(f, first)
	if err != nil {
		fail(CheckGuard, "%v", err)
		return nil
	}
	if err := capture.CheckRebuild(first.Log, first.Requests); err != nil {
		fail(CheckRebuild, "%v", err)
	}
	runs := f.runs()
	if s.opts.shuffle() == 0 || cr.listen {
		runs = 1 // an agent started elsewhere runs once
	}
	if cr.upstream {
		// The recorded replies become the scenario's script, written
		// beside the goldens; the repeat pass replays them.
		data, err := withReplies(f, first.recorded)
		if err != nil {
			fail(CheckInvalid, "%v", err)
			return nil
		}
		out.extra = append(out.extra, FileWrite{Path: f.File, Data: data})
		cr = captureRun{replies: first.recorded}
	}
	for n := 2; n <= runs; n++ {
		v := variationOf(f, n, s.opts.Seed)
		again, err := s.runCaptured(ctx, f, v, cr)
		if err != nil {
			fail(CheckRepeat, "%v", err)
			break
		}
		res.Runs++
		if bytes.Equal(first.Log, again.Log) {
			continue
		}
		res.Failures = append(res.Failures, repeatFailure(f, v, first.Log, again.Log))
		break
	}
	return out
}

// repeatFailure describes a run whose log differs from the first run's,
// with the drift report of the first differing header.
func repeatFailure(f *Fixture, v variation, first, again []byte) Failure {
	fl := Failure{Check: CheckRepeat, File: f.File}
	m := compareFile("log", first, again)
	if m != nil {
		fl.Mismatch = m
	}
	// Both runs' logs are full: the first differing header is priced as
	// replay diff prices it, run 1's the one cached.
	d := priceDrift(fl.Mismatch, "run 1", first, v.String(), again)
	if d != nil && d.First != nil {
		kinds := make([]string, len(d.First.Kinds))
		for i, k := range d.First.Kinds {
			kinds[i] = string(k)
			// Which encoding, as replay diff says it: a key order
			// that varies is a hash map serialised, not a changed value.
			if e := d.First.Encoding; k == drift.Encoding && e != nil && e.Note != "" {
				kinds[i] += " (" + e.Note + ")"
			}
		}
		fl.Msg = fmt.Sprintf("%s differs from run 1: request %d (header %d) differs at %s (kinds: %s)%s; the agent's header depends on something besides the scenario: %s",
			v, d.First.Request, d.First.Index, orRoot(d.First.Path), strings.Join(kinds, ", "), toolOrders(d.First.Tools), v.causes()) + notVaried(v)
		return fl
	}
	line, at := 0, ""
	if m != nil {
		line = m.Line
		if m.Path != "" {
			at = " at " + m.Path
		}
	}
	fl.Msg = fmt.Sprintf("%s differs from run 1 at log line %d%s (the headers agree; the rest of a request or the number of requests differs)", v, line, at) + notVaried(v)
	return fl
}

// toolOrders shows the two runs' tool lists when they differ in order or
// membership, which says more than the bytes around the first
// difference: "; tools of run 1: a, b, c; of this run: b, a, c".
func toolOrders(t *drift.ToolLists) string {
	if t == nil {
		return ""
	}
	list := func(names []string) string {
		const most = 12
		if len(names) > most {
			return strings.Join(names[:most], ", ") + fmt.Sprintf(", … (%d in all)", len(names))
		}
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("; tools of run 1: %s; of this run: %s", list(t.A), list(t.B))
}

// notVaried is v.notVaried as the end of a message: "; " and the
// sentence, or "".
func notVaried(v variation) string {
	if s := v.notVaried(); s != "" {
		return "; " + s
	}
	return ""
}

func orRoot(p string) string {
	if p == "" {
		return "the whole header"
	}
	return p
}
