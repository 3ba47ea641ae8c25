package assembler_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/headergold/headergold/internal/assembler"
)

// TestHeaderBytes: the header's JSON form, written as JSON.stringify would
// write it, with an empty system or tool list left out.
func TestHeaderBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		cfg   assembler.Config
		tools []assembler.Tool
		want  string
	}{
		{"empty", assembler.Config{}, nil, `{"config":{}}`},
		{"model only", assembler.Config{Model: "m-1"}, nil, `{"config":{"model":"m-1"}}`},
		{"system only", assembler.Config{Persona: "Be <brief> & kind.\u2028\"ok\""}, nil,
			"{\"config\":{},\"system\":\"Be <brief> & kind.\u2028\\\"ok\\\"\"}"},
		{"tools only", assembler.Config{}, []assembler.Tool{
			{Name: "t", Description: "é\n", Parameters: json.RawMessage(`{"n":1.50,"u":"\u00e9"}`), Idempotent: true},
		}, `{"config":{},"tools":[{"name":"t","description":"é\n","parameters":{"n":1.5,"u":"é"}}]}`},
		{"all", assembler.Config{Model: "m", Persona: "P"}, []assembler.Tool{{Name: "b"}, {Name: "a"}},
			`{"config":{"model":"m"},"system":"P","tools":[{"name":"a"},{"name":"b"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustNew(t, tc.cfg)
			if tc.tools != nil {
				mustAdd(t, s, "p", tc.tools...)
			}
			h := mustAssemble(t, s)
			if got := string(h.Bytes()); got != tc.want {
				t.Fatalf("Bytes\n got %s\nwant %s", got, tc.want)
			}
			if h.Len() != len(tc.want) {
				t.Errorf("Len = %d, want %d", h.Len(), len(tc.want))
			}
			back, err := assembler.ParseHeader([]byte(tc.want))
			if err != nil {
				t.Fatalf("ParseHeader: %v", err)
			}
			if !back.Equal(h) || back.System() != h.System() || strings.Join(back.ToolNames(), ",") != strings.Join(h.ToolNames(), ",") {
				t.Errorf("ParseHeader(Bytes()) = %s, not equal", back.Bytes())
			}
		})
	}
}

// TestHeaderWritesItsJSONOnce: an assembled header's JSON, first read by
// several goroutines at once, is one array that every read shares, and
// what Len said before any read.
func TestHeaderWritesItsJSONOnce(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Model: "m", Persona: "P\u2028"})
	mustAdd(t, s, "p", assembler.Tool{Name: "b", Description: "d\"", Parameters: json.RawMessage(`{"type":"object"}`)}, assembler.Tool{Name: "a"})
	h := mustAssemble(t, s)
	n := h.Len()
	views := make([]string, 8)
	var wg sync.WaitGroup
	for i := range views {
		wg.Go(func() { views[i] = h.JSON() })
	}
	wg.Wait()
	want := "{\"config\":{\"model\":\"m\"},\"system\":\"P\u2028\",\"tools\":[{\"name\":\"a\"},{\"name\":\"b\",\"description\":\"d\\\"\",\"parameters\":{\"type\":\"object\"}}]}"
	for i, v := range views {
		if v != want {
			t.Fatalf("read %d: %s, want %s", i, v, want)
		}
		if unsafe.StringData(v) != unsafe.StringData(views[0]) {
			t.Errorf("read %d has an array of its own", i)
		}
	}
	if n != len(want) {
		t.Errorf("Len before any read = %d, want %d", n, len(want))
	}
}

// TestParseHeaderErrors: malformed headers are rejected with a reason.
func TestParseHeaderErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, contain string }{
		{`{"config":{},"system":"a"`, "line 1, column 26"},
		{`[]`, "not a JSON object"},
		{`{"system":"a"}`, "no config"},
		{`{"config":[]}`, "config is an array"},
		{`{"config":{},"system":["a"]}`, "system is an array"},
		{`{"config":{},"tools":"<<tools>>"}`, "tools is a string"},
		{`{"config":{},"tools":[{"name":1}]}`, "tools[0]: name is a number"},
		{`{"config":{},"tools":[{"name":"a","extra":1}]}`, `unexpected member "extra"`},
		{`{"config":{},"other":1}`, `unexpected member "other"`},
	} {
		if _, err := assembler.ParseHeader([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.contain) {
			t.Errorf("ParseHeader(%s) error %v, want %q", tc.in, err, tc.contain)
		}
	}
}
