package drift

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

// TestDetectionMarks: every mark the package documentation names makes
// the detection sure, of OpenAI Chat or of Anthropic, and a body with
// none of them is OpenAI Chat, not sure.
func TestDetectionMarks(t *testing.T) {
	user := `{"role":"user","content":"hi"}`
	for _, tc := range []struct {
		name, body string
		format     wire.Format
		sure       bool
	}{
		{"no mark", `{"model":"m","messages":[` + user + `]}`, wire.OpenAIChat, false},
		{"system message", `{"model":"m","messages":[{"role":"system","content":"S"},` + user + `]}`, wire.OpenAIChat, true},
		{"developer message", `{"model":"m","messages":[{"role":"developer","content":"S"},` + user + `]}`, wire.OpenAIChat, true},
		{"function tool", `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"a"}}]}`, wire.OpenAIChat, true},
		{"custom tool", `{"model":"m","messages":[],"tools":[{"type":"custom","custom":{"name":"a"}}]}`, wire.OpenAIChat, true},
		{"max_completion_tokens", `{"model":"m","max_completion_tokens":1,"messages":[]}`, wire.OpenAIChat, true},
		{"response_format", `{"model":"m","response_format":{"type":"text"},"messages":[]}`, wire.OpenAIChat, true},
		{"tool with a top-level name", `{"model":"m","messages":[],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`, wire.Anthropic, true},
		{"stop_sequences", `{"model":"m","stop_sequences":["x"],"messages":[]}`, wire.Anthropic, true},
		{"top_k", `{"model":"m","top_k":1,"messages":[]}`, wire.Anthropic, true},
		{"thinking", `{"model":"m","thinking":{"type":"enabled","budget_tokens":1024},"messages":[]}`, wire.Anthropic, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info, err := checkBody([]byte(tc.body), FormatAuto, nil)
			if err != nil || info.format != tc.format || info.sure != tc.sure {
				t.Fatalf("got %s (sure %v, %v), want %s (sure %v)", info.format, info.sure, err, tc.format, tc.sure)
			}
		})
	}
	// Through Compare: a developer message makes a body OpenAI Chat
	// beside an Anthropic one (different formats), and thinking makes a
	// body Anthropic beside an OpenAI Chat one.
	anthropic := `{"model":"m","top_k":1,"messages":[` + user + `]}`
	dev := `{"model":"m","messages":[{"role":"developer","content":"S"},` + user + `]}`
	res := compareBytes(t, []byte(dev+"\n"), []byte(anthropic+"\n"), Options{NoCost: true})
	if d := res.First; d == nil || d.A.Format != FormatOpenAIChat || d.B.Format != FormatAnthropic || !strings.Contains(d.Cause, "different formats") {
		t.Errorf("a developer message beside Anthropic: %+v", d)
	}
	chat := `{"model":"m","messages":[{"role":"system","content":"S"},` + user + `]}`
	thinking := `{"model":"m","thinking":{"type":"enabled","budget_tokens":1024},"messages":[` + user + `]}`
	res = compareBytes(t, []byte(chat+"\n"), []byte(thinking+"\n"), Options{NoCost: true})
	if d := res.First; d == nil || d.A.Format != FormatOpenAIChat || d.B.Format != FormatAnthropic {
		t.Errorf("thinking beside OpenAI Chat: %+v", d)
	}
}

// TestFormatContext: a sure body is read in its own format whatever its
// input's earlier bodies were read in, and the fallback (OpenAI Chat for
// a body nothing decides) establishes nothing: a later ambiguous body
// beside a sure one is read in the sure one's format.
func TestFormatContext(t *testing.T) {
	bare := `{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"hi"}]}`
	topK := `{"model":"m","max_tokens":1,"top_k":1,"messages":[{"role":"user","content":"hi"}]}`
	// Request 1: both ambiguous, read as OpenAI Chat alike. Request 2:
	// A's ambiguous body is read as B's sure Anthropic one.
	res := compareBytes(t, []byte(bare+"\n"+bare+"\n"), []byte(bare+"\n"+topK+"\n"), Options{NoCost: true})
	checkDrift(t, res, 2, "config.top_k", Content)
	if d := res.First; d.A.Format != FormatAnthropic || d.B.Format != FormatAnthropic || strings.Contains(d.Cause, "different formats") {
		t.Fatalf("the fallback established a format: A %s, B %s, cause %q", d.A.Format, d.B.Format, d.Cause)
	}
	// Request 1 is Anthropic on both sides; request 2 is OpenAI Chat,
	// surely (a system message), on both sides.
	anthropic := `{"model":"m","max_tokens":1,"system":"S","messages":[]}`
	chat := func(text string) string {
		return `{"model":"m","messages":[{"role":"system","content":"` + text + `"},{"role":"user","content":"hi"}]}`
	}
	res = compareBytes(t, []byte(anthropic+"\n"+chat("S")+"\n"), []byte(anthropic+"\n"+chat("T")+"\n"), Options{NoCost: true})
	checkDrift(t, res, 2, "system.0.content", Content)
	if d := res.First; d.A.Format != FormatOpenAIChat || d.B.Format != FormatOpenAIChat {
		t.Fatalf("a sure body read in its input's earlier format: A %s, B %s", d.A.Format, d.B.Format)
	}
}

