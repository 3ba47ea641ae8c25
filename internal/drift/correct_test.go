package drift

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// swapped returns kinds as seen from the other side: added and removed
// trade places.
func swapped(kinds []Kind) []Kind {
	out := make([]Kind, len(kinds))
	for i, k := range kinds {
		switch k {
		case Added:
			out[i] = Removed
		case Removed:
			out[i] = Added
		default:
			out[i] = k
		}
	}
	slices.SortFunc(out, func(x, y Kind) int { return kindRank(x) - kindRank(y) })
	return out
}

func kindRank(k Kind) int { return slices.Index([]Kind{Reorder, Added, Removed, Content, Encoding}, k) }

// TestEveryDifferenceReported: strict prefixes, empty against non-empty
// and a value against an absent one, at every level of a header, are each
// reported at their path with their kind, in both directions.
func TestEveryDifferenceReported(t *testing.T) {
	tests := []struct {
		name  string
		a, b  string // log headers
		path  string
		kinds []Kind
		note  string // of the first difference
	}{
		{"system text appended", `{"system":"Be brief."}`, `{"system":"Be brief. Cite files."}`,
			"system", []Kind{Content}, ""},
		{"description appended", `{"tools":[{"name":"read","description":"Read a file"}]}`, `{"tools":[{"name":"read","description":"Read a file."}]}`,
			"tools.0.description", []Kind{Content}, ""},
		{"appended after a multi-byte character", `{"system":"café"}`, `{"system":"café!"}`,
			"system", []Kind{Content}, ""},
		{"empty string against text", `{"system":""}`, `{"system":"x"}`,
			"system", []Kind{Content}, ""},
		{"empty config against members", `{"config":{}}`, `{"config":{"model":"m"}}`,
			"config.model", []Kind{Content}, "added member"},
		{"empty array against elements", `{"tools":[{"name":"a","parameters":{"required":[]}}]}`, `{"tools":[{"name":"a","parameters":{"required":["path"]}}]}`,
			"tools.0.parameters.required.0", []Kind{Content}, "added element"},
		{"no tools against some", `{"config":{},"tools":[]}`, `{"config":{},"tools":[{"name":"a"}]}`,
			"tools.0", []Kind{Added}, ""},
		{"empty tools against absent", `{"config":{},"tools":[]}`, `{"config":{}}`,
			"tools", []Kind{Content}, "removed member"},
		{"system absent", `{"config":{},"system":"s"}`, `{"config":{}}`,
			"system", []Kind{Content}, "removed member"},
		{"config member absent", `{"config":{"model":"m","temperature":0}}`, `{"config":{"model":"m"}}`,
			"config.temperature", []Kind{Content}, "removed member"},
		{"null against absent", `{"config":{"stop":null}}`, `{"config":{}}`,
			"config.stop", []Kind{Content}, "removed member"},
		{"tool member absent", `{"tools":[{"name":"a","description":"d"}]}`, `{"tools":[{"name":"a"}]}`,
			"tools.0.description", []Kind{Content}, "removed member"},
		{"nested member absent", `{"tools":[{"name":"a","parameters":{"properties":{"p":{"type":"string","enum":["x"]}}}}]}`,
			`{"tools":[{"name":"a","parameters":{"properties":{"p":{"type":"string"}}}}]}`,
			"tools.0.parameters.properties.p.enum", []Kind{Content}, "removed member"},
		{"array element absent", `{"system":[{"text":"a"},{"text":"b"}]}`, `{"system":[{"text":"a"}]}`,
			"system.1", []Kind{Content}, "removed element"},
		{"members in another order, one absent", `{"config":{"a":1,"b":2}}`, `{"config":{"b":3}}`,
			"config.a", []Kind{Content}, "removed member"},
		{"lone surrogates", `{"system":"\ud800"}`, `{"system":"\ud801"}`,
			"system", []Kind{Content}, ""},
		{"duplicate key, same last value", `{"config":{"model":"a","model":"b"}}`, `{"config":{"model":"b"}}`,
			"config.model", []Kind{Encoding}, "duplicate key"},
		{"duplicate key, other last value", `{"config":{"model":"b","model":"a"}}`, `{"config":{"model":"b"}}`,
			"config.model", []Kind{Content, Encoding}, "duplicate key"},
		{"duplicate dropped values differ", `{"config":{"model":"x","model":"b"}}`, `{"config":{"model":"y","model":"b"}}`,
			"config.model", []Kind{Encoding}, "duplicate key"},
		{"duplicate at the header's root", `{"system":"old","system":"new"}`, `{"system":"new"}`,
			"system", []Kind{Encoding}, "duplicate key"},
		{"duplicate tool name member", `{"tools":[{"name":"a","name":"b"}]}`, `{"tools":[{"name":"b"}]}`,
			"tools.0.name", []Kind{Encoding}, "duplicate key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := compareBytes(t, []byte(logLine(tt.a)), []byte(logLine(tt.b)), Options{})
			checkDrift(t, res, 1, tt.path, tt.kinds...)
			if d := res.First.Diffs[0]; d.Note != tt.note || d.Path != tt.path {
				t.Errorf("first diff %+v, want note %q at %s", d, tt.note, tt.path)
			}
			var text strings.Builder
			if err := res.WriteText(&text); err != nil || !strings.Contains(text.String(), "differs at "+tt.path+"\n") {
				t.Errorf("text (%v):\n%s", err, text.String())
			}
			if tt.note == "duplicate key" && !strings.Contains(res.First.Cause, "more than once") {
				t.Errorf("cause %q", res.First.Cause)
			}
			back := compareBytes(t, []byte(logLine(tt.b)), []byte(logLine(tt.a)), Options{})
			checkDrift(t, back, 1, tt.path, swapped(tt.kinds)...)
		})
	}
}

