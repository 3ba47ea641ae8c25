package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

// testAgent is an in-process agent on the Anthropic Messages API over
// plain net/http: it offers its tools, runs what the model calls and
// sends the results back until the model answers with text. With
// TOOLS=map its tool list follows Go map iteration.
func testAgent(ctx context.Context, s *Session) error {
	tools := map[string]string{"read_file": "Read a file.", "write_file": "Write a file.", "grep": "Search files.",
		"list_dir": "List a directory.", "run_tests": "Run the tests.", "git_diff": "Show the diff."}
	if v := s.Getenv("DESC"); v != "" {
		tools["read_file"] = v
	}
	var list []map[string]any
	for name, desc := range tools {
		list = append(list, map[string]any{"name": name, "description": desc, "input_schema": json.RawMessage(`{"type":"object"}`)})
	}
	if s.Getenv("TOOLS") != "map" {
		sort.Slice(list, func(i, j int) bool { return list[i]["name"].(string) < list[j]["name"].(string) })
	}
	switch s.Getenv("HANG") {
	case "ctx": // until its context ends, as an agent should
		<-ctx.Done()
		return ctx.Err()
	case "ignore": // past its context's end, as an agent should not
		// Far longer than any replay waits (hangBound): a replay that
		// waited for the agent would fail the test, however slow the
		// machine, instead of passing once the sleep ends.
		time.Sleep(time.Minute)
		return nil
	case "panic":
		panic("boom")
	case "goexit": // what t.Fatal does when an agent calls it
		runtime.Goexit()
	}
	msgs := []any{map[string]any{"role": "user", "content": s.Getenv("PROMPT")}}
	for range 10 {
		system := "Be brief <always>."
		if v := s.Getenv("SYSTEM"); v != "" {
			system = v
		}
		fields := map[string]any{"model": "claude-test", "max_tokens": 100, "system": system, "tools": list, "messages": msgs}
		if s.Getenv("METADATA") == "map" {
			// Written as a serializer that walks a hash map writes it
			// (Rust's HashMap through serde, Go code ranging over a map):
			// the same members in iteration order.
			meta := map[string]string{"session": "s", "turn": "t", "window": "w", "model": "m", "sandbox": "none", "trigger": "exec"}
			obj := []byte{'{'}
			for k, v := range meta {
				if len(obj) > 1 {
					obj = append(obj, ',')
				}
				obj = fmt.Appendf(obj, "%q:%q", k, v)
			}
			fields["metadata"] = json.RawMessage(append(obj, '}'))
		}
		switch s.Getenv("BODY") { // a body the Anthropic API refuses
		case "tools-object":
			fields["tools"] = list[0]
		case "no-max-tokens":
			delete(fields, "max_tokens")
		}
		body, err := json.Marshal(fields)
		if err != nil {
			return err
		}
		if s.Getenv("SPACED") != "" {
			body = pySpaced(body)
		}
		base := s.AnthropicBaseURL
		if v := s.Getenv("BASE"); v != "" { // an SDK given HTTPClient alone keeps its own
			base = v
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+s.Getenv("PATH_SUFFIX")+"/v1/messages", bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("x-api-key", s.Getenv("ANTHROPIC_API_KEY"))
		resp, err := s.HTTPClient.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("HTTP %d: %s", resp.StatusCode, data)
		}
		var reply struct {
			Content    []map[string]any `json:"content"`
			StopReason string           `json:"stop_reason"`
		}
		if err := json.Unmarshal(data, &reply); err != nil {
			return err
		}
		msgs = append(msgs, map[string]any{"role": "assistant", "content": reply.Content})
		if reply.StopReason != "tool_use" {
			return nil
		}
		var results []any
		for _, c := range reply.Content {
			if c["type"] == "tool_use" {
				results = append(results, map[string]any{"type": "tool_result", "tool_use_id": c["id"], "content": "done: " + c["name"].(string)})
			}
		}
		msgs = append(msgs, map[string]any{"role": "user", "content": results})
	}
	return fmt.Errorf("no answer after 10 steps")
}

// pySpaced writes compact JSON as Python's json.dumps does by default: a
// space after every comma and colon outside strings.
func pySpaced(b []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(b); i++ {
		out = append(out, b[i])
		switch c := b[i]; {
		case inStr && c == '\\':
			i++
			out = append(out, b[i])
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// capturedFixture is a captured scenario for testAgent.
func capturedFixture(env string, extra string) string {
	return `{
  "description": "an in-process agent reads a file",
  "agent": {"env": {` + env + `}},` + extra + `
  "replies": [
    {"text": "Reading it.", "toolCalls": [{"id": "toolu_1", "name": "read_file", "arguments": {"path": "go.mod"}}, {"id": "toolu_2", "name": "grep", "arguments": {}}]},
    {"text": "It is a Go module."}
  ]
}
`
}

// agentDirs makes empty fixtures and golden directories under a temp
// directory and returns the options that run agent in-process there.
func agentDirs(t *testing.T, agent AgentFunc) Options {
	t.Helper()
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1, Agent: agent}
	for _, d := range []string{opts.Fixtures, opts.Golden} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return opts
}

// capturedSuite writes fixtures into a temp layout and loads it with
// testAgent as the in-process agent.
func capturedSuite(t *testing.T, fixtures map[string]string) (*Suite, Options) {
	t.Helper()
	opts := agentDirs(t, testAgent)
	for name, src := range fixtures {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), src)
	}
	return mustLoad(t, opts), opts
}

// An agent that takes the session's client but keeps its provider's
// address, as an official SDK given WithHTTPClient alone does, reaches
// the fake provider: nothing goes to the network.
func TestSessionClientReachesTheFakeProvider(t *testing.T) {
	s, opts := capturedSuite(t, map[string]string{
		"sdk-default": capturedFixture(`"PROMPT": "What is in go.mod?", "BASE": "https://api.anthropic.com"`, ""),
	})
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	if fails := replayOne(t, mustLoad(t, opts), "sdk-default"); len(fails) > 0 {
		t.Errorf("replay: %v", fails)
	}
	golden := string(readFile(t, filepath.Join(opts.Golden, "sdk-default.golden")))
	if strings.Count(golden, `"path":"/v1/messages"`) < 2 {
		t.Errorf("the golden log lacks the agent's requests:\n%s", golden)
	}
}

