package drift

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// sessionLog builds a reference-agent log, one turn, one step per entry of
// steps: before the step's request, the header events of that entry (each a
// header object with its reason), then the assistant's answer and step/end.
func sessionLog(steps ...[]hdrEvent) string {
	var b strings.Builder
	b.WriteString(`{"type":"turn/start","data":{"turn":1}}` + "\n")
	for i, evs := range steps {
		step := i + 1
		fmt.Fprintf(&b, `{"type":"step/start","data":{"turn":1,"step":%d}}`+"\n", step)
		for _, e := range evs {
			fmt.Fprintf(&b, `{"type":"request/header","data":{"turn":1,"step":%d,"reason":%q,"header":%s}}`+"\n", step, e.reason, e.header)
		}
		fmt.Fprintf(&b, `{"type":"assistant/message","data":{"turn":1,"step":%d,"text":"ok"}}`+"\n", step)
		fmt.Fprintf(&b, `{"type":"step/end","data":{"turn":1,"step":%d}}`+"\n", step)
	}
	b.WriteString(`{"type":"turn/end","data":{"turn":1,"reason":"completed"}}` + "\n")
	return b.String()
}

type hdrEvent struct{ reason, header string }

func toolsHeader(names ...string) string {
	var ts []string
	for _, n := range names {
		ts = append(ts, fmt.Sprintf(`{"name":%q,"description":"Tool %s.","input_schema":{"type":"object"}}`, n, n))
	}
	return `{"config":{"model":"claude-sonnet-4-5"},"system":"Be brief.","tools":[` + strings.Join(ts, ",") + `]}`
}

