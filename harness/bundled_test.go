package harness

import (
	"bytes"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// runBundled runs a bundled fixture once, as listed.
func runBundled(t *testing.T, name string) *runResult {
	t.Helper()
	return runListed(t, "../fixtures", name)
}

// runListed runs the fixture name of dir once, as listed.
func runListed(t *testing.T, dir, name string) *runResult {
	t.Helper()
	_, run := loadAndRun(t, dir, name)
	return run
}

// loadAndRun loads the fixture name of dir and runs it once, as listed.
func loadAndRun(t *testing.T, dir, name string) (*Fixture, *runResult) {
	t.Helper()
	f, err := loadFixture(dir, name)
	if err != nil {
		t.Fatal(err)
	}
	run, err := runFixture(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f, run
}

// headersOf runs a bundled fixture and returns the tool names of each
// logged header with its reason.
func headersOf(t *testing.T, name string) (reasons []string, tools [][]string, log []byte) {
	t.Helper()
	run := runBundled(t, name)
	for _, e := range headerEvents(run.fullLog()) {
		reasons = append(reasons, e.reason)
		var names []string
		e.header.Get("tools").ForEach(func(_, v gjson.Result) bool {
			names = append(names, v.Get("name").String())
			return true
		})
		tools = append(tools, names)
	}
	return reasons, tools, run.fullLog()
}

// The golden logs of non-pinned fixtures are templated, so the behaviour
// each bundled fixture is named for is asserted here against hand-written
// expectations.
func TestBundledFixtureBehaviour(t *testing.T) {
	textTurn := []string{"ask_user", "edit_file", "git_diff", "git_status", "glob", "grep", "job_kill", "job_output",
		"list_dir", "read_file", "shell", "todo_write", "web_fetch", "write_file"}
	t.Run("text-turn", func(t *testing.T) {
		reasons, tools, _ := headersOf(t, "text-turn")
		if !slices.Equal(reasons, []string{"initial"}) || !slices.Equal(tools[0], textTurn) {
			t.Errorf("reasons %v, tools %v", reasons, tools)
		}
	})
	t.Run("tool-order", func(t *testing.T) {
		_, tools, _ := headersOf(t, "tool-order")
		want := []string{"read_file", "edit_file", "git_diff", "git_status", "glob", "grep", "job_kill", "job_output",
			"list_dir", "todo_write", "web_fetch", "write_file", "shell", "ask_user"}
		if !slices.Equal(tools[0], want) {
			t.Errorf("tools = %v\nwant   %v", tools[0], want)
		}
	})
	t.Run("late-registration", func(t *testing.T) {
		reasons, tools, _ := headersOf(t, "late-registration")
		if !slices.Equal(reasons, []string{"initial", "change"}) || slices.Contains(tools[0], "lsp_definition") ||
			tools[1][9] != "lsp_definition" || len(tools[1]) != 15 {
			t.Errorf("reasons %v, tools %v", reasons, tools)
		}
	})
	t.Run("listener-reorder", func(t *testing.T) {
		reasons, tools, _ := headersOf(t, "listener-reorder")
		moved := append(slices.DeleteFunc(slices.Clone(textTurn), func(s string) bool { return s == "shell" }), "shell")
		if !slices.Equal(reasons, []string{"initial", "change"}) || !slices.Equal(tools[0], textTurn) || !slices.Equal(tools[1], moved) {
			t.Errorf("reasons %v, tools %v", reasons, tools)
		}
	})
	t.Run("stable-header", func(t *testing.T) {
		reasons, _, log := headersOf(t, "stable-header")
		if !slices.Equal(reasons, []string{"initial"}) || bytes.Count(log, []byte(`"turn/end"`)) != 3 {
			t.Errorf("reasons %v", reasons)
		}
	})
	t.Run("resume", func(t *testing.T) {
		reasons, tools, _ := headersOf(t, "resume")
		if !slices.Equal(reasons, []string{"initial", "resume"}) || !slices.Equal(tools[0], tools[1]) {
			t.Errorf("reasons %v", reasons)
		}
	})
	t.Run("unknown-tool-order", func(t *testing.T) {
		reasons, tools, log := headersOf(t, "unknown-tool-order")
		if !slices.Equal(reasons, []string{"initial"}) || tools[0][0] != "deploy" ||
			bytes.Count(log, []byte(`"agent/error"`)) != 2 || bytes.Count(log, []byte(`"reason":"completed"`)) != 1 {
			t.Errorf("reasons %v, log:\n%s", reasons, log)
		}
	})
	t.Run("reserved-name", func(t *testing.T) {
		reasons, _, log := headersOf(t, "reserved-name")
		if len(reasons) != 0 || !bytes.Contains(log, []byte(`reserved for toolOrder (registered by provider \"rogue\")`)) {
			t.Errorf("reasons %v, log:\n%s", reasons, log)
		}
	})
	t.Run("shared-names", func(t *testing.T) {
		_, tools, log := headersOf(t, "shared-names")
		if !slices.Equal(tools[0], []string{"open_page", "search", "search"}) {
			t.Errorf("tools %v", tools)
		}
		// Canonical bytes break the tie: "Search the code index." < "Search the web.".
		if i, j := bytes.Index(log, []byte("Search the code index.")), bytes.Index(log, []byte("Search the web.")); i < 0 || j < i {
			t.Errorf("tie not broken by bytes")
		}
	})
	t.Run("unicode-order", func(t *testing.T) {
		_, tools, _ := headersOf(t, "unicode-order")
		want := []string{"zeta", "\u00e9clair", "\U00010000linear", "\U0001F600grin", "\ue000private", "\uff61halfwidth"}
		if !slices.Equal(tools[0], want) {
			t.Errorf("tools = %q\nwant   %q", tools[0], want)
		}
		goOrder := slices.Clone(want)
		slices.Sort(goOrder)
		if slices.Equal(goOrder, want) {
			t.Errorf("the fixture no longer shows a disagreement with Go's byte order")
		}
	})
	t.Run("large-toolset", func(t *testing.T) {
		_, tools, _ := headersOf(t, "large-toolset")
		if len(tools[0]) < 300 || !slices.IsSorted(tools[0]) {
			t.Errorf("%d tools, sorted %v", len(tools[0]), slices.IsSorted(tools[0]))
		}
	})
	t.Run("descriptions", func(t *testing.T) {
		// Load refuses an empty or multi-line description (checked
		// below); what it cannot see is one copied from another fixture
		// without saying what this one proves.
		s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden"})
		seen := map[string]string{}
		for _, f := range s.Fixtures() {
			if other, ok := seen[f.Description]; ok {
				t.Errorf("%s has the description of %s: %q", f.Name, other, f.Description)
			}
			seen[f.Description] = f.Name
		}
		dir := t.TempDir()
		for name, desc := range map[string]string{"empty": `"  "`, "two-lines": `"one\ntwo"`} {
			writeFile(t, filepath.Join(dir, name+".json"), `{"description": `+desc+`, "turns": [{"user": "x", "replies": [{"text": "ok"}]}]}`)
			var fe *FixtureError
			if _, err := loadFixture(dir, name); !errors.As(err, &fe) || fe.Path != "description" {
				t.Errorf("%s description: error %v, want a FixtureError at description", name, err)
			}
		}
	})
}

// TestPermutationPassCatchesOrderDependence injects a runner whose tool
// order follows registration order, and requires the permutation pass to
// fail with the seed to reproduce it.
func TestPermutationPassCatchesOrderDependence(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: 4, Seed: 99})
	s.run = func(f *Fixture, reg *registration) (*runResult, error) {
		r, err := runFixture(f, reg)
		if err == nil && reg != nil {
			// Stand-in for a registry that leaks registration order.
			r.Log = bytes.Replace(r.fullLog(), []byte(`"name":"ask_user"`), []byte(`"name":"ask_user2"`), 1)
		}
		return r, err
	}
	_, res := s.Check(s.Fixture("text-turn"))
	f := failureWith(t, res.Failures, CheckPermute, "seed 99", "data.header.tools.0.name", "line 4")
	if f.Mismatch == nil {
		t.Errorf("no mismatch detail")
	}
	// The same seed picks the same orders: the failure reproduces.
	_, again := s.Check(s.Fixture("text-turn"))
	if len(again.Failures) != len(res.Failures) || again.Failures[0].Msg != res.Failures[0].Msg {
		t.Errorf("not reproducible: %v vs %v", res.Failures, again.Failures)
	}
}

