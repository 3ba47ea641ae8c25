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

// TestEqualHeadersOfSharedProviders: headers of services that registered
// the same providers, in any order, are equal; a different config or
// system text, another tool order, or other providers with the same tools
// are told apart or found equal by their bytes alike.
func TestEqualHeadersOfSharedProviders(t *testing.T) {
	t.Parallel()
	p, err := assembler.NewProvider("p", assembler.Tool{Name: "b", Parameters: json.RawMessage(`{ "type": "object" }`)}, assembler.Tool{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := assembler.NewProvider("q", assembler.Tool{Name: "c"})
	if err != nil {
		t.Fatal(err)
	}
	pAgain, err := assembler.NewProvider("p", assembler.Tool{Name: "b", Parameters: json.RawMessage(`{"type":"object"}`)}, assembler.Tool{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	header := func(cfg assembler.Config, reverse bool, ps ...*assembler.Provider) *assembler.Header {
		s := mustNew(t, cfg)
		for _, p := range ps {
			if err := s.Register(p); err != nil {
				t.Fatal(err)
			}
		}
		if reverse {
			s.AddListener("reverse", func(a assembler.Assembly) (assembler.Assembly, error) {
				a.Tools = a.Tools.Reverse()
				return a, nil
			})
		}
		return mustAssemble(t, s)
	}
	cfg := assembler.Config{Model: "m", Persona: "P"}
	base := header(cfg, false, p, q)
	for _, tc := range []struct {
		name string
		h    *assembler.Header
	}{
		{"the same providers, registered the other way round", header(cfg, false, q, p)},
		{"another model", header(assembler.Config{Model: "n", Persona: "P"}, false, p, q)},
		{"another persona", header(assembler.Config{Model: "m", Persona: "Q"}, false, p, q)},
		{"the tools reversed", header(cfg, true, p, q)},
		{"a provider made again from the same tools", header(cfg, false, pAgain, q)},
		{"a tool fewer", header(cfg, false, p)},
	} {
		want := string(tc.h.Bytes()) == string(base.Bytes())
		if got := base.Equal(tc.h); got != want {
			t.Errorf("%s: Equal = %v, bytes equal %v", tc.name, got, want)
		}
		if got := tc.h.Equal(base); got != want {
			t.Errorf("%s, the other way: Equal = %v, bytes equal %v", tc.name, got, want)
		}
	}
	parsed, err := assembler.ParseHeader(base.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !parsed.Equal(base) || !base.Equal(parsed) {
		t.Error("a parsed copy of the header is not Equal to it")
	}
}

// TestHeaderOffers: a header offers exactly the tools it lists, assembled
// or parsed.
func TestHeaderOffers(t *testing.T) {
	t.Parallel()
	s := mustNew(t, assembler.Config{Model: "m"})
	mustAdd(t, s, "p", assembler.Tool{Name: "b"}, assembler.Tool{Name: "a"})
	h := mustAssemble(t, s)
	parsed, err := assembler.ParseHeader(h.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for _, hd := range []*assembler.Header{h, parsed} {
		if !hd.Offers("a") || !hd.Offers("b") || hd.Offers("c") || hd.Offers("") {
			t.Errorf("Offers of %s: a %v, b %v, c %v", hd.Bytes(), hd.Offers("a"), hd.Offers("b"), hd.Offers("c"))
		}
	}
}
