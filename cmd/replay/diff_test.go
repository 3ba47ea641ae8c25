package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// headerLog writes a session log with one request/header event per tool
// list; each list is the tool names in order.
func headerLog(t *testing.T, dir, name string, lists ...[]string) string {
	t.Helper()
	var b strings.Builder
	for i, tools := range lists {
		var ts []string
		for _, n := range tools {
			ts = append(ts, fmt.Sprintf(`{"name":%q,"description":"Tool %s <b>.","parameters":{"type":"object"}}`, n, n))
		}
		fmt.Fprintf(&b, `{"type":"step/start","data":{"turn":1,"step":%d}}`+"\n", i+1)
		fmt.Fprintf(&b, `{"type":"request/header","data":{"turn":1,"step":%d,"reason":"change","header":{"config":{"model":"m-1"},"system":"You work in /home/alice/src.","tools":[%s]}}}`+"\n",
			i+1, strings.Join(ts, ","))
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func diffInputs(t *testing.T) (a, b, same, bad string) {
	dir := t.TempDir()
	abc, bac := []string{"alpha", "beta", "gamma"}, []string{"beta", "alpha", "gamma"}
	a = headerLog(t, dir, "a.log", abc, abc, abc)
	b = headerLog(t, dir, "b.log", abc, bac, abc)
	same = headerLog(t, dir, "same.log", abc, abc, abc)
	bad = filepath.Join(dir, "bad.log")
	os.WriteFile(bad, []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n"+`{"type":"request/header","data":{`+"\n"), 0o644)
	return a, b, same, bad
}

func TestDiffExitStatus(t *testing.T) {
	a, b, same, bad := diffInputs(t)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		out, err string
	}{
		{"identical", []string{a, same}, exitOK, "identical: 3 requests, each pair under the same headers (headers: A 3, B 3)\n", ""},
		{"drift", []string{a, b}, exitMismatch, "drift: request 2 differs at tools.0\n", ""},
		{"flags after files", []string{a, b, "-json"}, exitMismatch, `"identical": false`, ""},
		{"forced format", []string{"-format", "log", a, same}, exitOK, "identical", ""},
		{"invalid", []string{a, bad}, exitCannotRun, "", "bad.log:2:"},
		{"missing file", []string{a, filepath.Join(t.TempDir(), "nope.log")}, exitCannotRun, "", "nope.log"},
		{"no args", nil, exitUsage, "", "want two inputs"},
		{"three args", []string{a, b, same}, exitUsage, "", "want two inputs"},
		{"unknown flag", []string{"-frob", a, b}, exitUsage, "", "flag provided but not defined"},
		{"bad format", []string{"-format", "xml", a, b}, exitUsage, "", "unknown format"},
		{"bad redact", []string{"-redact", "([=x", a, b}, exitUsage, "", "redaction"},
		{"redact without =", []string{"-redact", "abc", a, b}, exitUsage, "", "REGEX=TOKEN"},
		{"two stdins", []string{"-", "-"}, exitUsage, "", "standard input"},
		{"help", []string{"-h"}, exitOK, "Examples:", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := replay(t, nil, false, append([]string{"diff"}, tc.args...)...)
			if r.code != tc.code || !strings.Contains(r.stdout, tc.out) || !strings.Contains(r.stderr, tc.err) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, r.stdout, r.stderr)
			}
		})
	}
}

