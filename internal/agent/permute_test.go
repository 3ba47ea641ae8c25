package agent_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/headergold/headergold/internal/agent"
	"github.com/headergold/headergold/internal/assembler"
)

type provider struct {
	name  string
	tools []assembler.Tool
}

// The registrations of the permutation scenario: tools sharing a name
// (distinct and identical bytes), names whose UTF-16 and UTF-8 orders
// disagree, parameters with their own key order, sections sharing an order.
var (
	permProviders = []provider{
		{"fs", []assembler.Tool{
			tool("read_file", "Read a file.", `{"type":"object","properties":{"path":{"type":"string"}}}`),
			tool("list_dir", "List a directory.", ""),
		}},
		{"exec", []assembler.Tool{tool("shell", "Run a command.", `{"z":1,"a":2}`)}},
		{"search", []assembler.Tool{tool("grep", "Search (ripgrep).", "")}},
		{"search2", []assembler.Tool{tool("grep", "Search (grep).", "")}},
		{"unicode", []assembler.Tool{tool("\uFF61x", "", ""), tool("\U0001F600y", "", "")}},
		{"twin1", []assembler.Tool{tool("echo", "Echo.", "")}},
		{"twin2", []assembler.Tool{tool("echo", "Echo.", "")}},
		{"empty", nil},
	}
	permSections = []assembler.Section{
		{ID: "rules", Order: 10, Text: "Answer briefly."},
		{ID: "env", Order: 10, Text: "OS: linux."},
		{ID: "tail", Order: 99, Text: "Bye."},
		{ID: "head", Order: -1, Text: "Hello."},
	}
	// Tool names in the order the header must carry them: toolOrder puts
	// shell first and read_file last; the rest sort by UTF-16 code units
	// (the emoji, a surrogate pair, before U+FF61), ties by bytes; the
	// listener then moves shell to the end and the late plugin's tool
	// joins the rest from step 2 on.
	permStep1 = []string{"echo", "echo", "grep", "grep", "list_dir", "\U0001F600y", "\uFF61x", "read_file", "shell"}
	permStep2 = []string{"echo", "echo", "grep", "grep", "list_dir", "zip", "\U0001F600y", "\uFF61x", "read_file", "shell"}
)

// permRun runs the permutation scenario, registering providers and
// sections in the order given (or each from its own goroutine), with the
// listeners always in the same order.
func permRun(t testing.TB, provs []provider, secs []assembler.Section, concurrent bool) session {
	t.Helper()
	sc := agent.NewScripted(toolsReply(call("c1", "grep", `{"q":"x"}`)), text("found"), text("bye"))
	sc.SetResult("c1", agent.ToolResult{Output: "a.go:1"})
	cfg := agent.Config{Persona: "You are careful.", Model: "m-1",
		ToolOrder: assembler.NewToolOrder("shell", assembler.RestEntry, "read_file")}
	var a *agent.Agent
	a = newAgent(t, cfg, agent.Options{Adapter: sc, BeforeStep: func(turn, step int) {
		if turn == 1 && step == 2 {
			mustProvider(t, a.Service(), "late", tool("zip", "Zip.", ""))
		}
	}})
	svc := a.Service()
	svc.AddListener("moveShellToEnd", func(as assembler.Assembly) (assembler.Assembly, error) {
		if i := as.Tools.Index("shell"); i >= 0 {
			as.Tools = as.Tools.Move(i, as.Tools.Len()-1)
		}
		return as, nil
	})
	svc.AddListener("appendSection", func(as assembler.Assembly) (assembler.Assembly, error) {
		as.Sections = append(as.Sections, assembler.Section{ID: "listener", Text: "Added by a listener."})
		return as, nil
	})
	if concurrent {
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, len(provs)+len(secs))
		for _, p := range provs {
			wg.Go(func() {
				<-start
				errs <- svc.AddProvider(p.name, p.tools...)
			})
		}
		for _, s := range secs {
			wg.Go(func() {
				<-start
				errs <- svc.AddSection(s)
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
	} else {
		for _, p := range provs {
			mustProvider(t, svc, p.name, p.tools...)
		}
		for _, s := range secs {
			mustSection(t, svc, s)
		}
	}
	run(t, a, "find x")
	run(t, a, "thanks")
	return session{log: a.Log().Bytes(), reqs: sc.Requests()}
}

func sameSession(t testing.TB, label string, got, want session) {
	t.Helper()
	if !bytes.Equal(got.log, want.log) {
		wantBytes(t, label+": log", got.log, string(want.log))
	}
	if len(got.reqs) != len(want.reqs) {
		t.Fatalf("%s: %d requests, want %d", label, len(got.reqs), len(want.reqs))
	}
	for i := range got.reqs {
		if !bytes.Equal(got.reqs[i], want.reqs[i]) {
			t.Fatalf("%s: request %d differs:\n got  %s\n want %s", label, i+1, got.reqs[i], want.reqs[i])
		}
	}
}

func TestRegistrationOrderIsUnobservable(t *testing.T) {
	base := permRun(t, permProviders, permSections, false)
	hs := headers(base.log)
	if len(hs) != 2 {
		t.Fatalf("%d headers, want 2 (initial, then change when zip registers)", len(hs))
	}
	if got := toolNames(hs[0].Get("header")); !slices.Equal(got, permStep1) {
		t.Errorf("step 1 tools %q,\n want %q", got, permStep1)
	}
	if got := toolNames(hs[1].Get("header")); !slices.Equal(got, permStep2) {
		t.Errorf("step 2 tools %q,\n want %q", got, permStep2)
	}
	tools := hs[0].Get("header.tools").Array()
	// Same-name tools are ordered by their canonical bytes.
	if tools[2].Raw != `{"name":"grep","description":"Search (grep)."}` || tools[3].Raw != `{"name":"grep","description":"Search (ripgrep)."}` {
		t.Errorf("grep tie broken wrongly: %s, %s", tools[2].Raw, tools[3].Raw)
	}
	// Parameters keep their key order.
	if shell := tools[8].Raw; shell != `{"name":"shell","description":"Run a command.","parameters":{"z":1,"a":2}}` {
		t.Errorf("shell = %s", shell)
	}
	wantSystem := "Hello.\n\nYou are careful.\n\nOS: linux.\n\nAnswer briefly.\n\nBye.\n\nAdded by a listener."
	if got := hs[0].Get("header.system").String(); got != wantSystem {
		t.Errorf("system = %q,\n want %q", got, wantSystem)
	}
	assertRebuild(t, base.log, base.reqs)

	const seeds = 200
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0x686561646572))
		provs, secs := slices.Clone(permProviders), slices.Clone(permSections)
		rng.Shuffle(len(provs), func(i, j int) { provs[i], provs[j] = provs[j], provs[i] })
		rng.Shuffle(len(secs), func(i, j int) { secs[i], secs[j] = secs[j], secs[i] })
		got := permRun(t, provs, secs, false)
		if !bytes.Equal(got.log, base.log) || !slices.EqualFunc(got.reqs, base.reqs, bytes.Equal) {
			t.Logf("seed %d: providers %v", seed, providerNames(provs))
			sameSession(t, "shuffled registration", got, base)
		}
	}
}

