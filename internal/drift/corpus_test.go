package drift

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func compareBytes(t *testing.T, a, b []byte, opts Options) *Result {
	t.Helper()
	res, err := Compare(Source{Name: "A", Reader: bytes.NewReader(a)}, Source{Name: "B", Reader: bytes.NewReader(b)}, opts)
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	return res
}

// checkDrift asserts the first differing header's index, path and kinds.
func checkDrift(t *testing.T, res *Result, index int, path string, kinds ...Kind) {
	t.Helper()
	if res.Identical || res.First == nil {
		t.Fatalf("identical, want drift at header %d path %s", index, path)
	}
	d := res.First
	if d.Index != index || d.Path != path || !slices.Equal(d.Kinds, kinds) {
		var text bytes.Buffer
		res.WriteText(&text)
		t.Fatalf("got header %d path %q kinds %v, want header %d path %q kinds %v\n%s", d.Index, d.Path, d.Kinds, index, path, kinds, text.String())
	}
}

// headerDrift is one kind of drift injected into a header.
type headerDrift struct {
	name  string
	apply func(testHeader) testHeader
	path  func(f string, h testHeader) string
	kinds []Kind
}

// ltTool returns the index of the first tool whose description holds "<".
func ltTool(h testHeader) int {
	for i, tool := range h.tools {
		if strings.Contains(gjson.GetBytes(tool, "description").Str, "<") {
			return i
		}
	}
	return -1
}

var headerDrifts = []headerDrift{
	{
		name: "swap",
		apply: func(h testHeader) testHeader {
			h.tools[1], h.tools[3] = h.tools[3], h.tools[1]
			return h
		},
		path:  func(f string, _ testHeader) string { return toolPath(f, 1) },
		kinds: []Kind{Reorder},
	},
	{
		name: "description",
		apply: func(h testHeader) testHeader {
			desc := gjson.GetBytes(h.tools[2], "description").Str
			h.tools[2] = setString(h.tools[2], "description", changeWord(desc))
			return h
		},
		path:  func(f string, _ testHeader) string { return descPath(f, 2) },
		kinds: []Kind{Content},
	},
	{
		name: "removed",
		apply: func(h testHeader) testHeader {
			h.tools = slices.Delete(h.tools, 2, 3)
			return h
		},
		path:  func(f string, _ testHeader) string { return toolPath(f, 2) },
		kinds: []Kind{Removed},
	},
	{
		name: "added",
		apply: func(h testHeader) testHeader {
			extra := []byte(`{"name":"aaa_new","description":"A new tool.","parameters":{"type":"object","properties":{}}}`)
			h.tools = slices.Insert(h.tools, 1, extra)
			return h
		},
		path:  func(f string, _ testHeader) string { return toolPath(f, 1) },
		kinds: []Kind{Added},
	},
	{
		name: "system",
		apply: func(h testHeader) testHeader {
			h.system = changeWord(h.system)
			return h
		},
		path:  func(f string, _ testHeader) string { return systemPath(f) },
		kinds: []Kind{Content},
	},
	{
		name: "key-order",
		apply: func(h testHeader) testHeader {
			params := gjson.GetBytes(h.tools[1], "parameters")
			h.tools[1] = splice(h.tools[1], params, reverseKeys([]byte(params.Raw)))
			return h
		},
		path:  func(f string, _ testHeader) string { return paramsPath(f, 1) },
		kinds: []Kind{Encoding},
	},
	{
		name: "html-escape",
		apply: func(h testHeader) testHeader {
			i := ltTool(h)
			desc := gjson.GetBytes(h.tools[i], "description")
			h.tools[i] = splice(h.tools[i], desc, bytes.ReplaceAll([]byte(desc.Raw), []byte("<"), []byte(`\u003c`)))
			return h
		},
		path:  func(f string, h testHeader) string { return descPath(f, ltTool(h)) },
		kinds: []Kind{Encoding},
	},
}

func dshScenarios(t *testing.T) map[string]testHeader {
	dirs, err := filepath.Glob(filepath.Join(corpusDir(t), "dsh", "*"))
	if err != nil || len(dirs) == 0 {
		t.Skipf("no dsh scenarios in the corpus (%v)", err)
	}
	out := map[string]testHeader{}
	for _, dir := range dirs {
		h := loadDSH(t, dir)
		if ltTool(h) < 0 { // give the escape drift something to escape
			h.tools[0] = setString(h.tools[0], "description", gjson.GetBytes(h.tools[0], "description").Str+" Pass <name>.")
		}
		out[filepath.Base(dir)] = h
	}
	return out
}