// TestBodyNotTemplated: a request body whose system text reads
// "<<system>>" is not templated, even beside a session log: its system
// is compared (and priced), not left out.
func TestBodyNotTemplated(t *testing.T) {
	log := `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"m"},"system":"S"}}}` + "\n" +
		`{"type":"capture/request","data":{"request":1,"format":"anthropic","body":{"model":"m","system":"<<system>>","messages":[]}}}` + "\n"
	body := `{"model":"m","system":"<<system>>","messages":[]}` + "\n"
	for _, p := range [][2]string{{log, body}, {body, log}} {
		res := compareBytes(t, []byte(p[0]), []byte(p[1]), Options{NoCost: true})
		checkDrift(t, res, 1, "system", Content)
		if len(res.NotCompared) != 0 {
			t.Errorf("not compared: %+v", res.NotCompared)
		}
	}
	// Two bodies, one with that system text: priced at the system,
	// which Anthropic renders after the (equal) tools.
	b := func(system string) []byte {
		return []byte(`{"model":"claude-sonnet-4-5","max_tokens":1,"system":"` + system + `","tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[]}` + "\n")
	}
	res := compareBytes(t, b("S"), b("<<system>>"), Options{})
	checkDrift(t, res, 1, "system", Content)
	if res.Cache == nil || res.CacheAt.Segment != "system" || res.CacheAt.Offset != 1 || res.Cache.LostTokens == 0 || strings.Contains(res.CacheNote, "templated") {
		t.Fatalf("cache %+v at %+v, note %q", res.Cache, res.CacheAt, res.CacheNote)
	}
}

// TestResumeOnTemplatedSide: a header event on one side only whose
// reason is not change (a resume, with the same header) is no drift,
// even where a template leaves the rest of the header out.
func TestResumeOnTemplatedSide(t *testing.T) {
	hdr := func(reason string) []hdrEvent {
		return []hdrEvent{{reason, `{"config":{"model":"m"},"system":"<<system>>","tools":"<<tools>>"}`}}
	}
	a := sessionLog(hdr("initial"), hdr("resume"))
	b := sessionLog(hdr("initial"), nil)
	for _, p := range [][2]string{{a, b}, {b, a}} {
		res := compareBytes(t, []byte(p[0]), []byte(p[1]), Options{NoCost: true})
		if !res.Identical {
			t.Fatalf("a resume event on one side: %+v", res.First)
		}
	}
	// The same event with reason change is drift hidden by the template.
	c := sessionLog(hdr("initial"), hdr("change"))
	res := compareBytes(t, []byte(c), []byte(b), Options{NoCost: true})
	if res.First == nil || res.First.Request != 2 || !strings.Contains(res.First.Cause, "A's log records a header change here") {
		t.Fatalf("a change event on one side: %+v", res.First)
	}
}

// TestHiddenChangePriced: a templated A that records no change where a
// full B records one is priced from B's header before the change.
func TestHiddenChangePriced(t *testing.T) {
	h := func(system, tools string) []hdrEvent {
		return []hdrEvent{{"change", `{"config":{"model":"claude-sonnet-4-5"},"system":` + system + `,"tools":` + tools + `}`}}
	}
	golden := sessionLog(h(`"<<system>>"`, `"<<tools>>"`), nil)
	one, two := `[{"name":"a","input_schema":{"type":"object"}}]`, `[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"}}]`
	full := sessionLog(h(`"S"`, one), h(`"S"`, two))
	res := compareBytes(t, []byte(golden), []byte(full), Options{})
	if res.First == nil || res.First.Request != 2 || !strings.Contains(res.First.Cause, "B's log records a header change here") {
		t.Fatalf("first %+v", res.First)
	}
	// B's tools before the change are a prefix of its tools after it,
	// up to the "]" of the first list.
	if res.Cache == nil || res.CacheAt.Segment != "tools" || res.CacheAt.Offset != len(one)-1 || res.Cache.LostTokens == 0 || res.Cache.KeptTokens == 0 ||
		!strings.Contains(res.CacheNote, "A's header is taken to be B's header before this change") {
		t.Fatalf("cache %+v at %+v, note %q", res.Cache, res.CacheAt, res.CacheNote)
	}
}

