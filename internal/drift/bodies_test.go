package drift

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

// TestBodyHeaderDocument pins the header document of a body in each
// format: each part is the body's own member, verbatim.
func TestBodyHeaderDocument(t *testing.T) {
	for _, tc := range []struct {
		f          Format
		body, want string
	}{
		{FormatAnthropic,
			`{"max_tokens":5,"messages":[{"role":"user","content":"hi"}],"model":"m","system":"be \u003cbrief\u003e","tools":[{"name":"a","input_schema":{}}],"stream":true}`,
			`{"config":{"max_tokens":5,"model":"m"},"system":"be \u003cbrief\u003e","tools":[{"name":"a","input_schema":{}}]}`},
		{FormatOpenAIChat,
			`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"developer","content":"d"},{"role":"user","content":"u"}],"tools":[]}`,
			`{"config":{"model":"m"},"system":[{"role":"system","content":"s"},{"role":"developer","content":"d"}],"tools":[]}`},
		{FormatOpenAIResponses,
			`{"input":[{"role":"developer","content":"d"}],"instructions":"be brief","model":"m","stream_options":{}}`,
			`{"config":{"model":"m"},"system":"be brief"}`},
		{FormatGemini,
			`{"contents":[],"systemInstruction":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[{"name":"f"}]},{"googleSearch":{}}],"generationConfig":{}}`,
			`{"config":{"generationConfig":{}},"system":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[{"name":"f"}]},{"googleSearch":{}}]}`},
		{FormatAnthropic,
			"{\n  \"model\": \"m\",\n  \"system\": \"a b\",\n  \"messages\": []\n}",
			`{"config":{"model":"m"},"system":"a b"}`},
	} {
		info, err := checkBody([]byte(tc.body), FormatAuto, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.f, err)
		}
		h, err := bodyHeader([]byte(tc.body), 1, info.format, nil)
		if err != nil || string(h.doc) != tc.want || h.format != tc.f {
			t.Errorf("%s: header %s (%s), %v\nwant %s", tc.f, h.doc, h.format, err, tc.want)
		}
	}
}

// TestCapturedLogAgainstBodies: the request/header events a capture writes
// (wire.Split's header, with the format) compare identical with the
// bodies they were captured from, in every format of the real corpus; a
// change to one body is found at its header path.
func TestCapturedLogAgainstBodies(t *testing.T) {
	files := map[string]wire.Format{
		"anthropic-messages.jsonl": wire.Anthropic,
		"openai-chat.jsonl":        wire.OpenAIChat,
		"openai-responses.jsonl":   wire.OpenAIResponses,
		"gemini.jsonl":             wire.Gemini,
	}
	for file, f := range files {
		t.Run(string(f), func(t *testing.T) {
			bodies := realBodies(t, file)
			var log bytes.Buffer
			for i, body := range bodies {
				p, err := wire.Split(body, f)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&log, `{"type":"request/header","data":{"request":%d,"reason":"change","format":%q,"header":%s}}`+"\n", i+1, f, p.Header())
			}
			res := compareBytes(t, log.Bytes(), joinLines(bodies), Options{})
			if !res.Identical || res.Headers.A != len(bodies) {
				t.Fatalf("captured log against its bodies: %+v", res.First)
			}
			// The same format on both sides: a config change is no
			// "different formats".
			changed := append([]byte(`{"x_extra":1,`), bytes.TrimPrefix(bytes.TrimSpace(bodies[0]), []byte("{"))...)
			res = compareBytes(t, log.Bytes(), joinLines(append([][]byte{changed}, bodies[1:]...)), Options{})
			checkDrift(t, res, 1, "config.x_extra", Content)
			if !strings.Contains(res.First.Cause, "call config") {
				t.Errorf("cause %q", res.First.Cause)
			}
		})
	}
}

// realBodies reads the non-blank lines of a file of the real corpus.
func realBodies(t *testing.T, file string) [][]byte {
	t.Helper()
	fh, err := os.Open(filepath.Join(corpusDir(t), "real", file))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out [][]byte
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, bytes.Clone(sc.Bytes()))
		}
	}
	if err := sc.Err(); err != nil || len(out) == 0 {
		t.Fatalf("%s: %d bodies, %v", file, len(out), err)
	}
	return out
}