func TestCapturedInProcessRecordReplay(t *testing.T) {
	s, opts := capturedSuite(t, map[string]string{
		"pinned": strings.Replace(capturedFixture(`"PROMPT": "What is in go.mod?"`, ""), `"description"`, `"pin": true, "description"`, 1),
		"plain":  capturedFixture(`"PROMPT": "What is in go.mod?"`, ` "runs": 20,`),
	})
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	s = mustLoad(t, opts)
	for _, name := range []string{"pinned", "plain"} {
		if fails := replayOne(t, s, name); len(fails) > 0 {
			t.Errorf("%s: %v", name, fails)
		}
	}
	golden := string(readFile(t, filepath.Join(opts.Golden, "plain.golden")))
	for _, want := range []string{`"reason":"initial","format":"anthropic","header":{"config":{"max_tokens":100,"model":"claude-test"},"system":"<<system>>","tools":"<<tools>>"}`,
		`"type":"capture/reply"`, `"system":"<<system>>","tools":"<<tools>>"}}}`} {
		if !strings.Contains(golden, want) {
			t.Errorf("golden log lacks %s:\n%s", want, golden)
		}
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "plain.tools.json")); err == nil {
		t.Error("a sidecar beside a scenario that is not pinned")
	}
	// The pin's sidecars keep the tokens as the agent sent them:
	// encoding/json wrote < as \u003c.
	md := string(readFile(t, filepath.Join(opts.Golden, "pinned.system.md")))
	if md != "\"Be brief \\u003calways\\u003e.\"\n" {
		t.Errorf("system.md = %q", md)
	}
	tools := readFile(t, filepath.Join(opts.Golden, "pinned.tools.json"))
	var parsed struct {
		Initial []struct{ Name string } `json:"initial"`
	}
	if err := json.Unmarshal(tools, &parsed); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range parsed.Initial {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "git_diff,grep,list_dir,read_file,run_tests,write_file" {
		t.Errorf("pinned tools %s", got)
	}
}

func TestCapturedRepeatPassCatchesMapOrder(t *testing.T) {
	s, _ := capturedSuite(t, map[string]string{
		"map": capturedFixture(`"PROMPT": "x", "TOOLS": "map"`, ` "runs": 20,`),
	})
	out, res := s.Check(s.Fixture("map"))
	if out == nil {
		t.Fatalf("no outputs: %v", res.Failures)
	}
	f := failureWith(t, res.Failures, CheckRepeat, "differs from run 1: request 1 (header 1) differs at tools.", "reorder",
		"map iteration order, goroutine scheduling")
	// Both runs' tool orders are shown, the same tools in two orders.
	m := regexp.MustCompile(`; tools of run 1: ([a-z_, ]+); of this run: ([a-z_, ]+);`).FindStringSubmatch(f.Msg)
	if m == nil || m[1] == m[2] || sortedNames(m[1]) != sortedNames(m[2]) || sortedNames(m[1]) != "git_diff,grep,list_dir,read_file,run_tests,write_file" {
		t.Errorf("tool orders not shown: %s", f.Msg)
	}
	if f.File != filepath.Join(s.opts.Fixtures, "map.json") {
		t.Errorf("failure names %s", f.File)
	}
}

// TestCapturedRepeatPassCatchesKeyOrder: a config member whose keys
// follow hash-map iteration is the same value in other bytes, and the
// repeat failure says which encoding it is, as replay diff does.
func TestCapturedRepeatPassCatchesKeyOrder(t *testing.T) {
	s, _ := capturedSuite(t, map[string]string{
		"meta": capturedFixture(`"PROMPT": "x", "METADATA": "map"`, ` "runs": 20,`),
	})
	_, res := s.Check(s.Fixture("meta"))
	failureWith(t, res.Failures, CheckRepeat, "differs from run 1: request ", "differs at config.metadata (kinds: encoding (key order));")
}

// TestCannotStartNamesTheDirectory: a program given as a relative path is
// looked for in agent.dir, which defaults to the fixture's directory, not
// the directory replay runs in; the message says which it was.
func TestCannotStartNamesTheDirectory(t *testing.T) {
	s, opts := capturedSuite(t, map[string]string{
		"x": `{"description": "d", "agent": {"exec": ["agent/run.sh"]}, "replies": [{"text": "a"}]}`,
	})
	res := s.Replay(s.Fixture("x"))
	failureWith(t, res.Failures, CheckInvalid, "agent.exec: cannot start agent [agent/run.sh] in "+opts.Fixtures+": ", "no such file or directory")
}