func TestDiffJSON(t *testing.T) {
	a, b, same, _ := diffInputs(t)
	r := replay(t, nil, false, "diff", "-json", a, b)
	var got struct {
		Identical *bool `json:"identical"`
		First     *struct {
			Index *int     `json:"index"`
			Path  *string  `json:"path"`
			Kinds []string `json:"kinds"`
			A     struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"a"`
		} `json:"first"`
		LaterDiffering *int `json:"laterDiffering"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitMismatch {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if got.Identical == nil || *got.Identical || got.First == nil || got.LaterDiffering == nil {
		t.Fatalf("missing members:\n%s", r.stdout)
	}
	if f := got.First; *f.Index != 2 || *f.Path != "tools.0" || strings.Join(f.Kinds, ",") != "reorder" || f.A.File != a || f.A.Line != 4 || *got.LaterDiffering != 0 {
		t.Fatalf("first %+v later %d\n%s", *f, *got.LaterDiffering, r.stdout)
	}
	if strings.Contains(r.stdout, `\u003c`) {
		t.Errorf("JSON output HTML-escapes")
	}
	r = replay(t, nil, false, "diff", "-json", a, same)
	var ident map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &ident); err != nil || r.code != exitOK || ident["identical"] != true || ident["first"] != nil {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stdout)
	}
}

func TestDiffStdinAndRedact(t *testing.T) {
	a, b, same, _ := diffInputs(t)
	data, _ := os.ReadFile(same)
	var out, errb strings.Builder
	code := run([]string{"diff", a, "-"}, env{stdin: strings.NewReader(string(data)), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitOK {
		t.Fatalf("B from stdin: exit %d\n%s%s", code, out.String(), errb.String())
	}
	data, _ = os.ReadFile(b)
	out.Reset()
	code = run([]string{"diff", "-json", "-", a}, env{stdin: strings.NewReader(string(data)), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }})
	if code != exitMismatch || !strings.Contains(out.String(), `"file": "<stdin>"`) {
		t.Fatalf("A from stdin: exit %d\n%s", code, out.String())
	}
	dir := t.TempDir()
	bob := filepath.Join(dir, "bob.log")
	data, _ = os.ReadFile(a)
	os.WriteFile(bob, []byte(strings.ReplaceAll(string(data), "alice", "bob")), 0o644)
	if r := replay(t, nil, false, "diff", a, bob); r.code != exitMismatch || !strings.Contains(r.stdout, "differs at system") {
		t.Errorf("without -redact: exit %d\n%s", r.code, r.stdout)
	}
	if r := replay(t, nil, false, "diff", "-redact", `/home/[a-z]+=~`, a, bob); r.code != exitOK {
		t.Errorf("with -redact: exit %d\n%s", r.code, r.stdout)
	}
}

// writeInput writes one input file of a diff test.
func writeInput(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// headerEvent wraps a header object in a request/header event line.
func headerEvent(header string) string {
	return `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":` + header + "}}\n"
}

// TestDiffEveryCase runs replay diff on each case of a correct comparison
// and checks the exit status and the lines that say what was found.
func TestDiffEveryCase(t *testing.T) {
	dir := t.TempDir()
	in := func(name, text string) string { return writeInput(t, dir, name, text) }
	const tool = `{"name":"read","description":"Read a file","parameters":{"type":"object"}}`
	short := in("short.log", headerEvent(`{"config":{"model":"m"},"system":"Be brief.","tools":[`+tool+`]}`))
	for _, tc := range []struct {
		name string
		a, b string
		code int
		out  []string
		err  string
	}{
		{"description appended", short, in("long-desc.log", headerEvent(`{"config":{"model":"m"},"system":"Be brief.","tools":[`+strings.Replace(tool, "a file", "a file.", 1)+`]}`)),
			exitMismatch, []string{"drift: request 1 differs at tools.0.description\n", `content: tool "read" field description (tools.0.description), first difference at character 11`, `    A: "Read a file"`, `    B: "Read a file."`}, ""},
		{"system appended", short, in("long-sys.log", headerEvent(`{"config":{"model":"m"},"system":"Be brief. Cite files.","tools":[`+tool+`]}`)),
			exitMismatch, []string{"differs at system\n", "first difference at character 9"}, ""},
		{"system emptied", short, in("empty-sys.log", headerEvent(`{"config":{"model":"m"},"system":"","tools":[`+tool+`]}`)),
			exitMismatch, []string{"differs at system\n", `    B: ""`}, ""},
		{"config member absent", short, in("no-model.log", headerEvent(`{"config":{},"system":"Be brief.","tools":[`+tool+`]}`)),
			exitMismatch, []string{"differs at config.model\n", "    B: (absent)"}, ""},
		{"tool member absent", short, in("no-desc.log", headerEvent(`{"config":{"model":"m"},"system":"Be brief.","tools":[{"name":"read","parameters":{"type":"object"}}]}`)),
			exitMismatch, []string{"differs at tools.0.description\n", `    A: "Read a file"`, "    B: (absent)"}, ""},
		{"duplicate key", short, in("dup.log", headerEvent(`{"config":{"model":"old","model":"m"},"system":"Be brief.","tools":[`+tool+`]}`)),
			exitMismatch, []string{"differs at config.model\n", "kinds: encoding\n", "encoding (duplicate key): config.model"}, ""},
		{"empty inputs", in("empty-a.log", ""), in("empty-b.log", "\n"),
			exitCannotRun, nil, "nothing to compare"},
		{"no header events", in("events-a.log", `{"type":"turn/start","data":{"turn":1}}`+"\n"), in("events-b.log", `{"type":"turn/start","data":{"turn":1}}`+"\n"),
			exitCannotRun, nil, "events-a.log and "},
		{"templated against full", in("golden.log", headerEvent(`{"config":{"model":"m"},"system":"<<system>>","tools":"<<tools>>"}`)), short,
			exitOK, []string{"identical: 1 request, each pair under the same headers (headers: A 1, B 1)\nnot compared: system, tools (templated in A)\n"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := replay(t, nil, false, "diff", tc.a, tc.b)
			ok := r.code == tc.code && strings.Contains(r.stderr, tc.err)
			for _, want := range tc.out {
				ok = ok && strings.Contains(r.stdout, want)
			}
			if !ok {
				t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", r.code, tc.code, tc.out, r.stdout, r.stderr)
			}
		})
	}
}

// TestDiffJSONNotCompared: -json lists the members a templated log kept
// out of the comparison.
func TestDiffJSONNotCompared(t *testing.T) {
	dir := t.TempDir()
	golden := writeInput(t, dir, "golden.log", headerEvent(`{"config":{"model":"m"},"system":"<<system>>","tools":"<<tools>>"}`))
	full := writeInput(t, dir, "full.log", headerEvent(`{"config":{"model":"m"},"system":"s","tools":[]}`))
	r := replay(t, nil, false, "diff", "-json", full, golden)
	var got struct {
		Identical   bool `json:"identical"`
		NotCompared []struct {
			Member string   `json:"member"`
			In     []string `json:"in"`
		} `json:"notCompared"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitOK {
		t.Fatalf("exit %d, %v\n%s", r.code, err, r.stdout)
	}
	if !got.Identical || len(got.NotCompared) != 2 || got.NotCompared[0].Member != "system" || got.NotCompared[1].Member != "tools" ||
		strings.Join(got.NotCompared[0].In, ",") != "B" || strings.Join(got.NotCompared[1].In, ",") != "B" {
		t.Fatalf("got %+v\n%s", got, r.stdout)
	}
}

// TestDiffHostileInput: nesting past the limit is refused with exit 125,
// naming the file, the line, the column and the depth.
func TestDiffHostileInput(t *testing.T) {
	dir := t.TempDir()
	ok := `{"model":"m","messages":[],"tools":[{"name":"a","input_schema":{}}]}` + "\n"
	deep := `{"model":"m","messages":[],"tools":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n"
	a := writeInput(t, dir, "ok.jsonl", ok+ok)
	b := writeInput(t, dir, "deep.jsonl", ok+deep)
	r := replay(t, nil, false, "diff", a, b)
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "deep.jsonl:2:10035: nesting 100001 deep, deeper than the limit of 10000") || r.stdout != "" {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestDiffForcedFormatOfAnotherBody: -format anthropic on OpenAI Chat
// bodies whose developer message differs is refused (125, file:line:column
// of the mark), not reported identical: read as Anthropic, that message
// would be conversation, which is never compared.
func TestDiffForcedFormatOfAnotherBody(t *testing.T) {
	dir := t.TempDir()
	body := `{"model":"gpt-4o-mini","messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":"hi"}]}` + "\n"
	a := writeInput(t, dir, "a.jsonl", body)
	b := writeInput(t, dir, "b.jsonl", strings.Replace(body, "Be brief.", "Be short.", 1))
	if r := replay(t, nil, false, "diff", a, b); r.code != exitMismatch {
		t.Fatalf("detected: exit %d, want %d\n%s%s", r.code, exitMismatch, r.stdout, r.stderr)
	}
	r := replay(t, nil, false, "diff", "-format", "anthropic", a, b)
	want := a + `:1:44: -format anthropic, but this body is in the openai-chat format: a leading message with role "developer" marks it`
	if r.code != exitCannotRun || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Fatalf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", r.code, exitCannotRun, want, r.stdout, r.stderr)
	}
}

// An input that cannot be read at all is named without a line: no line
// of it was read.
func TestDiffUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	r := replay(t, nil, false, "diff", filepath.Join("..", "..", "golden", "text-turn.golden"), dir)
	if r.code != exitCannotRun || !strings.HasPrefix(r.stderr, "replay diff: "+dir+": ") || strings.Contains(r.stderr, dir+":1") {
		t.Errorf("exit %d, %q", r.code, r.stderr)
	}
}
