package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/corpustest"
	"github.com/tidwall/gjson"
)

// corpusFormats maps the corpus files to their wire formats.
var corpusFormats = map[string]Format{
	"anthropic-messages.jsonl": Anthropic,
	"openai-chat.jsonl":        OpenAIChat,
	"openai-responses.jsonl":   OpenAIResponses,
	"gemini.jsonl":             Gemini,
}

// corpusBodies reads every request body of the shared corpus with its format.
func corpusBodies(t testing.TB) (bodies [][]byte, formats []Format) {
	t.Helper()
	dir := corpustest.Dir(t)
	for _, sub := range []string{"real", "real/extra", "fantasy"} {
		for _, file := range slices.Sorted(maps.Keys(corpusFormats)) { // a seeded test sees one order
			f := corpusFormats[file]
			fh, err := os.Open(filepath.Join(dir, sub, file))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 64<<20)
			for sc.Scan() {
				if len(bytes.TrimSpace(sc.Bytes())) > 0 {
					bodies = append(bodies, bytes.Clone(sc.Bytes()))
					formats = append(formats, f)
				}
			}
			fh.Close()
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(bodies) < 96 {
		t.Fatalf("read %d corpus bodies, want at least the 96 of real/", len(bodies))
	}
	return bodies, formats
}

func TestSplitRebuildsEveryCorpusBody(t *testing.T) {
	bodies, formats := corpusBodies(t)
	for i, body := range bodies {
		p, err := Split(body, formats[i])
		if err != nil {
			t.Fatalf("body %d (%s): %v", i, formats[i], err)
		}
		got, err := Rebuild(p)
		if err != nil {
			t.Fatalf("body %d (%s): rebuild: %v", i, formats[i], err)
		}
		if !bytes.Equal(got, body) {
			t.Fatalf("body %d (%s): rebuilt bytes differ\n got: %.300s\nwant: %.300s", i, formats[i], got, body)
		}
		if p.Tools == nil {
			t.Errorf("body %d (%s): no tools found", i, formats[i])
		}
		// Verbatim: each part is a substring of the body.
		if !bytes.Contains(body, p.Tools) {
			t.Errorf("body %d: tools are not verbatim", i)
		}
		if !gjson.ValidBytes(p.Header()) {
			t.Errorf("body %d: header is not valid JSON: %.200s", i, p.Header())
		}
	}
}

func TestSplitParts(t *testing.T) {
	cases := []struct {
		name                 string
		f                    Format
		body                 string
		config, system, tool string
		rest                 string
	}{
		{"anthropic string system", Anthropic,
			`{"max_tokens":5,"messages":[{"role":"user","content":"hi"}],"model":"m","system":"be \u003cbrief\u003e","tools":[{"name":"a"}],"stream":true}`,
			`{"max_tokens":5,"model":"m"}`, `"be \u003cbrief\u003e"`, `[{"name":"a"}]`,
			`{"max_tokens":"<<config>>","messages":[{"role":"user","content":"hi"}],"model":"<<config>>","system":"<<system>>","tools":"<<tools>>","stream":true}`},
		{"openai chat leading system messages", OpenAIChat,
			`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"developer","content":"d"},{"role":"user","content":"u"},{"role":"system","content":"late"}],"tools":[]}`,
			`{"model":"m"}`, `[{"role":"system","content":"s"},{"role":"developer","content":"d"}]`, `[]`,
			`{"model":"<<config>>","messages":["<<system>>",{"role":"user","content":"u"},{"role":"system","content":"late"}],"tools":"<<tools>>"}`},
		// A key written twice counts with its last value, as JSON.parse
		// and the provider read it: the first message here is a system
		// message, the second one a user message.
		{"openai chat duplicate role", OpenAIChat,
			`{"model":"m","messages":[{"role":"user","role":"system","content":"s"},{"role":"system","role":"user","content":"u"}]}`,
			`{"model":"m"}`, `[{"role":"user","role":"system","content":"s"}]`, ``,
			`{"model":"<<config>>","messages":["<<system>>",{"role":"system","role":"user","content":"u"}]}`},
		{"openai chat without system", OpenAIChat,
			`{"messages":[{"role":"user","content":"u"}],"model":"m"}`,
			`{"model":"m"}`, ``, ``,
			`{"messages":[{"role":"user","content":"u"}],"model":"<<config>>"}`},
		{"responses", OpenAIResponses,
			`{"input":"hi","instructions":"be brief","model":"m","previous_response_id":"r1","stream":false}`,
			`{"model":"m"}`, `"be brief"`, ``,
			`{"input":"hi","instructions":"<<system>>","model":"<<config>>","previous_response_id":"r1","stream":false}`},
		{"gemini snake case", Gemini,
			`{"contents":[],"system_instruction":{"parts":[{"text":"s"}]},"generationConfig":{},"tools":[{"functionDeclarations":[]}]}` + "\n",
			`{"generationConfig":{}}`, `{"parts":[{"text":"s"}]}`, `[{"functionDeclarations":[]}]`,
			`{"contents":[],"system_instruction":"<<system>>","generationConfig":"<<config>>","tools":"<<tools>>"}`},
		{"spaces kept", Anthropic,
			`{"model": "m", "tools": [{"name": "a"}], "messages": []}`,
			`{"model": "m"}`, ``, `[{"name": "a"}]`,
			`{"model": "<<config>>", "tools": "<<tools>>", "messages": []}`},
		{"pretty-printed", Anthropic,
			"{\n  \"model\": \"m\",\n  \"tools\": [\n    {\"name\": \"a b\"}\n  ]\n}\n",
			`{"model":"m"}`, ``, `[{"name":"a b"}]`,
			`{"model":"<<config>>","tools":"<<tools>>"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := Split([]byte(c.body), c.f)
			if err != nil {
				t.Fatal(err)
			}
			if string(p.Config) != c.config || string(p.System) != c.system || string(p.Tools) != c.tool || string(p.Rest) != c.rest {
				t.Errorf("split:\nconfig %s\nsystem %s\ntools  %s\nrest   %s", p.Config, p.System, p.Tools, p.Rest)
			}
			got, err := Rebuild(p)
			if err != nil || string(got) != c.body {
				t.Errorf("rebuild = %q, %v; want %q", got, err, c.body)
			}
		})
	}
}

func TestSplitRejects(t *testing.T) {
	for body, want := range map[string]string{
		`{"model":"a","model":"b"}`: `member "model" twice`,
		`[1,2]`:                     "not a JSON object",
		`{"model":`:                 "not valid JSON",
		``:                          "the body is empty",
		" \n":                       "only whitespace",
		`{"system":"a","system":1}`: "twice",
		"\xef\xbb\xbf{}":            "byte-order mark",
	} {
		if _, err := Split([]byte(body), Anthropic); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Split(%q) = %v, want an error with %q", body, err, want)
		}
	}
	// A refused body says where, up to the size a second pass is spent on.
	if _, err := Split([]byte("{\"model\":\"m\",}"), Anthropic); err == nil || !strings.HasSuffix(err.Error(), "not valid JSON: line 1, column 14: invalid character '}' looking for object key") {
		t.Errorf("a small bad body: %v", err)
	}
	big := []byte(`{"model":"` + strings.Repeat("x", locateLimit) + `",}`)
	if _, err := Split(big, Anthropic); err == nil || err.Error() != "the body is not valid JSON" {
		t.Errorf("a large bad body: %v", err)
	}
	gem := `{"systemInstruction":{},"system_instruction":{}}`
	if _, err := Split([]byte(gem), Gemini); err == nil {
		t.Errorf("Split(%s) accepted two system members", gem)
	}
}

// randomBody writes a random request body of format f with random
// spacing, member order and values.
func randomBody(rng *rand.Rand, f Format) []byte {
	sp := func() string {
		return [...]string{"", "", " ", "  ", "\t"}[rng.IntN(5)]
	}
	val := func() string {
		return [...]string{`"x"`, `1.50`, `-0`, `1e3`, `true`, `null`, `"\u003c\/"`, `{"a":[1,{"b":"c"}]}`, `[]`, `{}`, `"é\n"`}[rng.IntN(11)]
	}
	members := []string{`"model"`, `"max_tokens"`, `"temperature"`, `"tools"`, `"stream"`, `"metadata"`}
	switch f {
	case Anthropic:
		members = append(members, `"system"`, `"messages"`)
	case OpenAIChat:
		members = append(members, `"stream_options"`)
	case OpenAIResponses:
		members = append(members, `"instructions"`, `"input"`, `"previous_response_id"`)
	case Gemini:
		members = append(members, `"systemInstruction"`, `"contents"`, `"generationConfig"`)
	}
	rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
	members = members[:rng.IntN(len(members)+1)]
	// Half the bodies are of the shape a provider takes, with the members
	// it requires (see TestBodyRuleInSplitAgrees); the others are
	// anything.
	rule := rules[f]
	shaped := rng.IntN(2) == 0
	if shaped {
		need := []string{rule.asks[rng.IntN(len(rule.asks))]}
		for _, m := range rule.members {
			if m.required {
				need = append(need, m.name)
			}
		}
		for _, n := range need {
			if q := `"` + n + `"`; !slices.Contains(members, q) {
				members = slices.Insert(members, rng.IntN(len(members)+1), q)
			}
		}
	}
	var b strings.Builder
	b.WriteString(sp() + "{" + sp())
	for i, m := range members {
		if i > 0 {
			b.WriteString(sp() + "," + sp())
		}
		b.WriteString(m + sp() + ":" + sp())
		kinds := kindAny
		if shaped {
			for _, r := range rule.members {
				if `"`+r.name+`"` == m {
					kinds = r.kinds
				}
			}
		}
		if f == OpenAIChat && kinds&kindArray != 0 && rng.IntN(2) == 0 {
			b.WriteString("[")
			for j := range rng.IntN(4) {
				if j > 0 {
					b.WriteString("," + sp())
				}
				role := [...]string{"system", "developer", "user", "assistant"}[rng.IntN(4)]
				b.WriteString(`{"role":` + sp() + `"` + role + `","content":` + val() + "}")
			}
			b.WriteString(sp() + "]")
			continue
		}
		v := val()
		for kindOf(v[0])&kinds == 0 {
			v = val()
		}
		b.WriteString(v)
	}
	b.WriteString(sp() + "}" + sp())
	out := b.String()
	if rng.IntN(4) == 0 {
		out = strings.ReplaceAll(out, ",", ",\n  ")
	}
	return []byte(out)
}

func TestSplitRebuildProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		f := Formats[i%len(Formats)]
		body := randomBody(rng, f)
		if !gjson.ValidBytes(bytes.TrimSpace(body)) {
			t.Fatalf("generator wrote invalid JSON: %s", body)
		}
		p, err := Split(body, f)
		if err != nil {
			t.Fatalf("%s %q: %v", f, body, err)
		}
		got, err := Rebuild(p)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("%s: rebuild(%q) = %q, %v", f, body, got, err)
		}
		for _, part := range [][]byte{p.Header(), p.Rest} {
			if !gjson.ValidBytes(part) || bytes.ContainsAny(part, "\n\r") {
				t.Fatalf("%s %q: part %q is not one valid JSON line", f, body, part)
			}
		}
	}
}

func FuzzSplitRebuild(f *testing.F) {
	f.Add([]byte(`{"model":"m","messages":[{"role":"system","content":"s"}],"tools":[]}`), uint8(1))
	f.Add([]byte("{\n \"system\": \"x\"\n}"), uint8(0))
	f.Fuzz(func(t *testing.T, body []byte, fi uint8) {
		fm := Formats[int(fi)%len(Formats)]
		p, err := Split(body, fm)
		if err != nil {
			return
		}
		got, err := Rebuild(p)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("rebuild(%q) = %q, %v", body, got, err)
		}
	})
}

// SplitAfter returns what SplitShared does for every body of a session,
// whether it repeats the header of the body before, changes it, breaks
// right after a repeated value or changes format.
func TestSplitAfterAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var last *Parts
	var lastBody []byte
	repeats := 0
	for i := range 20000 {
		f := Formats[i/50%len(Formats)]
		body := randomBody(rng, f)
		if lastBody != nil && rng.IntN(2) == 0 {
			// The header of the body before, with the rest cut or
			// flipped at times.
			body = bytes.Clone(lastBody)
			switch rng.IntN(4) {
			case 0:
				body = body[:rng.IntN(len(body)+1)]
			case 1:
				body[rng.IntN(len(body))] = "{}[]\",:0a\\ "[rng.IntN(11)]
			}
			repeats++
		}
		want, wantErr := SplitShared(body, f)
		got, gotErr := SplitAfter(body, f, last)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %q after %q:\nSplitAfter  %+v, %v\nSplitShared %+v, %v", f, body, lastBody, got, gotErr, want, wantErr)
		}
		if gotErr == nil {
			last, lastBody = got, body
		}
	}
	if repeats < 5000 {
		t.Fatalf("only %d bodies repeated the one before", repeats)
	}
}

// ReadHeader reads every header document Parts.Header writes, and reads
// it as the general parser does; a document laid out otherwise (spaces,
// a member twice or out of place, extra members, a cut) it either reads
// the same way or refuses.
func TestReadHeaderAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	same := func(a, b *Header) bool {
		return a.format == b.format && reflect.DeepEqual(a.configs, b.configs) &&
			bytes.Equal(a.sys, b.sys) && (a.sys == nil) == (b.sys == nil) &&
			bytes.Equal(a.tools, b.tools) && (a.tools == nil) == (b.tools == nil)
	}
	edits := []func([]byte) []byte{
		func(b []byte) []byte { return bytes.Replace(b, []byte(`":`), []byte(`": `), 1) },
		func(b []byte) []byte { return append(b[:len(b)-1:len(b)-1], []byte(` }`)...) },
		func(b []byte) []byte { return append(b[:len(b)-1:len(b)-1], []byte(`,"tools":[1]}`)...) },
		func(b []byte) []byte { return append(b[:len(b)-1:len(b)-1], []byte(`,"system":"again"}`)...) },
		func(b []byte) []byte { return append(b[:len(b)-1:len(b)-1], []byte(`,"x":{}}`)...) },
		func(b []byte) []byte {
			return bytes.Replace(b, []byte(`{"config":`), []byte(`{"system":"s","config":`), 1)
		},
		func(b []byte) []byte { return b[:rng.IntN(len(b))] },
	}
	read := 0
	for i := range 20000 {
		f := Formats[i%len(Formats)]
		p, err := Split(randomBody(rng, f), f)
		if err != nil {
			t.Fatal(err)
		}
		doc := p.Header()
		if i%2 == 1 {
			doc = edits[rng.IntN(len(edits))](bytes.Clone(doc))
		}
		want, wantErr := parseHeader(f, doc)
		got, ok := ReadHeader(f, doc)
		switch {
		case i%2 == 0 && !ok:
			t.Fatalf("ReadHeader refused %s, as Parts.Header wrote it", doc)
		case ok && (wantErr != nil || !same(got, want)):
			t.Fatalf("ReadHeader(%s) = %+v, the general parser %+v, %v", doc, got, want, wantErr)
		case ok:
			read++
		}
	}
	if read < 10000 {
		t.Errorf("ReadHeader read only %d documents", read)
	}
}

// Split reads the transport flags from their values: "stream": true asks
// for a stream and nothing else does; an OpenAI Chat stream's usage chunk
// is asked for by stream_options.include_usage true alone.
func TestSplitStreamFlags(t *testing.T) {
	cases := []struct {
		f             Format
		body          string
		stream, usage bool
	}{
		{Anthropic, `{"model":"m","messages":[],"stream":true}`, true, false},
		{Anthropic, `{"model":"m","messages":[],"stream":false}`, false, false},
		{Anthropic, `{"model":"m","messages":[]}`, false, false},
		{OpenAIResponses, `{"model":"m","input":"hi","stream":false}`, false, false},
		{OpenAIChat, `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true}}`, true, true},
		{OpenAIChat, `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":false}}`, true, false},
		{OpenAIChat, `{"model":"m","messages":[],"stream":false,"stream_options":{}}`, false, false},
		{OpenAIChat, `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":false,"include_usage":true}}`, true, true},
		{OpenAIChat, `{"model":"m","messages":[],"stream":true,"stream_options":{"include_usage":true,"include_usage":false}}`, true, false},
	}
	for _, c := range cases {
		p, err := Split([]byte(c.body), c.f)
		if err != nil {
			t.Fatalf("%s %s: %v", c.f, c.body, err)
		}
		if p.Stream != c.stream || p.Usage != c.usage {
			t.Errorf("%s %s: Stream %v Usage %v, want %v %v", c.f, c.body, p.Stream, p.Usage, c.stream, c.usage)
		}
	}
}
