package drift

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/corpustest"
	"github.com/headergold/headergold/internal/wire"
	"github.com/tidwall/gjson"
)

// FuzzDiff compares pairs of request bodies, seeded with neighbouring
// bodies of the real corpus, and checks, for any input:
//   - Compare never panics, and comparing B with A agrees with A with B
//     (both fail or neither; the same verdict, first index and path, and
//     the same kinds with added and removed swapped);
//   - an input compared with itself is identical (or fails);
//   - one mutation of a valid body A (text appended, emptied or escaped, a
//     number changed or respelled, a member or element removed, a member
//     added, written twice or swapped with its neighbour, a key escaped, a
//     type changed, two tools swapped, a space inserted) is reported at
//     the header and the path where it was made, with the kind it is.
//
// Run with: go test -run '^$' -fuzz '^FuzzDiff$' ./internal/drift/
func FuzzDiff(f *testing.F) {
	dir, ok, err := corpustest.Find()
	if err != nil {
		f.Fatal(err)
	}
	if !ok {
		// Without the corpus (a clone of its own), the target still
		// fuzzes, from a body of each format written here.
		f.Log("no shared corpus: seeded with the bodies of seedBodies alone")
		for i, b := range seedBodies {
			f.Add([]byte(b), []byte(seedBodies[(i+1)%len(seedBodies)]), uint64(i))
		}
	} else {
		files, err := filepath.Glob(filepath.Join(dir, "real", "*.jsonl"))
		if err != nil || len(files) == 0 {
			f.Fatalf("no real corpus files in %s (%v)", dir, err)
		}
		for _, file := range files {
			lines := fuzzLines(f, file)
			for i := range lines {
				f.Add(lines[i], lines[(i+1)%len(lines)], uint64(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, a, b []byte, seed uint64) {
		checkSymmetric(t, a, b)
		self, err := compareQuiet(a, a)
		if err == nil && (!self.Identical || self.LaterDiffering != 0) {
			t.Fatalf("an input against itself differs: %+v", self.First)
		}
		if err == nil && self.Headers.A == 1 {
			checkMutation(t, a, seed)
		}
	})
}

// seedBodies are FuzzDiff's seeds where the shared corpus is absent: a
// small body of each wire format, with a system prompt, tools, an escape
// and numbers of more than one form.
var seedBodies = []string{
	`{"model":"claude-x","max_tokens":1024,"system":[{"type":"text","text":"You are terse.\nUse tools."}],"tools":[{"name":"get_weather","description":"Weather for a city.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},{"name":"search","description":"Search the web \u00e9.","input_schema":{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer","maximum":1e2}}}}],"messages":[{"role":"user","content":"Weather in Oslo?"}]}`,
	`{"model":"gpt-x","temperature":0.5,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Weather in Oslo?"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},{"type":"function","function":{"name":"search","parameters":{"type":"object","properties":{"q":{"type":"string","description":"a \"query\""}}}}}]}`,
	`{"model":"gpt-x","instructions":"You are terse.","input":[{"role":"user","content":"Weather in Oslo?"}],"tools":[{"type":"function","name":"get_weather","description":"Weather for a city.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true},{"type":"web_search"}],"max_output_tokens":256}`,
	`{"systemInstruction":{"parts":[{"text":"You are terse."}]},"contents":[{"role":"user","parts":[{"text":"Weather in Oslo?"}]}],"tools":[{"functionDeclarations":[{"name":"get_weather","description":"Weather for a city.","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}},{"name":"search","parameters":{"type":"OBJECT"}}]},{"googleSearch":{}}],"generationConfig":{"temperature":1.0}}`,
}

// fuzzLines reads the non-blank lines of a corpus file.
func fuzzLines(f *testing.F, file string) [][]byte {
	fh, err := os.Open(file)
	if err != nil {
		f.Fatal(err)
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
	if err := sc.Err(); err != nil {
		f.Fatal(err)
	}
	return out
}

func compareQuiet(a, b []byte) (*Result, error) {
	return Compare(Source{"A", bytes.NewReader(a)}, Source{"B", bytes.NewReader(b)}, Options{})
}

// checkSymmetric compares a with b and b with a and checks they agree.
func checkSymmetric(t *testing.T, a, b []byte) {
	t.Helper()
	ab, errAB := compareQuiet(a, b)
	ba, errBA := compareQuiet(b, a)
	if (errAB == nil) != (errBA == nil) {
		t.Fatalf("A vs B: %v; B vs A: %v", errAB, errBA)
	}
	if errAB != nil {
		return
	}
	if ab.Identical != ba.Identical {
		t.Fatalf("A vs B identical %v, B vs A identical %v", ab.Identical, ba.Identical)
	}
	if ab.Identical {
		return
	}
	x, y := ab.First, ba.First
	if (x == nil) != (y == nil) {
		t.Fatalf("A vs B first %+v; B vs A first %+v", x, y)
	}
	if x == nil {
		// Only the numbers of requests differ.
		if ab.CountNote == "" || ba.CountNote == "" {
			t.Fatalf("not identical, with no first difference and no count note: %+v; %+v", ab, ba)
		}
		return
	}
	// Requests are paired, so each side's header index is the other's
	// when the arguments are swapped.
	if x.Request != y.Request || x.Index != y.B.Header || y.Index != x.B.Header || x.Path != y.Path || !slices.Equal(swapped(x.Kinds), y.Kinds) {
		t.Fatalf("A vs B: request %d (headers %d, %d) at %q %v; B vs A: request %d (headers %d, %d) at %q %v",
			x.Request, x.Index, x.B.Header, x.Path, x.Kinds, y.Request, y.Index, y.B.Header, y.Path, y.Kinds)
	}
}

// expectation is where and how a mutation must be reported.
type expectation struct {
	what   string
	path   string
	prefix bool   // the path, or a place inside it
	kinds  []Kind // exactly these, when set
	kind   Kind   // at least this one, when kinds is not set
}

// checkMutation mutates a one-line body, which compares identical with
// itself, once and checks the report. It returns what it mutated, "" when
// it made no mutation.
func checkMutation(t *testing.T, a []byte, seed uint64) string {
	t.Helper()
	if bytes.ContainsAny(bytes.TrimSpace(a), "\r\n") {
		return "" // one record only: the expected index is 1
	}
	root := gjson.ParseBytes(a)
	if wire.Lookup(root, "type").Exists() && wire.Lookup(root, "data").Exists() {
		return "" // read as a session-log event
	}
	format, err := wire.Detect(a)
	if err != nil {
		return ""
	}
	sites := headerSites(root, format)
	if len(sites) == 0 {
		return ""
	}
	// Numbers are few beside the text of tools: give them a fair share.
	var numbers []site
	for _, s := range sites {
		if s.val.Type == gjson.Number {
			numbers = append(numbers, s)
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	for range 20 {
		s := sites[rng.IntN(len(sites))]
		if len(numbers) > 0 && rng.IntN(4) == 0 {
			s = numbers[rng.IntN(len(numbers))]
		}
		mutated, want, ok := mutate(a, s, format, rng)
		if !ok || bytes.Equal(mutated, a) {
			continue
		}
		if f, err := wire.Detect(mutated); err != nil || f != format {
			continue // the mutation changed what the body is
		}
		info, err := checkBody(mutated, FormatAuto, nil)
		if err != nil || info.shapeIn(mutated, format) != nil || info.shapeIn(mutated, wire.Anthropic) != nil || info.shapeIn(mutated, wire.OpenAIChat) != nil {
			// or made it no body a provider takes (system a number), in
			// whichever format an ambiguous body is read in
			continue
		}
		x, y, index := a, mutated, 1
		if rng.IntN(3) == 0 {
			// The mutated body second, after an identical one.
			x = slices.Concat(a, []byte("\n"), a)
			y = slices.Concat(a, []byte("\n"), mutated)
			index = 2
		}
		res, err := compareQuiet(x, y)
		if err != nil {
			t.Fatalf("%s at %s: %v\nA: %s\nB: %s", want.what, want.path, err, a, mutated)
		}
		checkExpected(t, res, want, index, mutated)
		checkSymmetric(t, x, y)
		return want.what
	}
	return ""
}

// TestMutationsReported runs the mutation check of FuzzDiff over every
// body of the real corpus with many seeds, so that plain go test checks
// the property, and checks that every kind of mutation was made.
func TestMutationsReported(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t), "real", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no real corpus files (%v)", err)
	}
	seeds, all := uint64(20), true
	if testing.Short() || raceEnabled {
		seeds, all = 5, false // too few to make every kind
	}
	made := map[string]int{}
	for _, file := range files {
		for _, body := range realBodies(t, filepath.Base(file)) {
			if res, err := compareQuiet(body, body); err != nil || !res.Identical || res.Headers.A != 1 {
				t.Fatalf("%s: a corpus body against itself: %v", file, err)
			}
			for seed := range seeds {
				made[checkMutation(t, body, seed)]++
			}
		}
	}
	t.Logf("mutations made: %v", made)
	for _, what := range []string{"text appended", "text emptied", "string to number", "letter escaped", "number changed",
		"number respelled", "member removed", "member added", "member written twice", "space inserted", "element removed",
		"tool removed", "tools swapped", "system message removed", "members swapped", "key escaped"} {
		if made[what] == 0 && all {
			t.Errorf("no %q mutation made", what)
		}
	}
}

func checkExpected(t *testing.T, res *Result, want expectation, index int, mutated []byte) {
	t.Helper()
	if res.Identical {
		t.Fatalf("%s at %s: identical\nB: %s", want.what, want.path, mutated)
	}
	d := res.First
	pathOK := d.Path == want.path || want.prefix && strings.HasPrefix(d.Path, want.path+".")
	kindsOK := slices.Equal(d.Kinds, want.kinds) || want.kinds == nil && slices.Contains(d.Kinds, want.kind)
	if d.Index != index || !pathOK || !kindsOK {
		var text bytes.Buffer
		res.WriteText(&text)
		t.Fatalf("%s: got header %d at %q %v, want header %d at %q %v%v\n%s\nB: %s", want.what, d.Index, d.Path, d.Kinds, index, want.path, want.kinds, want.kind, text.String(), mutated)
	}
}

// site is one value inside the header of a body, where a mutation can be
// made.
type site struct {
	val    gjson.Result
	key    gjson.Result // its key, when it is a member
	parent gjson.Result // its object or array; the zero Result at the top
	index  int          // its index, when it is an element
	hpath  []string     // its header path
	// What the value is to the comparison.
	top       bool // a top-level member of the body
	tool      bool // an element of a tools list (a tool to match by name)
	toolName  string
	named     bool // inside a tool that has a name member (or type)
	naming    bool // a tool's name, or what holds it: changing it renames the tool
	entry     bool // a member of a Gemini tools entry
	entryElem bool // an element of Gemini's tools array
	chatRole  bool // the role of one of OpenAI Chat's system messages
	// unnamedMember: a member of a tool without a name of its own, which
	// is named by its first key.
	unnamedMember bool
	chatSystem    int // >0: an element of OpenAI Chat's system part, of this many
	objectCount   int // the number of members of its parent object
}

// headerPart says which header part a top-level member of a body belongs
// to, written from the wire formats' definition independently of package
// wire: "config", "system", "tools", or "" (conversation, transport).
func headerPart(f wire.Format, key string) string {
	switch key {
	case "tools":
		return "tools"
	case "stream", "stream_options":
		return ""
	}
	switch f {
	case wire.Anthropic:
		switch key {
		case "system":
			return "system"
		case "messages":
			return ""
		}
	case wire.OpenAIChat:
		if key == "messages" {
			return "" // its leading system messages: see headerSites
		}
	case wire.OpenAIResponses:
		switch key {
		case "instructions":
			return "system"
		case "input", "previous_response_id", "conversation":
			return ""
		}
	case wire.Gemini:
		switch key {
		case "systemInstruction", "system_instruction":
			return "system"
		case "contents":
			return ""
		}
	}
	return "config"
}

// fuzzToolName is the name a tool is matched by, or "" when it has none
// of its own (it is then named by position or first key).
func fuzzToolName(t gjson.Result) string {
	for _, p := range [][]string{{"name"}, {"function", "name"}, {"custom", "name"}, {"type"}} {
		if v := wire.Lookup(t, p...); v.Type == gjson.String {
			return v.Str
		}
	}
	return ""
}

// headerSites lists every value inside the header of a body.
func headerSites(root gjson.Result, f wire.Format) []site {
	var out []site
	count := 0
	root.ForEach(func(k, v gjson.Result) bool {
		count++
		return true
	})
	root.ForEach(func(k, v gjson.Result) bool {
		s := site{val: v, key: k, parent: root, top: true, objectCount: count}
		switch headerPart(f, k.Str) {
		case "config":
			s.hpath = []string{"config", gjson.Escape(k.Str)}
			out = append(out, s)
			out = walkSites(out, s)
		case "system":
			s.hpath = []string{"system"}
			out = append(out, s)
			out = walkSites(out, s)
		case "tools":
			s.hpath = []string{"tools"}
			out = toolSites(out, s, f == wire.Gemini)
		case "":
			if f == wire.OpenAIChat && k.Str == "messages" && v.IsArray() {
				out = chatSystemSites(out, v)
			}
		}
		return true
	})
	return out
}

// chatSystemSites lists the leading system and developer messages.
func chatSystemSites(out []site, msgs gjson.Result) []site {
	elems := msgs.Array()
	n := 0
	for n < len(elems) && elems[n].IsObject() {
		r := elems[n].Get("role").String()
		if r != "system" && r != "developer" {
			break
		}
		n++
	}
	for i := range n {
		s := site{val: elems[i], parent: msgs, index: i, hpath: []string{"system", strconv.Itoa(i)}, chatSystem: n}
		out = append(out, s)
		out = walkSites(out, s)
	}
	return out
}

// toolSites lists the tools of a tools array and what is inside them.
func toolSites(out []site, arr site, gemini bool) []site {
	if !arr.val.IsArray() {
		return out
	}
	i := 0
	arr.val.ForEach(func(_, t gjson.Result) bool {
		s := site{val: t, parent: arr.val, index: i, hpath: child(slices.Clone(arr.hpath), strconv.Itoa(i))}
		i++
		if !gemini {
			s.tool, s.toolName = true, fuzzToolName(t)
			s.named = s.toolName != ""
			out = append(out, s)
			out = walkSites(out, s)
			return true
		}
		s.entryElem = true
		out = append(out, s)
		// An entry's members; its declarations are tools.
		n := 0
		t.ForEach(func(_, _ gjson.Result) bool { n++; return true })
		rep := repeated(t)
		t.ForEach(func(k, m gjson.Result) bool {
			if rep[k.Str] {
				return true
			}
			ms := site{val: m, key: k, parent: t, hpath: child(slices.Clone(s.hpath), gjson.Escape(k.Str)), entry: true, objectCount: n}
			out = append(out, ms)
			if (k.Str == "functionDeclarations" || k.Str == "function_declarations") && m.IsArray() {
				j := 0
				m.ForEach(func(_, d gjson.Result) bool {
					ds := site{val: d, parent: m, index: j, hpath: child(slices.Clone(ms.hpath), strconv.Itoa(j)), tool: true, toolName: fuzzToolName(d)}
					ds.named = ds.toolName != ""
					j++
					out = append(out, ds)
					out = walkSites(out, ds)
					return true
				})
			}
			return true
		})
		return true
	})
	return out
}

// walkSites lists the values inside s, inheriting what s is.
func walkSites(out []site, s site) []site {
	inherit := func(c site) site {
		c.named = s.named || (s.tool && s.toolName != "")
		if s.tool || s.naming {
			c.naming = s.tool && isNamingKey(c.key.Str) && c.key.Exists() ||
				s.naming && (c.key.Str == "name" || !c.key.Exists())
		}
		c.chatRole = s.chatSystem > 0 && c.key.Str == "role"
		c.unnamedMember = s.tool && s.toolName == ""
		return c
	}
	switch {
	case s.val.IsObject():
		n := 0
		s.val.ForEach(func(_, _ gjson.Result) bool { n++; return true })
		rep := repeated(s.val)
		s.val.ForEach(func(k, v gjson.Result) bool {
			if rep[k.Str] {
				return true
			}
			c := inherit(site{val: v, key: k, parent: s.val, hpath: child(slices.Clone(s.hpath), gjson.Escape(k.Str)), objectCount: n})
			out = append(out, c)
			out = walkSites(out, c)
			return true
		})
	case s.val.IsArray():
		i := 0
		s.val.ForEach(func(_, v gjson.Result) bool {
			c := inherit(site{val: v, parent: s.val, index: i, hpath: child(slices.Clone(s.hpath), strconv.Itoa(i))})
			i++
			out = append(out, c)
			out = walkSites(out, c)
			return true
		})
	}
	return out
}

// repeated returns the keys an object holds more than once. Their members
// are not mutation sites: a change to an occurrence JSON.parse drops, or
// the removal of the one it keeps, is not reported where it is made.
func repeated(obj gjson.Result) map[string]bool {
	seen, rep := map[string]bool{}, map[string]bool{}
	obj.ForEach(func(k, _ gjson.Result) bool {
		rep[k.Str] = rep[k.Str] || seen[k.Str]
		seen[k.Str] = true
		return true
	})
	return rep
}

// isNamingKey reports whether a member of a tool can carry its name.
func isNamingKey(key string) bool {
	return key == "name" || key == "function" || key == "custom" || key == "type"
}

// splice replaces src[from:to] with with.
func spliceAt(src []byte, from, to int, with string) []byte {
	out := make([]byte, 0, len(src)+len(with))
	out = append(out, src[:from]...)
	out = append(out, with...)
	return append(out, src[to:]...)
}

// memberSpan returns the bytes of the member whose key is s.key, with the
// comma that separates it from a neighbour, so that removing them leaves
// valid JSON.
func memberSpan(src []byte, s site) (from, to int) {
	return elementSpan(src, s.key.Index, s.val.Index+len(s.val.Raw), s.parent)
}

// elementSpan widens [from, to) over one neighbouring comma inside the
// container parent.
func elementSpan(src []byte, from, to int, parent gjson.Result) (int, int) {
	end := parent.Index + len(parent.Raw) - 1 // the closing bracket
	j := to
	for j < end && isSpace(src[j]) {
		j++
	}
	if j < end && src[j] == ',' {
		return from, j + 1
	}
	i := from - 1
	for i > parent.Index && isSpace(src[i]) {
		i--
	}
	if i > parent.Index && src[i] == ',' {
		return i, to
	}
	return from, to
}

// unique reports whether name is the name of exactly one tool of the list.
func unique(list gjson.Result, name string) bool {
	n := 0
	list.ForEach(func(_, t gjson.Result) bool {
		if fuzzToolName(t) == name {
			n++
		}
		return true
	})
	return name != "" && n == 1
}

// mutate makes one mutation at s, if one applies, and says how it must be
// reported.
func mutate(src []byte, s site, f wire.Format, rng *rand.Rand) ([]byte, expectation, bool) {
	path := joinPath(s.hpath)
	v := s.val
	end := v.Index + len(v.Raw)
	exact := func(what string, kinds ...Kind) expectation {
		return expectation{what: what, path: path, kinds: kinds}
	}
	var options []func() ([]byte, expectation, bool)
	add := func(fn func() ([]byte, expectation, bool)) { options = append(options, fn) }

	if v.Type == gjson.String && !s.naming && !s.chatRole {
		add(func() ([]byte, expectation, bool) { // a strict prefix
			return spliceAt(src, end-1, end-1, " more"), exact("text appended", Content), true
		})
		add(func() ([]byte, expectation, bool) {
			if v.Raw == `""` {
				return spliceAt(src, v.Index, end, `"x"`), exact("empty text filled", Content), true
			}
			return spliceAt(src, v.Index, end, `""`), exact("text emptied", Content), true
		})
		add(func() ([]byte, expectation, bool) {
			return spliceAt(src, v.Index, end, `17`), exact("string to number", Content), true
		})
	}
	if v.Type == gjson.String {
		add(func() ([]byte, expectation, bool) { // the same text, another escape
			for i := v.Index + 1; i < end-1; i++ {
				c := src[i]
				if c == '\\' {
					i++
					continue
				}
				if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
					return spliceAt(src, i, i+1, fmt.Sprintf(`\u%04x`, c)), exact("letter escaped", Encoding), true
				}
			}
			return nil, expectation{}, false
		})
	}
	// Numbers short enough to be exact doubles, without an exponent.
	if v.Type == gjson.Number && len(v.Raw) < 15 && strings.Trim(v.Raw, "-.0123456789") == "" && !s.naming {
		decimal := strings.Contains(v.Raw, ".")
		add(func() ([]byte, expectation, bool) {
			if decimal {
				return spliceAt(src, end, end, "1"), exact("number changed", Content), true // 0.5 to 0.51
			}
			n, err := strconv.ParseInt(v.Raw, 10, 64)
			if err != nil {
				return nil, expectation{}, false
			}
			return spliceAt(src, v.Index, end, strconv.FormatInt(n+1, 10)), exact("number changed", Content), true
		})
		add(func() ([]byte, expectation, bool) {
			if decimal {
				return spliceAt(src, end, end, "0"), exact("number respelled", Encoding), true // 0.5 as 0.50
			}
			return spliceAt(src, end, end, ".0"), exact("number respelled", Encoding), true
		})
	}
	// A member removed: not one that names a tool, not a Gemini entry's
	// (its declarations are tools), not a tools list.
	if s.key.Exists() && !s.naming && !s.chatRole && !s.entry && !s.unnamedMember && !(s.top && s.hpath[0] == "tools") {
		add(func() ([]byte, expectation, bool) {
			from, to := memberSpan(src, s)
			return spliceAt(src, from, to, ""), exact("member removed", Content), true
		})
	}
	// A member added to an object.
	if v.IsObject() && !s.entryElem && (s.named || !s.tool) && !s.naming {
		add(func() ([]byte, expectation, bool) {
			if wire.Lookup(v, "fuzz_added").Exists() {
				return nil, expectation{}, false
			}
			at := end - 1
			sep := ","
			if strings.TrimSpace(v.Raw[1:len(v.Raw)-1]) == "" {
				sep = ""
			}
			e := exact("member added", Content)
			e.path = joinPath(append(slices.Clone(s.hpath), "fuzz_added"))
			return spliceAt(src, at, at, sep+`"fuzz_added":1`), e, true
		})
	}
	// A member written twice, the first occurrence dropped (not at the
	// top level, which wire.Split refuses, nor in a Gemini entry, whose
	// members group its tools).
	if s.key.Exists() && !s.top && !s.entry && !s.chatRole {
		add(func() ([]byte, expectation, bool) {
			dropped := "0"
			if v.Raw == "0" {
				dropped = "1"
			}
			return spliceAt(src, s.key.Index, s.key.Index, s.key.Raw+":"+dropped+","), exact("member written twice", Encoding), true
		})
	}
	// A space between a key and its value, in a one-line body (wire.Split
	// drops the whitespace of a pretty-printed one), inside a header value.
	if s.key.Exists() && !s.top && !bytes.ContainsAny(src, "\r\n") {
		add(func() ([]byte, expectation, bool) {
			colon := bytes.IndexByte(src[s.key.Index+len(s.key.Raw):v.Index], ':')
			if colon < 0 {
				return nil, expectation{}, false
			}
			at := s.key.Index + len(s.key.Raw) + colon + 1
			e := exact("space inserted", Encoding)
			e.path = joinPath(s.hpath[:len(s.hpath)-1])
			return spliceAt(src, at, at, " "), e, true
		})
	}
	// Two neighbouring members swapped: the same value, another key order
	// (members of a tool named by its first key excepted).
	if s.key.Exists() && !s.unnamedMember && !(s.top && s.hpath[0] != "config") && !s.chatRole {
		add(func() ([]byte, expectation, bool) {
			var next, nextKey gjson.Result
			seen := false
			s.parent.ForEach(func(k, m gjson.Result) bool {
				if seen {
					next, nextKey = m, k
					return false
				}
				seen = k.Index == s.key.Index
				return true
			})
			if !nextKey.Exists() || repeated(s.parent)[nextKey.Str] || s.top && headerPart(f, nextKey.Str) != "config" {
				return nil, expectation{}, false
			}
			if s.chatSystem > 0 || nextKey.Str == "role" && strings.HasPrefix(path, "system.") {
				return nil, expectation{}, false
			}
			first := string(src[s.key.Index:end])
			second := string(src[nextKey.Index : next.Index+len(next.Raw)])
			out := spliceAt(src, nextKey.Index, next.Index+len(next.Raw), first)
			out = spliceAt(out, s.key.Index, end, second)
			e := exact("members swapped", Encoding)
			e.path = joinPath(s.hpath[:len(s.hpath)-1])
			return out, e, true
		})
	}
	// A key spelled with an escape: the same key (the body's own keys of
	// system and tools are not part of the header).
	if s.key.Exists() && !s.chatRole && !(s.top && s.hpath[0] != "config") {
		add(func() ([]byte, expectation, bool) {
			for i := s.key.Index + 1; i < s.key.Index+len(s.key.Raw)-1; i++ {
				c := src[i]
				if c == '\\' {
					i++
					continue
				}
				if c >= 'a' && c <= 'z' {
					return spliceAt(src, i, i+1, fmt.Sprintf(`\u%04x`, c)), exact("key escaped", Encoding), true
				}
			}
			return nil, expectation{}, false
		})
	}
	// An element removed.
	if !s.key.Exists() && s.parent.IsArray() && !s.entryElem {
		add(func() ([]byte, expectation, bool) {
			elems := s.parent.Array()
			if s.tool {
				if !unique(s.parent, s.toolName) {
					return nil, expectation{}, false
				}
				from, to := elementSpan(src, v.Index, end, s.parent)
				return spliceAt(src, from, to, ""), exact("tool removed", Removed), true
			}
			if s.index+1 < len(elems) && elems[s.index+1].Raw == v.Raw {
				return nil, expectation{}, false // the next element takes its place unseen
			}
			from, to := elementSpan(src, v.Index, end, s.parent)
			if s.chatSystem == 1 {
				return spliceAt(src, from, to, ""), expectation{what: "system message removed", path: "system", kinds: []Kind{Content}}, true
			}
			return spliceAt(src, from, to, ""), expectation{what: "element removed", path: path, prefix: true, kind: Content}, true
		})
	}
	// Two neighbouring tools swapped.
	if s.tool {
		add(func() ([]byte, expectation, bool) {
			elems := s.parent.Array()
			if s.index+1 >= len(elems) {
				return nil, expectation{}, false
			}
			next := elems[s.index+1]
			if !unique(s.parent, s.toolName) || !unique(s.parent, fuzzToolName(next)) {
				return nil, expectation{}, false
			}
			out := spliceAt(src, next.Index, next.Index+len(next.Raw), v.Raw)
			out = spliceAt(out, v.Index, end, next.Raw)
			return out, exact("tools swapped", Reorder), true
		})
	}
	if len(options) == 0 {
		return nil, expectation{}, false
	}
	return options[rng.IntN(len(options))]()
}

// The seeds FuzzDiff falls back on are each a valid body of its own
// format, identical to itself, and mutable: a broken seed would leave the
// fuzzing without the corpus exploring nothing.
func TestSeedBodies(t *testing.T) {
	want := []wire.Format{wire.Anthropic, wire.OpenAIChat, wire.OpenAIResponses, wire.Gemini}
	if len(seedBodies) != len(want) {
		t.Fatalf("%d seed bodies, want one per format (%d)", len(seedBodies), len(want))
	}
	for i, b := range seedBodies {
		if f, err := wire.Detect([]byte(b)); err != nil || f != want[i] {
			t.Errorf("seed %d: detected %q, %v; want %q", i, f, err, want[i])
		}
		if r, err := compareQuiet([]byte(b), []byte(b)); err != nil || !r.Identical {
			t.Errorf("seed %d against itself: %v, %+v", i, err, r)
		}
		mutated := 0
		for seed := range uint64(20) {
			if checkMutation(t, []byte(b), seed) != "" {
				mutated++
			}
		}
		if mutated == 0 {
			t.Errorf("seed %d: no mutation in 20 tries", i)
		}
	}
}