// TestAgentDirThroughASymlink: agent.dir is resolved as the system
// resolves it, ".." after the symlink before it: "../agents" of a
// fixture in a symlinked fixtures directory is beside the link's target,
// and a relative program and a relative PATH entry are looked for there;
// one that does not exist is named as written, joined to the fixtures
// directory.
func TestAgentDirThroughASymlink(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"shared/fixtures", "shared/agents/bin", "proj", "golden"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fixtures := filepath.Join(root, "proj", "fixtures")
	if err := os.Symlink(filepath.Join("..", "shared", "fixtures"), fixtures); err != nil {
		t.Skipf("cannot make a symlink here: %v", err)
	}
	agents := filepath.Join(root, "shared", "agents")
	for file, word := range map[string]string{"run.sh": "relative", filepath.Join("bin", "hg-agent"): "on PATH"} {
		if err := os.WriteFile(filepath.Join(agents, file), []byte("#!/bin/sh\necho '"+word+"' >> ran\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	scenario := func(exec, dir, env string) string {
		return `{"description": "d", "runs": 1, "agent": {"exec": ` + exec + `, "dir": "` + dir + `", "env": {` + env + `}}, "replies": [{"text": "a"}]}`
	}
	path, _ := json.Marshal("bin" + string(filepath.ListSeparator) + os.Getenv("PATH"))
	for name, src := range map[string]string{
		"relative": scenario(`["./run.sh"]`, "../agents", ""),
		"on-path":  scenario(`["hg-agent"]`, "../agents", `"PATH": `+string(path)),
		"missing":  scenario(`["./run.sh"]`, "../nope", ""),
	} {
		writeFile(t, filepath.Join(root, "shared", "fixtures", name+".json"), src)
	}
	s := mustLoad(t, Options{Fixtures: fixtures, Golden: filepath.Join(root, "golden"), Seed: 1})
	for _, name := range []string{"relative", "on-path"} {
		// The agent sends nothing, which fails check agent: whether it
		// started, and where, is what is looked at.
		for _, f := range s.Replay(s.Fixture(name)).Failures {
			if f.Check == CheckInvalid {
				t.Errorf("%s: %s", name, f.Msg)
			}
		}
	}
	if got, want := string(readFile(t, filepath.Join(agents, "ran"))), "relative\non PATH\n"; got != want {
		t.Errorf("the agents in %s wrote %q, want %q", agents, got, want)
	}
	failureWith(t, s.Replay(s.Fixture("missing")).Failures, CheckInvalid,
		"agent.dir: the agent's directory "+fixtures+string(filepath.Separator)+"../nope does not exist")
}

// sortedNames sorts a list "b, a" as "a,b".
func sortedNames(list string) string {
	names := strings.Split(list, ", ")
	slices.Sort(names)
	return strings.Join(names, ",")
}

func TestCapturedValidation(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"reference member beside agent": {`{"description": "d", "agent": {}, "replies": [{"text": "a"}],
  "turns": []}`, `x.json:2:12: turns: "turns" belongs to the reference agent`},
		"captured member without agent": {`{"description": "d", "turns": [{"user": "u", "replies": [{"text": "ok"}]}], "runs": 3}`, `x.json:1:85: runs: "runs" belongs to captured scenarios`},
		"runs zero":                     {`{"description": "d", "agent": {}, "runs": 0, "replies": [{"text": "a"}]}`, `x.json:1:43: runs: runs counts from 1`},
		"duplicate call ids": {`{"description": "d", "agent": {}, "replies": [{"toolCalls": [{"id": "c", "name": "a"}, {"id": "c", "name": "b"}]}]}`,
			`replies[0].toolCalls[1].id: call id "c" is also toolCalls[0]`},
		"a number no double holds": {`{"description": "d", "agent": {}, "replies": [{"toolCalls": [{"id": "c", "name": "a", "arguments": {"q": {"n": [1, -1E400]}}}]}]}`,
			`replies[0].toolCalls[0].arguments.q.n[1]: -1E400 is out of the range of a double`},
		"arguments not an object": {`{"description": "d", "agent": {}, "replies": [{"toolCalls": [{"id": "c", "name": "a", "arguments": [1]}]}]}`,
			`replies[0].toolCalls[0].arguments: arguments must be a JSON object`},
		"empty reply":                       {`{"description": "d", "agent": {}, "replies": [{}]}`, `replies[0]: a reply needs text, toolCalls or both`},
		"typo at the top":                   {`{"description": "d", "agent": {}, "replys": [{"text": "a"}]}`, `replys: unknown field "replys" (known in a captured scenario: agent, description, pin, redact, replies, runs)`},
		"unknown agent member":              {`{"description": "d", "agent": {"cmd": ["x"]}, "replies": [{"text": "a"}]}`, `x.json:1:32: agent.cmd: unknown field "cmd"`},
		"bad timeout":                       {`{"description": "d", "agent": {"timeout": "soon"}, "replies": [{"text": "a"}]}`, `duration "soon"`},
		"rule without with":                 {`{"description": "d", "agent": {}, "redact": [{"path": "config.x"}], "replies": [{"text": "a"}]}`, `redact[0]: a rule needs "with"`},
		"rule with both":                    {`{"description": "d", "agent": {}, "redact": [{"path": "config.x", "regex": "a", "with": ""}], "replies": [{"text": "a"}]}`, `give path or regex, not both`},
		"rule with a bad regex":             {`{"description": "d", "agent": {}, "redact": [{"regex": "(", "with": ""}], "replies": [{"text": "a"}]}`, `redact[0]: regex: error parsing`},
		"rule with a bad path":              {`{"description": "d", "agent": {}, "redact": [{"path": "messages.0", "with": ""}], "replies": [{"text": "a"}]}`, `starts with config, system or tools`},
		"empty exec":                        {`{"description": "d", "agent": {"exec": []}, "replies": [{"text": "a"}]}`, `agent.exec: exec needs at least the program`},
		"dir of an in-process agent":        {`{"description": "d", "agent": {"dir": "/nowhere"}, "replies": [{"text": "a"}]}`, `x.json:1:39: agent.dir: an in-process Go agent (no exec) runs in the test's process`},
		"duplicate env":                     {`{"description": "d", "agent": {"env": {"A": "1", "A": "2"}}, "replies": [{"text": "a"}]}`, `agent.env.A: field "A" appears twice`},
		"env without a name":                {`{"description": "d", "agent": {"env": {"": "1"}}, "replies": [{"text": "a"}]}`, `x.json:1:39: agent.env: a variable needs a name`},
		"env name with =":                   {`{"description": "d", "agent": {"env": {"A=B": "x"}}, "replies": [{"text": "a"}]}`, `agent.env: "A=B" is no variable name`},
		"env value with NUL":                {`{"description": "d", "agent": {"env": {"A": "x\u0000y"}}, "replies": [{"text": "a"}]}`, `agent.env: the value of A holds a NUL byte`},
		"rule with an empty path component": {`{"description": "d", "agent": {}, "redact": [{"path": "config..model", "with": ""}], "replies": [{"text": "a"}]}`, `redact[0]: path "config..model": a path has no empty component`},
		"rule that matches the empty string": {`{"description": "d", "agent": {}, "redact": [{"with": "#", "regex": "[0-9]*"}], "replies": [{"text": "a"}]}`,
			`x.json:1:69: redact[0].regex: regex "[0-9]*": it can match the empty string, which would put the replacement between every two characters of every string value`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := decodeFixture("x.json", []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// hangBound bounds a replay that must not wait for a hung agent (a
// sleep of 30s or more): it only tells a hang from a run, never how fast
// a run is.
const hangBound = 20 * time.Second

func TestCapturedAgentFailures(t *testing.T) {
	sh := func(script string) string {
		b, _ := json.Marshal([]string{"sh", "-c", script})
		return string(b)
	}
	cases := map[string]struct {
		fixture string
		check   Check
		want    []string
	}{
		"exit 1": {`{"description": "d", "agent": {"exec": ` + sh(`echo "bad config" >&2; exit 1`) + `}, "replies": [{"text": "a"}]}`,
			CheckAgent, []string{"run 1 (GOMAXPROCS=1, PYTHONHASHSEED=1):\n  nothing reached the fake provider", "\n  agent [sh -c", "exit status 1", "bad config"}},
		"timeout": {`{"description": "d", "agent": {"exec": ` + sh(`sleep 30`) + `, "timeout": "300ms"}, "replies": [{"text": "a"}]}`,
			CheckAgent, []string{"nothing reached the fake provider before the timeout: the agent may take longer to start than agent.timeout allows, or it sent its requests elsewhere: does it take its base URL",
				"timed out after 300ms (agent.timeout); its process group got SIGTERM, then SIGKILL"}},
		"unused replies": {`{"description": "d", "agent": {"exec": ["true"]}, "replies": [{"text": "a"}]}`,
			CheckAgent, []string{"1 scripted reply left unused: the agent sent 0 generation request(s), the scenario scripts 1; nothing reached the fake provider; if the agent sent requests, they went elsewhere: does it take its base URL from ANTHROPIC_BASE_URL"}},
		"exit 1 before any request": {`{"description": "d", "agent": {"exec": ` + sh(`echo "connection refused" >&2; exit 1`) + `}, "replies": [{"text": "a"}]}`,
			CheckAgent, []string{"nothing reached the fake provider", "exit status 1", "connection refused"}},
		"exit 0 with a caught error": {`{"description": "d", "agent": {"exec": ` + sh(`echo "caught: no config" >&2; exit 0`) + `}, "replies": [{"text": "a"}]}`,
			CheckAgent, []string{"1 scripted reply left unused", "stderr (tail):\n    caught: no config"}},
		"past the script": {strings.Replace(capturedFixture(`"PROMPT": "x"`, ""), `{"text": "It is a Go module."}`, `{"toolCalls": [{"id": "t3", "name": "grep"}]}`, 1),
			CheckAgent, []string{"in-process agent, run 1", "request 3 is past the script: the scenario scripts 2 replies"}},
		"tools an object": {capturedFixture(`"PROMPT": "x", "BODY": "tools-object"`, ""),
			CheckAgent, []string{`HTTP request 1 (POST /v1/messages): request 1: member "tools" is an object; Anthropic expects an array`, "HTTP 400"}},
		"no max_tokens": {capturedFixture(`"PROMPT": "x", "BODY": "no-max-tokens"`, ""),
			CheckAgent, []string{`HTTP request 1 (POST /v1/messages): request 1: member "max_tokens" is missing; Anthropic expects a number`}},
		"unknown path": {capturedFixture(`"PROMPT": "x", "PATH_SUFFIX": "/api"`, ""),
			CheckAgent, []string{"HTTP request 1 (POST /api/v1/messages): unknown path"}},
		"rule never matches": {capturedFixture(`"PROMPT": "x"`, ` "redact": [{"regex": "/home/[a-z]+", "with": "<<home>>"}],`),
			CheckAgent, []string{`x.json:3:49: redact[0]: regex "/home/[a-z]+" matched nothing in any request of this run; an explicit rule that matches nothing is an error`}},
		"in-process timeout": {strings.Replace(capturedFixture(`"HANG": "ctx"`, ""), `"env"`, `"timeout": "200ms", "env"`, 1),
			CheckAgent, []string{"in-process agent, run 1: timed out after 200ms"}},
		"in-process agent that ignores its context": {strings.Replace(capturedFixture(`"HANG": "ignore"`, ""), `"env"`, `"timeout": "200ms", "env"`, 1),
			CheckAgent, []string{"timed out after 200ms, and the agent had not returned 200ms later: an AgentFunc must return when its context is done"}},
		"in-process agent that panics": {capturedFixture(`"HANG": "panic"`, ""),
			CheckAgent, []string{"in-process agent, run 1:\n  the agent panicked: boom"}},
		"in-process agent that calls runtime.Goexit": {capturedFixture(`"HANG": "goexit"`, ""),
			CheckAgent, []string{"the agent's goroutine exited without returning (runtime.Goexit: t.Fatal or t.FailNow called from the agent?)"}},
		"missing dir": {`{"description": "d", "agent": {"exec": ["true"], "dir": "nope"}, "replies": [{"text": "a"}]}`,
			CheckInvalid, []string{"x.json:1:57: agent.dir: the agent's directory ", "nope does not exist"}},
		"dir that is a file": {`{"description": "d", "agent": {"exec": ["true"], "dir": "x.json"}, "replies": [{"text": "a"}]}`,
			CheckInvalid, []string{"agent.dir: ", "x.json is not a directory"}},
		"no such program": {`{"description": "d", "agent": {"exec": ["headergold-no-such-program", "a b"]}, "replies": [{"text": "a"}]}`,
			CheckInvalid, []string{"x.json:1:40: agent.exec: cannot start agent [headergold-no-such-program 'a b']", "executable file not found"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, _ := capturedSuite(t, map[string]string{"x": c.fixture})
			start := time.Now()
			res := s.Replay(s.Fixture("x"))
			f := failureWith(t, res.Failures, c.check, c.want...)
			if c.check == CheckInvalid && !res.Invalid() {
				t.Error("a scenario that cannot start is not invalid")
			}
			if name == "past the script" {
				// The fake provider's finding is the cause; the agent's
				// error, its consequence, comes after it.
				if i, j := strings.Index(f.Msg, "past the script"), strings.Index(f.Msg, "HTTP 400"); i < 0 || j < i {
					t.Errorf("the cause is not first: %s", f.Msg)
				}
			}
			// Not a measure of speed: the hung agents sleep 30s and a
			// minute, so a replay that waited for one takes longer than
			// hangBound however slow the machine; one that did not ends
			// well within it even on a loaded CI runner.
			if d := time.Since(start); d > hangBound {
				t.Errorf("the replay took %s: it waited for the agent", d)
			}
		})
	}
}

// TestUnmatchedRulesAreAllLocated: every rule that matched nothing in a
// run is named in the one failure, each at its place in the fixture, as
// a validation error is; a rule that matched is not named.
func TestUnmatchedRulesAreAllLocated(t *testing.T) {
	rules := `
  "redact": [
    {"path": "config.metadata.user_id", "with": "<<u>>"},
    {"regex": "go\\.mod", "with": "<<f>>"},
    {"regex": "NOPE[0-9]+", "with": "<<n>>"}],`
	s, opts := capturedSuite(t, map[string]string{"x": capturedFixture(`"PROMPT": "What is in go.mod?"`, rules)})
	file := filepath.Join(opts.Fixtures, "x.json")
	f := failureWith(t, s.Replay(s.Fixture("x")).Failures, CheckAgent,
		": 2 redact rules matched nothing (an explicit rule that matches nothing is an error):\n"+
			"  "+file+`:5:5: redact[0]: path "config.metadata.user_id" matched nothing in any request of this run`+"\n"+
			"  "+file+`:7:5: redact[2]: regex "NOPE[0-9]+" matched nothing in any request of this run`)
	if strings.Contains(f.Msg, "redact[1]") {
		t.Errorf("a rule that matched is named: %s", f.Msg)
	}
}

// TestCapturedInterruptIsNotATimeout: an in-process run whose suite
// context is cancelled (SIGINT in replay) is reported as interrupted.
func TestCapturedInterruptIsNotATimeout(t *testing.T) {
	_, opts := capturedSuite(t, map[string]string{"x": capturedFixture(`"HANG": "ctx"`, "")})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts.Context = ctx
	s := mustLoad(t, opts)
	res := s.Replay(s.Fixture("x"))
	f := failureWith(t, res.Failures, CheckAgent, "interrupted: context canceled")
	if strings.Contains(f.Msg, "timed out") {
		t.Errorf("an interrupt reported as a timeout: %s", f.Msg)
	}
}

// The context of ReplayContext, CheckContext and RecordContext bounds
// the agent runs of that call, whatever Options.Context holds; a record
// it interrupts writes nothing.
func TestContextPerCall(t *testing.T) {
	s, opts := capturedSuite(t, map[string]string{"x": capturedFixture(`"HANG": "ctx"`, "")})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	failureWith(t, s.ReplayContext(cancelled, s.Fixture("x")).Failures, CheckAgent, "interrupted: context canceled")
	_, res := s.CheckContext(cancelled, s.Fixture("x"))
	failureWith(t, res.Failures, CheckAgent, "interrupted: context canceled")
	if _, _, err := s.RecordContext(cancelled, RecordOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("RecordContext with a cancelled context: %v", err)
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "x.golden")); err == nil {
		t.Error("an interrupted record wrote x.golden")
	}
	// Options.Context cancelled, a live context per call: the call's wins.
	opts.Context = cancelled
	s = mustLoad(t, opts)
	live, stop := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer stop()
	start := time.Now()
	failureWith(t, s.ReplayContext(live, s.Fixture("x")).Failures, CheckAgent, "interrupted: context deadline exceeded")
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("ReplayContext ended after %s, before its own context did", d)
	}
}

// TestCapturedWithoutReplies: a scenario with no replies says how to
// record them, in the way its agent records: a subprocess agent with
// record -upstream, an in-process one from go test (record cannot run
// it).
func TestCapturedWithoutReplies(t *testing.T) {
	s, _ := capturedSuite(t, map[string]string{"x": `{"description": "d", "agent": {}}`, "y": `{"description": "d", "agent": {"exec": ["true"]}}`})
	failureWith(t, s.Replay(s.Fixture("x")).Failures, CheckInvalid, `x has no "replies"`, "GOLDIE_UPDATE=1 go test, with harness.Options{Upstream:")
	failureWith(t, s.Replay(s.Fixture("y")).Failures, CheckInvalid, `y has no "replies"`, "record -upstream URL")
}

func TestCapturedInProcessNeedsAnAgent(t *testing.T) {
	s, opts := capturedSuite(t, map[string]string{"x": capturedFixture(`"PROMPT": "x"`, "")})
	opts.Agent = nil
	s = mustLoad(t, opts)
	res := s.Replay(s.Fixture("x"))
	failureWith(t, res.Failures, CheckInvalid, "x.json:3:12: agent: x has an in-process agent (no agent.exec) and Options.Agent is nil: set Options.Agent")
	if !res.Invalid() {
		t.Error("a scenario that cannot run here is not invalid")
	}
}

func TestCapturedTamperingIsLocated(t *testing.T) {
	fixture := strings.Replace(capturedFixture(`"PROMPT": "What is in go.mod?"`, ""), `"description"`, `"pin": true, "description"`, 1)
	s, opts := capturedSuite(t, map[string]string{"p": fixture})
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	golden := filepath.Join(opts.Golden, "p.golden")
	tools := filepath.Join(opts.Golden, "p.tools.json")
	system := filepath.Join(opts.Golden, "p.system.md")
	orig := map[string][]byte{golden: readFile(t, golden), tools: readFile(t, tools), system: readFile(t, system)}
	cases := []struct {
		file     string
		from, to string
		check    Check
		want     []string
	}{
		{golden, `"What is in go.mod?"`, `"What is in go.sum?"`, CheckGolden, []string{"p.golden:2", "data.body.messages.0.content"}},
		{golden, `"max_tokens":100`, `"max_tokens":101`, CheckGolden, []string{"p.golden:1", "data.header.config.max_tokens"}},
		{tools, `"Search files."`, `"Search  files."`, CheckSidecar, []string{"p.tools.json:", "initial.1.description"}},
		{system, `\u003c`, `<`, CheckSidecar, []string{"p.system.md:1"}},
	}
	for _, c := range cases {
		writeFile(t, c.file, strings.Replace(string(orig[c.file]), c.from, c.to, 1))
		fails := replayOne(t, mustLoad(t, opts), "p")
		failureWith(t, fails, c.check, c.want...)
		writeFile(t, c.file, string(orig[c.file]))
	}
	if fails := replayOne(t, mustLoad(t, opts), "p"); len(fails) > 0 {
		t.Errorf("restored files fail: %v", fails)
	}
}

func TestCapturedLogIsRebuiltAndTemplated(t *testing.T) {
	s, _ := capturedSuite(t, map[string]string{"x": capturedFixture(`"PROMPT": "hi"`, "")})
	out, res := s.Check(s.Fixture("x"))
	if !res.Passed() {
		t.Fatal(res.Failures)
	}
	if len(out.Requests) != 2 {
		t.Fatalf("%d requests, want 2", len(out.Requests))
	}
	if !IsTemplated(out.Golden) || IsTemplated(out.Log) {
		t.Error("golden not templated, or full log already templated")
	}
	// The capture templates as it writes; that must be the rule of
	// Template exactly.
	if want, err := Template(out.Log); err != nil || !bytes.Equal(out.Golden, want) {
		t.Errorf("captured golden differs from Template(log): %v\n got %s\nwant %s", err, out.Golden, want)
	}
	for i, line := range bytes.Split(bytes.TrimSpace(out.Log), []byte("\n")) {
		if gjson.GetBytes(line, "type").String() == "request/header" && gjson.GetBytes(line, "data.header.tools.0.name").String() != "git_diff" {
			t.Errorf("line %d: tools not in the agent's order", i+1)
		}
	}
}

// TestCapturedArgumentsAsScripted: a scripted call's arguments reach the
// agent with every token as the fixture writes it, only its whitespace
// gone: no number rounded to a double, none turned into null.
func TestCapturedArgumentsAsScripted(t *testing.T) {
	src := `{"description": "d", "agent": {}, "replies": [{"toolCalls": [{"id": "c", "name": "a",
  "arguments": {"big": 12345678901234567890, "f": 1.0, "e": 1E300, "tiny": 1e-400, "neg": -0, "n": 12.50, "s": "\u00e9 \n"}}]}]}`
	f, err := decodeFixture("x.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"big":12345678901234567890,"f":1.0,"e":1E300,"tiny":1e-400,"neg":-0,"n":12.50,"s":"\u00e9 \n"}`
	if got := string(f.Replies[0].ToolCalls[0].Arguments); got != want {
		t.Errorf("arguments %s, want %s", got, want)
	}
	var served bytes.Buffer
	for _, r := range wireReplies(f.Replies) {
		for _, c := range r.ToolCalls {
			served.Write(c.Arguments)
		}
	}
	if served.String() != want {
		t.Errorf("served %s, want %s", served.String(), want)
	}
}

// TestRepeatPassHashSeeds: each run of a subprocess agent gets another
// PYTHONHASHSEED, drawn from the suite's seed, so that a replay with
// another seed tries other hash orders and -seed replays the same ones.
func TestRepeatPassHashSeeds(t *testing.T) {
	f := &Fixture{Name: "x", Agent: &AgentSpec{Exec: []string{"python3", "agent.py"}}}
	seen := map[uint64]bool{}
	for seed := uint64(1); seed <= 50; seed++ {
		for n := 1; n <= 4; n++ {
			v := variationOf(f, n, seed)
			if v.hashSeed == 0 || v.hashSeed > 4294967295 {
				t.Fatalf("PYTHONHASHSEED %d out of range", v.hashSeed)
			}
			if again := variationOf(f, n, seed); again != v {
				t.Fatalf("seed %d run %d: %v, then %v", seed, n, v, again)
			}
			if n == 1 {
				// Run 1's log is recorded and compared with the golden.
				if v.hashSeed != 1 {
					t.Fatalf("seed %d: run 1 has PYTHONHASHSEED %d, want 1", seed, v.hashSeed)
				}
				continue
			}
			seen[v.hashSeed] = true
		}
	}
	if len(seen) < 145 {
		t.Errorf("only %d distinct hash seeds in 150 later runs", len(seen))
	}
	if v := variationOf(&Fixture{Name: "x", Agent: &AgentSpec{}}, 1, 7); v.hashSeed != 0 || v.gomaxproc != 0 {
		t.Errorf("an in-process agent's variation %+v", v)
	}
}

// TestCapturedPinnedSpacedBody: a pinned agent that writes its bodies as
// Python's json.dumps does (a space after each comma and colon) and then
// changes one tool description fails with that content change alone: the
// golden header rebuilt from the sidecars is spaced as the run's, so the
// spaces the sidecars do not keep are no drift.
func TestCapturedPinnedSpacedBody(t *testing.T) {
	fixture := strings.Replace(capturedFixture(`"PROMPT": "x", "SPACED": "1"`, ""), `"description"`, `"pin": true, "description"`, 1)
	s, opts := capturedSuite(t, map[string]string{"p": fixture})
	if _, failed, err := s.Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	writeFile(t, filepath.Join(opts.Fixtures, "p.json"), strings.Replace(fixture, `"SPACED": "1"`, `"SPACED": "1", "DESC": "Read one file."`, 1))
	s = mustLoad(t, opts)
	res := s.Replay(s.Fixture("p"))
	f := failureWith(t, res.Failures, CheckSidecar, "differs at initial.3.description")
	if m := f.Mismatch; m == nil || !slices.Equal(m.Kinds, []string{"content"}) {
		t.Errorf("kinds %v, want [content]:\n%s", f.Mismatch, f)
	}
}

// A request whose body never ends, here a background upload an
// in-process agent leaves behind, holds up neither the agent's other
// requests nor the end of the run: the fake provider reads bodies before
// it serves them one at a time.
func TestCapturedStalledBodyDoesNotHang(t *testing.T) {
	// The agent's timeout is far past the bound below: a run held up by
	// the stalled body would wait for it, and fail the bound, instead of
	// ending at the timeout.
	_, opts := capturedSuite(t, map[string]string{"x": `{"description":"d","agent":{"timeout":"120s"},"runs":1,"replies":[{"text":"Hello."}]}`})
	stalled := make(chan struct{})
	opts.Agent = func(ctx context.Context, s *Session) error {
		pr, pw := io.Pipe()
		go func() {
			pw.Write([]byte(`{"model":`)) // and never closed
			close(stalled)
		}()
		go func() {
			req, _ := http.NewRequest(http.MethodPost, s.AnthropicBaseURL+"/v1/messages", pr)
			if resp, err := s.HTTPClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		<-stalled
		// The real request, on another connection while the first stalls.
		return postMessages(ctx, s, `{"model":"m","max_tokens":64,"system":"Be kind.","messages":[{"role":"user","content":"hi"}]}`)
	}
	s := mustLoad(t, opts)
	done := make(chan *Result, 1)
	go func() {
		_, res := s.Check(s.Fixture("x")) // runs it, with no golden file to compare
		done <- res
	}()
	// A run that ends before the agent's timeout (it passes: a timeout
	// fails it) and within hangBound did not wait behind the stalled
	// body; how fast it ran is not the question.
	select {
	case res := <-done:
		if !res.Passed() {
			t.Errorf("failures: %v", res.Failures)
		}
	case <-time.After(hangBound):
		t.Fatalf("the run still waits %s later, behind a body that never ends", hangBound)
	}
}

// A subprocess agent reaches the fake provider on loopback whatever
// HTTP_PROXY the machine sets: NO_PROXY and no_proxy name loopback, after
// what they held.
func TestCapturedAgentBypassesProxies(t *testing.T) {
	t.Setenv("NO_PROXY", "corp.example")
	t.Setenv("no_proxy", "")
	t.Setenv("HTTP_PROXY", "http://127.0.0.1:9")
	dir := t.TempDir()
	out := filepath.Join(dir, "env.out")
	script := `printf '%s|%s' "$NO_PROXY" "$no_proxy" > ` + out
	b, _ := json.Marshal([]string{"sh", "-c", script})
	s, _ := capturedSuite(t, map[string]string{"x": `{"description":"d","runs":1,"agent":{"exec":` + string(b) + `},"replies":[{"text":"a"}]}`})
	s.Replay(s.Fixture("x")) // fails: the agent sends nothing; its environment is what is looked at
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "corp.example,127.0.0.1,localhost|127.0.0.1,localhost"; string(got) != want {
		t.Errorf("the agent saw %q, want %q", got, want)
	}

	// "*" already names every host: it is passed on as it is.
	t.Setenv("NO_PROXY", "*")
	s.Replay(s.Fixture("x"))
	if got, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	if want := "*|127.0.0.1,localhost"; string(got) != want {
		t.Errorf("with NO_PROXY=*, the agent saw %q, want %q", got, want)
	}
}

// A subprocess agent gets dummy API keys and none of the machine's other
// credentials (they are not set at all), unless agent.env gives them.
func TestCapturedAgentGetsNoCredentials(t *testing.T) {
	for _, k := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "AZURE_OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "GOOGLE_APPLICATION_CREDENTIALS"} {
		t.Setenv(k, "REAL-"+k)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "env.out")
	script := `printf '%s|%s|%s|%s|%s' "$ANTHROPIC_API_KEY" "${ANTHROPIC_AUTH_TOKEN+set}" "${AZURE_OPENAI_API_KEY+set}" "$OPENAI_ADMIN_KEY" "${GOOGLE_APPLICATION_CREDENTIALS+set}" > ` + out
	b, _ := json.Marshal([]string{"sh", "-c", script})
	s, _ := capturedSuite(t, map[string]string{"x": `{"description":"d","runs":1,"agent":{"exec":` + string(b) + `,"env":{"OPENAI_ADMIN_KEY":"given"}},"replies":[{"text":"a"}]}`})
	s.Replay(s.Fixture("x")) // fails: the agent sends nothing; its environment is what is looked at
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := dummyKey + "|||given|"; string(got) != want {
		t.Errorf("the agent saw %q, want %q", got, want)
	}
}

// A subprocess agent's own traffic besides its model requests is turned
// off where a well-known variable does it (traces of the OpenAI Agents
// SDK, Claude Code's telemetry and connection check), whatever the
// machine's environment says, unless agent.env says otherwise.
func TestCapturedAgentTrafficOptOuts(t *testing.T) {
	t.Setenv("OPENAI_AGENTS_DISABLE_TRACING", "0")
	t.Setenv("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "0")
	for env, want := range map[string]string{"": "1|1", `"OPENAI_AGENTS_DISABLE_TRACING": "false"`: "false|1"} {
		t.Run(want, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "env.out") // one per case: none reads another's
			b, _ := json.Marshal([]string{"sh", "-c", `printf '%s|%s' "$OPENAI_AGENTS_DISABLE_TRACING" "$CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" > ` + out})
			s, _ := capturedSuite(t, map[string]string{"x": `{"description":"d","runs":1,"agent":{"exec":` + string(b) + `,"env":{` + env + `}},"replies":[{"text":"a"}]}`})
			s.Replay(s.Fixture("x")) // fails: the agent sends nothing; its environment is what is looked at
			if got, err := os.ReadFile(out); err != nil || string(got) != want {
				t.Errorf("the agent saw %q (%v), want %q", got, err, want)
			}
		})
	}
}

// Each of the five API keys a subprocess agent may read is the dummy
// key, whatever the machine's is, unless agent.env gives it.
func TestCapturedAgentGetsDummyKeys(t *testing.T) {
	keys := []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"}
	for _, k := range keys {
		t.Setenv(k, "REAL-"+k)
	}
	out := filepath.Join(t.TempDir(), "env.out")
	script := `printf '%s|%s|%s|%s|%s' "$ANTHROPIC_API_KEY" "$OPENAI_API_KEY" "$GEMINI_API_KEY" "$GOOGLE_API_KEY" "$GOOGLE_GENERATIVE_AI_API_KEY" > ` + out
	b, _ := json.Marshal([]string{"sh", "-c", script})
	for _, given := range keys {
		t.Run(given, func(t *testing.T) {
			s, _ := capturedSuite(t, map[string]string{"x": `{"description":"d","runs":1,"agent":{"exec":` + string(b) + `,"env":{"` + given + `":"given"}},"replies":[{"text":"a"}]}`})
			s.Replay(s.Fixture("x")) // fails: the agent sends nothing; its environment is what is looked at
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, k := range keys {
				if k == given {
					want = append(want, "given")
				} else {
					want = append(want, dummyKey)
				}
			}
			if string(got) != strings.Join(want, "|") {
				t.Errorf("the agent saw %q, want %q", got, strings.Join(want, "|"))
			}
		})
	}
}

// Exports writes Env in name order, quoted where a shell needs it, then
// one unset line naming every variable of Unset, a single one too.
func TestSessionExports(t *testing.T) {
	s := &Session{Env: map[string]string{"B": "it's", "A": "http://127.0.0.1:1/v1", "C": ""}, Unset: []string{"X_TOKEN"}}
	want := []string{"export A=http://127.0.0.1:1/v1", `export B='it'\''s'`, "export C=''", "unset X_TOKEN"}
	if got := s.Exports(); !slices.Equal(got, want) {
		t.Errorf("exports %q, want %q", got, want)
	}
	if got := (&Session{Env: map[string]string{"A": "a"}}).Exports(); !slices.Equal(got, []string{"export A=a"}) {
		t.Errorf("without Unset: %q", got)
	}
}

// A record whose repeat pass fails writes nothing: run 1's log passed
// every other check, and is not written all the same.
func TestCapturedRecordRepeatFailureWritesNothing(t *testing.T) {
	var runs atomic.Int64
	_, opts := capturedSuite(t, map[string]string{"x": `{"description": "d", "runs": 2, "agent": {}, "replies": [{"text": "a"}]}`})
	opts.Agent = func(ctx context.Context, s *Session) error {
		system := "Be brief."
		if runs.Add(1) > 1 {
			system = "Be very brief."
		}
		return postMessages(ctx, s, `{"model":"m","max_tokens":9,"system":"`+system+`","messages":[{"role":"user","content":"hi"}]}`)
	}
	_, failed, err := mustLoad(t, opts).Record(RecordOptions{})
	if err == nil || len(failed) != 1 {
		t.Fatalf("record: err %v, failed %v", err, failed)
	}
	failureWith(t, failed[0].Failures, CheckRepeat, "run 2 differs from run 1", "differs at system")
	entries, err := os.ReadDir(opts.Golden)
	if err != nil || len(entries) != 0 {
		t.Errorf("golden directory after a failed record: %v %v", entries, err)
	}
}

// A nil context passed to ReplayContext, CheckContext or RecordContext
// stands for Options.Context (the background context when that is nil)
// rather than panicking once the agent runs.
func TestNilContextIsTheSuites(t *testing.T) {
	s, opts := capturedSuite(t, map[string]string{
		"nil-ctx": capturedFixture(`"PROMPT": "What is in go.mod?"`, ""),
	})
	if _, failed, err := s.RecordContext(nil, RecordOptions{}); err != nil {
		t.Fatalf("RecordContext(nil) = %v %v", err, failed)
	}
	f := s.Fixture("nil-ctx")
	if res := s.ReplayContext(nil, f); !res.Passed() {
		t.Errorf("ReplayContext(nil) failed: %v", res.Failures)
	}
	if out, res := s.CheckContext(nil, f); out == nil || !res.Passed() {
		t.Errorf("CheckContext(nil) = %v, %v", out, res.Failures)
	}
	// With Options.Context set, nil means that context: cancelled, it
	// stops the agent and fails the scenario.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts.Context = ctx
	s = mustLoad(t, opts)
	if res := s.ReplayContext(nil, s.Fixture("nil-ctx")); res.Passed() {
		t.Errorf("ReplayContext(nil) with a cancelled Options.Context passed")
	}
	if _, _, err := s.RecordContext(nil, RecordOptions{DryRun: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("RecordContext(nil) with a cancelled Options.Context = %v, want context.Canceled", err)
	}
}

// Duration's JSON round-trips every value MarshalJSON writes, the zero
// value included, and null leaves it as it is; a fixture's timeout must
// still be more than 0, refused at its position by Load.
func TestDurationJSON(t *testing.T) {
	for _, d := range []Duration{0, Duration(90 * time.Second), Duration(1500 * time.Millisecond)} {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var got Duration
		if err := json.Unmarshal(b, &got); err != nil || got != d {
			t.Errorf("%s: round trip %s = %v, %v", d, b, got, err)
		}
	}
	kept := Duration(time.Minute)
	if err := json.Unmarshal([]byte(`null`), &kept); err != nil || kept != Duration(time.Minute) {
		t.Errorf("null: %v, %v", kept, err)
	}
	for _, bad := range []string{`"-1s"`, `"soon"`, `5`} {
		var d Duration
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "zero.json"), `{"description": "d", "agent": {"exec": ["true"], "timeout": "0s"}, "replies": [{"text": "a"}]}`)
	_, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden")})
	if err == nil || !strings.Contains(err.Error(), `zero.json:1:61: agent.timeout: duration "0s": want more than 0`) {
		t.Errorf("a fixture's zero timeout: %v", err)
	}
}