// TestPrefixContent pins the content detail of a strict prefix, the case
// that used to panic: the window ends where the shorter text ends.
func TestPrefixContent(t *testing.T) {
	res := compareBytes(t, []byte(logLine(`{"system":"Be brief."}`)), []byte(logLine(`{"system":"Be brief. Cite files."}`)), Options{})
	c := res.First.Content
	if c == nil || !c.Strings || c.At != 9 || c.A != "Be brief." || c.B != "Be brief. Cite files." || c.Cut != 9 {
		t.Fatalf("content detail %+v", c)
	}
	// Both sides prefixes of each other's multi-byte text.
	res = compareBytes(t, []byte(logLine(`{"system":"été"}`)), []byte(logLine(`{"system":"étés"}`)), Options{})
	if c := res.First.Content; c == nil || c.At != 3 || c.A != "été" || c.B != "étés" {
		t.Fatalf("content detail %+v", c)
	}
	res = compareBytes(t, []byte(logLine(`{"system":""}`)), []byte(logLine(`{"system":"x"}`)), Options{})
	if c := res.First.Content; c == nil || c.At != 0 || c.A != "" || c.B != "x" {
		t.Fatalf("content detail %+v", c)
	}
}

// TestDuplicateHeaderEvent: a session-log event read as JSON.parse reads
// it, the last "header" member counting.
func TestDuplicateHeaderEvent(t *testing.T) {
	dup := `{"type":"request/header","data":{"turn":1,"header":{"system":"old"},"header":{"system":"new"}}}` + "\n"
	if res := compareBytes(t, []byte(dup), []byte(logLine(`{"system":"new"}`)), Options{}); !res.Identical {
		t.Fatalf("the last header member does not count: %+v", res.First)
	}
	res := compareBytes(t, []byte(dup), []byte(logLine(`{"system":"old"}`)), Options{})
	checkDrift(t, res, 1, "system", Content)
}

// TestNothingToCompare: inputs without a header on either side are an
// error, not "identical".
func TestNothingToCompare(t *testing.T) {
	events := `{"type":"turn/start","data":{"turn":1}}` + "\n" + `{"type":"turn/end","data":{"turn":1,"reason":"completed"}}` + "\n"
	for name, in := range map[string][2]string{
		"empty":          {"", ""},
		"blank lines":    {"\n\n", " \n"},
		"no header":      {events, events},
		"empty and none": {"", events},
	} {
		_, err := Compare(Source{"a.log", strings.NewReader(in[0])}, Source{"b.log", strings.NewReader(in[1])}, Options{})
		if !errors.Is(err, ErrNothingToCompare) || !strings.Contains(err.Error(), "a.log and b.log: nothing to compare") {
			t.Errorf("%s: err = %v, want nothing to compare", name, err)
		}
	}
	// One header on one side is drift, not nothing: a request on one
	// side only.
	res := compareBytes(t, []byte(logLine(`{"config":{}}`)), []byte(events), Options{})
	if res.Identical || res.First != nil || res.CountNote != "A has 1 request, B has none" || res.Requests != (Counts{1, 0}) {
		t.Fatalf("got %+v", res)
	}
}

// TestNotCompared: a templated log against a full one says what it did
// not compare, in the result and in the text.
func TestNotCompared(t *testing.T) {
	golden := logLine(`{"config":{"model":"m"},"system":"<<system>>","tools":"<<tools>>"}`)
	full := logLine(`{"config":{"model":"m"},"system":"Be brief.","tools":[{"name":"a"}]}`)
	res := compareBytes(t, []byte(golden), []byte(full), Options{})
	want := []Hidden{{Member: "system", In: []string{"A"}}, {Member: "tools", In: []string{"A"}}}
	if !res.Identical || !slices.EqualFunc(res.NotCompared, want, func(x, y Hidden) bool { return x.Member == y.Member && slices.Equal(x.In, y.In) }) {
		t.Fatalf("got identical %v, not compared %+v; want %+v", res.Identical, res.NotCompared, want)
	}
	var text strings.Builder
	res.WriteText(&text)
	if text.String() != "identical: 1 request, each pair under the same headers (headers: A 1, B 1)\nnot compared: system, tools (templated in A)\n" {
		t.Fatalf("text %q", text.String())
	}
	var js strings.Builder
	res.WriteJSON(&js)
	if !strings.Contains(js.String(), `"notCompared": [`+"\n"+`    {`+"\n"+`      "member": "system",`) {
		t.Fatalf("JSON:\n%s", js.String())
	}
	// Only tools templated in B, and a drift in the config.
	res = compareBytes(t, []byte(logLine(`{"config":{"model":"m"},"system":"s","tools":[]}`)),
		[]byte(logLine(`{"config":{"model":"n"},"system":"s","tools":"<<tools>>"}`)), Options{})
	checkDrift(t, res, 1, "config.model", Content)
	text.Reset()
	res.WriteText(&text)
	if !strings.HasSuffix(text.String(), "not compared: tools (templated in B)\n") {
		t.Fatalf("text:\n%s", text.String())
	}
	// Full against full: nothing left out, and JSON says so.
	res = compareBytes(t, []byte(full), []byte(full), Options{})
	js.Reset()
	res.WriteJSON(&js)
	if len(res.NotCompared) != 0 || !strings.Contains(js.String(), `"notCompared": []`) {
		t.Fatalf("JSON:\n%s", js.String())
	}
}
