package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/redact"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// TestEveryLineValidated: a line that is not what its input holds is an
// InputError at its line and column, wherever it is: after the last body,
// on the side that has more, where the other input has nothing, and (for
// bodies) on both sides byte for byte. An event line byte-identical to
// the other input's beside it is framed, not validated, so that two
// copies of a large log compare at the cost of reading them: the same
// bad event on both sides is no drift, and passes.
func TestEveryLineValidated(t *testing.T) {
	body := `{"model":"claude-sonnet-4-5","system":"S","tools":[{"name":"a"}],"messages":[{"role":"user","content":"hi"}]}` + "\n"
	step := func(n int) string { return `{"type":"step/start","data":{"turn":1,"step":` + itoa(n) + `}}` + "\n" }
	hdr := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m"}}}}` + "\n"
	log := step(1) + hdr + step(2) + step(3)
	bad := step(1) + hdr + step(2) + `{"type":"step/start","data":{"turn":1,"step":3,,oops}}` + "\n"
	long := `{"type":"tool/result","data":{"turn":1,"step":1,"output":"` + strings.Repeat("x", 2*readBufferSize)
	tests := []struct {
		name, a, b string
		want       string // the error's start
	}{
		{"garbage after the bodies", body, body + "this is not json\n", "B:2:1: invalid JSON"},
		{"an object that is no body", body, body + `{"a":1}` + "\n", "B:2: cannot tell the wire format"},
		{"markup", body + "<html>\n", body, "A:2:1: invalid JSON"},
		{"a bad event where the other has none", log, bad, "B:4:48: invalid JSON"},
		{"a bad event on the longer side", log, log + `{"type":"turn/end","data":{"turn":1,oops}}` + "\n", "B:5:37: invalid JSON"},
		{"the same bad body on both sides", body + `{"model":"m",}` + "\n", body + `{"model":"m",}` + "\n", "A:2:14: invalid JSON"},
		{"type not a string", log, log + `{"type":1,"data":{}}` + "\n", `B:5: event needs a string "type" and an object "data"`},
		{"data not an object", log, log + `{"type":"step/end","data":[]}` + "\n", `B:5: event needs a string "type" and an object "data"`},
		{"not an event", log, log + `{"turn":1}` + "\n", "B:5: not a session-log event"},
		{"a long dropped event, invalid", log + long + `",}}` + "\n", log, "A:5:524349: invalid JSON"},
		{"a long dropped event, truncated", log, log + long + "\n", "B:5:524347: invalid JSON: unexpected end of the line"},
		{"a byte order mark opening a file of bodies", body, "\ufeff" + body, "B:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not allow: an editor added it; remove it"},
		{"a byte order mark opening a log", "\ufeff" + log, log, "A:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)"},
		{"a byte order mark opening a pretty-printed body", "\ufeff{\n  \"model\": \"m\",\n  \"messages\": []\n}\n", body, "A:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)"},
		{"a byte order mark opening a later line", body, body + "\ufeff" + body, "B:2:1: the line starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not allow"},
		{"a long dropped event, nested too deep", log, log + `{"type":"tool/result","data":{"x":` + strings.Repeat("[", 2*readBufferSize) + "\n", "B:5:10033: nesting deeper than the limit of 10000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(Source{"A", strings.NewReader(tt.a)}, Source{"B", strings.NewReader(tt.b)}, Options{})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q…", err, tt.want)
			}
		})
	}
	if res := compareBytes(t, []byte(bad), []byte(bad), Options{}); !res.Identical {
		t.Errorf("the same bad event on both sides: %+v", res)
	}
	// Blank lines are skipped, as before, and a valid long event passes.
	if res := compareBytes(t, []byte(log+"\n  \n"+long+`"}}`+"\n"), []byte(log), Options{}); !res.Identical {
		t.Fatalf("blank lines or a valid long event: %+v", res)
	}
}

// TestStreamValidator holds the validator of dropped lines to
// canon.ScanObject, on the JSON texts of a generator and their mutations,
// fed in chunks of every size.
func TestStreamValidator(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{`{}`, `{"a":[]}`, ` {"a" : [1, -0.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]} `, `{"a":{"b":{}}}`,
		`{"a":1.}`, `{"a":01}`, `{"a":-}`, `{"a":1e}`, `{"a":"\x"}`, `{"a":"\u12g4"}`, "{\"a\":\"\t\"}", `{"a":tru}`, `{"a":1}}`,
		`{"a":1]`, `[1]`, `{"a" 1}`, `{"a":1,}`, `{,}`, `{"a":[1,]}`, `{"a":1} x`, `{"a":nul`, `{"a":"`, `{"a":0e+5}`, `{"a":123.456E-7}`}
	for range 300 {
		v := randomJSON(rng, 4)
		obj, _ := json.Marshal(map[string]any{"type": "x", "data": v})
		texts = append(texts, string(obj))
		// One byte changed, removed or inserted.
		b := []byte(obj)
		i := rng.IntN(len(b))
		switch rng.IntN(3) {
		case 0:
			const set = `{}[],:"\ 0-e.tx`
			b[i] = set[rng.IntN(len(set))]
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			const set = `{}[],:"\ 1`
			b = append(b[:i], append([]byte{set[rng.IntN(len(set))]}, b[i:]...)...)
		}
		texts = append(texts, string(b))
	}
	for _, text := range texts {
		want := canon.ScanObject([]byte(text), func(int, int, int, int) {}) == nil
		for _, size := range []int{1, 2, 3, 7, len(text) + 1} {
			var v streamValidator
			v.reset()
			for c := []byte(text); len(c) > 0; {
				n := min(size, len(c))
				v.feed(c[:n])
				c = c[n:]
			}
			msg, _ := v.finish()
			if (msg == "") != want {
				t.Fatalf("%q in chunks of %d: validator says %q, ScanObject valid %v", text, size, msg, want)
			}
		}
	}
}

func randomJSON(rng *rand.Rand, depth int) any {
	switch n := rng.IntN(8); {
	case depth == 0 || n < 2:
		return []any{"text \"quoted\" \\ é \n", 1.5e-7, -3, true, false, nil, "", 0}[rng.IntN(8)]
	case n < 5:
		m := map[string]any{}
		for i := range rng.IntN(4) {
			m[string(rune('a'+i))+"\t"] = randomJSON(rng, depth-1)
		}
		return m
	default:
		var a []any
		for range rng.IntN(4) {
			a = append(a, randomJSON(rng, depth-1))
		}
		return a
	}
}

