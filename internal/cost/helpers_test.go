package cost

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/headergold/headergold/internal/corpustest"
	"github.com/headergold/headergold/internal/wire"
)

// corpusRequests reads the bodies of one corpus file as Requests, split
// by the wire package (not by the code under test).
func corpusRequests(t testing.TB, file string, f wire.Format, messages string) []Request {
	t.Helper()
	fh, err := os.Open(filepath.Join(corpustest.Dir(t), "real", file))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []Request
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		body := sc.Bytes()
		p, err := wire.Split(body, f)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r := Request{Format: string(f), Model: gjson.GetBytes(body, "model").String(), Tools: p.Tools, System: p.System}
		if m := gjson.GetBytes(body, messages); m.Exists() {
			r.Messages = []byte(m.Raw)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// firstAnthropic is line 1 of the corpus's anthropic-messages.jsonl: a
// claude-sonnet-4-6 request with two tools (8557 bytes), a 371-byte system
// and a 2371-byte conversation.
func firstAnthropic(t testing.TB) Request {
	t.Helper()
	r := corpusRequests(t, "anthropic-messages.jsonl", wire.Anthropic, "messages")[0]
	if r.Model != "claude-sonnet-4-6" || len(r.Tools) != 8557 || len(r.System) != 371 || len(r.Messages) != 2371 {
		t.Fatalf("corpus line 1 changed: model %q, %d/%d/%d bytes", r.Model, len(r.Tools), len(r.System), len(r.Messages))
	}
	return r
}

func mustEstimate(t testing.TB, r Request, at Place) *Cache {
	t.Helper()
	c, err := Estimate(r, at)
	if err != nil {
		t.Fatalf("Estimate(%s %q, %+v): %v", r.Format, r.Model, at, err)
	}
	return c
}
