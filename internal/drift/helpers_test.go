package drift

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/canon"
	"github.com/headergold/headergold/internal/corpustest"
	"github.com/tidwall/gjson"
)

// corpusDir finds the shared corpus or skips the test.
func corpusDir(t testing.TB) string { return corpustest.Dir(t) }

// testHeader is a request header in the shape of a session log's header:
// canonical tool objects {"name","description","parameters"} kept as raw
// bytes so that encoding drift survives rendering.
type testHeader struct {
	model  string
	system string
	tools  [][]byte
	// systemRaw, when set, is written instead of system's canonical form.
	systemRaw []byte
}

func (h testHeader) clone() testHeader {
	c := h
	c.tools = make([][]byte, len(h.tools))
	for i, t := range h.tools {
		c.tools[i] = bytes.Clone(t)
	}
	return c
}

func (h testHeader) toolIndex(name string) int {
	for i, t := range h.tools {
		if gjson.GetBytes(t, "name").String() == name {
			return i
		}
	}
	return -1
}

// loadDSH reads a dsh snapshot: its system prompt and initial tool list.
func loadDSH(t testing.TB, dir string) testHeader {
	t.Helper()
	sys, err := os.ReadFile(filepath.Join(dir, "system-prompt.expected.md"))
	if err != nil {
		t.Fatal(err)
	}
	schemas, err := os.ReadFile(filepath.Join(dir, "tool-schemas.expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	compact, err := canon.Compact(nil, schemas)
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	h := testHeader{model: "m-1", system: string(sys)}
	for _, tool := range gjson.GetBytes(compact, "initial").Array() {
		h.tools = append(h.tools, []byte(tool.Raw))
	}
	if len(h.tools) == 0 {
		t.Fatalf("%s: no initial tools", dir)
	}
	return h
}

func (h testHeader) systemJSON() []byte {
	if h.systemRaw != nil {
		return h.systemRaw
	}
	return canon.AppendString(nil, h.system)
}

// toolParts returns the raw name, description and parameters of a tool.
func toolParts(tool []byte) (name, desc, params string) {
	r := gjson.ParseBytes(tool)
	return r.Get("name").Raw, r.Get("description").Raw, r.Get("parameters").Raw
}

// wireFormats are the renderings the corpus tests use; "gemini-snake" is
// Gemini in snake_case.
var wireFormats = []string{"log", "anthropic", "openai-chat", "openai-responses", "gemini", "gemini-snake"}

// renderBody writes h as a request body of format f with a conversation
// of n user messages saying say.
func renderBody(f string, h testHeader, n int, say string) []byte {
	var b bytes.Buffer
	msgs := func(shape string) string {
		var parts []string
		for i := range n {
			text := string(canon.AppendString(nil, fmt.Sprintf("%s %d", say, i+1)))
			parts = append(parts, fmt.Sprintf(shape, text))
		}
		return strings.Join(parts, ",")
	}
	tools := func(shape string) string {
		var parts []string
		for _, t := range h.tools {
			name, desc, params := toolParts(t)
			parts = append(parts, fmt.Sprintf(shape, name, desc, params))
		}
		return strings.Join(parts, ",")
	}
	sys := h.systemJSON()
	model := canon.AppendString(nil, h.model)
	switch f {
	case "anthropic":
		fmt.Fprintf(&b, `{"model":%s,"max_tokens":1024,"system":[{"type":"text","text":%s}],"messages":[%s],"tools":[%s]}`,
			model, sys, msgs(`{"role":"user","content":[{"type":"text","text":%s}]}`),
			tools(`{"name":%s,"description":%s,"input_schema":%s}`))
	case "openai-chat":
		m := msgs(`{"role":"user","content":%s}`)
		fmt.Fprintf(&b, `{"model":%s,"messages":[{"role":"system","content":%s},%s],"max_tokens":1024,"tools":[%s]}`,
			model, sys, m, tools(`{"type":"function","function":{"name":%s,"description":%s,"parameters":%s}}`))
	case "openai-responses":
		fmt.Fprintf(&b, `{"model":%s,"instructions":%s,"input":[%s],"max_output_tokens":1024,"tools":[%s]}`,
			model, sys, msgs(`{"role":"user","content":[{"type":"input_text","text":%s}]}`),
			tools(`{"type":"function","name":%s,"description":%s,"parameters":%s}`))
	case "gemini":
		fmt.Fprintf(&b, `{"contents":[%s],"generationConfig":{"maxOutputTokens":1024},"systemInstruction":{"parts":[{"text":%s}]},"tools":[{"functionDeclarations":[%s]}]}`,
			msgs(`{"role":"user","parts":[{"text":%s}]}`), sys, tools(`{"name":%s,"description":%s,"parameters":%s}`))
	case "gemini-snake":
		fmt.Fprintf(&b, `{"contents":[%s],"generation_config":{"max_output_tokens":1024},"system_instruction":{"parts":[{"text":%s}]},"tools":[{"function_declarations":[%s]}]}`,
			msgs(`{"role":"user","parts":[{"text":%s}]}`), sys, tools(`{"name":%s,"description":%s,"parameters":%s}`))
	default:
		panic("renderBody: " + f)
	}
	return b.Bytes()
}

// logHeaderJSON writes h as a session log's header object.
func logHeaderJSON(h testHeader) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"config":{"model":%s},"system":%s,"tools":[%s]}`,
		canon.AppendString(nil, h.model), h.systemJSON(), bytes.Join(h.tools, []byte(",")))
	return b.Bytes()
}

// renderLog writes a session log with one turn per header; each turn says
// say and is followed by an assistant reply.
func renderLog(headers []testHeader, say string, templated bool) []byte {
	var b bytes.Buffer
	for i, h := range headers {
		turn := i + 1
		reason := "change"
		if i == 0 {
			reason = "initial"
		}
		hdr := logHeaderJSON(h)
		if templated {
			hdr = fmt.Appendf(nil, `{"config":{"model":%s},"system":"<<system>>","tools":"<<tools>>"}`, canon.AppendString(nil, h.model))
		}
		fmt.Fprintf(&b, `{"type":"turn/start","data":{"turn":%d}}`+"\n", turn)
		fmt.Fprintf(&b, `{"type":"user/message","data":{"turn":%d,"content":%s}}`+"\n", turn, canon.AppendString(nil, fmt.Sprintf("%s %d", say, turn)))
		fmt.Fprintf(&b, `{"type":"step/start","data":{"turn":%d,"step":1}}`+"\n", turn)
		fmt.Fprintf(&b, `{"type":"request/header","data":{"turn":%d,"step":1,"reason":%q,"header":%s}}`+"\n", turn, reason, hdr)
		fmt.Fprintf(&b, `{"type":"assistant/message","data":{"turn":%d,"step":1,"text":%s}}`+"\n", turn, canon.AppendString(nil, "answer to "+say))
		fmt.Fprintf(&b, `{"type":"step/end","data":{"turn":%d,"step":1}}`+"\n", turn)
		fmt.Fprintf(&b, `{"type":"turn/end","data":{"turn":%d,"reason":"completed"}}`+"\n", turn)
	}
	return b.Bytes()
}

// renderFile writes one header per record in format f.
func renderFile(f string, headers []testHeader, say string) []byte {
	if f == "log" {
		return renderLog(headers, say, false)
	}
	var b bytes.Buffer
	for i, h := range headers {
		b.Write(renderBody(f, h, i+1, say))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Paths of header places in each rendering: the header of a body is its
// own members verbatim, so Gemini's tools keep their tools entry.
func toolPath(f string, i int) string {
	switch f {
	case "gemini":
		return fmt.Sprintf("tools.0.functionDeclarations.%d", i)
	case "gemini-snake":
		return fmt.Sprintf("tools.0.function_declarations.%d", i)
	}
	return fmt.Sprintf("tools.%d", i)
}

func descPath(f string, i int) string {
	if f == "openai-chat" {
		return toolPath(f, i) + ".function.description"
	}
	return toolPath(f, i) + ".description"
}

func paramsPath(f string, i int) string {
	switch f {
	case "openai-chat":
		return toolPath(f, i) + ".function.parameters"
	case "anthropic":
		return toolPath(f, i) + ".input_schema"
	}
	return toolPath(f, i) + ".parameters"
}

func systemPath(f string) string {
	switch f {
	case "anthropic":
		return "system.0.text"
	case "openai-chat":
		return "system.0.content"
	case "gemini", "gemini-snake":
		return "system.parts.0.text"
	}
	return "system" // a log's system string, Responses' instructions
}

// setString replaces the string member key of the raw object obj.
func setString(obj []byte, key, value string) []byte {
	return splice(obj, gjson.GetBytes(obj, key), canon.AppendString(nil, value))
}

// splice replaces the value v found in src with raw.
func splice(src []byte, v gjson.Result, raw []byte) []byte {
	if !v.Exists() || v.Index <= 0 {
		panic("splice: value not located")
	}
	out := slices.Clone(src[:v.Index])
	out = append(out, raw...)
	return append(out, src[v.Index+len(v.Raw):]...)
}

// reverseKeys rewrites the raw object obj with its members in reverse order.
func reverseKeys(obj []byte) []byte {
	var members [][]byte
	gjson.ParseBytes(obj).ForEach(func(k, v gjson.Result) bool {
		members = append(members, []byte(k.Raw+":"+v.Raw))
		return true
	})
	slices.Reverse(members)
	return append(append([]byte{'{'}, bytes.Join(members, []byte(","))...), '}')
}

// changeWord changes the first word of at least four letters in s.
func changeWord(s string) string {
	words := strings.Fields(s)
	for _, w := range words {
		if len(w) >= 4 && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
			return strings.Replace(s, w, w[:len(w)-1]+"X", 1)
		}
	}
	return s + " changed"
}

func itoa(i int) string { return strconv.Itoa(i) }

func parse(raw string) gjson.Result { return gjson.Parse(raw) }