// TestSameNamedTools: tools that share a name are matched by value first,
// so a swap is a reorder and a removal removes the right one, the same in
// the diffs, the tool lists and the text.
func TestSameNamedTools(t *testing.T) {
	body := func(tools ...string) []byte {
		return []byte(`{"model":"claude-sonnet-4-5","system":"S","tools":[` + strings.Join(tools, ",") + `],"messages":[{"role":"user","content":"hi"}]}` + "\n")
	}
	web, docs := `{"name":"search","description":"web"}`, `{"name":"search","description":"docs"}`
	res := compareBytes(t, body(web, docs), body(docs, web), Options{})
	checkDrift(t, res, 1, "tools.0", Reorder)
	if !strings.Contains(res.First.Cause, "registration order") {
		t.Fatalf("cause %q", res.First.Cause)
	}
	for _, tc := range []struct {
		a, b      []byte
		path      string
		removedAt int
		textA     string
	}{
		{body(web, docs), body(docs), "tools.0", 0, "    A: -search, search\n"},
		{body(docs, web), body(docs), "tools.1", 1, "    A: search, -search\n"},
	} {
		res := compareBytes(t, tc.a, tc.b, Options{})
		checkDrift(t, res, 1, tc.path, Removed)
		if tl := res.First.Tools; tl == nil || len(tl.RemovedAt) != 1 || tl.RemovedAt[0] != tc.removedAt {
			t.Fatalf("tool lists %+v", res.First.Tools)
		}
		var text strings.Builder
		res.WriteText(&text)
		if !strings.Contains(text.String(), tc.textA) {
			t.Fatalf("text does not mark tool %d:\n%s", tc.removedAt, text.String())
		}
	}
	// A same-named tool that changed is still a content difference, at
	// the one that changed.
	res = compareBytes(t, body(web, docs), body(web, `{"name":"search","description":"DOCS"}`), Options{})
	checkDrift(t, res, 1, "tools.1.description", Content)
	// A tool that stayed in place is matched with itself, not with an
	// equal one elsewhere: the first changed, nothing moved.
	res = compareBytes(t, body(web, docs), body(docs, docs), Options{})
	checkDrift(t, res, 1, "tools.0.description", Content)
	// Equal values written with other bytes are matched, and found as
	// encoding.
	res = compareBytes(t, body(web, docs), body(`{"description":"docs","name":"search"}`, web), Options{})
	checkDrift(t, res, 1, "tools.0", Reorder, Encoding)
	// A tool added before or removed from among equal tools moves none
	// of them.
	g, a, b := `{"name":"g"}`, `{"name":"a"}`, `{"name":"b"}`
	checkDrift(t, compareBytes(t, body(a, a), body(g, a, a), Options{}), 1, "tools.0", Added)
	checkDrift(t, compareBytes(t, body(g, a, a), body(a, a), Options{}), 1, "tools.0", Removed)
	checkDrift(t, compareBytes(t, body(a, a, b, b), body(a, b, b), Options{}), 1, "tools.1", Removed)
	checkDrift(t, compareBytes(t, body(docs, docs), body(web, docs, docs), Options{}), 1, "tools.0", Added)
	checkDrift(t, compareBytes(t, body(docs, g, docs), body(docs, g, docs, docs), Options{}), 1, "tools.3", Added)
	// A tool changed in place into an equal of the one before it is a
	// change, not that one moving, where neither end of the lists is
	// the same.
	checkDrift(t, compareBytes(t, body(a, docs, web), body(b, docs, docs), Options{}), 1, "tools.0", Added, Removed, Content)
}

// TestToolEditsAreNotMoves: on random tool lists where names and values
// repeat, inserting one tool anywhere is found as that tool added and
// nothing else, removing one as removed, and changing one tool's
// description in place as content: no edit that moves nothing is taken
// for a reorder, however many tools equal each other. And the same tools
// shuffled are a reorder alone: no moved tool is taken for a change.
func TestToolEditsAreNotMoves(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	type tool struct{ name, description string }
	body := func(tools []tool) []byte {
		var b strings.Builder
		for i, t := range tools {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":%q,"description":%q}`, t.name, t.description)
		}
		return []byte(`{"model":"claude-sonnet-4-5","system":"S","tools":[` + b.String() + `],"messages":[{"role":"user","content":"hi"}]}` + "\n")
	}
	// Few names and descriptions: most tools share a name, many are equal.
	random := func() tool { return tool{string(rune('a' + rng.IntN(3))), string(rune('x' + rng.IntN(2)))} }
	for range 300 {
		a := make([]tool, 1+rng.IntN(7))
		for i := range a {
			a[i] = random()
		}
		b := slices.Insert(slices.Clone(a), rng.IntN(len(a)+1), random())
		for _, c := range []struct {
			a, b []tool
			kind Kind
		}{{a, b, Added}, {b, a, Removed}} {
			if d := compareBytes(t, body(c.a), body(c.b), Options{}).First; d == nil || !slices.Equal(d.Kinds, []Kind{c.kind}) {
				t.Fatalf("%v against %v: %+v, want %s alone", c.a, c.b, d, c.kind)
			}
		}
		// The same tools in another order moved, and nothing else.
		shuffled := slices.Clone(b)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if res := compareBytes(t, body(b), body(shuffled), Options{}); !slices.Equal(b, shuffled) && (res.First == nil || !slices.Equal(res.First.Kinds, []Kind{Reorder})) {
			t.Fatalf("%v against %v: %+v, want reorder alone", b, shuffled, res.First)
		}
		// A description changed in place, to a new one or to the other
		// one (which other tools may have), is a change of that tool.
		k := rng.IntN(len(a))
		other := map[string]string{"x": "y", "y": "x"}[a[k].description]
		for _, to := range []string{"new", other} {
			changed := slices.Clone(a)
			changed[k].description = to
			if d := compareBytes(t, body(a), body(changed), Options{}).First; d == nil || !slices.Equal(d.Kinds, []Kind{Content}) || d.Path != fmt.Sprintf("tools.%d.description", k) {
				t.Fatalf("%v against %v: %+v, want content at tools.%d.description", a, changed, d, k)
			}
		}
	}
}

