package drift

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run calls Main and returns its exit status and outputs.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mainFixture writes two session logs that differ in header 2 (a swapped
// pair of tools), an identical copy of the first and an invalid file.
func mainFixture(t *testing.T) (a, b, same, bad string) {
	dir := t.TempDir()
	base := testHeader{model: "m-1", system: "You work in /home/alice/src.", tools: [][]byte{
		[]byte(`{"name":"alpha","description":"First.","parameters":{"type":"object"}}`),
		[]byte(`{"name":"beta","description":"Second <b>.","parameters":{"type":"object"}}`),
		[]byte(`{"name":"gamma","description":"Third.","parameters":{"type":"object"}}`),
	}}
	swapped := base.clone()
	swapped.tools[0], swapped.tools[1] = swapped.tools[1], swapped.tools[0]
	a = writeFile(t, dir, "a.log", renderLog([]testHeader{base, base, base}, "hi", false))
	b = writeFile(t, dir, "b.log", renderLog([]testHeader{base, swapped, base}, "hi", false))
	same = writeFile(t, dir, "same.log", renderLog([]testHeader{base, base, base}, "other words", false))
	bad = writeFile(t, dir, "bad.log", []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n"+`{"type":"request/header","data":{`+"\n"))
	return a, b, same, bad
}

func TestMainExitStatus(t *testing.T) {
	a, b, same, bad := mainFixture(t)
	tests := []struct {
		name string
		args []string
		code int
		out  string // in stdout
		err  string // in stderr
	}{
		{"identical", []string{a, same}, ExitIdentical, "identical: 3 headers", ""},
		{"drift", []string{a, b}, ExitDrift, "drift: header 2 differs at tools.0", ""},
		{"flags after files", []string{a, b, "-json"}, ExitDrift, `"identical": false`, ""},
		{"forced format", []string{"-format", "log", a, same}, ExitIdentical, "identical", ""},
		{"invalid", []string{a, bad}, ExitInvalid, "", "bad.log:2:"},
		{"missing file", []string{a, filepath.Join(t.TempDir(), "nope.log")}, ExitInvalid, "", "nope.log"},
		{"no args", nil, ExitUsage, "", "want two inputs"},
		{"one arg", []string{a}, ExitUsage, "", "want two inputs"},
		{"three args", []string{a, b, same}, ExitUsage, "", "want two inputs"},
		{"unknown flag", []string{"-frob", a, b}, ExitUsage, "", "flag provided but not defined"},
		{"bad format", []string{"-format", "xml", a, b}, ExitUsage, "", "unknown format"},
		{"bad redact", []string{"-redact", "([=x", a, b}, ExitUsage, "", "redaction"},
		{"redact without =", []string{"-redact", "abc", a, b}, ExitUsage, "", "REGEX=TOKEN"},
		{"two stdins", []string{"-", "-"}, ExitUsage, "", "standard input"},
		{"help", []string{"-h"}, ExitIdentical, "Examples:", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, "", tt.args...)
			if code != tt.code || !strings.Contains(out, tt.out) || !strings.Contains(errOut, tt.err) {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out, errOut)
			}
		})
	}
}

