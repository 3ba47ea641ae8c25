package drift

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/wire"
)

// logLine wraps a header object in a request/header event.
func logLine(header string) string {
	return `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":` + header + "}}\n"
}

func TestWalkKinds(t *testing.T) {
	tests := []struct {
		name      string
		a, b      string // log headers, or bodies when they start with {"model"
		path      string
		kinds     []Kind
		note      string // of the encoding or content detail
		causeHint string
	}{
		{"number spelling", `{"config":{"model":"m","temperature":1.0}}`, `{"config":{"model":"m","temperature":1}}`,
			"config.temperature", []Kind{Encoding}, "number spelling", "number"},
		{"number value", `{"config":{"temperature":0.5}}`, `{"config":{"temperature":0.7}}`,
			"config.temperature", []Kind{Content}, "", "config"},
		{"whitespace", `{"config":{"model":"m"},"tools":[{"name":"a","parameters":{"type":"object"}}]}`,
			`{"config":{"model":"m"},"tools":[{"name":"a","parameters":{ "type": "object" }}]}`,
			"tools.0.parameters", []Kind{Encoding}, "whitespace", "whitespace"},
		{"header layout", `{"config":{},"system":"s"}`, `{"config":{}, "system":"s"}`,
			"", []Kind{Encoding}, "whitespace", "whitespace"},
		{"header key order", `{"config":{},"system":"s"}`, `{"system":"s","config":{}}`,
			"", []Kind{Encoding}, "key order", "key order"},
		{"line separator", `{"system":"a` + "\u2028" + `b"}`, `{"system":"a\u2028b"}`,
			"system", []Kind{Encoding}, "escaping", "U+2028"},
		{"non-ascii", `{"system":"café"}`, `{"system":"caf\u00e9"}`,
			"system", []Kind{Encoding}, "escaping", "non-ASCII"},
		{"solidus", `{"system":"a/b"}`, `{"system":"a\/b"}`,
			"system", []Kind{Encoding}, "escaping", `"/"`},
		{"escaped key", `{"config":{"model":"m"}}`, `{"config":{"mod\u0065l":"m"}}`,
			"config.model", []Kind{Encoding}, "escaping", "escaping"},
		{"surrogate pair", `{"system":"x😀"}`, `{"system":"x\ud83d\ude00"}`,
			"system", []Kind{Encoding}, "escaping", "non-ASCII"},
		{"added member", `{"tools":[{"name":"a","parameters":{"properties":{}}}]}`,
			`{"tools":[{"name":"a","parameters":{"properties":{"x":{"type":"string"}}}}]}`,
			"tools.0.parameters.properties.x", []Kind{Content}, "", "tool"},
		{"type change", `{"tools":[{"name":"a","strict":true}]}`, `{"tools":[{"name":"a","strict":"true"}]}`,
			"tools.0.strict", []Kind{Content}, "", "tool"},
		{"system removed", `{"config":{},"system":"s"}`, `{"config":{}}`,
			"system", []Kind{Content}, "", "system"},
		{"all tools removed", `{"config":{},"tools":[{"name":"a"},{"name":"b"}]}`, `{"config":{}}`,
			"tools.0", []Kind{Removed}, "", "tool sets"},
		{"all tools added", `{"config":{}}`, `{"config":{},"tools":[{"name":"a"}]}`,
			"tools.0", []Kind{Added}, "", "tool sets"},
		{"placeholder hides tools, not config", `{"config":{"model":"a"},"tools":"<<tools>>"}`, `{"config":{"model":"b"},"tools":[{"name":"a"}]}`,
			"config.model", []Kind{Content}, "", ""},
		{"reorder and content", `{"tools":[{"name":"a","description":"x"},{"name":"b"},{"name":"c"}]}`,
			`{"tools":[{"name":"b"},{"name":"c"},{"name":"a","description":"y"}]}`,
			"tools.0", []Kind{Reorder, Content}, "", "registration"},
		{"content before reorder", `{"tools":[{"name":"a","description":"x"},{"name":"b"},{"name":"c"}]}`,
			`{"tools":[{"name":"a","description":"y"},{"name":"c"},{"name":"b"}]}`,
			"tools.0.description", []Kind{Reorder, Content}, "", "tool"},
		{"duplicate names", `{"tools":[{"name":"a","description":"1"},{"name":"a","description":"2"}]}`,
			`{"tools":[{"name":"a","description":"1"},{"name":"a","description":"3"}]}`,
			"tools.1.description", []Kind{Content}, "", "tool"},
		{"everything", `{"tools":[{"name":"a","description":"<"},{"name":"b"},{"name":"c"},{"name":"d"}]}`,
			`{"tools":[{"name":"a","description":"\u003c"},{"name":"c"},{"name":"b"},{"name":"e"}]}`,
			"tools.0.description", []Kind{Reorder, Added, Removed, Encoding}, "", "HTML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compareBytes(t, []byte(logLine(tt.a)), []byte(logLine(tt.b)), Options{})
			checkDrift(t, res, 1, tt.path, tt.kinds...)
			d := res.First
			if tt.note != "" && (d.Encoding == nil || d.Encoding.Note != tt.note) {
				t.Errorf("encoding detail %+v, want note %q", d.Encoding, tt.note)
			}
			if !strings.Contains(d.Cause, tt.causeHint) {
				t.Errorf("cause %q, want it to mention %q", d.Cause, tt.causeHint)
			}
			var text strings.Builder
			if err := res.WriteText(&text); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOffsets checks that reported byte offsets point at the differing
// bytes of each record, through the header document built from a body.
func TestOffsets(t *testing.T) {
	a := `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"x","description":"a < b"}]},{"googleSearch":{}}]}`
	b := `{"contents":[{"role":"user","parts":[{"text":"hello"}]}],"tools":[{"functionDeclarations":[{"name":"x","description":"a \u003c b"}]},{"googleSearch":{}}]}`
	res := compareBytes(t, []byte(a+"\n"), []byte(b+"\n"), Options{})
	checkDrift(t, res, 1, "tools.0.functionDeclarations.0.description", Encoding)
	e := res.First.Encoding
	if a[e.OffsetA:e.OffsetA+1] != "<" || b[e.OffsetB:e.OffsetB+6] != `\u003c` {
		t.Fatalf("offsets %d, %d point at %q and %q", e.OffsetA, e.OffsetB, a[e.OffsetA:], b[e.OffsetB:])
	}
	if res.First.A.WirePath != "tools.0.functionDeclarations.0.description" || res.First.A.Format != FormatGemini {
		t.Fatalf("side A: %+v", res.First.A)
	}

	// A key-order difference points at the first key out of place.
	a = `{"model":"m","messages":[],"temperature":1,"max_tokens":5}`
	b = `{"model":"m","max_tokens":5,"messages":[],"temperature":1}`
	res = compareBytes(t, []byte(a), []byte(b), Options{})
	checkDrift(t, res, 1, "config", Encoding)
	e = res.First.Encoding
	if !strings.HasPrefix(a[e.OffsetA:], `"temperature"`) || !strings.HasPrefix(b[e.OffsetB:], `"max_tokens"`) {
		t.Fatalf("key order at %d, %d: %q / %q", e.OffsetA, e.OffsetB, a[e.OffsetA:], b[e.OffsetB:])
	}
}

func TestBodyParts(t *testing.T) {
	tests := []struct {
		name, a, b string
		path, wire string
		kinds      []Kind
	}{
		{"responses instructions",
			`{"model":"m","instructions":"x","input":"q"}`, `{"model":"m","instructions":"y","input":"other"}`,
			"system", "instructions", []Kind{Content}},
		{"anthropic system string",
			`{"model":"m","system":"x","messages":[],"max_tokens":1}`, `{"model":"m","system":"y","messages":[{"role":"user","content":"q"}],"max_tokens":1}`,
			"system", "system", []Kind{Content}},
		{"anthropic system blocks",
			`{"model":"m","system":[{"type":"text","text":"x"}],"messages":[]}`, `{"model":"m","system":[{"type":"text","text":"y"}],"messages":[]}`,
			"system.0.text", "system.0.text", []Kind{Content}},
		{"chat leading developer message",
			`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"developer","content":"a"},{"role":"user","content":"q"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"developer","content":"b"},{"role":"user","content":"z"}]}`,
			"system.1.content", "messages.1.content", []Kind{Content}},
		{"chat system message added",
			`{"model":"m","messages":[{"role":"user","content":"q"}]}`,
			`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"q"}]}`,
			"system", "", []Kind{Content}},
		{"gemini system instruction",
			`{"contents":[],"systemInstruction":{"parts":[{"text":"x"}]}}`, `{"contents":[],"systemInstruction":{"parts":[{"text":"y"}]}}`,
			"system.parts.0.text", "systemInstruction.parts.0.text", []Kind{Content}},
		{"gemini snake",
			`{"contents":[],"system_instruction":{"parts":[{"text":"x"}]},"tools":[{"function_declarations":[{"name":"f"}]}]}`,
			`{"contents":[],"system_instruction":{"parts":[{"text":"x"}]},"tools":[{"function_declarations":[{"name":"f","description":"d"}]}]}`,
			"tools.0.function_declarations.0.description", "tools.0.function_declarations.0.description", []Kind{Content}},
		{"gemini declarations reordered across entries",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"b"},{"name":"c"}]}]}`,
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"b"}]},{"functionDeclarations":[{"name":"a"},{"name":"c"}]}]}`,
			"tools.0.functionDeclarations.0", "tools.0.functionDeclarations.0", []Kind{Reorder}},
		{"gemini declaration removed from the second entry",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"b"},{"name":"c"}]}]}`,
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"c"}]}]}`,
			"tools.1.functionDeclarations.0", "tools.1.functionDeclarations.0", []Kind{Removed}},
		{"gemini same tools grouped another way",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"},{"name":"b"}]}]}`,
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}]},{"functionDeclarations":[{"name":"b"}]}]}`,
			"tools.0", "tools.0", []Kind{Content}},
		{"gemini entry spacing",
			`{"contents":[],"tools":[{"functionDeclarations":[{"name":"a"}],"googleSearch":{}}]}`,
			`{"contents":[],"tools":[{"googleSearch":{},"functionDeclarations":[{"name":"a"}]}]}`,
			"tools.0", "tools.0", []Kind{Encoding}},
		{"gemini built-in tool",
			`{"contents":[],"tools":[{"googleSearch":{}},{"codeExecution":{}}]}`,
			`{"contents":[],"tools":[{"codeExecution":{}},{"googleSearch":{}}]}`,
			"tools.0", "tools.0", []Kind{Reorder}},
		// An entry of two built-in tools holds the same two in either
		// key order.
		{"gemini built-in tools of one entry, key order",
			`{"contents":[],"tools":[{"codeExecution":{},"googleSearch":{}}]}`,
			`{"contents":[],"tools":[{"googleSearch":{},"codeExecution":{}}]}`,
			"tools.0", "tools.0", []Kind{Encoding}},
		// A built-in tool's settings are compared below its key, whether
		// it is alone in its entry or not.
		{"gemini built-in tool setting",
			`{"contents":[],"tools":[{"googleSearch":{"x":1}}]}`,
			`{"contents":[],"tools":[{"googleSearch":{"x":2}}]}`,
			"tools.0.googleSearch.x", "tools.0.googleSearch.x", []Kind{Content}},
		// The same tools in other entries are grouped otherwise, whatever
		// order the key order of the merged entry gives them.
		{"gemini built-in tool regrouped",
			`{"contents":[],"tools":[{"googleSearch":{}},{"functionDeclarations":[{"name":"a"},{"name":"b"}]}]}`,
			`{"contents":[],"tools":[{"googleSearch":{},"functionDeclarations":[{"name":"a"},{"name":"b"}]}]}`,
			"tools.0", "tools.0", []Kind{Content}},
		{"stream flag ignored, model not",
			`{"model":"a","messages":[],"stream":true}`, `{"model":"b","messages":[]}`,
			"config.model", "model", []Kind{Content}},
		{"responses built-in tool",
			`{"model":"m","input":[],"tools":[{"type":"web_search"},{"type":"function","name":"f"}]}`,
			`{"model":"m","input":[],"tools":[{"type":"function","name":"f"}]}`,
			"tools.0", "tools.0", []Kind{Removed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compareBytes(t, []byte(tt.a), []byte(tt.b), Options{})
			checkDrift(t, res, 1, tt.path, tt.kinds...)
			if res.First.A.WirePath != tt.wire {
				t.Fatalf("wire path %q, want %q", res.First.A.WirePath, tt.wire)
			}
		})
	}
	t.Run("conversation only", func(t *testing.T) {
		// Responses' system is instructions only: developer input items
		// are conversation, as are OpenAI Chat's system messages after
		// the first user message.
		for _, pair := range [][2]string{
			{`{"model":"m","input":[{"role":"developer","content":"be brief"},{"role":"user","content":"q"}]}`,
				`{"model":"m","input":[{"role":"developer","content":"be short"},{"role":"user","content":"q"}]}`},
			{`{"model":"m","messages":[{"role":"user","content":"q"},{"role":"developer","content":"a"}]}`,
				`{"model":"m","messages":[{"role":"user","content":"z"},{"role":"developer","content":"b"}]}`},
		} {
			if res := compareBytes(t, []byte(pair[0]), []byte(pair[1]), Options{}); !res.Identical {
				t.Errorf("conversation reported as drift: %+v", res.First)
			}
		}
	})
	t.Run("only stream differs", func(t *testing.T) {
		res := compareBytes(t, []byte(`{"model":"a","messages":[],"stream":true,"stream_options":{"include_usage":true}}`), []byte(`{"model":"a","messages":[]}`), Options{})
		if !res.Identical {
			t.Fatalf("stream flags count as drift: %+v", res.First)
		}
	})
	t.Run("formats differ", func(t *testing.T) {
		res := compareBytes(t, []byte(`{"model":"a","system":"s","messages":[]}`), []byte(`{"model":"a","messages":[{"role":"system","content":"s"}]}`), Options{})
		if res.Identical || !strings.Contains(res.First.Cause, "different formats") {
			t.Fatalf("got %+v", res.First)
		}
	})
	t.Run("forced format", func(t *testing.T) {
		// top_k reads as Anthropic, but is no certain mark: servers that
		// speak OpenAI Chat take it too, and the format given decides.
		a, b := []byte(`{"model":"a","top_k":5,"messages":[]}`), []byte(`{"model":"b","top_k":5,"messages":[]}`)
		for _, f := range []Format{FormatAuto, FormatOpenAIChat} {
			res := compareBytes(t, a, b, Options{Format: f})
			checkDrift(t, res, 1, "config.model", Content)
			if want := map[Format]Format{FormatAuto: FormatAnthropic}[f]; want == "" && res.First.A.Format != f || want != "" && res.First.A.Format != want {
				t.Errorf("-format %s: read as %s", f, res.First.A.Format)
			}
		}
	})
}

func TestContentWindow(t *testing.T) {
	long := strings.Repeat("é", 100)
	res := compareBytes(t, []byte(logLine(`{"system":"`+long+`x`+long+`"}`)), []byte(logLine(`{"system":"`+long+`y`+long+`"}`)), Options{})
	c := res.First.Content
	if c == nil || c.At != 100 || !c.Strings || c.Cut != window+1 {
		t.Fatalf("content detail %+v", c)
	}
	if want := "…" + strings.Repeat("é", window) + "x" + strings.Repeat("é", window-1) + "…"; c.A != want {
		t.Fatalf("window %q, want %q", c.A, want)
	}
	var text strings.Builder
	res.WriteText(&text)
	lines := strings.Split(text.String(), "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, "^") {
			col := len([]rune(l)) - 1
			if a := []rune(lines[i-2]); a[col] != 'x' {
				t.Fatalf("marker at column %d under %q:\n%s", col, a[col], text.String())
			}
			return
		}
	}
	t.Fatalf("no marker line:\n%s", text.String())
}

// TestCaretUnderWideCharacters: the marker is placed in terminal
// columns: a CJK character or an emoji takes two, a combining mark none,
// so the caret stands under the differing character however many of them
// come before it.
func TestCaretUnderWideCharacters(t *testing.T) {
	for _, tc := range []struct{ name, before string }{
		{"CJK", "日本語のシステム "},
		{"Hangul and fullwidth", "한국어 ＡＢＣ "},
		{"emoji", "weather 🌦️ now 🚀 "},
		{"symbols marked wide", "✅ ❌ ⭐ ⌛ 🟢 🈁 ♈ "},
		{"combining marks", "café naïve "},
		{"narrow", "plain ascii "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := compareBytes(t, []byte(logLine(`{"system":"`+tc.before+`abc"}`)), []byte(logLine(`{"system":"`+tc.before+`abd"}`)), Options{})
			var text strings.Builder
			res.WriteText(&text)
			lines := strings.Split(text.String(), "\n")
			for i, l := range lines {
				if !strings.HasSuffix(l, "^") {
					continue
				}
				// Hand-counted: "    A: " is 7 columns, the quote 1.
				want := 7 + 1 + map[string]int{"CJK": 17, "Hangul and fullwidth": 14, "emoji": 18, "symbols marked wide": 21, "combining marks": 11, "narrow": 12}[tc.name] + 2
				if got := len(l) - 1; got != want || !strings.HasPrefix(lines[i-2], `    A: "`+tc.before) {
					t.Fatalf("marker at column %d, want %d:\n%s", got, want, text.String())
				}
				return
			}
			t.Fatalf("no marker line:\n%s", text.String())
		})
	}
}