// TestConfigEncodingPrice: a config written with other bytes but the
// same value loses nothing; a config of another value still loses all.
func TestConfigEncodingPrice(t *testing.T) {
	body := func(config string) []byte {
		return []byte(`{` + config + `,"system":"S","tools":[{"name":"a","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"hi"}]}` + "\n")
	}
	base := body(`"model":"claude-sonnet-4-5","max_tokens":1024`)
	for _, other := range []string{`"max_tokens":1024,"model":"claude-sonnet-4-5"`, `"model":"claude-sonnet-4-5","max_tokens":1.024e3`} {
		res := compareBytes(t, base, body(other), Options{})
		c := res.Cache
		if c == nil || res.First.Kinds[0] != Encoding || c.LostTokens != 0 || c.ExtraInputTokens != 0 || c.KeptTokens == 0 ||
			res.CacheAt.Segment == "config" || !strings.Contains(res.CacheNote, "the config differs only in its encoding") {
			t.Fatalf("%s: cache %+v at %+v, note %q", other, c, res.CacheAt, res.CacheNote)
		}
	}
	res := compareBytes(t, base, body(`"model":"claude-sonnet-4-5","max_tokens":2048`), Options{})
	if c := res.Cache; c == nil || c.KeptTokens != 0 || c.LostTokens == 0 || res.CacheAt.Segment != "config" {
		t.Fatalf("a config change: cache %+v at %+v", c, res.CacheAt)
	}
	// Key order in the config and a changed tool: priced at the tool.
	res = compareBytes(t, base, bytes.Replace(body(`"max_tokens":1024,"model":"claude-sonnet-4-5"`), []byte(`"name":"a"`), []byte(`"name":"b"`), 1), Options{})
	if c := res.Cache; c == nil || c.LostTokens == 0 || res.CacheAt.Segment != "tools" || !strings.Contains(res.CacheNote, "figures are for the first difference after it") {
		t.Fatalf("config encoding and a tool change: cache %+v at %+v, note %q", c, res.CacheAt, res.CacheNote)
	}
	if strings.Contains(res.CacheNote, "only of encoding too") {
		t.Fatalf("config encoding and a tool change: note %q calls the tool change encoding", res.CacheNote)
	}
	// The note speaks of the priced difference, not of the header's
	// kinds: a header that differs only in encoding may be priced at a
	// change of the conversation.
	spelled := body(`"model":"claude-sonnet-4-5","max_tokens":1024e0`)
	for _, tc := range []struct {
		name    string
		b       []byte
		segment string
		want    string
		wantNot string
	}{
		{"a conversation change", bytes.Replace(spelled, []byte(`"content":"hi"`), []byte(`"content":"ho"`), 1), "messages",
			"that one is in the conversation (messages), which is not compared", "only of encoding too"},
		{"an escaped system", bytes.Replace(spelled, []byte(`"system":"S"`), []byte(`"system":"\u0053"`), 1), "system",
			"that one is only of encoding too", "conversation"},
		{"an escaped system and a conversation change", bytes.Replace(bytes.Replace(spelled, []byte(`"system":"S"`), []byte(`"system":"\u0053"`), 1),
			[]byte(`"content":"hi"`), []byte(`"content":"ho"`), 1), "system", "that one is only of encoding too", "conversation"},
	} {
		res := compareBytes(t, base, tc.b, Options{})
		if res.First == nil || !slices.Equal(res.First.Kinds, []Kind{Encoding}) || res.Cache == nil || res.CacheAt.Segment != tc.segment ||
			!strings.Contains(res.CacheNote, tc.want) || strings.Contains(res.CacheNote, tc.wantNot) {
			t.Errorf("%s: first %+v, cache at %+v, note %q; want encoding alone, priced at %s, a note with %q and without %q",
				tc.name, res.First, res.CacheAt, res.CacheNote, tc.segment, tc.want, tc.wantNot)
		}
	}
}