func TestMainJSON(t *testing.T) {
	a, b, same, _ := mainFixture(t)
	code, out, _ := run(t, "", "-json", a, b)
	if code != ExitDrift {
		t.Fatalf("exit %d", code)
	}
	var got struct {
		Identical *bool `json:"identical"`
		First     *struct {
			Index *int     `json:"index"`
			Path  *string  `json:"path"`
			Kinds []string `json:"kinds"`
			Tools *struct {
				A, B, Moved []string
			} `json:"tools"`
			A struct {
				File     string `json:"file"`
				Line     int    `json:"line"`
				WirePath string `json:"wirePath"`
			} `json:"a"`
		} `json:"first"`
		LaterDiffering *int `json:"laterDiffering"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got.Identical == nil || *got.Identical || got.First == nil || got.LaterDiffering == nil {
		t.Fatalf("missing members:\n%s", out)
	}
	f := got.First
	if *f.Index != 2 || *f.Path != "tools.0" || strings.Join(f.Kinds, ",") != "reorder" || *got.LaterDiffering != 0 {
		t.Fatalf("got index %d path %q kinds %v later %d\n%s", *f.Index, *f.Path, f.Kinds, *got.LaterDiffering, out)
	}
	if f.Tools == nil || len(f.Tools.Moved) != 1 || f.A.File != a || f.A.Line != 11 || f.A.WirePath != "data.header.tools.0" {
		t.Fatalf("detail:\n%s", out)
	}
	if !strings.Contains(out, `"Second <b>."`) && strings.Contains(out, `\u003c`) {
		t.Errorf("JSON output HTML-escapes")
	}

	code, out, _ = run(t, "", "-json", a, same)
	var ident map[string]any
	if err := json.Unmarshal([]byte(out), &ident); err != nil || code != ExitIdentical {
		t.Fatalf("exit %d, %v\n%s", code, err, out)
	}
	if ident["identical"] != true || ident["first"] != nil || ident["laterDiffering"] != float64(0) {
		t.Fatalf("identical result:\n%s", out)
	}
}

func TestMainRedact(t *testing.T) {
	dir := t.TempDir()
	h := testHeader{model: "m-1", system: "Your working directory is /home/alice/src/app.", tools: [][]byte{
		[]byte(`{"name":"read","description":"Read files under /home/alice/src/app.","parameters":{"type":"object"}}`),
	}}
	hb := h.clone()
	hb.system = strings.ReplaceAll(hb.system, "alice", "bob")
	hb.tools[0] = bytes.ReplaceAll(hb.tools[0], []byte("alice"), []byte("bob"))
	for _, f := range []string{"log", "anthropic", "openai-chat", "openai-responses", "gemini"} {
		a := writeFile(t, dir, f+"-a.jsonl", renderFile(f, []testHeader{h, h}, "hi"))
		b := writeFile(t, dir, f+"-b.jsonl", renderFile(f, []testHeader{hb, hb}, "hi"))
		if code, out, _ := run(t, "", a, b); code != ExitDrift || !strings.Contains(out, "differs at "+systemPath(f)) {
			t.Fatalf("%s without -redact: exit %d\n%s", f, code, out)
		}
		code, out, errOut := run(t, "", "-redact", `/home/[a-z]+=~`, a, b)
		if code != ExitIdentical {
			t.Fatalf("%s with -redact: exit %d\n%s%s", f, code, out, errOut)
		}
		// Two redactions, the second one undoing nothing of the first.
		code, out, _ = run(t, "", "-redact", `alice=X`, "-redact", `bob=X`, a, b)
		if code != ExitIdentical {
			t.Fatalf("%s with two -redact: exit %d\n%s", f, code, out)
		}
	}
}

func TestMainStdin(t *testing.T) {
	a, b, same, _ := mainFixture(t)
	data, err := os.ReadFile(same)
	if err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, string(data), a, "-"); code != ExitIdentical || !strings.Contains(out, "identical") {
		t.Fatalf("B from stdin: exit %d\n%s", code, out)
	}
	data, _ = os.ReadFile(b)
	code, out, _ := run(t, string(data), "-json", "-", a)
	if code != ExitDrift || !strings.Contains(out, `"file": "<stdin>"`) {
		t.Fatalf("A from stdin: exit %d\n%s", code, out)
	}
	if code, _, _ := run(t, "", "--", a, same); code != ExitIdentical {
		t.Fatalf("after --: exit %d", code)
	}
}

// TestWriteTextIdentical pins the one-line identical report.
func TestWriteTextIdentical(t *testing.T) {
	var b strings.Builder
	(&Result{Identical: true, Headers: Counts{4, 4}}).WriteText(&b)
	if b.String() != "identical: 4 headers\n" {
		t.Fatalf("got %q", b.String())
	}
	if err := (&Result{Identical: true}).WriteText(failWriter{}); err == nil {
		t.Fatal("write error lost")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