// TestHeaderInForce: a header change logged at step 2 on A and at step 3
// on B is found at request 2 (A's header 2, B's header 1), with its path,
// kinds, detail and cost, where pairing header events by index called the
// logs identical.
func TestHeaderInForce(t *testing.T) {
	one, two := toolsHeader("a"), toolsHeader("a", "b")
	a := sessionLog([]hdrEvent{{"initial", one}}, []hdrEvent{{"change", two}}, nil, nil)
	b := sessionLog([]hdrEvent{{"initial", one}}, nil, []hdrEvent{{"change", two}}, nil)
	res := compareBytes(t, []byte(a), []byte(b), Options{})
	checkDrift(t, res, 2, "tools.1", Removed)
	d := res.First
	if d.Request != 2 || d.A.Header != 2 || d.B.Header != 1 || d.A.Turn != 1 || d.A.Step != 2 || d.B.Step != 2 ||
		d.A.Line != 7 || d.A.RequestLine != 6 || d.B.Line != 3 || d.B.RequestLine != 6 ||
		d.A.HeaderStep != 2 || d.B.HeaderStep != 1 || d.A.Reason != "change" || d.B.Reason != "initial" {
		t.Fatalf("first %+v\nA %+v\nB %+v", d, d.A, d.B)
	}
	if d.Tools == nil || len(d.Tools.RemovedAt) != 1 || d.Tools.RemovedAt[0] != 1 || d.Content != nil {
		t.Fatalf("tools %+v", d.Tools)
	}
	if res.Cache == nil || res.Cache.LostTokens == 0 {
		t.Fatalf("not priced: %q", res.CacheNote)
	}
	// Request 3 is under [a, b] on both sides, request 4 too: only
	// request 2 differs.
	if res.LaterDiffering != 0 || res.Requests != (Counts{4, 4}) || res.Headers != (Counts{2, 2}) {
		t.Fatalf("got %+v", res)
	}
	var text strings.Builder
	res.WriteText(&text)
	for _, want := range []string{
		"drift: request 2 differs at tools.1\n",
		"  A: A request 2 (turn 1 step 2, line 6) under header 2 (line 7, change at turn 1 step 2), data.header.tools.1 at byte 218\n",
		"  B: B request 2 (turn 1 step 2, line 6) under header 1 (line 3, initial at turn 1 step 1), absent\n",
		"later requests differing: 0 (requests: A 4, B 4; headers: A 2, B 2)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	// The other way round, the same request, B's header index.
	back := compareBytes(t, []byte(b), []byte(a), Options{})
	checkDrift(t, back, 1, "tools.1", Added)
	if back.First.Request != 2 || back.First.B.Header != 2 {
		t.Fatalf("back: %+v", back.First)
	}
}

// TestHeaderEventOnOneSide: a header event on one side only is compared
// as what it puts in force, not as a shifted pair: a resume that repeats
// the header is no drift, and a change on A only is found at the request
// it applies to, with its detail.
func TestHeaderEventOnOneSide(t *testing.T) {
	one, two := toolsHeader("a"), toolsHeader("b", "a")
	plain := sessionLog([]hdrEvent{{"initial", one}}, nil, nil, nil)
	resumed := sessionLog([]hdrEvent{{"initial", one}}, nil, []hdrEvent{{"resume", one}}, nil)
	res := compareBytes(t, []byte(plain), []byte(resumed), Options{})
	if !res.Identical || res.Headers != (Counts{1, 2}) || res.Requests != (Counts{4, 4}) {
		t.Fatalf("a resume repeating the header: %+v / %+v", res, res.First)
	}
	var text strings.Builder
	res.WriteText(&text)
	if text.String() != "identical: 4 requests, each pair under the same headers (headers: A 1, B 2)\n" {
		t.Fatalf("text %q", text.String())
	}
	changed := sessionLog([]hdrEvent{{"initial", one}}, nil, []hdrEvent{{"change", two}}, nil)
	res = compareBytes(t, []byte(changed), []byte(resumed), Options{})
	checkDrift(t, res, 2, "tools.0", Removed)
	// Pairs compared: request 1 (headers 1, 1) and request 3 (2, 2); 2
	// and 4 are under the headers of the pair before.
	if res.First.Request != 3 || res.First.B.Header != 2 || res.First.B.Reason != "resume" || res.LaterDiffering != 1 || res.Cache == nil || res.compared != 2 {
		t.Fatalf("got %+v / %+v (%q)", res, res.First, res.CacheNote)
	}
}

// TestCapturedHeaderInForce: in a captured log each capture/request is a
// request under the header in force, so a change one request later on B
// is found at the request where the headers first differ, its
// conversation priced.
func TestCapturedHeaderInForce(t *testing.T) {
	capturedLog := func(changeAt int) string {
		var b strings.Builder
		for n := 1; n <= 4; n++ {
			switch n {
			case 1:
				fmt.Fprintf(&b, `{"type":"request/header","data":{"request":%d,"reason":"initial","format":"anthropic","header":%s}}`+"\n", n, toolsHeader("a"))
			case changeAt:
				fmt.Fprintf(&b, `{"type":"request/header","data":{"request":%d,"reason":"change","format":"anthropic","header":%s}}`+"\n", n, toolsHeader("a", "b"))
			}
			fmt.Fprintf(&b, `{"type":"capture/request","data":{"request":%d,"format":"anthropic","path":"/v1/messages","body":{"model":"<<config>>","system":"<<system>>","tools":"<<tools>>","messages":[{"role":"user","content":"question %d"}]}}}`+"\n", n, n)
			fmt.Fprintf(&b, `{"type":"capture/reply","data":{"request":%d,"reply":{"text":"ok"}}}`+"\n", n)
		}
		return b.String()
	}
	res := compareBytes(t, []byte(capturedLog(2)), []byte(capturedLog(3)), Options{})
	checkDrift(t, res, 2, "tools.1", Removed)
	d := res.First
	if d.Request != 2 || d.A.Request != 2 || d.B.Request != 2 || d.B.Header != 1 || d.B.HeaderRequest != 1 || d.A.RequestLine != 5 || d.B.RequestLine != 4 {
		t.Fatalf("A %+v\nB %+v", d.A, d.B)
	}
	if res.Cache == nil || strings.Contains(res.CacheNote, "conversation is not counted") {
		t.Fatalf("the captured conversation is not priced: %q", res.CacheNote)
	}
	if res.LaterDiffering != 0 || res.Requests != (Counts{4, 4}) {
		t.Fatalf("got %+v", res)
	}
}

// TestRequestCountsDiffer: sessions with more requests on one side are
// drift even when every shared request has the same header.
func TestRequestCountsDiffer(t *testing.T) {
	h := []hdrEvent{{"initial", toolsHeader("a")}}
	five := sessionLog(h, nil, nil, nil, nil)
	four := sessionLog(h, nil, nil, nil)
	res := compareBytes(t, []byte(five), []byte(four), Options{})
	if res.Identical || res.First != nil || res.CountNote != "A has 5 requests, B has 4; the 4 they share have the same headers" {
		t.Fatalf("got %+v", res)
	}
	var js bytes.Buffer
	res.WriteJSON(&js)
	if !strings.Contains(js.String(), `"countNote": "A has 5 requests, B has 4; the 4 they share have the same headers"`) ||
		!strings.Contains(js.String(), `"requests": {`+"\n"+`    "a": 5,`) {
		t.Fatalf("JSON:\n%s", js.String())
	}
}

// TestTruncatedStep: a step whose request was opened but nothing after it
// was logged still counts as a request under the header in force.
func TestTruncatedStep(t *testing.T) {
	h := toolsHeader("a")
	a := `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n" +
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":` + h + `}}` + "\n" +
		`{"type":"step/start","data":{"turn":1,"step":2}}` + "\n"
	res := compareBytes(t, []byte(a), []byte(a), Options{})
	if !res.Identical || res.Requests != (Counts{2, 2}) {
		t.Fatalf("got %+v", res)
	}
	// A step with no header in force is invalid input.
	_, err := Compare(Source{"A", strings.NewReader(`{"type":"step/start","data":{"turn":1,"step":1}}` + "\n" + `{"type":"step/end","data":{"turn":1,"step":1}}` + "\n")},
		Source{"B", strings.NewReader(a)}, Options{})
	if err == nil || !strings.Contains(err.Error(), "A:1: the request of turn 1 step 1 has no header in force") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnchangedHeadersNotCompared: a pair is compared only when a header
// in force changed, so two logs of many steps whose one header differs
// in bytes but not in value (its reason) compare it once, not per step,
// and parse it once.
func TestUnchangedHeadersNotCompared(t *testing.T) {
	h := logHeaderJSON(syntheticHeader())
	steps := make([][]hdrEvent, 2000)
	steps[0] = []hdrEvent{{"initial", string(h)}}
	a := sessionLog(steps...)
	steps[0] = []hdrEvent{{"resume", string(h)}}
	b := sessionLog(steps...)
	var res *Result
	used := allocated(t, func() { res = compareBytes(t, []byte(a), []byte(b), Options{}) })
	if !res.Identical || res.Requests != (Counts{2000, 2000}) || res.compared != 1 {
		t.Fatalf("got %+v", res)
	}
	// Parsing the header allocates about 60 kB: per step, 120 MB.
	if used > 8<<20 {
		t.Fatalf("allocated %d kB for 2000 steps under one header", used>>10)
	}
}