// TestEncodingFirstPrice: a header that differs in content somewhere but
// whose first difference in render order is only of encoding is priced
// there, with the note that a parsing provider would keep more; one whose
// first difference is of content has no such note, nor one whose order
// is not known.
func TestEncodingFirstPrice(t *testing.T) {
	anthropic := func(system, tools string) []byte {
		return []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"` + system + `","tools":[` + tools + `],"messages":[{"role":"user","content":"hi"}]}` + "\n")
	}
	tool := func(name, description string) string {
		return `{"name":"` + name + `","description":"` + description + `","input_schema":{"type":"object"}}`
	}
	long := strings.Repeat("x", 500)
	base := anthropic("S", tool("a", "A."))
	for _, tc := range []struct {
		name, segment string
		a, b          []byte
		note          bool
	}{
		// Anthropic renders tools, then system.
		{"escaped tool, system edited", "tools", base, anthropic("T", tool(`\u0061`, "A.")), true},
		{"tool edited, system escaped", "tools", base, anthropic(`\u0053`, tool("a", "B.")), false},
		// A removed tool's offset is in A alone: the tools' order is
		// read in A, where tool a comes before b, whatever the lengths
		// before them in B.
		{"tool removed before an escaped one", "tools",
			anthropic(long, tool("a", long)+","+tool("b", "B.")), anthropic("S", tool(`\u0062`, "B.")), false},
		{"escaped tool before a removed one", "tools",
			anthropic("S", tool("a", "A.")+","+tool("b", "B.")), anthropic(long, tool(`\u0061`, "A.")), true},
	} {
		res := compareBytes(t, tc.a, tc.b, Options{})
		if res.First == nil || res.Cache == nil || res.CacheAt.Segment != tc.segment {
			t.Fatalf("%s: first %+v, cache %+v at %+v", tc.name, res.First, res.Cache, res.CacheAt)
		}
		has := strings.Contains(res.CacheNote, "is only of encoding: a provider that parses the body renders it alike")
		if has != tc.note {
			t.Errorf("%s: kinds %v, diffs %+v, note %q; want the encoding-first note: %v", tc.name, res.First.Kinds, res.First.Diffs, res.CacheNote, tc.note)
		}
	}
	// A config that differs only in encoding, in more places than the
	// differences listed, and a system prompt escaped: the header is of
	// encoding alone, so the priced system difference is too.
	stops := func(escaped bool) string {
		var q []string
		for i := range 61 {
			v := fmt.Sprintf("s%d", i)
			if escaped {
				v = `\u0073` + v[1:]
			}
			q = append(q, `"`+v+`"`)
		}
		return strings.Join(q, ",")
	}
	a := []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stop_sequences":[` + stops(false) + `],"system":"S","messages":[{"role":"user","content":"hi"}]}` + "\n")
	b := []byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"stop_sequences":[` + stops(true) + `],"system":"\u0053","messages":[{"role":"user","content":"hi"}]}` + "\n")
	res := compareBytes(t, a, b, Options{})
	if res.First == nil || res.First.MoreDiffs == 0 || res.CacheAt == nil || res.CacheAt.Segment != "system" || !strings.Contains(res.CacheNote, "that one is only of encoding too") {
		t.Errorf("config encoding past the listed differences: first %+v, cache at %+v, note %q", res.First, res.CacheAt, res.CacheNote)
	}
}

// TestOverflowingNumbers: numbers too large for a double are ±Infinity
// to JSON.parse, so their sign matters and their spelling does not.
func TestOverflowingNumbers(t *testing.T) {
	h := func(n string) []byte {
		return []byte(logLine(`{"tools":[{"name":"a","parameters":{"maximum":` + n + `}}]}`))
	}
	for _, tc := range []struct {
		a, b string
		kind Kind
	}{
		{"1e400", "-1e400", Content},
		{"-1e400", "1e400", Content},
		{"1e400", "2e999", Encoding},
		{"-1e400", "-1E+401", Encoding},
		{"1e400", "1.7976931348623157e308", Content},
		{"1e-400", "-1e-400", Encoding}, // both 0 (and -0), JSON.stringify writes 0
	} {
		res := compareBytes(t, h(tc.a), h(tc.b), Options{})
		checkDrift(t, res, 1, "tools.0.parameters.maximum", tc.kind)
	}
}

// TestAmbiguousFormat: an Anthropic body with no system prompt and only
// server tools has no mark wire.Detect knows, and is read in the format
// its input or the other input establishes, not as OpenAI Chat against
// Anthropic.
func TestAmbiguousFormat(t *testing.T) {
	sure := `{"model":"claude-sonnet-4-5","max_tokens":1024,"system":"S","tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"hi"}]}`
	server := `{"model":"claude-sonnet-4-5","max_tokens":1024,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[{"role":"user","content":"hi"}]}`
	bare := `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`
	bare2 := strings.Replace(bare, "1024", "2048", 1)
	for _, tc := range []struct {
		name, a, b string
		fa, fb     Format
	}{
		{"a server tool", sure, server, FormatAnthropic, FormatAnthropic},
		{"the other input's paired body", sure, bare, FormatAnthropic, FormatAnthropic},
		{"the other way round", bare, sure, FormatAnthropic, FormatAnthropic},
		{"the input's earlier bodies", sure + "\n" + bare, sure + "\n" + bare2, FormatAnthropic, FormatAnthropic},
		{"nothing says", bare, bare2, FormatOpenAIChat, FormatOpenAIChat},
		{"a chat body", `{"model":"gpt-5","messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"}]}`, bare, FormatOpenAIChat, FormatOpenAIChat},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := compareBytes(t, []byte(tc.a+"\n"), []byte(tc.b+"\n"), Options{})
			d := res.First
			if d == nil || d.A.Format != tc.fa || d.B.Format != tc.fb || strings.Contains(d.Cause, "different formats") {
				t.Fatalf("got %+v", d)
			}
		})
	}
}

// TestDetectAgrees holds the detection of checkBody, which reads the
// members its validating scan found, to wire.Detect's rule: the same
// format or the same error, except where a mark of Anthropic makes sure
// what wire.Detect falls back to OpenAI Chat for. Bodies of the real
// corpus are tried whole and with each top-level member left out.
func TestDetectAgrees(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t), "real", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no real corpus files (%v)", err)
	}
	bodies := []string{`{"messages":[]}`, `{"model":"m"}`, `{"input":"x","messages":[]}`, `{"tools":{"a":{"input_schema":{}}},"messages":[]}`,
		`{"tools":[{"function\u0044eclarations":[]}]}`, `{"messages":[],"tools":[1,"x",{"name":"a"}]}`, `{"m\u0065ssages":[],"system":"s"}`}
	for _, file := range files {
		for _, b := range realBodies(t, filepath.Base(file)) {
			bodies = append(bodies, string(b))
			var members []string
			gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
				members = append(members, k.Raw+":"+v.Raw)
				return true
			})
			for i := range members {
				rest := slices.Concat(members[:i], members[i+1:])
				bodies = append(bodies, "{"+strings.Join(rest, ",")+"}")
			}
		}
	}
	for _, b := range bodies {
		want, werr := wire.Detect([]byte(b))
		info, err := checkBody([]byte(b), FormatAuto, nil)
		if err != nil && !strings.Contains(err.Error(), "cannot tell the wire format") {
			continue // refused for another reason (a member twice)
		}
		got := info.format
		switch {
		case (err == nil) != (werr == nil):
			t.Errorf("%.200s: checkBody %v, wire.Detect %v", b, err, werr)
		case err == nil && got != want && !(want == wire.OpenAIChat && got == wire.Anthropic && info.sure):
			t.Errorf("%.200s: checkBody %s (sure %v), wire.Detect %s", b, got, info.sure, want)
		}
	}
}

// FuzzStreamValidator: the validator of dropped lines agrees with
// canon.ScanObject on any text, in chunks of any size.
//
// Run with: go test -run '^$' -fuzz '^FuzzStreamValidator$' ./internal/drift/
func FuzzStreamValidator(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":[1,-2.5e3,"\u00e9\n",true,null,{}]}`, `{"a":01}`, `{"a":"\q"}`, `{"type":"x","data":{"y":[[]]}}`} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, text []byte, size uint8) {
		want := canon.ScanObject(text, func(int, int, int, int) {}) == nil
		var v streamValidator
		v.reset()
		n := int(size) + 1
		for c := text; len(c) > 0; c = c[min(n, len(c)):] {
			v.feed(c[:min(n, len(c))])
		}
		if msg, _ := v.finish(); (msg == "") != want {
			t.Fatalf("%q in chunks of %d: validator says %q, ScanObject valid %v", text, n, msg, want)
		}
	})
}

