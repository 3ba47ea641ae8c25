package app_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/app"
	"github.com/headergold/headergold/internal/assembler"
	"github.com/tidwall/gjson"
)

// compositions are the shipped apps, by the prefix of their errors.
var compositions = []struct {
	name string
	new  func(app.Row, agent.Options) (*agent.Agent, error)
}{
	{"cli", app.CLI},
	{"acp", app.ACP},
}

// headerTools runs one turn and returns the tool names of the logged header.
func headerTools(t *testing.T, a *agent.Agent, sc *agent.Scripted) []string {
	t.Helper()
	if err := a.Service().AddProvider("fs",
		assembler.Tool{Name: "read_file"}, assembler.Tool{Name: "shell"}, assembler.Tool{Name: "grep"}); err != nil {
		t.Fatal(err)
	}
	if err := a.RunTurn(context.Background(), "go"); err != nil {
		t.Fatalf("RunTurn: %v", err)
	}
	if err := agent.CheckRebuild(a.Log().Bytes(), sc.Requests()); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ln := range strings.Split(strings.TrimSpace(string(a.Log().Bytes())), "\n") {
		if gjson.Get(ln, "type").String() == agent.TypeRequestHeader {
			for _, tl := range gjson.Get(ln, "data.header.tools").Array() {
				names = append(names, tl.Get("name").String())
			}
			return names
		}
	}
	t.Fatal("no request/header in the log")
	return nil
}

func TestToolOrderForwardedThroughBothCompositions(t *testing.T) {
	for _, c := range compositions {
		t.Run(c.name, func(t *testing.T) {
			row, err := app.DecodeRow([]byte(`{"persona":"P","model":"m-1","toolOrder":["shell","<unlisted-tools>"]}`))
			if err != nil {
				t.Fatal(err)
			}
			sc := agent.NewScripted(agent.Reply{Text: "ok"})
			a, err := c.new(row, agent.Options{Adapter: sc})
			if err != nil {
				t.Fatal(err)
			}
			cfg := a.Service().Config()
			if !cfg.ToolOrder.Present() || !slices.Equal(cfg.ToolOrder.Names(), []string{"shell", assembler.RestEntry}) {
				t.Errorf("service toolOrder = %s, want [shell <unlisted-tools>]", cfg.ToolOrder)
			}
			if cfg.Persona != "P" || cfg.Model != "m-1" {
				t.Errorf("persona %q, model %q not forwarded", cfg.Persona, cfg.Model)
			}
			if got := headerTools(t, a, sc); !slices.Equal(got, []string{"shell", "grep", "read_file"}) {
				t.Errorf("header tools %q, want toolOrder's [shell grep read_file]", got)
			}
		})
	}
}

func TestAbsentToolOrderStaysAbsent(t *testing.T) {
	for _, c := range compositions {
		for _, in := range []string{`{"persona":"P"}`, `{"persona":"P","toolOrder":null}`, ` { "toolOrder" : null } `} {
			t.Run(c.name+"/"+in, func(t *testing.T) {
				row, err := app.DecodeRow([]byte(in))
				if err != nil {
					t.Fatal(err)
				}
				if row.ToolOrder.Present() {
					t.Fatalf("decoded toolOrder is present: %s", row.ToolOrder)
				}
				sc := agent.NewScripted(agent.Reply{Text: "ok"})
				a, err := c.new(row, agent.Options{Adapter: sc})
				if err != nil {
					t.Fatal(err)
				}
				o := a.Service().Config().ToolOrder
				if o.Present() || o.Names() != nil {
					t.Errorf("service toolOrder = %s, want absent", o)
				}
				if got := headerTools(t, a, sc); !slices.Equal(got, []string{"grep", "read_file", "shell"}) {
					t.Errorf("header tools %q, want lexicographic [grep read_file shell]", got)
				}
			})
		}
	}
}

