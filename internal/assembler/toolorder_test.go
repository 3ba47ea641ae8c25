package assembler_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
)

// decodeConfig decodes an app-config row with encoding/json.
func decodeConfig(t *testing.T, text string) assembler.Config {
	t.Helper()
	var cfg assembler.Config
	if err := json.Unmarshal([]byte(text), &cfg); err != nil {
		t.Fatalf("decode %s: %v", text, err)
	}
	return cfg
}

// TestToolOrderShapeErrorsAtConstruction: malformed lists fail in New, and
// the message names the offending entry.
func TestToolOrderShapeErrorsAtConstruction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		config   string
		contains []string
	}{
		{"empty list", `{"toolOrder": []}`, []string{`"<unlisted-tools>"`, "no rest entry", "[]"}},
		{"no rest entry", `{"toolOrder": ["read", "write"]}`, []string{`"<unlisted-tools>"`, "no rest entry", `["read","write"]`}},
		{"no rest entry, long", `{"toolOrder": ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"]}`, []string{`"<unlisted-tools>"`, `in the 11 names listed;`}},
		{"two rest entries", `{"toolOrder": ["<unlisted-tools>", "read", "<unlisted-tools>"]}`, []string{`"<unlisted-tools>"`, "twice", "positions 0 and 2"}},
		{"duplicate name", `{"toolOrder": ["read", "<unlisted-tools>", "write", "read"]}`, []string{`duplicate name "read"`, "positions 0 and 3"}},
		{"empty name", `{"toolOrder": ["<unlisted-tools>", ""]}`, []string{"entry 1", "empty name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := decodeConfig(t, tc.config)
			if !cfg.ToolOrder.Present() {
				t.Fatalf("%s decoded as absent", tc.config)
			}
			s, err := assembler.New(cfg)
			if err == nil {
				t.Fatalf("New(%s) = %v, want an error", tc.config, s)
			}
			for _, want := range tc.contains {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("New(%s) error %q does not contain %q", tc.config, err, want)
				}
			}
		})
	}
}

// TestToolOrderAbsent: an omitted key and JSON null are absent, which orders
// lexicographically; NewToolOrder() with no names is present (and invalid).
func TestToolOrderAbsent(t *testing.T) {
	t.Parallel()
	for _, text := range []string{`{}`, `{"toolOrder": null}`, `{"persona": "p", "toolOrder" : null }`} {
		cfg := decodeConfig(t, text)
		if cfg.ToolOrder.Present() || !cfg.ToolOrder.IsZero() || cfg.ToolOrder.Names() != nil {
			t.Errorf("%s: ToolOrder %v is not absent", text, cfg.ToolOrder)
		}
		s := mustNew(t, cfg)
		mustAdd(t, s, "p", tools("write", "bash", "read")...)
		equalStrings(t, text, mustAssemble(t, s).ToolNames(), []string{"bash", "read", "write"})
	}
	if _, err := assembler.New(assembler.Config{ToolOrder: assembler.NewToolOrder()}); err == nil {
		t.Error("New with NewToolOrder() (present, empty) succeeded")
	}
}

// TestToolOrderJSONKeepsAbsentAndEmptyApart: encoding and decoding keep the
// two states apart.
func TestToolOrderJSONKeepsAbsentAndEmptyApart(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cfg  assembler.Config
		want string
	}{
		{assembler.Config{Model: "m"}, `{"model":"m"}`},
		{assembler.Config{Model: "m", ToolOrder: assembler.NewToolOrder()}, `{"model":"m","toolOrder":[]}`},
		{assembler.Config{ToolOrder: assembler.NewToolOrder("a", RestEntry)}, `{"toolOrder":["a","\u003cunlisted-tools\u003e"]}`},
	} {
		b, err := json.Marshal(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.want {
			t.Errorf("Marshal = %s, want %s", b, tc.want)
		}
		back := decodeConfig(t, string(b))
		if back.ToolOrder.Present() != tc.cfg.ToolOrder.Present() || back.ToolOrder.String() != tc.cfg.ToolOrder.String() {
			t.Errorf("round trip of %s: %v, want %v", b, back.ToolOrder, tc.cfg.ToolOrder)
		}
	}
	var o assembler.ToolOrder
	if err := json.Unmarshal([]byte(`"read"`), &o); err == nil {
		t.Error("a string decoded as a toolOrder")
	}
}