// TestFramedEventsAreValidatedWhenTheyDiffer: an event line framed by its
// first and last bytes is validated once it is not byte-identical to the
// other input's line, and one whose frame is not what it parses to (its
// data member written twice) is refused rather than read by the frame.
func TestFramedEventsAreValidatedWhenTheyDiffer(t *testing.T) {
	hdr := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m"}}}}` + "\n"
	step := `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n"
	twice := `{"type":"step/start","data":{"turn":1,"step":1},"data":{"turn":1,"step":2}}` + "\n"
	for _, c := range []struct{ name, a, b, want string }{
		{"data twice, against a valid line", hdr + step, hdr + twice, `B:2: an event with its "type" or "data" member written twice`},
		{"invalid, against a valid line", hdr + step, hdr + `{"type":"step/start","data":{"turn":1,,}}` + "\n", "B:2:39: invalid JSON"},
		{"invalid, the other input ended", hdr, hdr + `{"type":"step/end","data":{"turn":1,]}` + "\n", "B:2:37: invalid JSON"},
	} {
		_, err := Compare(Source{"A", strings.NewReader(c.a)}, Source{"B", strings.NewReader(c.b)}, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q…", c.name, err, c.want)
		}
	}
}

// TestFramedEventsReviewCases: a valid event with a member after data,
// or a space before its last brace, is valid whichever input holds it; a
// framed capture/request that is invalid JSON says so, not that it has
// no header; and the record read first reports its error first when the
// other input's long record is invalid too.
func TestFramedEventsReviewCases(t *testing.T) {
	hdr := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m"}}}}` + "\n"
	step := `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n"
	for _, c := range []struct{ name, a, b string }{
		{"a member after data", hdr + step + `{"type":"assistant/message","data":{"turn":1},"ts":{"n":5}}` + "\n", hdr + step + `{"type":"assistant/message","data":{"turn":2}}` + "\n"},
		{"a member after data, the other input ended", hdr + step + `{"type":"step/end","data":{"turn":1},"ts":{"n":5}}` + "\n", hdr + step},
		{"a space before the last brace", hdr + step + `{"type":"assistant/message","data":{"turn":1} }` + "\n", hdr + step},
	} {
		if _, err := Compare(Source{"A", strings.NewReader(c.a)}, Source{"B", strings.NewReader(c.b)}, Options{}); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	capture := `{"type":"turn/start","data":{}}` + "\n" + `{"type":"capture/request","data":{"request":1,,"x":1}}` + "\n"
	_, err := Compare(Source{"A", strings.NewReader(capture)}, Source{"B", strings.NewReader(`{"type":"turn/start","data":{}}` + "\n")}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "A:2:47: invalid JSON") {
		t.Errorf("an invalid capture/request: %v", err)
	}
	long := `{"type":"tool/result","data":{"output":"` + strings.Repeat("x", 2*readBufferSize) + `",}}` + "\n"
	_, err = Compare(Source{"A", strings.NewReader(hdr + step + `{"type":"x","data":{,}}` + "\n")}, Source{"B", strings.NewReader(hdr + step + long)}, Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "A:3:") {
		t.Errorf("the first invalid record read: %v", err)
	}
}

// TestEventMembersTwice: an event with its type or data member written
// twice is refused whatever its layout, framed or not.
func TestEventMembersTwice(t *testing.T) {
	hdr := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m"}}}}` + "\n"
	step := `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n"
	for _, line := range []string{
		`{"type":"tool/result","data":{"turn":1,"step":9},"type":"step/start"}`,
		`{"type":"tool/result","data":{"turn":1,"step":9},"type":"step/start","z":{}}`,
		`{"type":"tool/result","data":{"turn":1},"data":{"turn":2}}`,
	} {
		_, err := Compare(Source{"A", strings.NewReader(hdr + step)}, Source{"B", strings.NewReader(hdr + step + line + "\n")}, Options{})
		if err == nil || !strings.Contains(err.Error(), `B:3: an event with its "type" or "data" member written twice`) {
			t.Errorf("%s: %v", line, err)
		}
	}
}

// TestDuplicateKeyText: the side that writes a member once shows it as
// absent, not at a byte offset of -1.
func TestDuplicateKeyText(t *testing.T) {
	body := func(tool string) []byte {
		return []byte(`{"model":"claude-sonnet-4-5","system":"S","tools":[` + tool + `],"messages":[{"role":"user","content":"hi"}]}` + "\n")
	}
	res := compareBytes(t, body(`{"name":"a","description":"y"}`), body(`{"name":"a","description":"x","description":"y"}`), Options{NoCost: true})
	var text strings.Builder
	res.WriteText(&text)
	if !strings.Contains(text.String(), "    A: (absent)\n") || strings.Contains(text.String(), "byte -1") {
		t.Errorf("text:\n%s", text.String())
	}
}

// TestHiddenHeaderChange: a templated log that records a header change
// where a full log records none differs from it, though what the two
// hold of the header agrees: the change is in what the template leaves
// out. The same full log with its change compares identical.
func TestHiddenHeaderChange(t *testing.T) {
	step := func(n int) string { return `{"type":"step/start","data":{"turn":1,"step":` + itoa(n) + `}}` + "\n" }
	msg := func(n int) string {
		return `{"type":"assistant/message","data":{"turn":1,"step":` + itoa(n) + `,"text":"t"}}` + "\n"
	}
	hdr := func(n int, reason, system, tools string) string {
		return `{"type":"request/header","data":{"turn":1,"step":` + itoa(n) + `,"reason":"` + reason + `","header":{"config":{"model":"m"},"system":` + system + `,"tools":` + tools + `}}}` + "\n"
	}
	tpl := `"<<system>>"`
	golden := step(1) + hdr(1, "initial", tpl, `"<<tools>>"`) + msg(1) + step(2) + hdr(2, "change", tpl, `"<<tools>>"`) + msg(2)
	full := step(1) + hdr(1, "initial", `"S"`, `[{"name":"a"}]`) + msg(1) + step(2) + hdr(2, "change", `"S"`, `[{"name":"a"},{"name":"b"}]`) + msg(2)
	unchanged := step(1) + hdr(1, "initial", `"S"`, `[{"name":"a"}]`) + msg(1) + step(2) + msg(2)
	if res := compareBytes(t, []byte(golden), []byte(full), Options{NoCost: true}); !res.Identical {
		t.Errorf("golden against the full log it templates: %+v", res.First)
	}
	res := compareBytes(t, []byte(golden), []byte(unchanged), Options{NoCost: true})
	if res.Identical || res.First == nil || res.First.Request != 2 || !strings.Contains(res.First.Cause, "A's log records a header change here and B's does not") {
		t.Fatalf("a change only the templated log records: %+v", res.First)
	}
	var text strings.Builder
	res.WriteText(&text)
	if !strings.HasPrefix(text.String(), "drift: request 2 differs at (what the template leaves out: system, tools)\n") {
		t.Errorf("text:\n%s", text.String())
	}
	res = compareBytes(t, []byte(unchanged), []byte(golden), Options{NoCost: true})
	if res.First == nil || !strings.Contains(res.First.Cause, "B's log records a header change here and A's does not") {
		t.Fatalf("the other way round: %+v", res.First)
	}
	// A change of what is compared explains its change event: B moves to
	// model m2 at request 2, A only at request 3. Request 2 differs in
	// config, and request 3 does not differ at all.
	cfg := func(n int, reason, model string) string {
		return `{"type":"request/header","data":{"turn":1,"step":` + itoa(n) + `,"reason":"` + reason + `","header":{"config":{"model":"` + model + `"},"system":"<<system>>","tools":"<<tools>>"}}}` + "\n"
	}
	a := step(1) + cfg(1, "initial", "m1") + msg(1) + step(2) + msg(2) + step(3) + cfg(3, "change", "m2") + msg(3)
	b := step(1) + cfg(1, "initial", "m1") + msg(1) + step(2) + cfg(2, "change", "m2") + msg(2) + step(3) + msg(3)
	res = compareBytes(t, []byte(a), []byte(b), Options{NoCost: true})
	if res.First == nil || res.First.Request != 2 || res.First.Path != "config.model" || res.LaterDiffering != 0 {
		t.Errorf("converging models: first %+v, %d later", res.First, res.LaterDiffering)
	}
	// Under a redaction, a change in a redacted value is not taken for
	// one in what the template leaves out.
	uid := func(n int, reason, id string) string {
		return `{"type":"request/header","data":{"turn":1,"step":` + itoa(n) + `,"reason":"` + reason + `","header":{"config":{"model":"m","metadata":{"user_id":"` + id + `"}},"system":"<<system>>","tools":"<<tools>>"}}}` + "\n"
	}
	fullUID := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m","metadata":{"user_id":"u9"}},"system":"S","tools":[]}}}` + "\n"
	a = step(1) + uid(1, "initial", "u1") + msg(1) + step(2) + uid(2, "change", "u2") + msg(2)
	b = step(1) + fullUID + msg(1) + step(2) + msg(2)
	rule := redact.Rule{Path: "config.metadata.user_id", With: "<<u>>"}
	if res = compareBytes(t, []byte(a), []byte(b), Options{NoCost: true, Redact: []redact.Rule{rule}}); !res.Identical {
		t.Errorf("a redacted change: %+v", res.First)
	}
	// When the side that records the change holds the whole header, its
	// header (after redaction) says whether it changed: any rule, even
	// one that matches nothing, leaves real drift drift, and a rule that
	// makes its two headers the same makes it none.
	changedSystem := step(1) + hdr(1, "initial", `"S on host-1"`, `[{"name":"a"}]`) + msg(1) + step(2) + hdr(2, "change", `"S on host-2"`, `[{"name":"a"}]`) + msg(2)
	golden = step(1) + hdr(1, "initial", tpl, `"<<tools>>"`) + msg(1) + step(2) + msg(2)
	nothing := redact.Rule{Regex: regexp.MustCompile("zzz"), With: "X"}
	res = compareBytes(t, []byte(golden), []byte(changedSystem), Options{NoCost: true, Redact: []redact.Rule{nothing}})
	if res.Identical || res.First == nil || !strings.Contains(res.First.Cause, "B's log records a header change here and A's does not") {
		t.Errorf("a rule that matches nothing hid a change: %+v", res.First)
	}
	// After a change event both golden logs record, byte for byte, a
	// change only one of them records is still drift.
	shared := step(1) + hdr(1, "initial", tpl, `"<<tools>>"`) + msg(1) + step(2) + hdr(2, "change", tpl, `"<<tools>>"`) + msg(2)
	more := shared + step(3) + hdr(3, "change", tpl, `"<<tools>>"`) + msg(3)
	same := shared + step(3) + msg(3)
	for _, c := range [][2]string{{more, same}, {same, more}} {
		if res = compareBytes(t, []byte(c[0]), []byte(c[1]), Options{NoCost: true}); res.Identical || res.First == nil || res.First.Request != 3 {
			t.Errorf("a change after a shared one: %+v", res.First)
		}
	}
	// Bodies against a captured golden log: the bodies hold the whole
	// header, so a tool dropped from the second body is drift there.
	capHdr := `{"type":"request/header","data":{"request":1,"reason":"initial","format":"anthropic","header":{"config":{"model":"m"},"system":"<<system>>","tools":"<<tools>>"}}}` + "\n"
	capReq := func(n int) string {
		return `{"type":"capture/request","data":{"request":` + itoa(n) + `,"format":"anthropic","path":"/v1/messages","body":{"model":"<<config>>","system":"<<system>>","tools":"<<tools>>","messages":[]}}}` + "\n"
	}
	capGolden := capHdr + capReq(1) + capReq(2)
	body := func(tools string) string {
		return `{"model":"m","system":"S","tools":` + tools + `,"messages":[]}` + "\n"
	}
	steady := body(`[{"name":"a"},{"name":"b"}]`) + body(`[{"name":"a"},{"name":"b"}]`)
	dropped := body(`[{"name":"a"},{"name":"b"}]`) + body(`[{"name":"a"}]`)
	if res = compareBytes(t, []byte(capGolden), []byte(steady), Options{NoCost: true}); !res.Identical {
		t.Errorf("bodies under one header against their golden log: %+v", res.First)
	}
	for _, c := range [][2]string{{capGolden, dropped}, {dropped, capGolden}} {
		if res = compareBytes(t, []byte(c[0]), []byte(c[1]), Options{NoCost: true}); res.Identical || res.First == nil || res.First.Request != 2 {
			t.Errorf("a tool dropped from the second body: %+v", res.First)
		}
	}
	// And a change the golden log records, against bodies under one
	// header; against bodies that change there too, none.
	capChanged := capHdr + capReq(1) + strings.Replace(capHdr, `"request":1,"reason":"initial"`, `"request":2,"reason":"change"`, 1) + capReq(2)
	for _, c := range [][2]string{{capChanged, steady}, {steady, capChanged}} {
		if res = compareBytes(t, []byte(c[0]), []byte(c[1]), Options{NoCost: true}); res.Identical || res.First == nil || res.First.Request != 2 {
			t.Errorf("a change only the golden log records: %+v", res.First)
		}
	}
	if res = compareBytes(t, []byte(capChanged), []byte(dropped), Options{NoCost: true}); !res.Identical {
		t.Errorf("both change at request 2: %+v", res.First)
	}
	host := redact.Rule{Regex: regexp.MustCompile("host-[0-9]"), With: "<<host>>"}
	if res = compareBytes(t, []byte(golden), []byte(changedSystem), Options{NoCost: true, Redact: []redact.Rule{host}}); !res.Identical {
		t.Errorf("a change only in a redacted value: %+v", res.First)
	}
}