func TestIncreasing(t *testing.T) {
	for _, tt := range []struct {
		seq  []int
		keep int
	}{
		{nil, 0}, {[]int{0}, 1}, {[]int{0, 1, 2}, 3}, {[]int{2, 1, 0}, 1}, {[]int{0, 3, 2, 1, 4}, 3}, {[]int{1, 2, 3, 0}, 3},
	} {
		keep := increasing(tt.seq)
		var kept []int
		for i, k := range keep {
			if k {
				kept = append(kept, tt.seq[i])
			}
		}
		if len(kept) != tt.keep || !slices.IsSorted(kept) {
			t.Errorf("increasing(%v) keeps %v, want %d increasing", tt.seq, kept, tt.keep)
		}
	}
}

func TestToolName(t *testing.T) {
	for raw, want := range map[string]string{
		`{"name":"a"}`: "a",
		`{"type":"function","function":{"name":"b"}}`:   "b",
		`{"type":"custom","custom":{"name":"c"}}`:       "c",
		`{"type":"web_search"}`:                         "web_search",
		`{"googleSearch":{}}`:                           "googleSearch",
		`{}`:                                            "#3",
		`{"name":{"not":"a string"},"type":"computer"}`: "computer",
	} {
		if got := toolName(parse(raw), 3); got != want {
			t.Errorf("toolName(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestIdenticalInputsAreStillRead: the first record of identical inputs is
// parsed, so a file that is neither a session log nor request bodies is
// invalid even when both sides are the same file.
func TestIdenticalInputsAreStillRead(t *testing.T) {
	for _, in := range []string{`{"foo":1}` + "\n", "[1,2]\n"} {
		_, err := Compare(Source{"a", strings.NewReader(in)}, Source{"b", strings.NewReader(in)}, Options{})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != 1 {
			t.Errorf("%q: err = %v, want an InputError on line 1", in, err)
		}
	}
}

// TestReorderTieShowsPositions: with the same tools on both sides, the
// tools whose position changed are the moved ones when they are no more
// than a longest common order leaves out, a tie included. a b c against
// c b a: a and c changed places, b kept its own; any longest common
// order keeps one tool, so two are out of it either way.
func TestReorderTieShowsPositions(t *testing.T) {
	a := `{"model":"m","messages":[],"tools":[{"name":"a"},{"name":"b"},{"name":"c"}]}`
	b := `{"model":"m","messages":[],"tools":[{"name":"c"},{"name":"b"},{"name":"a"}]}`
	res := compareBytes(t, []byte(a+"\n"), []byte(b+"\n"), Options{})
	checkDrift(t, res, 1, "tools.0", Reorder)
	l := res.First.Tools
	if l == nil || !slices.Equal(l.Moved, []string{"a", "c"}) || !slices.Equal(l.MovedA, []int{0, 2}) || !slices.Equal(l.MovedB, []int{0, 2}) {
		t.Fatalf("tool lists %+v, want a and c moved, at 0 and 2 on both sides", l)
	}
	if d := res.First.Diffs; len(d) != 1 || d[0].Tool != "a" {
		t.Errorf("diffs %+v, want one reorder of a", d)
	}
}

// TestForcedFormatRefusesAnotherFormat: a format given is refused for a
// body that a certain mark shows to be of another format, at the mark,
// rather than read in a way that can hide a difference (OpenAI Chat's
// leading system messages read as Anthropic are conversation, never
// compared). Every real body of the corpus is tried in every format.
func TestForcedFormatRefusesAnotherFormat(t *testing.T) {
	chat := []byte(`{"model":"m","messages":[{"role":"developer","content":"Be brief."},{"role":"user","content":"hi"}]}` + "\n")
	changed := bytes.Replace(chat, []byte("Be brief."), []byte("Be short."), 1)
	_, err := Compare(Source{Name: "a.jsonl", Reader: bytes.NewReader(chat)}, Source{Name: "b.jsonl", Reader: bytes.NewReader(changed)}, Options{Format: FormatAnthropic})
	var ie *InputError
	if !errors.As(err, &ie) || ie.File != "a.jsonl" || ie.Line != 1 || ie.Column != 34 ||
		!strings.Contains(err.Error(), `-format anthropic, but this body is in the openai-chat format: a leading message with role "developer" marks it`) {
		t.Fatalf("a developer message under -format anthropic: %v", err)
	}
	// Anthropic bodies carry system messages further in (tool references
	// after a tool result), and a body without Anthropic's marks that
	// has one is read as OpenAI Chat: -format anthropic is what reads it
	// right, and is not refused.
	later := `{"model":"m","messages":[{"role":"user","content":"q"},{"role":"system","content":[{"type":"tool_reference","tool_name":"x"}]}]}` + "\n"
	if info, err := checkBody([]byte(later), FormatAuto, nil); err != nil || info.format != wire.OpenAIChat {
		t.Fatalf("a later system message reads as %s (%v), want openai-chat", info.format, err)
	}
	if _, err := checkBody([]byte(later), FormatAnthropic, nil); err != nil {
		t.Fatalf("a later system message under -format anthropic: %v", err)
	}
	refused := map[[2]Format]int{}
	for _, own := range []Format{FormatAnthropic, FormatOpenAIChat, FormatOpenAIResponses, FormatGemini} {
		for i, body := range realBodies(t, string(own)+map[Format]string{FormatAnthropic: "-messages"}[own]+".jsonl") {
			info, err := checkBody(body, FormatAuto, nil)
			if err != nil || info.format != wire.Format(own) {
				t.Fatalf("%s body %d reads as %s (%v)", own, i+1, info.format, err)
			}
			for _, forced := range []Format{FormatAnthropic, FormatOpenAIChat, FormatOpenAIResponses, FormatGemini} {
				_, err := checkBody(body, forced, nil)
				switch {
				case forced == own && err != nil:
					t.Errorf("%s body %d under its own format: %v", own, i+1, err)
				case forced != own && info.sure && err == nil:
					t.Errorf("%s body %d taken under -format %s", own, i+1, forced)
				case forced != own && err != nil && strings.Contains(err.Error(), "but this body is in the "+string(own)+" format"):
					refused[[2]Format{own, forced}]++
				}
			}
		}
	}
	// Every pair of formats is refused by a mark, not only by a
	// conversation member the body lacks.
	for _, own := range []Format{FormatAnthropic, FormatOpenAIChat, FormatOpenAIResponses, FormatGemini} {
		for _, forced := range []Format{FormatAnthropic, FormatOpenAIChat, FormatOpenAIResponses, FormatGemini} {
			if own != forced && refused[[2]Format{own, forced}] == 0 {
				t.Errorf("no %s body refused by its mark under -format %s", own, forced)
			}
		}
	}
}
