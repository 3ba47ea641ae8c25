package stability

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/drift"
)

// logOf writes a small session log: the tools run in order with their
// outputs, then the final answer.
func logOf(answer string, calls ...[2]string) string {
	var b strings.Builder
	b.WriteString(`{"type":"turn/start","data":{"turn":1}}` + "\n")
	for i, c := range calls {
		fmt.Fprintf(&b, `{"type":"assistant/message","data":{"turn":1,"step":%d,"toolCalls":[{"id":"c%d","name":%q,"arguments":{}}]}}`+"\n", i+1, i, c[0])
		fmt.Fprintf(&b, `{"type":"tool/result","data":{"turn":1,"step":%d,"callId":"c%d","name":%q,"output":%q}}`+"\n", i+1, i, c[0], c[1])
	}
	fmt.Fprintf(&b, `{"type":"assistant/message","data":{"turn":1,"step":%d,"text":%q}}`+"\n", len(calls)+1, answer)
	return b.String()
}

var (
	create = [2]string{"create_issue", "#12"}
	notify = [2]string{"notify", "sent"}
	fail   = [2]string{"notify", "error: no issue"}
)

func runsOf(t *testing.T, logs ...string) []Run {
	t.Helper()
	var runs []Run
	for i, l := range logs {
		r, err := ReadRun(fmt.Sprintf("run-%d", i+1), strings.NewReader(l))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestQuadrants(t *testing.T) {
	good := logOf("Created #12 and notified.", create, notify)
	swapped := logOf("Created #12 and notified.", notify, create) // other order, same final results and answer
	brittle := logOf("Could not notify.", create, fail)
	other := logOf("Could not notify.", notify, fail)
	for _, tc := range []struct {
		name             string
		logs             []string
		threshold        float64
		quadrant         string
		stability, robus float64
	}{
		{"stable and robust", []string{good, good, good, good}, 0.8, StableRobust, 1, 1},
		{"robust", []string{good, swapped, good, swapped, good}, 0.9, Robust, 0.6, 1},
		{"stable but brittle", []string{good, good, brittle, good, brittle}, 0.9, StableBrittle, 1, 0.6},
		{"neither", []string{good, swapped, brittle, other}, 0.8, Neither, 0.5, 0.5},
		// A share at the threshold counts; the threshold decides.
		{"neither at 0.5 is stable and robust", []string{good, swapped, brittle, other}, 0.5, StableRobust, 0.5, 0.5},
		{"robust at 0.6 is stable too", []string{good, swapped, good, swapped, good}, 0.6, StableRobust, 0.6, 1},
		{"stable but brittle at 0.61 stays", []string{good, good, brittle, good, brittle}, 0.61, StableBrittle, 1, 0.6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep := Analyze(runsOf(t, tc.logs...), tc.threshold)
			if rep.Quadrant != tc.quadrant || rep.Stability != tc.stability || rep.Robustness != tc.robus {
				t.Errorf("threshold %.2f: got %s (stability %.2f, robustness %.2f), want %s (%.2f, %.2f)",
					tc.threshold, rep.Quadrant, rep.Stability, rep.Robustness, tc.quadrant, tc.stability, tc.robus)
			}
		})
	}
}

func TestMostCommonOrderAndPerRun(t *testing.T) {
	good := logOf("ok", create, notify)
	swapped := logOf("ok", notify, create)
	rep := Analyze(runsOf(t, swapped, good, good), 0.5)
	if !slices.Equal(rep.Order, []string{"create_issue", "notify"}) || rep.Orders != 2 || rep.Outcomes != 1 {
		t.Errorf("report %+v", rep)
	}
	if rep.PerRun[0].OrderMatches || !rep.PerRun[1].OrderMatches || !rep.PerRun[0].OutcomeMatches {
		t.Errorf("per run %+v", rep.PerRun)
	}
}

func TestReadRunRejectsWhatIsNotALog(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"foo":1}` + "\n", "x:1: not a session log event"},
		{logOf("ok") + `{"type":"turn/start"` + "\n", "x:3:21: invalid JSON: unexpected end of JSON input in object"},
		{`{"type":"turn/start","data":{"turn":1,,}}` + "\n", "x:1:39: invalid JSON: invalid character ','"},
		// Columns count characters: ü is one, of two bytes.
		{`{"type":"tür","data":{"turn":01}}` + "\n", "x:1:31: invalid JSON: invalid character '1' after object member"},
		{logOf("ok") + "[1,2]\n", "x:3: not a session log event"},
		{"", "x: no events"},
		{`{"type":"turn/start","data":{"turn":1}}`, ""}, // no final newline is fine
	} {
		_, err := ReadRun("x", strings.NewReader(tc.in))
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("ReadRun(%q) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestExecutedOrderSkipsRefusedAndReplayed: the order counts calls that
// ran; refused (error) and replayed results did not run, but the last
// output of each tool still makes the outcome.
func TestExecutedOrderSkipsRefusedAndReplayed(t *testing.T) {
	log := `{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c1","name":"notify","output":"batch refused","error":true}}
{"type":"tool/result","data":{"turn":1,"step":1,"callId":"c2","name":"create","output":"batch refused","error":true}}
{"type":"tool/result","data":{"turn":1,"step":2,"callId":"c3","name":"create","output":"#1"}}
{"type":"tool/result","data":{"turn":1,"step":2,"callId":"c4","name":"create","output":"#1","replayed":true}}
{"type":"tool/result","data":{"turn":1,"step":2,"callId":"c5","name":"notify","output":"sent"}}
`
	r, err := ReadRun("x", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Order, []string{"create", "notify"}) || r.Results["notify"] != "sent" || r.Results["create"] != "#1" {
		t.Errorf("order %v results %v", r.Order, r.Results)
	}
}

// TestCapturedLogs: a captured log's order is the tool calls of its
// replies and its answer their last text, so two captured runs that call
// other tools and answer otherwise are neither stable nor robust.
func TestCapturedLogs(t *testing.T) {
	log := func(tool, answer string) string {
		return `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"m"}}}}
{"type":"capture/request","data":{"request":1,"format":"anthropic","path":"/v1/messages","body":{"model":"<<config>>","messages":[]}}}
{"type":"capture/reply","data":{"request":1,"reply":{"text":"looking","toolCalls":[{"id":"t1","name":"` + tool + `","arguments":{}},{"id":"t2","name":"search","arguments":{}}]}}}
{"type":"capture/reply","data":{"request":2,"reply":{"text":"` + answer + `"}}}
`
	}
	a, err := ReadRun("a", strings.NewReader(log("get_weather", "12 °C")))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Order, []string{"get_weather", "search"}) || a.Answer != "12 °C" {
		t.Errorf("order %v answer %q", a.Order, a.Answer)
	}
	b, err := ReadRun("b", strings.NewReader(log("get_time", "3 pm")))
	if err != nil {
		t.Fatal(err)
	}
	if a.orderKey() == b.orderKey() || a.outcomeKey() == b.outcomeKey() {
		t.Errorf("two different captured runs read alike: %+v %+v", a, b)
	}
}

// TestDeepLineRefused: a log line nested past the limit every log reader
// holds to is refused before it is parsed, naming the file, line, column
// and depth; ten million deep does not overflow the stack.
func TestDeepLineRefused(t *testing.T) {
	for _, depth := range []int{100_000, 10_000_000} {
		const head = `{"type":"tool/result","data":{"output":`
		log := logOf("done", create) + head + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "}}\n"
		_, err := ReadRun("deep.jsonl", strings.NewReader(log))
		var ie *drift.InputError
		// Line 5; the event and data objects are two levels, so the
		// limit is passed at the 9,999th bracket after the head.
		want := fmt.Sprintf("deep.jsonl:5:%d: nesting %d deep, deeper than the limit of 10000", len(head)+9999, depth+2)
		if !errors.As(err, &ie) || err.Error() != want {
			t.Fatalf("depth %d: err = %v, want %s", depth, err, want)
		}
	}
	// At the limit, the line is read.
	log := logOf("done", create) + `{"type":"tool/result","data":{"name":"x","output":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + "}}\n"
	if _, err := ReadRun("ok.jsonl", strings.NewReader(log)); err != nil {
		t.Fatalf("a line %d deep: %v", drift.MaxDepth, err)
	}
}

// TestLongLineCut: the line reader holds at most one byte past its limit
// of a line, so that the record check refuses it without the rest being
// read; shorter lines come whole.
func TestLongLineCut(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nnext\nlast"
	lr := lineReader{br: bufio.NewReaderSize(strings.NewReader(in), 16), limit: 10}
	line, err := lr.next()
	if string(line) != "short" || err != nil {
		t.Fatalf("first line %q, %v", line, err)
	}
	line, err = lr.next()
	if len(line) != 11 || err != nil {
		t.Fatalf("long line: %d bytes, %v; want the limit plus one", len(line), err)
	}
	// What it holds is that much, not a buffer grown past it (beyond
	// the allocator's rounding to a page).
	const limit = 1 << 20
	lr = lineReader{br: bufio.NewReaderSize(strings.NewReader(strings.Repeat("x", 3*limit)+"\n"), 64<<10), limit: limit}
	if line, err := lr.next(); len(line) != limit+1 || err != nil {
		t.Fatalf("long line: %d bytes, %v; want the limit plus one", len(line), err)
	}
	if cap(lr.buf) > limit+1+8<<10 {
		t.Errorf("the reader grew its buffer to %d bytes for a limit of %d", cap(lr.buf), limit)
	}
	// A line of the limit exactly comes whole.
	lr = lineReader{br: bufio.NewReaderSize(strings.NewReader(strings.Repeat("y", 10)+"\nz\n"), 16), limit: 10}
	if line, err := lr.next(); string(line) != strings.Repeat("y", 10) || err != nil {
		t.Fatalf("line of the limit: %q, %v", line, err)
	}
	if line, err := lr.next(); string(line) != "z" || err != nil {
		t.Fatalf("line after it: %q, %v", line, err)
	}
	if err := drift.CheckRecord("f", 2, bytes.Repeat([]byte("x"), drift.MaxRecordSize+1)); err == nil ||
		!strings.Contains(err.Error(), "f:2: record longer than") {
		t.Fatalf("record past the size limit: %v", err)
	}
	lr = lineReader{br: bufio.NewReaderSize(strings.NewReader("a\nb"), 16), limit: 10}
	lr.next()
	if line, err := lr.next(); string(line) != "b" || err != io.EOF {
		t.Fatalf("last line without newline: %q, %v", line, err)
	}
}

// Orders are compared name by name, whatever bytes the names hold.
func TestOrderKeysApart(t *testing.T) {
	for _, pair := range [][2][]string{
		{{"a\x00b"}, {"a", "b"}},
		{{"x\xff"}, {"x\xfe"}},
		{{""}, nil},
		{{"a,b"}, {"a", "b"}},
	} {
		if a, b := (Run{Order: pair[0]}).orderKey(), (Run{Order: pair[1]}).orderKey(); a == b {
			t.Errorf("%q and %q have one key, %q", pair[0], pair[1], a)
		}
	}
}