// A template hides what a header's system and tools are, not whether it
// has them: a host whose plugins failed to load, so that it sent no tools,
// differs from a golden log that holds "<<tools>>".
func TestTemplatedMemberPresence(t *testing.T) {
	event := func(header string) string {
		return `{"type":"step/start","data":{"turn":1,"step":1}}` + "\n" +
			`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":` + header + `}}` + "\n"
	}
	golden := event(`{"config":{"model":"m"},"system":"<<system>>","tools":"<<tools>>"}`)
	for _, c := range []struct{ name, other, path string }{
		{"no tools", event(`{"config":{"model":"m"},"system":"S"}`), "tools"},
		{"no system", event(`{"config":{"model":"m"},"tools":[{"name":"a"}]}`), "system"},
		{"body without tools", `{"model":"m","system":"S","messages":[]}` + "\n", "tools"},
	} {
		for _, swap := range []bool{false, true} {
			a, b := golden, c.other
			if swap {
				a, b = b, a
			}
			res := compareBytes(t, []byte(a), []byte(b), Options{NoCost: true})
			if res.Identical || res.First == nil || res.First.Path != c.path {
				t.Errorf("%s (swapped %v): %+v", c.name, swap, res.First)
			}
		}
	}
	full := event(`{"config":{"model":"m"},"system":"S","tools":[]}`)
	if res := compareBytes(t, []byte(golden), []byte(full), Options{NoCost: true}); !res.Identical {
		t.Errorf("both present: %+v", res.First)
	}
}

