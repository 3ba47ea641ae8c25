package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// stepLog writes a reference-agent log of one turn: a step/start per step,
// and the header (tool names) logged at the steps named in at (step 1
// always holds the initial header).
func stepLog(steps int, at map[int][]string) string {
	var b strings.Builder
	for step := 1; step <= steps; step++ {
		fmt.Fprintf(&b, `{"type":"step/start","data":{"turn":1,"step":%d}}`+"\n", step)
		if tools, ok := at[step]; ok {
			reason := "change"
			if step == 1 {
				reason = "initial"
			}
			var ts []string
			for _, n := range tools {
				ts = append(ts, fmt.Sprintf(`{"name":%q}`, n))
			}
			fmt.Fprintf(&b, `{"type":"request/header","data":{"turn":1,"step":%d,"reason":%q,"header":{"config":{"model":"claude-sonnet-4-5"},"system":"S","tools":[%s]}}}`+"\n",
				step, reason, strings.Join(ts, ","))
		}
		fmt.Fprintf(&b, `{"type":"step/end","data":{"turn":1,"step":%d}}`+"\n", step)
	}
	return b.String()
}

// TestDiffHeaderInForce: replay diff compares the header each request was
// sent under, in text and -json, and says when the numbers of requests
// differ.
func TestDiffHeaderInForce(t *testing.T) {
	dir := t.TempDir()
	a := writeInput(t, dir, "a.jsonl", stepLog(3, map[int][]string{1: {"a"}, 2: {"a", "b"}}))
	b := writeInput(t, dir, "b.jsonl", stepLog(3, map[int][]string{1: {"a"}, 3: {"a", "b"}}))
	r := replay(t, nil, false, "diff", a, b)
	if r.code != exitMismatch || !strings.Contains(r.stdout, "drift: request 2 differs at tools.1\n  kinds: removed\n") ||
		!strings.Contains(r.stdout, "  B: "+b+" request 2 (turn 1 step 2, line 4) under header 1 (line 2, initial at turn 1 step 1), absent\n") ||
		!strings.Contains(r.stdout, "  cache: anthropic caches the prefix") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "diff", "-json", a, b)
	var got struct {
		Identical bool
		First     struct {
			Index, Request int
			Path           string
			A, B           struct{ Header, Line, RequestLine, Turn, Step int }
		}
		Requests struct{ A, B int }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitMismatch {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stdout)
	}
	f := got.First
	if f.Index != 2 || f.Request != 2 || f.Path != "tools.1" || f.A.Header != 2 || f.B.Header != 1 || f.A.Line != 5 || f.A.RequestLine != 4 ||
		f.B.RequestLine != 4 || f.B.Step != 2 || got.Requests.A != 3 {
		t.Fatalf("%+v\n%s", got, r.stdout)
	}

	five := writeInput(t, dir, "five.jsonl", stepLog(5, map[int][]string{1: {"a"}}))
	four := writeInput(t, dir, "four.jsonl", stepLog(4, map[int][]string{1: {"a"}}))
	r = replay(t, nil, false, "diff", five, four)
	if r.code != exitMismatch || r.stdout != "drift: A has 5 requests, B has 4; the 4 they share have the same headers\n(requests: A 5, B 4; headers: A 1, B 1)\n" {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
}

// TestDiffInvalidLines: a line that is not a record is exit 125 with its
// file, line and column, wherever it is.
func TestDiffInvalidLines(t *testing.T) {
	dir := t.TempDir()
	body := `{"model":"claude-sonnet-4-5","system":"S","tools":[{"name":"a"}],"messages":[{"role":"user","content":"hi"}]}` + "\n"
	good := writeInput(t, dir, "body.jsonl", body)
	log := stepLog(2, map[int][]string{1: {"a"}})
	for name, tc := range map[string]struct{ a, b, err string }{
		"garbage after the bodies": {good, writeInput(t, dir, "garbage.jsonl", body+"this is not json\n"), "garbage.jsonl:2:1: invalid JSON"},
		"an object of no format":   {good, writeInput(t, dir, "object.jsonl", body+`{"a":1}`+"\n"), "object.jsonl:2: cannot tell the wire format"},
		"markup":                   {good, writeInput(t, dir, "html.jsonl", body+"<html>\n"), "html.jsonl:2:1: invalid JSON"},
		"a bad event line":         {writeInput(t, dir, "log.jsonl", log), writeInput(t, dir, "bad.jsonl", log+`{"type":"step/start","data":{"turn":1,"step":3,,oops}}`+"\n"), "bad.jsonl:6:48: invalid JSON"},
		// A member at fault is placed at its key.
		"a member twice": {writeInput(t, dir, "twice.jsonl", `{"model":"m","max_tokens":2048,"max_tokens":1024,"messages":[]}`+"\n"), good,
			`twice.jsonl:1:32: the body has the member "max_tokens" twice`},
		"a member of the wrong type": {good, writeInput(t, dir, "type.jsonl", body+`{"model":"m","system":"S","messages":[],"tools":{"a":1}}`+"\n"),
			`type.jsonl:2:41: not a request body in the anthropic format: member "tools" is an object`},
		// An ambiguous body is judged as what it is read as: the other
		// input's paired body's format.
		"an ambiguous body": {good, writeInput(t, dir, "ambiguous.jsonl", `{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[],"tools":{"a":1}}`+"\n"),
			`ambiguous.jsonl:1:59: not a request body in the anthropic format: member "tools" is an object; Anthropic expects an array`},
	} {
		r := replay(t, nil, false, "diff", tc.a, tc.b)
		if r.code != exitCannotRun || !strings.Contains(r.stderr, tc.err) {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", name, r.code, r.stdout, r.stderr)
		}
	}
}