// TestConversationPriced: where the headers differ only in the config's
// encoding, the first difference in render order can be in the
// conversation, which both bodies hold: it is priced there.
func TestConversationPriced(t *testing.T) {
	a := `{"model":"claude-sonnet-4-5","max_tokens":1,"system":"S","messages":[{"role":"user","content":"hi"}]}` + "\n"
	b := `{"max_tokens":1,"model":"claude-sonnet-4-5","system":"S","messages":[{"role":"user","content":"hello"}]}` + "\n"
	res := compareBytes(t, []byte(a), []byte(b), Options{})
	checkDrift(t, res, 1, "config", Encoding)
	if res.Cache == nil || res.CacheAt.Segment != "messages" || res.CacheAt.Offset != len(`[{"role":"user","content":"h`) ||
		res.Cache.LostTokens == 0 || res.Cache.KeptTokens == 0 {
		t.Fatalf("cache %+v at %+v, note %q", res.Cache, res.CacheAt, res.CacheNote)
	}
}

// TestHeaderEventsInAStep: the request of a step is dispatched under the
// last header event before its first other event; a header event logged
// after the step's answer is in force from the next request.
func TestHeaderEventsInAStep(t *testing.T) {
	one, two := toolsHeader("a"), toolsHeader("a", "b")
	// Two header events before step 1's request: one request, under the
	// second.
	a := sessionLog([]hdrEvent{{"initial", one}, {"change", two}}, nil)
	b := sessionLog([]hdrEvent{{"initial", two}}, nil)
	res := compareBytes(t, []byte(a), []byte(b), Options{NoCost: true})
	if !res.Identical || res.Requests != (Counts{2, 2}) || res.Headers != (Counts{2, 1}) {
		t.Fatalf("two header events in a step: %+v, first %+v", res, res.First)
	}
	// A header event after step 1's answer: step 1 was sent under the
	// header before it.
	late := strings.Replace(sessionLog([]hdrEvent{{"initial", one}}, nil),
		`{"type":"step/end","data":{"turn":1,"step":1}}`+"\n",
		`{"type":"request/header","data":{"turn":1,"step":1,"reason":"change","header":`+two+"}}\n"+`{"type":"step/end","data":{"turn":1,"step":1}}`+"\n", 1)
	early := sessionLog([]hdrEvent{{"initial", one}}, []hdrEvent{{"change", two}})
	res = compareBytes(t, []byte(late), []byte(early), Options{NoCost: true})
	if !res.Identical || res.Requests != (Counts{2, 2}) {
		t.Fatalf("a header event after the answer: %+v, first %+v", res, res.First)
	}
}