// A body whose members a provider would refuse, or one without what a
// body of its format asks (read with -format, a log is no body), cannot
// be compared: it is an input error, with its line.
func TestBodyShapes(t *testing.T) {
	log := `{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":{"config":{"model":"m"},"system":"S","tools":[]}}}`
	for _, c := range []struct {
		body   string
		format Format
		want   string
	}{
		{`{"model":"m","messages":"x"}`, FormatAuto, `not a request body in the openai-chat format: member "messages" is a string; OpenAI Chat expects an array`},
		{`{"model":"c","messages":[],"system":5,"max_tokens":5}`, FormatAuto, `not a request body in the anthropic format: member "system" is a number; Anthropic expects an array or a string`},
		{`{"model":"c","messages":[],"system":"S","tools":{"a":1},"max_tokens":5}`, FormatAuto, `not a request body in the anthropic format: member "tools" is an object; Anthropic expects an array`},
		{`{"model":"c","messages":[],"tools":{"a":1},"max_tokens":5}`, FormatAuto, `member "tools" is an object; OpenAI Chat expects an array`},
		{`{"contents":"hi"}`, FormatAuto, `not a request body in the gemini format: member "contents" is a string; Gemini expects an array or an object`},
		{`{"model":"g","input":"hi","instructions":["x"]}`, FormatAuto, `member "instructions" is an array; OpenAI Responses expects a string`},
		{`{"model":"g","input":"hi","model":5}`, FormatAuto, `the body has the member "model" twice`},
		{`{"model":true,"input":"hi"}`, FormatAuto, `member "model" is a boolean; OpenAI Responses expects a string`},
		{log, Format(wire.Anthropic), `not a request body in the anthropic format: member "messages" is missing; Anthropic expects an array`},
		{`{"foo":1}`, Format(wire.Anthropic), `member "messages" is missing; Anthropic expects an array`},
		{`{"model":"g","tools":[]}`, Format(wire.Gemini), `not a request body in the gemini format: member "contents" is missing; Gemini expects an array or an object`},
		{`{"model":"g","tools":[]}`, Format(wire.OpenAIResponses), `not a request body in the openai-responses format: it has none of the members "input", "instructions", "previous_response_id", "conversation", "prompt" or "max_output_tokens"; OpenAI Responses expects one of them`},
	} {
		first := `{"model":"m","messages":[]}`
		switch c.format {
		case Format(wire.Gemini):
			first = `{"contents":[]}`
		case Format(wire.OpenAIResponses):
			first = `{"model":"m","input":[]}`
		}
		in := []byte(first + "\n" + c.body + "\n")
		_, err := Compare(Source{Name: "A", Reader: bytes.NewReader(in)}, Source{Name: "B", Reader: bytes.NewReader(in)}, Options{Format: c.format, NoCost: true})
		var ie *InputError
		if !errors.As(err, &ie) || ie.Line != 2 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (-format %s): %v, want line 2 and %q", c.body, c.format, err, c.want)
		}
	}
}