func TestConcurrentRegistrationIsUnobservable(t *testing.T) {
	base := permRun(t, permProviders, permSections, false)
	runs := 50
	if testing.Short() {
		runs = 10
	}
	for i := range runs {
		got := permRun(t, permProviders, permSections, true)
		if !bytes.Equal(got.log, base.log) || !slices.EqualFunc(got.reqs, base.reqs, bytes.Equal) {
			t.Logf("concurrent run %d", i)
			sameSession(t, "concurrent registration", got, base)
		}
	}
}

func TestConcurrentRegistrationDuringTurn(t *testing.T) {
	// Plugins that register from goroutines while a turn runs: what a step
	// sees depends on timing, but whatever it saw, the log and the
	// requests agree.
	sc := agent.NewScripted()
	for i := range 8 {
		sc.Push(toolsReply(call("c"+string(rune('0'+i)), "t", `{}`)))
	}
	sc.Push(text("done"), text("bye"))
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if err := a.Service().AddProvider("p"+string(rune('a'+i)), tool("t"+string(rune('a'+i)), "", "")); err != nil {
				t.Error(err)
			}
		})
	}
	run(t, a, "go")
	wg.Wait()
	run(t, a, "again")
	log := a.Log().Bytes()
	assertRebuild(t, log, sc.Requests())
	hs := headers(log)
	if got := len(toolNames(hs[len(hs)-1].Get("header"))); got != 16 {
		t.Errorf("last header has %d tools, want 16", got)
	}
}

func providerNames(ps []provider) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out
}

func TestConcurrentTurnsAreSerialized(t *testing.T) {
	const turns = 8
	sc := agent.NewScripted()
	for range turns {
		sc.Push(toolsReply(call("c", "t", `{}`)), text("ok"))
	}
	sc.SetResult("c", agent.ToolResult{Output: "r"})
	a := newAgent(t, agent.Config{}, agent.Options{Adapter: sc})
	mustProvider(t, a.Service(), "p", tool("t", "", ""))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	readers := sync.WaitGroup{}
	readers.Go(func() { // a reader taking copies while turns run
		for {
			select {
			case <-stop:
				return
			default:
				if b := a.Log().Bytes(); len(b) > 0 && b[len(b)-1] != '\n' {
					t.Error("log copy ends mid-line")
					return
				}
			}
		}
	})
	for range turns {
		wg.Go(func() {
			if err := a.RunTurn(ctx, "go"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()

	log := a.Log().Bytes()
	// Every turn's events are contiguous: turn n's lines all sit between
	// its turn/start and turn/end.
	current := 0
	for i, s := range summarize(log) {
		if n, ok := strings.CutPrefix(s, "turn/start turn="); ok {
			if current != 0 {
				t.Fatalf("line %d: turn %s starts inside turn %d", i+1, n, current)
			}
			current, _ = strconv.Atoi(n)
			continue
		}
		if !strings.Contains(s, "turn="+strconv.Itoa(current)) {
			t.Fatalf("line %d: %q is outside turn %d", i+1, s, current)
		}
		if strings.HasPrefix(s, "turn/end ") {
			current = 0
		}
	}
	if got := strings.Count(string(log), `"type":"turn/end"`); got != turns {
		t.Errorf("%d turns ended, want %d", got, turns)
	}
	assertRebuild(t, log, sc.Requests())
}
