package agent

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/headergold/headergold/internal/assembler"
	"github.com/headergold/headergold/internal/logformat"
	"github.com/tidwall/gjson"
)

// layoutSession runs a random session whose header changes between turns
// (a provider registered late, with names and descriptions that need
// escapes), over enough steps for two-digit step numbers, and returns its
// log and the requests the adapter received.
func layoutSession(t *testing.T, rng *rand.Rand) ([]byte, []*Request) {
	t.Helper()
	l, reqs := layoutLog(t, rng)
	return l.Bytes(), reqs
}

// layoutLog is layoutSession with the session's Log itself.
func layoutLog(t *testing.T, rng *rand.Rand) (*Log, []*Request) {
	t.Helper()
	texts := []string{"plain", `quote " and \ slash`, "tab\tnewline\n", "ünï \u2028 😀", "</script>&", ""}
	tools := func(prefix string, n int) []assembler.Tool {
		ts := make([]assembler.Tool, n)
		for i := range ts {
			ts[i] = assembler.Tool{Name: fmt.Sprintf("%s_%d", prefix, rng.IntN(1000)*10+i), Description: texts[rng.IntN(len(texts))]}
			if rng.IntN(2) == 0 {
				ts[i].Parameters = []byte(`{"type":"object","properties":{"q":{"type":"string","description":"` + fmt.Sprint(rng.IntN(99)) + `"}}}`)
			}
		}
		return ts
	}
	sc := NewScripted()
	turns := 1 + rng.IntN(3)
	steps := make([]int, turns)
	for k := range steps {
		steps[k] = 1 + rng.IntN(12)
		for s := 1; s < steps[k]; s++ {
			id := fmt.Sprintf("t%dc%d", k, s)
			sc.Push(Reply{ToolCalls: []ToolCall{{ID: id, Name: "any", Arguments: []byte(`{}`)}}})
			sc.SetResult(id, ToolResult{Output: "ok"})
		}
		sc.Push(Reply{Text: "done"})
	}
	a, err := New(Config{Persona: texts[rng.IntN(len(texts))], Model: "m"}, Options{Adapter: sc, MaxSteps: 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Service().AddProvider("p0", tools("a", 1+rng.IntN(20))...); err != nil {
		t.Fatal(err)
	}
	for k := range turns {
		if k > 0 && rng.IntN(3) > 0 {
			if err := a.Service().AddProvider(fmt.Sprintf("p%d", k), tools("b", 1+rng.IntN(5))...); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.RunTurn(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
	}
	return a.Log(), sc.Received()
}

// TestHeaderOfLineAgrees: on every request/header line the loop writes,
// headerOfLine finds the header a parse finds, and CheckRequests' layout
// pass (the fast one) is the pass that decides.
func TestHeaderOfLineAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	lines := 0
	for range 300 {
		log, reqs := layoutSession(t, rng)
		for n, line := range logformat.Lines(log) {
			line = bytes.TrimSuffix(line, []byte("\n"))
			if gjson.GetBytes(line, "type").String() != TypeRequestHeader {
				continue
			}
			lines++
			if got, want := headerOfLine(line), gjson.GetBytes(line, "data.header").Raw; string(got) != want {
				t.Fatalf("line %d: headerOfLine = %.80q, a parse reads %.80q", n, got, want)
			}
		}
		if err := checkRequests(textLines(log), reqs, true); err != nil {
			t.Fatalf("the layout pass fails on a log the loop wrote: %v", err)
		}
	}
	if lines < 400 {
		t.Fatalf("only %d request/header lines in 300 sessions", lines)
	}
}

// TestHeaderOfLineOtherLayouts: a line laid out otherwise, or cut, gives
// nil, so the parse reads it.
func TestHeaderOfLineOtherLayouts(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"data":{"turn":1,"step":1,"reason":"initial","header":{"a":1}},"type":"request/header"}`,
		`{"type":"request/header","data":{"step":1,"turn":1,"reason":"initial","header":{"a":1}}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"a":1}} }`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header": {"a":1}}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"in\"itial","header":{"a":1}}}`,
		`{"type":"request/header","data":{"turn":-1,"step":1,"reason":"initial","header":{"a":1}}}`,
		`{"type":"request/header","data":{"turn":1,"step":,"reason":"initial","header":{"a":1}}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":"<<h>>"}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":}}`,
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","head`,
	} {
		if h := headerOfLine([]byte(line)); h != nil {
			t.Errorf("headerOfLine(%s) = %s, want nil", line, h)
		}
	}
	// The one layout it reads, at its smallest.
	if h := headerOfLine([]byte(`{"type":"request/header","data":{"turn":1,"step":1,"reason":"","header":{}}}`)); string(h) != "{}" {
		t.Errorf("headerOfLine of the loop's layout = %q, want {}", h)
	}
}

// TestCheckRequestsLayoutPassIsSound: whatever is done to a log, when the
// layout pass accepts it, the parsing pass accepts it too. Among the
// edits are members after the header (which the layout reads as part of
// it, and a parse does not) and bytes changed inside it.
func TestCheckRequestsLayoutPassIsSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	var layoutPassed, parsedOnly int
	for range 200 {
		log, reqs := layoutSession(t, rng)
		var at []int // offsets of the final "}}" of header lines
		for i := 0; ; {
			j := bytes.Index(log[i:], []byte(`{"type":"request/header"`))
			if j < 0 {
				break
			}
			end := i + j + bytes.IndexByte(log[i+j:], '\n')
			at = append(at, end-2)
			i = end
		}
		for range 20 {
			m := bytes.Clone(log)
			k := at[rng.IntN(len(at))]
			switch rng.IntN(5) {
			case 0: // a member after the header, which a parse skips
				m = slicesInsert(m, k, `,"x":1`)
			case 1: // a member after the header that repeats a header byte
				m = slicesInsert(m, k, `,"header":{}`)
			case 2: // whitespace after the header
				m = slicesInsert(m, k, " ")
			case 3: // one byte of some header changed
				i := rng.IntN(k)
				m[i] = `{}[]",: a\`[rng.IntN(10)]
			case 4: // the same byte changed anywhere
				i := rng.IntN(len(m) - 1)
				m[i] = `{}[]",: a\`[rng.IntN(10)]
			}
			fast, parsed := checkRequests(textLines(m), reqs, true), checkRequests(textLines(m), reqs, false)
			if fast == nil && parsed != nil {
				t.Fatalf("the layout pass accepts an edited log that the parse rejects (%v):\n%s", parsed, m)
			}
			if fast == nil {
				layoutPassed++
			}
			if fast != nil && parsed == nil {
				parsedOnly++
			}
			if err := CheckRequests(m, reqs); (err == nil) != (parsed == nil) {
				t.Fatalf("CheckRequests = %v, the parsing pass = %v", err, parsed)
			}
		}
	}
	// Both kinds must occur, or the test shows nothing: edits the layout
	// pass accepts (a changed byte that a request does not see), and
	// edits that only the parse accepts (a member after the header).
	if layoutPassed < 50 || parsedOnly < 50 {
		t.Fatalf("layout pass accepted %d edited logs, the parse alone %d: too few to show anything", layoutPassed, parsedOnly)
	}
}

func slicesInsert(b []byte, i int, s string) []byte {
	return append(b[:i:i], append([]byte(s), b[i:]...)...)
}

// TestLineTypeAndTurn: reading an event's type and turn by the loop's
// layout gives what a parse gives, on the lines of random sessions and on
// lines laid out otherwise, which fall back to the parse.
func TestLineTypeAndTurn(t *testing.T) {
	check := func(line []byte) {
		t.Helper()
		v := gjson.ParseBytes(line)
		if got, want := lineType(line), v.Get("type").String(); got != want {
			t.Fatalf("lineType(%s) = %q, want %q", line, got, want)
		}
		if got, want := lineTurn(line), int(v.Get("data.turn").Int()); got != want {
			t.Fatalf("lineTurn(%s) = %d, want %d", line, got, want)
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		log, _ := layoutSession(t, rng)
		for _, line := range bytes.Split(bytes.TrimSuffix(log, []byte("\n")), []byte("\n")) {
			check(line)
		}
	}
	for _, line := range []string{
		`{"type":"turn/start","data":{"turn":12}}`,
		`{"type":"turn/end","data":{"turn":3,"reason":"completed"}}`,
		`{"type":"tool\/result","data":{"turn":2}}`,
		`{"type":"a\"b","data":{"turn":2}}`,
		`{"data":{"turn":4},"type":"turn/start"}`,
		`{"type":"turn/start","data":{"step":1,"turn":5}}`,
		`{"type":"turn/start","data":{"turn":05}}`,
		`{"type":"turn/start","data":{"turn":1.5}}`,
		`{"type":"turn/start","data":{"turn":12345678901}}`,
		`{"type":"turn/start","data":{"turn":-2}}`,
		`{"type":"x"}`,
		`{"type":"x","data":{}}`,
		`{"type" : "x"}`,
		`{}`,
	} {
		check([]byte(line))
	}
}

// TestCheckLogAsText: the checks of a Log as the loop wrote it, which take
// its headers as they were assembled, give the verdicts the checks of its
// bytes give: on random sessions, and with the requests one short, one
// too many, or two swapped.
func TestCheckLogAsText(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 17))
	verdict := func(err error) string {
		if err == nil {
			return "ok"
		}
		return err.Error()
	}
	checked := 0
	for range 100 {
		l, reqs := layoutLog(t, rng)
		log := l.Bytes()
		variants := [][]*Request{reqs, reqs[:len(reqs)-1], append(slices.Clone(reqs), reqs[0])}
		if len(reqs) > 1 {
			sw := slices.Clone(reqs)
			sw[0], sw[len(sw)-1] = sw[len(sw)-1], sw[0]
			variants = append(variants, sw)
		}
		for i, v := range variants {
			got, want := verdict(CheckLogRequests(l, v)), verdict(CheckRequests(log, v))
			if got != want {
				t.Fatalf("variant %d: CheckLogRequests: %s; CheckRequests: %s", i, got, want)
			}
			if i == 0 && got != "ok" {
				t.Fatalf("the requests of a session fail their own log: %s", got)
			}
			checked++
		}
		deps := Fixed(assembler.Deps{"any": {"missing"}})
		if got, want := verdict(CheckLogTrace(l, deps)), verdict(CheckTrace(log, deps)); got != want {
			t.Fatalf("CheckLogTrace: %s; CheckTrace: %s", got, want)
		}
	}
	if checked < 300 {
		t.Fatalf("only %d checks", checked)
	}
}