func TestEmptyToolOrderFailsConstruction(t *testing.T) {
	row, err := app.DecodeRow([]byte(`{"persona":"P","toolOrder":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	// Absent and empty are different states after the decode.
	if !row.ToolOrder.Present() || len(row.ToolOrder.Names()) != 0 {
		t.Fatalf("decoded toolOrder = %s, want present and empty", row.ToolOrder)
	}
	for _, c := range compositions {
		a, err := c.new(row, agent.Options{Adapter: agent.NewScripted()})
		if err == nil {
			t.Fatalf("%s: an empty toolOrder was accepted", c.name)
		}
		if a != nil {
			t.Errorf("%s: an agent was returned with the error", c.name)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, c.name+" app: ") || !strings.Contains(msg, "toolOrder") || !strings.Contains(msg, assembler.RestEntry) {
			t.Errorf("%s: error %q does not name the app, toolOrder and the missing rest entry", c.name, msg)
		}
	}
}

func TestMalformedToolOrderFailsConstruction(t *testing.T) {
	for in, want := range map[string]string{
		`{"toolOrder":["a","<unlisted-tools>","a"]}`:                 `"a"`,
		`{"toolOrder":["<unlisted-tools>","<unlisted-tools>"]}`:      `appears twice`,
		`{"toolOrder":["a","b"]}`:                                    `no rest entry`,
		`{"toolOrder":["","<unlisted-tools>"]}`:                      `empty name`,
		`{"toolOrder":["read_file","<unlisted-tools>","read_file"]}`: `"read_file"`,
	} {
		row, err := app.DecodeRow([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		for _, c := range compositions {
			if _, err := c.new(row, agent.Options{Adapter: agent.NewScripted()}); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "toolOrder") {
				t.Errorf("%s %s: err = %v, want one naming toolOrder and %s", c.name, in, err, want)
			}
		}
	}
}

func TestUnknownToolOrderNameFailsTurnsNotConstruction(t *testing.T) {
	row, err := app.DecodeRow([]byte(`{"toolOrder":["nope","<unlisted-tools>"]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range compositions {
		sc := agent.NewScripted(agent.Reply{Text: "ok"})
		a, err := c.new(row, agent.Options{Adapter: sc})
		if err != nil {
			t.Fatalf("%s: %v (tools register after construction)", c.name, err)
		}
		err = a.RunTurn(context.Background(), "go")
		if err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf("%s: turn error %v, want one naming the unknown tool", c.name, err)
		}
		if len(sc.Requests()) != 0 {
			t.Errorf("%s: the adapter was called", c.name)
		}
	}
}

func TestDecodeRowRejects(t *testing.T) {
	for in, want := range map[string]string{
		`{"persona":"P","tools":[]}`:                              `"tools"`,
		`{"ToolOrder":["a","<unlisted-tools>"]}`:                  `"ToolOrder"`,
		`{"PERSONA":"P"}`:                                         `"PERSONA"`,
		`{"toolOrder":["a","<unlisted-tools>"],"toolOrder":null}`: `"toolOrder" given twice`,
		`{"persona":"P"} {"model":"m"}`:                           `after the row`,
		`{"persona":"P"} x`:                                       `after the row`,
		`null`:                                                    `not a JSON object`,
		`[]`:                                                      `cannot unmarshal`,
		`{"persona":`:                                             `unexpected EOF`,
		`{"toolOrder":"shell"}`:                                   `toolOrder`,
		`{"toolOrder":[1]}`:                                       `toolOrder`,
	} {
		r, err := app.DecodeRow([]byte(in))
		if err == nil {
			t.Errorf("%s: accepted as %+v", in, r)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "app config row: ") {
			t.Errorf("%s: err = %v, want one containing %s", in, err, want)
		}
	}
}

func TestRowJSONKeepsAbsentAndEmptyApart(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		present bool
	}{
		{`{"model":"m"}`, `{"model":"m"}`, false},
		{`{"model":"m","toolOrder":null}`, `{"model":"m"}`, false},
		{`{"model":"m","toolOrder":[]}`, `{"model":"m","toolOrder":[]}`, true},
		{`{"toolOrder":["a","<unlisted-tools>"]}`, `{"toolOrder":["a","\u003cunlisted-tools\u003e"]}`, true},
	} {
		r, err := app.DecodeRow([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tc.out {
			t.Errorf("%s: marshals as %s, want %s", tc.in, b, tc.out)
		}
		again, err := app.DecodeRow(b)
		if err != nil {
			t.Fatal(err)
		}
		if again.ToolOrder.Present() != tc.present || !slices.Equal(again.ToolOrder.Names(), r.ToolOrder.Names()) {
			t.Errorf("%s: round trip gives %s", tc.in, again.ToolOrder)
		}
	}
}