// TestBodyOffsets: offsets point at the differing bytes of each record,
// through a pretty-printed body's whitespace and the parts Split moves.
func TestBodyOffsets(t *testing.T) {
	for _, tc := range []struct {
		name, a, b, path string
		atA, atB         string // what the record holds at each offset
	}{
		{"pretty against compact",
			"{\n  \"model\": \"m\",\n  \"messages\": [],\n  \"tools\": [\n    {\n      \"name\": \"read\",\n      \"description\": \"Read a file\"\n    }\n  ]\n}",
			`{"model":"m","messages":[],"tools":[{"name":"read","description":"Read a file."}]}`,
			"tools.0.description", `"Read a file"`, `"Read a file."`},
		{"chat system message",
			`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"t"},{"role":"user","content":"u"}]}`,
			"system.0.content", `"s"`, `"t"`},
		{"anthropic system removed",
			`{"model":"m","system":"s","messages":[]}`, `{"model":"m","messages":[]}`,
			"system", `"system"`, ""},
		{"chat system removed",
			`{"model":"m","messages":[{"role":"system","content":"s"}]}`, `{"model":"m","messages":[]}`,
			"system", `{"role":"system"`, ""},
		{"pretty config",
			"{\n  \"model\": \"m\",\n  \"max_tokens\": 5,\n  \"messages\": []\n}",
			`{"model":"m","max_tokens":6,"messages":[]}`,
			"config.max_tokens", "5", "6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := compareBytes(t, []byte(tc.a+"\n"), []byte(tc.b+"\n"), Options{})
			if res.Identical || res.First.Path != tc.path {
				t.Fatalf("got %+v, want a difference at %s", res.First, tc.path)
			}
			for _, s := range []struct {
				rec, want string
				off       int
			}{{tc.a, tc.atA, res.First.A.Offset}, {tc.b, tc.atB, res.First.B.Offset}} {
				if s.want == "" {
					if s.off != -1 {
						t.Errorf("offset %d, want -1 (absent)", s.off)
					}
					continue
				}
				if s.off < 0 || !strings.HasPrefix(s.rec[s.off:], s.want) {
					t.Errorf("offset %d, want it at %q in %q", s.off, s.want, s.rec)
				}
			}
		})
	}
}

// TestBodyRefused: a body wire.Split refuses is invalid input, where it
// is: at the key of the member written again.
func TestBodyRefused(t *testing.T) {
	ok := `{"model":"m","messages":[]}` + "\n"
	for body, want := range map[string]string{
		`{"model":"a","model":"b","messages":[]}`:                        `B:2:14: the body has the member "model" twice`,
		`{"contents":[],"systemInstruction":{},"system_instruction":{}}`: "B:2:39: the body has two system members",
		`{"model":"m"}`: "B:2: cannot tell the wire format of this request body (no messages, input or contents member); use -format",
	} {
		_, err := Compare(Source{"A", strings.NewReader(ok + ok)}, Source{"B", strings.NewReader(ok + body + "\n")}, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", body, err, want)
		}
	}
}