// TestDSHDrift renders the dsh headers into every format, injects each kind
// of drift into headers 3 and 4 of 4 on side B and checks what is found.
func TestDSHDrift(t *testing.T) {
	const n, at = 4, 3
	for name, base := range dshScenarios(t) {
		for _, f := range wireFormats {
			t.Run(name+"/"+f, func(t *testing.T) {
				t.Parallel()
				dshDrift(t, base, f, n, at)
			})
		}
	}
}

func dshDrift(t *testing.T, base testHeader, f string, n, at int) {
	headers := func(d *headerDrift) []testHeader {
		hs := make([]testHeader, n)
		for i := range hs {
			hs[i] = base.clone()
			if d != nil && (i+1 == at || i+1 == at+1) {
				hs[i] = d.apply(hs[i])
			}
		}
		return hs
	}
	a := renderFile(f, headers(nil), "hello")
	t.Run("identical", func(t *testing.T) {
		res := compareBytes(t, a, renderFile(f, headers(nil), "hello"), Options{})
		if !res.Identical || res.Headers != (Counts{n, n}) || res.LaterDiffering != 0 {
			t.Fatalf("got %+v, want identical with %d headers", res, n)
		}
	})
	t.Run("messages-only", func(t *testing.T) {
		b := renderFile(f, headers(nil), "something else entirely")
		if bytes.Equal(a, b) {
			t.Fatal("the messages did not change")
		}
		if res := compareBytes(t, a, b, Options{}); !res.Identical {
			t.Fatalf("messages-only difference reported as drift: %+v", res.First)
		}
	})
	for _, d := range headerDrifts {
		t.Run(d.name, func(t *testing.T) {
			res := compareBytes(t, a, renderFile(f, headers(&d), "hello"), Options{})
			checkDrift(t, res, at, d.path(f, base), d.kinds...)
			if res.LaterDiffering != 1 {
				t.Errorf("laterDiffering = %d, want 1", res.LaterDiffering)
			}
			checkDetail(t, f, d.name, res.First)
		})
	}
}

// checkDetail checks the detail each kind of drift must come with.
func checkDetail(t *testing.T, f, drift string, d *Difference) {
	t.Helper()
	switch drift {
	case "swap":
		if d.Tools == nil || len(d.Tools.Moved) == 0 || slices.Equal(d.Tools.A, d.Tools.B) {
			t.Errorf("reorder without moved tools: %+v", d.Tools)
		}
		if !strings.Contains(d.Cause, "registration order") {
			t.Errorf("cause %q does not name registration order", d.Cause)
		}
	case "description":
		c := d.Content
		want := "description"
		if f == "openai-chat" {
			want = "function.description"
		}
		if c == nil || c.Tool == "" || c.Field != want || !c.Strings || c.A == c.B {
			t.Errorf("content detail %+v, want tool and field %s with windows", c, want)
		}
	case "removed", "added":
		if d.Tools == nil || len(d.Tools.Removed)+len(d.Tools.Added) != 1 {
			t.Errorf("tool lists %+v, want one tool added or removed", d.Tools)
		}
	case "key-order":
		if e := d.Encoding; e == nil || e.Note != "key order" || e.A == e.B {
			t.Errorf("encoding detail %+v, want key order", e)
		}
	case "html-escape":
		e := d.Encoding
		if e == nil || e.Note != "escaping" || e.A != "<" || e.B != `\u003c` {
			t.Fatalf("encoding detail %+v, want < against \\u003c", e)
		}
		if e.OffsetA < 0 || e.OffsetB != e.OffsetA {
			t.Errorf("offsets %d, %d", e.OffsetA, e.OffsetB)
		}
		if !strings.Contains(d.Cause, "HTML") {
			t.Errorf("cause %q does not name HTML escaping", d.Cause)
		}
	}
}

// TestDSHTemplatedLog compares templated logs, with each other and with
// full ones: system and tools are hidden where either side templates them;
// config and counts still count.
func TestDSHTemplatedLog(t *testing.T) {
	for name, base := range dshScenarios(t) {
		hs := []testHeader{base, base, base}
		a := renderLog(hs, "hi", true)
		t.Run(name, func(t *testing.T) {
			if res := compareBytes(t, a, renderLog(hs, "other", true), Options{}); !res.Identical {
				t.Fatalf("identical templated logs differ: %+v", res.First)
			}
			changed := slices.Clone(hs)
			changed[1].model = "m-2"
			res := compareBytes(t, a, renderLog(changed, "hi", true), Options{})
			checkDrift(t, res, 2, "config.model", Content)
			// A templated log against a full one compares what the
			// templated one shows: the config.
			if res := compareBytes(t, a, renderLog(hs, "hi", false), Options{}); !res.Identical {
				t.Errorf("templated against full: %+v, want identical", res.First)
			}
			res = compareBytes(t, a, renderLog(changed, "hi", false), Options{})
			checkDrift(t, res, 2, "config.model", Content)
		})
	}
}

