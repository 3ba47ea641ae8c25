package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/headergold/headergold/internal/capture"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// DefaultRuns is the number of runs of a captured scenario's repeat pass.
const DefaultRuns = 4

// DefaultAgentTimeout bounds one run of a subprocess agent.
const DefaultAgentTimeout = 60 * time.Second

// AgentSpec says how a captured scenario runs its agent. With Exec it is
// a subprocess; without, an in-process Go agent given as [Options.Agent]
// (goldentest.Test runs it).
type AgentSpec struct {
	// Exec is the argv of a subprocess agent.
	Exec []string `json:"exec,omitempty"`
	// Dir is a subprocess agent's working directory, relative to the
	// fixture's directory unless absolute (a ".." is the system's: after
	// a symlinked fixtures directory, the link target's parent); default
	// the fixture's directory. An in-process agent (no Exec) has none.
	Dir string `json:"dir,omitempty"`
	// Env is set on top of the inherited environment and the fake
	// provider's variables (it wins over both).
	Env map[string]string `json:"env,omitempty"`
	// Timeout bounds one run ("60s" when empty).
	Timeout Duration `json:"timeout,omitempty"`
}

// Duration is a time.Duration written in JSON as a string such as "60s".
type Duration time.Duration

// String formats the duration as time.Duration does, "1m0s".
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalJSON reads a duration string; null leaves d as it is, as
// encoding/json does for its own types. A negative duration is an error,
// and "0s" is the zero value that MarshalJSON writes (a fixture's timeout
// must be more than 0: Load says so at its position).
func (d *Duration) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf(`a duration is a string such as "60s"`)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	if v < 0 {
		return fmt.Errorf("duration %q: want 0 or more", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// Redaction is a captured scenario's redact rule: Path (a header path:
// config.…, system…, tools.N.…) or Regex, replaced by With.
type Redaction struct {
	Path  string `json:"path,omitempty"`
	Regex string `json:"regex,omitempty"`
	With  string `json:"with"`
}

// Reply is one scripted model reply: text, tool calls or both.
type Reply struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Recorded is the real provider's response a record -upstream kept:
	// it is served back byte for byte, volatile ids and all, and Text and
	// ToolCalls describe it. Only captured scenarios have it.
	Recorded *Recorded `json:"recorded,omitempty"`
}

// Recorded is a provider response as a recording proxy received it.
type Recorded struct {
	Status      int    `json:"status"`
	ContentType string `json:"contentType"`
	Body        string `json:"body"`
}

// ToolCall is a scripted tool call. Arguments are a JSON object, sent as
// written (in JSON.stringify's encoding).
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Captured reports whether the fixture runs a real agent (it has an
// "agent" member) rather than the reference agent.
func (f *Fixture) Captured() bool { return f.Agent != nil }

// referenceMembers belong to the reference agent and are rejected beside
// "agent"; capturedMembers are the reverse.
var (
	referenceMembers = []string{"extends", "config", "sections", "plugins", "listeners", "turns"}
	capturedMembers  = []string{"runs", "redact", "replies"}
)

// capturedFields lists the top-level members a captured scenario may
// have: the fixture's, less the reference agent's.
func capturedFields() string {
	var names []string
	for k := range fixtureShape.fields {
		if !slices.Contains(referenceMembers, k) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// isTopLevel reports whether a display path names a top-level member.
func isTopLevel(path string) bool { return path != "" && !strings.ContainsAny(path, ".[") }

// validateCaptured checks the members of a captured scenario, or that a
// reference fixture has none of them; top holds the file's top-level
// members (topMembers).
func (f *Fixture) validateCaptured(top map[string]gjson.Result) error {
	bad := func(path, format string, args ...any) error {
		return errAt(f.File, f.raw, path, format, args...)
	}
	if !f.Captured() {
		for _, m := range capturedMembers {
			if top[m].Exists() {
				return bad(m, "%q belongs to captured scenarios, which have an \"agent\" member", m)
			}
		}
		return nil
	}
	for _, m := range referenceMembers {
		if top[m].Exists() {
			return bad(m, "%q belongs to the reference agent; a captured scenario (with \"agent\") cannot have it", m)
		}
	}
	if len(f.Agent.Exec) > 0 && f.Agent.Exec[0] == "" {
		return bad("agent.exec", "the first element of exec names the program")
	}
	if len(f.Agent.Exec) == 0 && top["agent"].Get("exec").Exists() {
		return bad("agent.exec", "exec needs at least the program; leave it out for an in-process Go agent")
	}
	if len(f.Agent.Exec) == 0 && top["agent"].Get("dir").Exists() {
		// The test process has one working directory for all its tests:
		// an in-process agent cannot be given one of its own.
		return bad("agent.dir", "an in-process Go agent (no exec) runs in the test's process and its working directory; dir is for a subprocess agent")
	}
	for _, k := range slices.Sorted(maps.Keys(f.Agent.Env)) {
		// What an environment cannot hold: exec would refuse it at the
		// start, or set another variable ("A=B": "x" sets A).
		switch {
		case k == "":
			return bad("agent.env", `a variable needs a name; "" is none`)
		case strings.ContainsAny(k, "=\x00"):
			return bad("agent.env", "%q is no variable name: a name holds no = and no NUL byte", k)
		case strings.Contains(f.Agent.Env[k], "\x00"):
			return bad("agent.env", "the value of %s holds a NUL byte, which no environment can hold", k)
		}
	}
	if f.Runs != nil && *f.Runs < 1 {
		return bad("runs", "runs counts from 1 (1 disables the repeat pass)")
	}
	for i, r := range f.Replies {
		p := fmt.Sprintf("replies[%d]", i)
		if r.Text == "" && len(r.ToolCalls) == 0 && r.Recorded == nil {
			return bad(p, "a reply needs text, toolCalls or both")
		}
		if err := checkCalls(r.ToolCalls, p, r.Recorded != nil, bad); err != nil {
			return err
		}
	}
	rawRules := top["redact"].Array()
	for i, r := range f.Redact {
		p := fmt.Sprintf("redact[%d]", i)
		if i < len(rawRules) && !rawRules[i].Get("with").Exists() {
			return bad(p, `a rule needs "with", the string that replaces what it matches`)
		}
		rule, err := r.rule()
		if err != nil {
			return bad(p, "%v", err)
		}
		if err := rule.Check(); errors.Is(err, redact.ErrEmptyMatch) {
			return bad(p+".regex", "%v", err)
		} else if err != nil {
			return bad(p, "%v", err)
		}
	}
	return nil
}

// checkCalls checks the tool calls of one reply and takes the whitespace
// out of their arguments.
//
// The arguments of a recorded reply stay as the provider sent them (an
// OpenAI model may even send arguments that are not an object): the
// recorded response is what is served.
func checkCalls(calls []ToolCall, path string, recorded bool, bad func(path, format string, args ...any) error) error {
	ids := map[string]int{}
	for k := range calls {
		c := &calls[k]
		cp := fmt.Sprintf("%s.toolCalls[%d]", path, k)
		if c.ID == "" || c.Name == "" {
			return bad(cp, "a tool call needs an id and a name")
		}
		if j, dup := ids[c.ID]; dup {
			return bad(cp+".id", "call id %q is also toolCalls[%d] of this reply", c.ID, j)
		}
		ids[c.ID] = k
		if len(c.Arguments) > 0 && recorded {
			continue
		}
		if len(c.Arguments) > 0 {
			if a := gjson.ParseBytes(c.Arguments); !a.IsObject() {
				return bad(cp+".arguments", "arguments must be a JSON object")
			}
			// Served as scripted: the fixture's whitespace goes, every
			// token stays as written (a number past 2^53, 1E400 or 1.0
			// reaches the agent as it is in the fixture).
			var compact bytes.Buffer
			if err := json.Compact(&compact, c.Arguments); err != nil {
				return bad(cp+".arguments", "%v", err)
			}
			if at, num := outOfRange(gjson.ParseBytes(c.Arguments), cp+".arguments"); at != "" {
				return bad(at, "%s is out of the range of a double: no provider sends it, and SDKs cannot read it", num)
			}
			c.Arguments = compact.Bytes()
		}
	}
	return nil
}

// outOfRange returns the path and text of the first number in v that a
// double cannot hold (1E400), or "".
func outOfRange(v gjson.Result, path string) (at, num string) {
	switch {
	case v.Type == gjson.Number:
		if _, err := strconv.ParseFloat(v.Raw, 64); errors.Is(err, strconv.ErrRange) && !isTiny(v.Raw) {
			return path, v.Raw
		}
	case v.IsObject() || v.IsArray():
		i := 0
		v.ForEach(func(k, e gjson.Result) bool {
			p := fmt.Sprintf("%s[%d]", path, i)
			if v.IsObject() {
				p = path + "." + k.String()
			}
			i++
			at, num = outOfRange(e, p)
			return at == ""
		})
	}
	return at, num
}

// isTiny reports whether a number ParseFloat refuses as out of range is
// one too close to zero (1e-400), which reads as 0 everywhere.
func isTiny(raw string) bool {
	i := strings.IndexAny(raw, "eE")
	return i >= 0 && strings.HasPrefix(strings.TrimPrefix(raw[i+1:], "+"), "-")
}

func (r Redaction) rule() (redact.Rule, error) {
	rule := redact.Rule{Path: r.Path, With: r.With}
	if r.Regex != "" {
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return rule, fmt.Errorf("regex: %w", err)
		}
		rule.Regex = re
	}
	return rule, nil
}

// rules returns the fixture's redaction rules, compiled.
func (f *Fixture) rules() []redact.Rule {
	out := make([]redact.Rule, len(f.Redact))
	for i, r := range f.Redact {
		out[i], _ = r.rule() // checked at load
	}
	return out
}

// locateRules places each rule a *capture.RuleError names at its member
// of the fixture, as a validation error is placed; any other error is
// returned as it is.
func (f *Fixture) locateRules(err error) error {
	var re *capture.RuleError
	if !errors.As(err, &re) {
		return err
	}
	return errors.New(re.Describe(func(i int, problem string) string {
		return errAt(f.File, f.raw, fmt.Sprintf("redact[%d]", i), "%s", problem).Error()
	}))
}

// runs is the number of runs of the repeat pass.
func (f *Fixture) runs() int {
	if f.Runs == nil {
		return DefaultRuns
	}
	return *f.Runs
}

// wireReplies converts the scripted replies for the fake provider.
func wireReplies(rs []Reply) []wire.Reply {
	out := make([]wire.Reply, len(rs))
	for i, r := range rs {
		out[i].Text = r.Text
		if rec := r.Recorded; rec != nil {
			out[i].Recorded = &wire.Recorded{Status: rec.Status, ContentType: rec.ContentType, Body: rec.Body}
		}
		for _, c := range r.ToolCalls {
			out[i].ToolCalls = append(out[i].ToolCalls, wire.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
	}
	return out
}

// agentDir returns agent.dir joined to the fixture's directory as the
// system resolves it: "../agents" of a fixture in a symlinked fixtures
// directory is beside the directory the link points to, not beside the
// link. Messages name it so, as the user wrote it.
func (f *Fixture) agentDir() string {
	base := filepath.Dir(f.File)
	switch {
	case f.Agent.Dir == "":
		return base
	case filepath.IsAbs(f.Agent.Dir):
		return f.Agent.Dir
	}
	return capture.Join(base, f.Agent.Dir)
}

// describeExec names a subprocess agent for messages.
func (f *Fixture) describeExec() string {
	if len(f.Agent.Exec) == 0 {
		return "in-process agent"
	}
	return "agent [" + capture.QuoteArgv(f.Agent.Exec) + "]"
}

// checkAgentDir reports an agent.dir that is missing or not a directory,
// which the process would fail to start in with an error naming the
// program instead.
func (f *Fixture) checkAgentDir() error {
	dir := f.agentDir()
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errAt(f.File, f.raw, "agent.dir", "the agent's directory %s does not exist", dir)
	case err != nil:
		return errAt(f.File, f.raw, "agent.dir", "%v", err)
	case !fi.IsDir():
		return errAt(f.File, f.raw, "agent.dir", "%s is not a directory", dir)
	}
	return nil
}

// InProcess reports whether f is a captured scenario whose agent is a Go
// function (no agent.exec), which runs from go test with Options.Agent.
func (f *Fixture) InProcess() bool { return f.Captured() && len(f.Agent.Exec) == 0 }

// Skips reports whether the suite cannot run f here: a scenario whose
// agent is an in-process Go function, with no Options.Agent to call and
// no Options.Listen to wait for it on. cmd/replay and cmd/record skip
// such scenarios; go test gives Options.Agent.
func (s *Suite) Skips(f *Fixture) bool {
	return f.InProcess() && s.opts.Agent == nil && s.opts.Listen == nil
}

// Seeded reports whether f's runs depend on the suite's seed, so that a
// failure is replayed with it: a reference fixture's permutation runs
// and a subprocess agent's PYTHONHASHSEED do; an in-process agent's runs
// do not, nor a subprocess agent's whose agent.env sets PYTHONHASHSEED
// (its value wins over the seed's).
func (f *Fixture) Seeded() bool {
	if f.Captured() {
		if _, set := f.Agent.Env["PYTHONHASHSEED"]; set {
			return false
		}
	}
	return !f.InProcess()
}
