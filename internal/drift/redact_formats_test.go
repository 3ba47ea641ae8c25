package drift

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/redact"
)

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRedactAcrossFormats: a redaction normalises the same volatile text in
// every wire format, on both sides; several redactions apply in turn.
func TestRedactAcrossFormats(t *testing.T) {
	compareFiles := func(a, b string, rules ...string) *Result {
		t.Helper()
		var rs []redact.Rule
		for _, r := range rules {
			red, err := ParseRedaction(r)
			if err != nil {
				t.Fatal(err)
			}
			rs = append(rs, red)
		}
		fa, _ := os.Open(a)
		defer fa.Close()
		fb, _ := os.Open(b)
		defer fb.Close()
		res, err := Compare(Source{a, fa}, Source{b, fb}, Options{Redact: rs})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
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
		if res := compareFiles(a, b); res.Identical || res.First.Path != systemPath(f) {
			t.Fatalf("%s without a redaction: %+v", f, res.First)
		}
		if res := compareFiles(a, b, `/home/[a-z]+=~`); !res.Identical {
			t.Fatalf("%s with a redaction: %+v", f, res.First)
		}
		// Two redactions, the second one undoing nothing of the first.
		if res := compareFiles(a, b, `alice=X`, `bob=X`); !res.Identical {
			t.Fatalf("%s with two redactions: %+v", f, res.First)
		}
	}
}

// TestWriteTextIdentical pins the one-line identical report.
func TestWriteTextIdentical(t *testing.T) {
	var b strings.Builder
	(&Result{Identical: true, Headers: Counts{4, 4}, Requests: Counts{4, 4}}).WriteText(&b)
	if b.String() != "identical: 4 requests, each pair with the same header (config, system, tools; the conversation is not compared)\n" {
		t.Fatalf("got %q", b.String())
	}
	if err := (&Result{Identical: true}).WriteText(failWriter{}); err == nil {
		t.Fatal("write error lost")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }
