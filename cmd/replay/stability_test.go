package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runLog writes a session log in which the tools ran in the given order and
// the model then answered.
func runLog(t *testing.T, dir, name, answer string, tools ...string) string {
	t.Helper()
	var b strings.Builder
	for i, tool := range tools {
		fmt.Fprintf(&b, `{"type":"tool/result","data":{"turn":1,"step":%d,"callId":"c%d","name":%q,"output":"ok"}}`+"\n", i+1, i, tool)
	}
	fmt.Fprintf(&b, `{"type":"assistant/message","data":{"turn":1,"step":%d,"text":%q}}`+"\n", len(tools)+1, answer)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestStabilityCommand(t *testing.T) {
	dir := t.TempDir()
	files := []string{
		runLog(t, dir, "r1.jsonl", "done", "create", "notify"),
		runLog(t, dir, "r2.jsonl", "done", "notify", "create"),
		runLog(t, dir, "r3.jsonl", "done", "create", "notify"),
	}
	r := replay(t, nil, false, append([]string{"stability", "-json", "-threshold", "0.9"}, files...)...)
	var rep struct {
		Runs       int
		Stability  float64
		Robustness float64
		Quadrant   string
		Logs       []struct{ File string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if rep.Quadrant != "robust" || rep.Runs != 3 || len(rep.Logs) != 3 || rep.Robustness != 1 {
		t.Errorf("%+v", rep)
	}
	r = replay(t, nil, false, append([]string{"stability"}, files...)...)
	for _, want := range []string{"quadrant: robust\n", "ordering stability  0.67", "outcome robustness  1.00", "create -> notify"} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("text report lacks %q (exit %d):\n%s", want, r.code, r.stdout)
		}
	}
	// A threshold of more decimals than two is printed as given, beside
	// a share that then cannot read as it.
	r = replay(t, nil, false, append([]string{"stability", "-threshold", "0.6667"}, files...)...)
	for _, want := range []string{"threshold 0.6667\n", "ordering stability  0.66667 "} {
		if r.code != exitOK || !strings.Contains(r.stdout, want) {
			t.Errorf("text report lacks %q (exit %d):\n%s", want, r.code, r.stdout)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n{oops\n"), 0o644)
	if r := replay(t, nil, false, "stability", files[0], bad); r.code != exitCannotRun || !strings.Contains(r.stderr, "bad.jsonl:2") {
		t.Errorf("invalid log: exit %d, %q", r.code, r.stderr)
	}
	for _, args := range [][]string{{files[0]}, {"-threshold", "0", files[0], files[1]}, {"-threshold", "NaN", files[0], files[1]}, {"-nope"}} {
		if r := replay(t, nil, false, append([]string{"stability"}, args...)...); r.code != exitUsage {
			t.Errorf("%v: exit %d", args, r.code)
		}
	}
	if r := replay(t, nil, false, "stability", files[0], filepath.Join(dir, "missing")); r.code != exitCannotRun {
		t.Errorf("missing file: exit %d", r.code)
	}
	if r := replay(t, nil, false, "stability", "-h"); r.code != exitOK || !strings.Contains(r.stdout, "Examples:") {
		t.Errorf("-h: exit %d", r.code)
	}
}

// TestStabilityErrorsNameTheCommand: an unreadable or invalid log is
// said as "replay stability: ...", the command the user ran.
func TestStabilityErrorsNameTheCommand(t *testing.T) {
	dir := t.TempDir()
	good := runLog(t, dir, "r1.jsonl", "done", "create")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n{oops\n"), 0o644)
	for _, c := range []struct{ log, want string }{
		{filepath.Join(dir, "missing.jsonl"), "replay stability: open " + filepath.Join(dir, "missing.jsonl") + ": "},
		{bad, "replay stability: " + bad + ":2"},
	} {
		r := replay(t, nil, false, "stability", good, c.log)
		if r.code != exitCannotRun || !strings.HasPrefix(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stability %s: exit %d, stderr %q; want exit 125 and one line starting %q", filepath.Base(c.log), r.code, r.stderr, c.want)
		}
	}
}

// TestShareNeverReadsAsTheThreshold: a share just under the threshold is
// printed with the decimals it takes to read as under it.
func TestShareNeverReadsAsTheThreshold(t *testing.T) {
	for _, c := range []struct {
		v, threshold float64
		want         string
	}{
		{300.0 / 301, 1, "0.997"}, {0.8, 0.8, "0.80"}, {0.5, 0.8, "0.50"}, {0.7999, 0.8, "0.7999"}, {1, 1, "1.00"}, {0.996, 0.99, "1.00"},
	} {
		if got := share(c.v, c.threshold); got != c.want {
			t.Errorf("share(%v, %v) = %s, want %s", c.v, c.threshold, got, c.want)
		}
	}
}

// A log that starts with a byte order mark is named as such, as replay
// diff names one.
func TestStabilityByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	good := runLog(t, dir, "r1.jsonl", "done", "create")
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	bom := filepath.Join(dir, "bom.jsonl")
	os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), b...), 0o644)
	r := replay(t, nil, false, "stability", good, bom)
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "bom.jsonl:1:1: the file starts with a UTF-8 byte order mark") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// Tool names are compared whole and shown so a terminal cannot be misled:
// one call of "a\x00b" is not the two calls a, b, and reads quoted.
func TestStabilityNamesWithControlBytes(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.jsonl")
	os.WriteFile(one, []byte(`{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c0","name":"a\u0000b","output":"ok"}}`+"\n"+
		`{"type":"assistant/message","data":{"turn":1,"step":2,"text":"done"}}`+"\n"), 0o644)
	two := runLog(t, dir, "two.jsonl", "done", "a", "b")
	r := replay(t, nil, false, "stability", one, one, two)
	if r.code != exitOK || !strings.Contains(r.stdout, "2 distinct orders") || !strings.Contains(r.stdout, `"a\x00b"`) || strings.Contains(r.stdout, "\x00") {
		t.Errorf("exit %d:\n%q", r.code, r.stdout)
	}
}

// Two different orders never read alike: names that could read as two,
// as part of the arrow or as a quoted name, and invalid bytes, are shown
// quoted.
func TestSequenceShowsOrdersApart(t *testing.T) {
	for _, pair := range [][2][]string{
		{{"a ->", "b"}, {"a", "-> b"}},
		{{`"\x00"`}, {"\x00"}},
		{{"x\xff"}, {"x\ufffd"}},
		{{" a"}, {"a"}},
		{{""}, nil},
	} {
		if a, b := sequence(pair[0]), sequence(pair[1]); a == b {
			t.Errorf("%q and %q both show as %s", pair[0], pair[1], a)
		}
	}
	if got := sequence([]string{"read_file", "grep"}); got != "read_file -> grep" {
		t.Errorf("plain names shown as %s", got)
	}
}