// What providers take is taken: null for an optional member, and for
// Gemini a single object for a repeated field. The members a provider
// requires (model, max_tokens) are the fake provider's to ask for, not
// replay diff's: a body logged elsewhere may lack them.
func TestBodyShapesAccepted(t *testing.T) {
	for _, body := range []string{
		`{"system":"S","messages":[]}`,
		`{"messages":[],"model":null}`,
		`{"model":"c","messages":[],"tools":null,"system":null,"max_tokens":5}`,
		`{"model":"g","messages":[],"tools":null}`,
		`{"model":"g","input":null,"previous_response_id":"r1","instructions":null}`,
		`{"contents":{"parts":{"text":"hi"}},"tools":{"function_declarations":[{"name":"f"}]}}`,
		`{"contents":[],"tools":null,"systemInstruction":null}`,
	} {
		if res, err := Compare(Source{Name: "A", Reader: strings.NewReader(body)}, Source{Name: "B", Reader: strings.NewReader(body)}, Options{NoCost: true}); err != nil || !res.Identical {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestBodyErrorColumns: an error about one member of a body (written
// twice, of a type the format's provider refuses) is placed at the
// member's key: file:line:column, the column in characters, the line
// that of the key in a body spread over lines. A body that lacks a member
// has no member to place it at.
func TestBodyErrorColumns(t *testing.T) {
	for _, c := range []struct {
		body   string
		format Format
		at     string // the key the error is placed at, its last occurrence; "" for none
		want   string
	}{
		{`{"model":"m","max_tokens":2048,"max_tokens":1024,"messages":[]}`, FormatAuto, `"max_tokens"`, `the body has the member "max_tokens" twice`},
		{`{"model":"m","m\u0061x_tokens":1,"max_tokens":1,"messages":[]}`, FormatAuto, `"max_tokens"`, `the body has the member "max_tokens" twice`},
		{`{"contents":[],"systemInstruction":{},"system_instruction":{}}`, FormatAuto, `"system_instruction"`, "the body has two system members"},
		{`{"model":"m","messages":"x"}`, FormatAuto, `"messages"`, `not a request body in the openai-chat format: member "messages" is a string`},
		{`{"model":"c","messages":[],"system":5,"max_tokens":5}`, FormatAuto, `"system"`, `not a request body in the anthropic format: member "system" is a number`},
		{`{"model":"ü€","system":"S","messages":[],"tools":{"a":1}}`, FormatAuto, `"tools"`, `not a request body in the anthropic format: member "tools" is an object`},
		{`{"contents":[],"system_instruction":"s"}`, FormatAuto, `"system_instruction"`, `member "system_instruction" is a string; Gemini expects an object`},
		{`{"model":true,"input":"hi"}`, FormatAuto, `"model"`, `member "model" is a boolean`},
		{`{"model":"g","input":"hi","instructions":["x"]}`, FormatAuto, `"instructions"`, `member "instructions" is an array`},
		{"{\n  \"model\": \"c\",\n  \"system\": \"S\",\n  \"messages\": [],\n    \"tools\": {}\n}", FormatAuto, `"tools"`, `member "tools" is an object`},
		{`{"model":"g","contents":[],"tools":"x"}`, Format(wire.Gemini), `"tools"`, `not a request body in the gemini format: member "tools" is a string`},
		{`{"model":"g","tools":[]}`, Format(wire.Gemini), "", `not a request body in the gemini format: member "contents" is missing`},
	} {
		first := `{"model":"m","messages":[]}`
		switch c.format {
		case Format(wire.Gemini):
			first = `{"contents":[]}`
		}
		in, line, col := []byte(first+"\n"+c.body+"\n"), 2, 0
		if strings.Contains(c.body, "\n") {
			in, line = []byte(c.body+"\n"), 1 // a file of pretty-printed bodies
		}
		_, err := Compare(Source{Name: "A", Reader: bytes.NewReader(in)}, Source{Name: "B", Reader: bytes.NewReader(in)}, Options{Format: c.format, NoCost: true})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.body, err, c.want)
			continue
		}
		if c.at != "" {
			off := strings.LastIndex(c.body, c.at)
			before := c.body[:off]
			line += strings.Count(before, "\n")
			col = 1 + utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:])
		}
		if ie.Line != line || ie.Column != col {
			t.Errorf("%s: at %d:%d (%v), want %d:%d", c.body, ie.Line, ie.Column, err, line, col)
		}
		if col > 0 && !strings.HasPrefix(err.Error(), fmt.Sprintf("A:%d:%d: ", line, col)) {
			t.Errorf("%s: %q, want it to start A:%d:%d:", c.body, err, line, col)
		}
	}
}

// TestAmbiguousBodyShape: a body whose format only context tells (see
// TestAmbiguousFormat) is judged in the format it is read in, the other
// input's paired body's or its input's earlier bodies', not in the
// detection's fallback, OpenAI Chat; a body on one side only, in its
// input's.
func TestAmbiguousBodyShape(t *testing.T) {
	sure := `{"model":"claude-sonnet-4-6","max_tokens":1,"system":"S","messages":[],"tools":[{"name":"a","input_schema":{"type":"object"}}]}`
	badTools := `{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[],"tools":{"a":1}}`
	chat := `{"model":"gpt-5","messages":[{"role":"system","content":"S"}]}`
	anthropicSays := `not a request body in the anthropic format: member "tools" is an object; Anthropic expects an array`
	chatSays := `not a request body in the openai-chat format: member "tools" is an object; OpenAI Chat expects an array`
	for _, c := range []struct {
		name, a, b string
		want       string // the error, "" for none
	}{
		{"the other input's paired body", sure, badTools, "B:1:59: " + anthropicSays},
		{"the other way round", badTools, sure, "A:1:59: " + anthropicSays},
		{"the input's earlier bodies", sure + "\n" + badTools, sure + "\n" + sure, "A:2:59: " + anthropicSays},
		{"on one side only", sure, sure + "\n" + badTools, "B:2:59: " + anthropicSays},
		{"on one side only, after a paired one", sure + "\n" + sure, sure + "\n" + sure + "\n" + badTools, "B:3:59: " + anthropicSays},
		{"beside OpenAI Chat", chat, badTools, "B:1:59: " + chatSays},
		{"nothing says", badTools, badTools, "A:1:59: " + chatSays},
		// What Anthropic takes and OpenAI Chat does not (a string
		// system, were it ambiguous) is no matter here: null tools,
		// which both take, beside an Anthropic body.
		{"taken", sure, `{"model":"claude-sonnet-4-6","max_tokens":1,"messages":[],"tools":null}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compare(Source{Name: "A", Reader: strings.NewReader(c.a + "\n")}, Source{Name: "B", Reader: strings.NewReader(c.b + "\n")}, Options{})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}