// TestFramedEvents: a line in the canonical layout is only framed by its
// first bytes where that is safe: a type written with an escape is read
// as JSON reads it, and a line cut short is invalid even when both
// inputs hold it byte for byte.
func TestFramedEvents(t *testing.T) {
	// After the first line, which decides that the input is a log and
	// is validated whole.
	plain := `{"type":"turn/start","data":{"turn":1}}` + "\n" + logLine(toolsHeader("a"))
	escaped := strings.Replace(plain, `"request/header"`, `"request\/header"`, 1)
	res := compareBytes(t, []byte(escaped), []byte(plain), Options{NoCost: true})
	if !res.Identical || res.Headers != (Counts{1, 1}) {
		t.Fatalf("an escaped type: %+v, first %+v", res, res.First)
	}
	cut := plain + `{"type":"turn/end","data":{"turn":1`
	_, err := Compare(Source{"A", strings.NewReader(cut)}, Source{"B", strings.NewReader(cut)}, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "A" || ie.Line != 3 {
		t.Fatalf("two copies of a log cut short: %v", err)
	}
}

// TestEventLineAmongBodies: a line of a file of bodies is validated as a
// body even when it is byte-identical to the other input's event line.
func TestEventLineAmongBodies(t *testing.T) {
	event := logLine(`{"config":{"model":"m"}}`)
	body := `{"model":"m","messages":[]}` + "\n"
	_, err := Compare(Source{"A", strings.NewReader(event)}, Source{"B", strings.NewReader(body + event)}, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "B" || ie.Line != 2 || !strings.Contains(err.Error(), "cannot tell the wire format") {
		t.Fatalf("got %v, want B:2 not a body", err)
	}
}

// TestDroppedLastLine: a long event line dropped as it is read, the last
// line of its input with no newline, is placed on its own line when it
// is invalid.
func TestDroppedLastLine(t *testing.T) {
	log := logLine(`{"config":{"model":"m"}}`)
	cut := log + `{"type":"tool/result","data":{"output":"` + strings.Repeat("x", 2*readBufferSize) + `"`
	// A reader that does not say its length gets the full read buffer,
	// so the long line is dropped, not gathered.
	_, err := Compare(Source{"A", io.MultiReader(strings.NewReader(cut))}, Source{"B", strings.NewReader(log)}, Options{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "A" || ie.Line != 2 {
		t.Fatalf("got %v, want an InputError at A:2", err)
	}
}

// TestPrettyFirstLineColon: a first line ending in ":" opens a value:
// the input is read as pretty-printed values.
func TestPrettyFirstLineColon(t *testing.T) {
	pretty := "{\"model\":\n\"m\",\"max_tokens\":1,\"system\":\"S\",\"messages\":[]}\n"
	one := `{"model":"m","max_tokens":1,"system":"S","messages":[]}` + "\n"
	if res := compareBytes(t, []byte(pretty), []byte(one), Options{NoCost: true}); !res.Identical {
		t.Fatalf("got %+v", res.First)
	}
}

// TestFormatOption: an unknown format is refused before anything is
// read, and -format log reads bodies as what they are not: events.
func TestFormatOption(t *testing.T) {
	body := `{"model":"m","max_tokens":1,"system":"S","messages":[]}` + "\n"
	_, err := Compare(Source{"A", strings.NewReader(body)}, Source{"B", strings.NewReader(body)}, Options{Format: "anthropics"})
	var ie *InputError
	if err == nil || errors.As(err, &ie) || !strings.Contains(err.Error(), `unknown format "anthropics"`) {
		t.Fatalf("an unknown format: %v", err)
	}
	_, err = Compare(Source{"A", strings.NewReader(body)}, Source{"B", strings.NewReader(body)}, Options{Format: FormatLog})
	if !errors.As(err, &ie) || ie.Line != 1 || !strings.Contains(err.Error(), "not a session-log event") {
		t.Fatalf("bodies read as a log: %v", err)
	}
}

// TestGeminiConfigNested: Gemini's camelCase and snake_case spellings
// pair the config's own members only; deeper down, keys are data.
func TestGeminiConfigNested(t *testing.T) {
	body := func(key string) []byte {
		return []byte(`{"contents":[],"labels":{"` + key + `":"x"}}` + "\n")
	}
	res := compareBytes(t, body("team_a"), body("teamA"), Options{NoCost: true})
	// Of two members at one position, the lower key comes first.
	checkDrift(t, res, 1, "config.labels.teamA", Content)
	if d := res.First.Diffs; len(d) != 2 || d[0].Note != "added member" || d[1].Path != "config.labels.team_a" || d[1].Note != "removed member" {
		t.Fatalf("diffs %+v", d)
	}
}

// TestOpenAIChatSegments: the segments of an OpenAI Chat request are B's,
// its system messages and the conversation after them, the placeholder
// standing for the system messages left out.
func TestOpenAIChatSegments(t *testing.T) {
	body := func(system, user string) []byte {
		return []byte(`{"model":"gpt-4o","messages":[{"role":"system","content":"` + system + `"},{"role":"user","content":"` + user + `"}]}` + "\n")
	}
	res := compareBytes(t, body("S", "hi"), body("T", "hello there"), Options{})
	checkDrift(t, res, 1, "system.0.content", Content)
	want := map[string]int{"tools": 0, "system": len(`[{"role":"system","content":"T"}]`), "messages": len(`[{"role":"user","content":"hello there"}]`)}
	if res.Cache == nil || len(res.cacheSizes) != 3 || res.cacheSizes["tools"] != want["tools"] || res.cacheSizes["system"] != want["system"] || res.cacheSizes["messages"] != want["messages"] {
		t.Fatalf("cache %+v (%q), sizes %v, want %v", res.Cache, res.CacheNote, res.cacheSizes, want)
	}
	if res.CacheAt.Segment != "system" || res.CacheAt.Offset != len(`[{"role":"system","content":"`) || res.CacheAt.Length != want["system"] {
		t.Fatalf("at %+v", res.CacheAt)
	}
}

// TestCaptureInAStep: a capture/request event is a step's first event
// that is not a request/header: the open step's request is dispatched
// before it, under the header in force then.
func TestCaptureInAStep(t *testing.T) {
	hdr := func(model string) string {
		return `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"` + model + `"}}}}` + "\n"
	}
	log := hdr("m1") + `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n" +
		`{"type":"capture/request","data":{"request":1,"format":"anthropic","body":{"model":"<<config>>","messages":[]}}}` + "\n" +
		hdr("m2") + `{"type":"assistant/message","data":{"turn":1,"step":1,"text":"ok"}}` + "\n"
	// The step's request and the captured one under m1, and the header
	// event no request follows, m2.
	res := compareBytes(t, []byte(log), []byte(log), Options{NoCost: true})
	if !res.Identical || res.Requests != (Counts{3, 3}) || res.Headers != (Counts{2, 2}) {
		t.Fatalf("got %+v", res)
	}
}