// TestGeminiRegrouped: the same Gemini tools in other tools entries are a
// grouping difference at the first entry that differs, with its cause.
func TestGeminiRegrouped(t *testing.T) {
	a := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"},{"name":"b"}]}]}`
	b := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"b"}]}]}`
	res := compareBytes(t, []byte(a), []byte(b), Options{})
	checkDrift(t, res, 1, "tools.0", Content)
	if d := res.First.Diffs[0]; d.Note != "grouping" || !strings.Contains(res.First.Cause, "grouped into tools entries") {
		t.Fatalf("first diff %+v, cause %q", d, res.First.Cause)
	}
	// A key spelled another way is no regrouping.
	c := `{"contents":[],"tools":[{"function\u0044eclarations":[{"name":"a"},{"name":"b"}]}]}`
	res = compareBytes(t, []byte(a), []byte(c), Options{})
	checkDrift(t, res, 1, "tools.0.functionDeclarations", Encoding)
	// Nor is the same protobuf field in snake_case, which Gemini reads
	// alike: an encoding, either way round, named as such.
	snake := `{"contents":[],"tools":[{"function_declarations":[{"name":"a"},{"name":"b"}]}]}`
	checkSymmetric(t, []byte(a), []byte(snake))
	checkSymmetric(t, []byte(a), []byte(strings.Replace(snake, `"b"`, `"c"`, 1)))
	for _, pair := range [][2]string{{a, snake}, {snake, a}} {
		res = compareBytes(t, []byte(pair[0]), []byte(pair[1]), Options{})
		if res.First != nil && res.First.Path != "tools.0.functionDeclarations" {
			t.Errorf("path %s, want tools.0.functionDeclarations either way round", res.First.Path)
		}
		if res.Identical || res.First == nil || len(res.First.Kinds) != 1 || res.First.Kinds[0] != Encoding ||
			res.First.Diffs[0].Note != "key spelling" || !strings.Contains(res.First.Cause, "camelCase on one side and snake_case") {
			t.Errorf("%s against %s: %+v", pair[0], pair[1], res.First)
		}
	}
	// A real change beside the spelling is that change.
	snakeChanged := strings.Replace(snake, `"b"`, `"c"`, 1)
	res = compareBytes(t, []byte(a), []byte(snakeChanged), Options{})
	if res.First == nil || !slices.Contains(res.First.Kinds, Removed) || !slices.Contains(res.First.Kinds, Added) {
		t.Errorf("a renamed tool beside the spelling: %+v", res.First)
	}
}

// A tool renamed is removed and added at one path: each side is placed
// at that path, neither is "absent".
// The key a body writes its system or tools under is bytes sent: an
// escaped key, or Gemini's field in snake_case, is an encoding drift at
// that member, either way round, located at the key; and a body written
// like the other is identical.
func TestBodyMemberKeys(t *testing.T) {
	for _, c := range []struct {
		a, b, path, note, atA string
	}{
		{`{"model":"m","system":"S","tools":[{"name":"a"}],"messages":[]}`, `{"model":"m","system":"S","\u0074ools":[{"name":"a"}],"messages":[]}`, "tools", "escaping", "t"},
		{`{"model":"m","system":"S","tools":[],"messages":[]}`, `{"model":"m","sy\u0073tem":"S","tools":[],"messages":[]}`, "system", "escaping", "s"},
		{`{"contents":[],"systemInstruction":{"parts":[{"text":"S"}]}}`, `{"contents":[],"system_instruction":{"parts":[{"text":"S"}]}}`, "system", "key spelling", `"systemInstruction"`},
		{`{"input":"hi","instructions":"I","model":"m"}`, `{"input":"hi","instruction\u0073":"I","model":"m"}`, "system", "escaping", "s"},
	} {
		checkSymmetric(t, []byte(c.a), []byte(c.b))
		res := compareBytes(t, []byte(c.a+"\n"), []byte(c.b+"\n"), Options{NoCost: true})
		checkDrift(t, res, 1, c.path, Encoding)
		if e := res.First.Encoding; e == nil || e.Note != c.note || e.A != c.atA || res.First.A.Offset < 0 || c.a[res.First.A.Offset:][:len(c.atA)] != c.atA {
			t.Errorf("%s against %s: %+v, encoding %+v", c.a, c.b, res.First, res.First.Encoding)
		}
		if res := compareBytes(t, []byte(c.b+"\n"), []byte(c.b+"\n"), Options{NoCost: true}); !res.Identical {
			t.Errorf("%s against itself: %+v", c.b, res.First)
		}
	}
	// Gemini's top-level config members are protobuf fields, read in
	// either spelling: the same field, named by its JSON name either way
	// round; a member on one side only keeps its own spelling.
	gc := `{"contents":[],"generationConfig":{"temperature":0},"safety_settings":[]}`
	gs := `{"contents":[],"generation_config":{"temperature":0},"safety_settings":[]}`
	checkSymmetric(t, []byte(gc), []byte(gs))
	for _, pair := range [][2]string{{gc, gs}, {gs, gc}} {
		res := compareBytes(t, []byte(pair[0]+"\n"), []byte(pair[1]+"\n"), Options{NoCost: true})
		checkDrift(t, res, 1, "config.generationConfig", Encoding)
		if res.First.Diffs[0].Note != "key spelling" {
			t.Errorf("%s against %s: %+v", pair[0], pair[1], res.First.Diffs)
		}
	}
	res := compareBytes(t, []byte(gs+"\n"), []byte(strings.Replace(gs, `"temperature":0`, `"temperature":1`, 1)+"\n"), Options{NoCost: true})
	checkDrift(t, res, 1, "config.generation_config.temperature", Content)
	res = compareBytes(t, []byte(gs+"\n"), []byte(strings.Replace(gs, `,"safety_settings":[]`, ``, 1)+"\n"), Options{NoCost: true})
	checkDrift(t, res, 1, "config.safety_settings", Content)
	// A captured log shows the keys in its capture/request events: two
	// logs, or a log and bodies, whose requests spell them apart differ.
	capLog := func(key string) string {
		return `{"type":"request/header","data":{"request":1,"reason":"initial","format":"gemini","header":{"config":{},"system":{"parts":[{"text":"S"}]}}}}` + "\n" +
			`{"type":"capture/request","data":{"request":1,"format":"gemini","path":"/v1beta/models/m:generateContent","body":{"contents":[],` + key + `:"<<system>>"}}}` + "\n"
	}
	camelLog, snakeLog := capLog(`"systemInstruction"`), capLog(`"system_instruction"`)
	for _, pair := range [][2]string{{camelLog, snakeLog}, {snakeLog, camelLog}, {camelLog, `{"contents":[],"system_instruction":{"parts":[{"text":"S"}]}}` + "\n"}} {
		res := compareBytes(t, []byte(pair[0]), []byte(pair[1]), Options{NoCost: true})
		if res.First == nil || res.First.Path != "system" || res.First.Encoding == nil || res.First.Encoding.Note != "key spelling" {
			t.Errorf("%s against %s: %+v", pair[0], pair[1], res.First)
		}
	}
	if res := compareBytes(t, []byte(camelLog), []byte(`{"contents":[],"systemInstruction":{"parts":[{"text":"S"}]}}`+"\n"), Options{NoCost: true}); !res.Identical {
		t.Errorf("a captured log against its own body: %+v", res.First)
	}
	// Not the conversation's key: that is not the header.
	if res := compareBytes(t, []byte(`{"model":"m","messages":[]}`+"\n"), []byte(`{"model":"m","\u006dessages":[]}`+"\n"), Options{NoCost: true}); !res.Identical {
		t.Errorf("an escaped conversation key: %+v", res.First)
	}
}

func TestRenamedToolIsPlacedOnBothSides(t *testing.T) {
	a := `{"model":"m","messages":[],"tools":[{"name":"alpha","input_schema":{}},{"name":"beta","input_schema":{}}]}`
	b := strings.Replace(a, `"beta"`, `"beta2"`, 1)
	res := compareBytes(t, []byte(a), []byte(b), Options{NoCost: true})
	checkDrift(t, res, 1, "tools.1", Added, Removed)
	want := strings.Index(a, `{"name":"beta"`)
	if res.First.A.Offset != want || res.First.B.Offset != want {
		t.Errorf("offsets A %d, B %d; want %d on both", res.First.A.Offset, res.First.B.Offset, want)
	}
}

// The system's text and what surrounds it have causes of their own.
func TestSystemCauses(t *testing.T) {
	body := func(text, ttl string) string {
		return `{"model":"m","messages":[],"system":[{"type":"text","text":"` + text + `","cache_control":{"type":"ephemeral","ttl":"` + ttl + `"}}]}`
	}
	for _, c := range []struct{ b, path, cause string }{
		{body("S on host-2", "5m"), "system.0.text", "the system text differs: a volatile value"},
		{body("S on host-1", "1h"), "system.0.cache_control.ttl", "the system prompt differs besides its text"},
	} {
		res := compareBytes(t, []byte(body("S on host-1", "5m")), []byte(c.b), Options{NoCost: true})
		checkDrift(t, res, 1, c.path, Content)
		if !strings.Contains(res.First.Cause, c.cause) {
			t.Errorf("%s: cause %q, want %q", c.path, res.First.Cause, c.cause)
		}
	}
}

// TestGeminiReplacedAcrossEntries: a tool replaced by another in the
// same flattened position, where one side has it in an earlier tools
// entry than the other, is reported first where it comes first in its
// header: at the earlier entry, whichever side that is.
func TestGeminiReplacedAcrossEntries(t *testing.T) {
	// x is A's second tool, in its second entry (tools.1.functionDeclarations.0);
	// y is B's second tool, in its first entry (tools.0.functionDeclarations.1).
	a := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"x"}]}]}`
	b := `{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"},{"name":"y"}]}]}`
	atX, atY := strings.Index(a, `{"name":"x"}`), strings.Index(b, `{"name":"y"}`)
	for _, c := range []struct {
		name, a, b  string
		first, then Diff
		offA, offB  int
	}{
		{"added first", a, b,
			Diff{Path: "tools.0.functionDeclarations.1", Kind: Added, Tool: "y", OffsetA: -1, OffsetB: atY},
			Diff{Path: "tools.1.functionDeclarations.0", Kind: Removed, Tool: "x", OffsetA: atX, OffsetB: -1},
			-1, atY},
		{"removed first", b, a,
			Diff{Path: "tools.0.functionDeclarations.1", Kind: Removed, Tool: "y", OffsetA: atY, OffsetB: -1},
			Diff{Path: "tools.1.functionDeclarations.0", Kind: Added, Tool: "x", OffsetA: -1, OffsetB: atX},
			atY, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := compareBytes(t, []byte(c.a+"\n"), []byte(c.b+"\n"), Options{})
			checkDrift(t, res, 1, "tools.0.functionDeclarations.1", Added, Removed)
			d := res.First
			if len(d.Diffs) != 2 || d.Diffs[0] != c.first || d.Diffs[1] != c.then {
				t.Errorf("diffs %+v, want %+v then %+v", d.Diffs, c.first, c.then)
			}
			// The side the first difference is absent from has no later
			// difference at its path: no offset.
			if d.A.Offset != c.offA || d.B.Offset != c.offB {
				t.Errorf("offsets A %d, B %d; want %d, %d", d.A.Offset, d.B.Offset, c.offA, c.offB)
			}
		})
	}
}