// TestUnknownListedNames: a listed name with no registered tool fails every
// Assemble, naming the unknown tools and listing the known ones; once the
// tools register, the next Assemble succeeds.
func TestUnknownListedNames(t *testing.T) {
	t.Parallel()
	s := mustNew(t, withOrder("grep", RestEntry, "shell"))
	mustAdd(t, s, "fs", tools("write", "read")...)
	for range 2 {
		h, err := s.Assemble()
		if err == nil {
			t.Fatalf("Assemble = %v, want an error", h.ToolNames())
		}
		var ute *assembler.UnknownToolsError
		if !errors.As(err, &ute) {
			t.Fatalf("error %T %v, want *UnknownToolsError", err, err)
		}
		equalStrings(t, "Unknown", ute.Unknown, []string{"grep", "shell"})
		equalStrings(t, "Known", ute.Known, []string{"read", "write"})
		want := `toolOrder names unknown tools: "grep", "shell"; known tools: "read", "write"`
		if err.Error() != want {
			t.Errorf("message\n got %q\nwant %q", err, want)
		}
	}

	mustAdd(t, s, "search", tl("grep"))
	_, err := s.Assemble()
	if err == nil || !strings.Contains(err.Error(), `an unknown tool: "shell"; known tools: "grep", "read", "write"`) {
		t.Fatalf("after registering grep: error %v, want shell alone unknown", err)
	}

	mustAdd(t, s, "exec", tl("shell"))
	equalStrings(t, "ToolNames", mustAssemble(t, s).ToolNames(), []string{"grep", "read", "write", "shell"})
}

// TestUnknownListedNamesNoTools: with nothing registered the message says so.
func TestUnknownListedNamesNoTools(t *testing.T) {
	t.Parallel()
	_, err := mustNew(t, withOrder("read", RestEntry)).Assemble()
	if err == nil || err.Error() != `toolOrder names an unknown tool: "read"; known tools: none` {
		t.Fatalf("error %v", err)
	}
}

// TestReservedToolNameRejected: a tool named <unlisted-tools> fails
// Assemble, with or without a toolOrder, naming the name and the provider.
func TestReservedToolNameRejected(t *testing.T) {
	t.Parallel()
	for _, cfg := range []assembler.Config{{}, withOrder(RestEntry), withOrder("read", RestEntry)} {
		s := mustNew(t, cfg)
		mustAdd(t, s, "fs", tl("read"))
		if err := s.AddProvider("sneaky", tl(RestEntry)); err != nil {
			t.Fatalf("AddProvider: %v (the name is rejected at Assemble, not here)", err)
		}
		for range 2 {
			_, err := s.Assemble()
			if err == nil {
				t.Fatalf("config %v: Assemble accepted a tool named %q", cfg.ToolOrder, RestEntry)
			}
			for _, want := range []string{`"<unlisted-tools>"`, "reserved", `"sneaky"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("config %v: error %q does not contain %s", cfg.ToolOrder, err, want)
				}
			}
		}
	}
}

// TestReservedToolNameMessageIgnoresRegistrationOrder: the error text is
// logged, so it must not depend on which offending provider came first.
func TestReservedToolNameMessageIgnoresRegistrationOrder(t *testing.T) {
	t.Parallel()
	message := func(providers ...string) string {
		s := mustNew(t, assembler.Config{})
		for _, p := range providers {
			mustAdd(t, s, p, tl(RestEntry))
		}
		_, err := s.Assemble()
		if err == nil {
			t.Fatal("Assemble accepted the reserved name")
		}
		return err.Error()
	}
	ab, ba := message("a", "b"), message("b", "a")
	if ab != ba {
		t.Fatalf("message depends on registration order:\n%q\n%q", ab, ba)
	}
	for _, want := range []string{`"a"`, `"b"`} {
		if !strings.Contains(ab, want) {
			t.Errorf("message %q does not name provider %s", ab, want)
		}
	}
}

// A toolOrder in a message reads as written: no HTML escaping of its
// names.
func TestToolOrderStringAsWritten(t *testing.T) {
	t.Parallel()
	o := assembler.NewToolOrder("a<b&c", RestEntry)
	if got, want := o.String(), `["a<b&c","<unlisted-tools>"]`; got != want {
		t.Errorf("String() = %s, want %s", got, want)
	}
	_, err := assembler.New(assembler.Config{ToolOrder: assembler.NewToolOrder("a<b", "a<b", RestEntry)})
	if err == nil || !strings.Contains(err.Error(), `"a<b"`) || strings.Contains(err.Error(), `\u003c`) {
		t.Errorf("duplicate entry: %v", err)
	}
}