// fantasyFiles returns the request-body files of the corpus by format.
func fantasyFiles(t *testing.T) map[Format]string {
	dir := filepath.Join(corpusDir(t), "fantasy")
	files := map[Format]string{
		FormatAnthropic:       filepath.Join(dir, "anthropic-messages.jsonl"),
		FormatOpenAIChat:      filepath.Join(dir, "openai-chat.jsonl"),
		FormatOpenAIResponses: filepath.Join(dir, "openai-responses.jsonl"),
		FormatGemini:          filepath.Join(dir, "gemini.jsonl"),
	}
	for _, p := range files {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("fantasy corpus incomplete: %v", err)
		}
	}
	return files
}

func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func joinLines(lines [][]byte) []byte {
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

// replaceConversation swaps a body's conversation for another one, keeping
// system and developer messages.
func replaceConversation(t *testing.T, f Format, line []byte) []byte {
	t.Helper()
	switch f {
	case FormatAnthropic:
		return splice(line, gjson.GetBytes(line, "messages"), []byte(`[{"role":"user","content":"Something else."}]`))
	case FormatGemini:
		return splice(line, gjson.GetBytes(line, "contents"), []byte(`[{"role":"user","parts":[{"text":"Something else."}]}]`))
	}
	key := "messages"
	if f == FormatOpenAIResponses {
		key = "input"
	}
	conv := gjson.GetBytes(line, key)
	var keep [][]byte
	for _, m := range conv.Array() {
		if r := m.Get("role").Str; r == "system" || r == "developer" {
			keep = append(keep, []byte(m.Raw))
		}
	}
	keep = append(keep, []byte(`{"role":"user","content":"Something else."}`))
	return splice(line, conv, append(append([]byte{'['}, bytes.Join(keep, []byte(","))...), ']'))
}

// toolsArray returns the tools array of a body in the corpus.
func toolsArray(f Format, line []byte) gjson.Result {
	if f == FormatGemini {
		return gjson.GetBytes(line, "tools.0.functionDeclarations")
	}
	return gjson.GetBytes(line, "tools")
}

func TestFantasyCorpus(t *testing.T) {
	for f, path := range fantasyFiles(t) {
		lines := readLines(t, path)
		a := joinLines(lines)
		t.Run(string(f)+"/identical", func(t *testing.T) {
			for _, opt := range []Format{FormatAuto, f} {
				res := compareBytes(t, a, bytes.Clone(a), Options{Format: opt})
				if !res.Identical || res.Headers.A != len(lines) {
					t.Fatalf("-format %s: got %+v, want identical with %d headers", opt, res, len(lines))
				}
			}
		})
		t.Run(string(f)+"/messages-only", func(t *testing.T) {
			b := make([][]byte, len(lines))
			for i, l := range lines {
				b[i] = replaceConversation(t, f, l)
			}
			if res := compareBytes(t, a, joinLines(b), Options{}); !res.Identical {
				t.Fatalf("messages-only difference reported as drift: %+v", res.First)
			}
		})
		// The first line with two or more tools.
		at := slices.IndexFunc(lines, func(l []byte) bool { return len(toolsArray(f, l).Array()) >= 2 })
		if at < 0 {
			t.Fatalf("%s: no line with two tools", path)
		}
		mutate := func(fn func([]byte) []byte) []byte {
			b := slices.Clone(lines)
			b[at] = fn(bytes.Clone(lines[at]))
			return joinLines(b)
		}
		t.Run(string(f)+"/swap", func(t *testing.T) {
			b := mutate(func(l []byte) []byte {
				ts := toolsArray(f, l).Array()
				return splice(l, toolsArray(f, l), []byte("["+ts[1].Raw+","+ts[0].Raw+"]"))
			})
			checkDrift(t, compareBytes(t, a, b, Options{}), at+1, toolPath(string(f), 0), Reorder)
		})
		t.Run(string(f)+"/description", func(t *testing.T) {
			b := mutate(func(l []byte) []byte {
				ts := toolsArray(f, l).Array()
				desc := ts[1].Get("description")
				if f == FormatOpenAIChat {
					desc = ts[1].Get("function.description")
				}
				return splice(l, desc, []byte(`"`+changeWord(desc.Str)+`"`))
			})
			want := descPath(string(f), 1)
			checkDrift(t, compareBytes(t, a, b, Options{}), at+1, want, Content)
		})
		t.Run(string(f)+"/removed", func(t *testing.T) {
			b := mutate(func(l []byte) []byte {
				ts := toolsArray(f, l).Array()
				return splice(l, toolsArray(f, l), []byte("["+ts[1].Raw+"]"))
			})
			checkDrift(t, compareBytes(t, a, b, Options{}), at+1, toolPath(string(f), 0), Removed)
		})
	}
}