// TestPermutationOrdersDiffer makes sure the permutation pass really
// registers in other orders: different seeds give different orders.
func TestPermutationOrdersDiffer(t *testing.T) {
	orders := map[string]bool{}
	for seed := range uint64(20) {
		reg := newRegistration(seed, false)
		var got []string
		fns := make([]func() error, 6)
		for i := range fns {
			fns[i] = func() error { got = append(got, string(rune('a'+i))); return nil }
		}
		if err := reg.apply(fns); err != nil {
			t.Fatal(err)
		}
		orders[strings.Join(got, "")] = true
	}
	if len(orders) < 10 {
		t.Errorf("20 seeds gave only %d distinct orders", len(orders))
	}
}

func TestBundledDependencyFixtures(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string // fragments, in this order
	}{
		{"depends-reorder", []string{`"proposed":["c1","c2"],"executed":["c2","c1"]`, `"callId":"c2","name":"create_issue","output":"#42"`, `"callId":"c1","name":"notify","output":"posted"`}},
		{"depends-reject", []string{`"callId":"c1","name":"notify","output":"batch refused, nothing ran`, `(edge notify -> create_issue)","error":true`,
			`"callId":"c2","name":"create_issue","output":"batch refused`, `"callId":"c3","name":"create_issue","output":"#42"`, `"callId":"c4","name":"notify","output":"posted"`}},
		{"depends-missing", []string{`"callId":"c1","name":"notify","output":"not run: notify depends on create_issue`, `"callId":"c2","name":"create_issue","output":"#42"`, `"callId":"c3","name":"notify","output":"posted"`}},
		{"depends-cycle", []string{`"reason":"error","message":"tool dependencies form a cycle: deploy -> verify -> deploy"`, `"agent/error"`}},
		{"idempotent-replay", []string{`"callId":"c3","name":"fetch_doc","output":"# Install\ngo install ./...","replayed":true`, `"callId":"c4","name":"log_note","output":"noted again"}`,
			`"callId":"c5","name":"fetch_doc","output":"# Install\ngo install ./...\nUse -race in CI."}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := string(runBundled(t, tc.name).fullLog())
			at := 0
			for _, frag := range tc.want {
				i := strings.Index(log[at:], frag)
				if i < 0 {
					t.Fatalf("no %q after byte %d of\n%s", frag, at, log)
				}
				at += i + len(frag)
			}
			if tc.name != "depends-reorder" && strings.Contains(log, "tool/plan") {
				t.Errorf("unexpected tool/plan")
			}
		})
	}
}
