package harness

import (
	"bytes"
	"github.com/tidwall/gjson"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// tamperLine replaces from with to on the given 1-based line of a copied
// golden file, failing when that line does not hold from.
func tamperLine(t *testing.T, path string, line int, from, to string) {
	t.Helper()
	lines := strings.SplitAfter(string(readFile(t, path)), "\n")
	if line > len(lines) || !strings.Contains(lines[line-1], from) {
		t.Fatalf("%s changed shape: line %d does not hold %s", filepath.Base(path), line, from)
	}
	lines[line-1] = strings.Replace(lines[line-1], from, to, 1)
	writeFile(t, path, strings.Join(lines, ""))
}

// checkMismatch asserts a failure's file and line, its mismatch's JSON
// path and that its text holds every fragment.
func checkMismatch(t *testing.T, f Failure, file string, line int, path string, fragments ...string) {
	t.Helper()
	if filepath.Base(f.File) != file || f.Line != line {
		t.Errorf("failure at %s:%d, want %s:%d: %s", f.File, f.Line, file, line, f)
	}
	if f.Mismatch == nil {
		t.Fatalf("failure without a mismatch: %s", f)
	}
	if f.Mismatch.Path != path {
		t.Errorf("path = %q, want %q: %s", f.Mismatch.Path, path, f)
	}
	for _, frag := range fragments {
		if !strings.Contains(f.String(), frag) {
			t.Errorf("failure does not say %q: %s", frag, f)
		}
	}
}

// A member present on one side only is the first difference, named by
// its own path and said to be missing, not the member that follows it.
func TestTamperMissingMember(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	cases := []struct {
		fixture  string
		line     int
		from, to string
		event    string
		path     string
		what     string
	}{
		{"tool-turn", 4, `"reason":"initial",`, ``, "request/header", "data.reason", "data.reason: missing in the golden file"},
		{"tool-turn", 4, `"reason":"initial",`, `"reason":"initial","extra":1,`, "request/header", "data.extra", "data.extra: missing in the run"},
		{"captured-weather", 2, `"max_tokens":"<<config>>",`, ``, "capture/request", "data.body.max_tokens", "data.body.max_tokens: missing in the golden file"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			path := filepath.Join(opts.Golden, c.fixture+".golden")
			orig := readFile(t, path)
			defer writeFile(t, path, string(orig))
			tamperLine(t, path, c.line, c.from, c.to)
			f := failureWith(t, replayOne(t, mustLoad(t, opts), c.fixture), CheckGolden)
			checkMismatch(t, f, c.fixture+".golden", c.line, c.path, "event "+c.event, c.what)
		})
	}
}

// The first difference between two objects, by member, in document order.
func TestCompareMembers(t *testing.T) {
	for _, c := range []struct {
		want, got  string
		path, what string
	}{
		{`{"a":1,"c":3}`, `{"a":1,"b":2,"c":3}`, "b", "b: missing in the golden file"},
		{`{"a":1,"b":2,"c":3}`, `{"a":1,"c":3}`, "b", "b: missing in the run"},
		{`{"a":1,"b":2}`, `{"a":1}`, "b", "b: missing in the run"},
		{`{"a":1}`, `{"a":1,"b":2}`, "b", "b: missing in the golden file"},
		{`{"a":1,"b":2}`, `{"a":1,"x":2}`, "b", "b: missing in the run, which has x in its place"},
		{`{"b":1,"a":2}`, `{"a":2,"b":1}`, "b", "b: another member order: the run has a here"},
		{`{"a":[1,2]}`, `{"a":[1,2,3]}`, "a.2", "a.2: missing in the golden file"},
		{`{"a":{"p":1,"q":2}}`, `{"a":{"q":2}}`, "a.p", "a.p: missing in the run"},
	} {
		file := "x.golden"
		m := Compare(file, []byte(c.want+"\n"), []byte(c.got+"\n"))
		if m == nil || m.Path != c.path || m.Line != 1 || !strings.Contains(m.Reason, c.what) {
			t.Errorf("Compare(%s, %s) = %+v, want line 1, path %s, %q", c.want, c.got, m, c.path, c.what)
		}
	}
}

// A golden log whose placeholder is mistyped is not templated, on the
// line and at the path of the value that is not the placeholder.
func TestTamperPlaceholder(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	path := filepath.Join(opts.Golden, "tool-turn.golden")
	orig := readFile(t, path)
	for _, c := range []struct {
		from, to, at string
	}{
		{`"<<tools>>"`, `"<<tooks>>"`, "data.header.tools"},
		{`"<<system>>"`, `"<<sytem>>"`, "data.header.system"},
		// Both wrong: the system comes first, though tools alone
		// cannot be templated.
		{`"system":"<<system>>","tools":"<<tools>>"`, `"system":"X","tools":"<<system>>"`, "data.header.system"},
	} {
		t.Run(c.to, func(t *testing.T) {
			defer writeFile(t, path, string(orig))
			tamperLine(t, path, 4, c.from, c.to)
			f := failureWith(t, replayOne(t, mustLoad(t, opts), "tool-turn"), CheckGuard, "not templated")
			checkMismatch(t, f, "tool-turn.golden", 4, c.at, "tool-turn.golden:4:", c.at, c.to, c.from)
		})
	}
}

// A UTF-8 byte order mark at the start of a golden log or a sidecar is
// named as such, and is no drift of the header.
func TestTamperByteOrderMark(t *testing.T) {
	for _, c := range []struct {
		file  string
		check Check
	}{
		{"tool-turn.golden", CheckGolden},
		{"text-turn.golden", CheckGolden},
		{"text-turn.system.md", CheckSidecar},
		{"text-turn.tools.json", CheckSidecar},
	} {
		t.Run(c.file, func(t *testing.T) {
			opts := copyBundled(t)
			opts.Shuffle = -1
			path := filepath.Join(opts.Golden, c.file)
			writeFile(t, path, "\xef\xbb\xbf"+string(readFile(t, path)))
			name, _, _ := strings.Cut(c.file, ".")
			f := failureWith(t, replayOne(t, mustLoad(t, opts), name), c.check)
			checkMismatch(t, f, c.file, 1, "", "starts with a UTF-8 byte order mark", "remove it")
			if len(f.Mismatch.Kinds) > 0 || len(f.Mismatch.Cache) > 0 {
				t.Errorf("a byte order mark is priced as a header drift: %s", f)
			}
		})
	}
}

// A byte that is not UTF-8 in a templated golden log's header is the
// file's form, not a header drift: the failure says so and prices
// nothing.
func TestTamperInvalidUTF8InHeaderIsNotPriced(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	path := filepath.Join(opts.Golden, "tool-turn.golden")
	tamperLine(t, path, 4, `"model":"m-1"`, "\"model\":\"m-\xff1\"")
	f := failureWith(t, replayOne(t, mustLoad(t, opts), "tool-turn"), CheckGolden)
	checkMismatch(t, f, "tool-turn.golden", 4, "data.header.config.model", "not valid UTF-8")
	if len(f.Mismatch.Kinds) > 0 || len(f.Mismatch.Cache) > 0 || f.Mismatch.Cost != nil {
		t.Errorf("a byte that is not UTF-8 is priced as a header drift: %s", f)
	}
}

// A byte that is not UTF-8 in a golden log is shown escaped, never raw,
// and the file is said not to be UTF-8.
func TestTamperInvalidUTF8(t *testing.T) {
	opts := copyBundled(t)
	opts.Shuffle = -1
	path := filepath.Join(opts.Golden, "tool-turn.golden")
	tamperLine(t, path, 2, "Which Go", "Which G\xffo")
	f := failureWith(t, replayOne(t, mustLoad(t, opts), "tool-turn"), CheckGolden)
	checkMismatch(t, f, "tool-turn.golden", 2, "data.content", "not valid UTF-8", `G\xffo`)
	if s := f.String(); !utf8.ValidString(s) || strings.Contains(f.Mismatch.Want, "\xff") {
		t.Errorf("the invalid byte is shown raw: %q", s)
	}
}

// CRLF line endings in a sidecar get the line-endings message a golden
// log gets, and are no drift of the header.
func TestTamperSidecarCRLF(t *testing.T) {
	for _, file := range []string{"text-turn.system.md", "text-turn.tools.json"} {
		t.Run(file, func(t *testing.T) {
			opts := copyBundled(t)
			opts.Shuffle = -1
			path := filepath.Join(opts.Golden, file)
			writeFile(t, path, string(bytes.ReplaceAll(readFile(t, path), []byte("\n"), []byte("\r\n"))))
			f := failureWith(t, replayOne(t, mustLoad(t, opts), "text-turn"), CheckSidecar)
			checkMismatch(t, f, file, 1, "", "line endings are CRLF, not LF")
			if len(f.Mismatch.Kinds) > 0 || strings.Contains(f.String(), "kinds:") {
				t.Errorf("CRLF line endings are reported as a header drift: %s", f)
			}
		})
	}
}

// A difference in a system-prompt sidecar names the header whose text
// differs as its marker line names it: headers that kept the system text
// have no section, so the section's place is not the header's number.
func TestSystemSidecarNamesTheMarkersHeader(t *testing.T) {
	const marker = "<!-- headergold: header 5 (change, turn 2, step 1) -->"
	for _, c := range []struct {
		want, got string
		line      int
		what      string
	}{
		{"A\n\n" + marker + "\n\nB\n", "A\n\n" + marker + "\n\nC\n", 5, "the system prompt of header 5 differs"},
		{"A\n\n" + marker + "\n\nB\n", "Z\n\n" + marker + "\n\nB\n", 1, "the system prompt of header 1 differs"},
		// A marker line that differs is that header's, named by the
		// run's marker: not the header whose text ends before it.
		{"A\n\n<!-- headergold: header 6 (change, turn 2, step 1) -->\n\nB\n", "A\n\n" + marker + "\n\nB\n", 3, "the marker line of header 5 differs"},
		{"A\n\n" + marker + "\n\nB\n", "A\n\n<!-- headergold: header 5 (change, turn 2, step 2) -->\n\nB\n", 3, "the marker line of header 5 differs"},
		// A marker line where the run has text: the golden's marker.
		{"A\n\n" + marker + "\n\nB\n", "A\n\nA2\n\nB\n", 3, "the marker line of header 5 differs"},
	} {
		m := Compare("x.system.md", []byte(c.want), []byte(c.got))
		if m == nil || m.Line != c.line || !strings.HasPrefix(m.Reason, c.what) {
			t.Errorf("Compare(%q, %q) = %+v, want line %d and %q", c.want, c.got, m, c.line, c.what)
		}
	}
}

// Two runs of one fixture (file "log") are named as such, not as the
// golden file and the run.
func TestCompareNamesTwoRuns(t *testing.T) {
	m := Compare("log", []byte(`{"a":1}`+"\n"), []byte(`{"a":1,"b":2}`+"\n"))
	if m == nil || m.Path != "b" || !strings.Contains(m.Reason, "b: missing in the first run, present in this run") {
		t.Errorf("Compare(log) = %+v", m)
	}
}

// A golden line or sidecar that holds the same JSON value in other bytes
// (an escape, a number's form) is named by the value whose bytes differ,
// as a difference of value is.
func TestTamperEncodingNamesItsPath(t *testing.T) {
	for _, c := range []struct {
		file     string
		line     int
		from, to string
		check    Check
		path     string
	}{
		{"tool-turn.golden", 5, `"path":"."`, `"path":"\u002e"`, CheckGolden, "data.toolCalls.0.arguments.path"},
		{"tool-turn.golden", 5, `"id":"c1"`, `"\u0069d":"c1"`, CheckGolden, "data.toolCalls.0.id"},
		// A number's form, the golden side the shorter.
		{"tool-turn.golden", 5, `"turn":1,`, `"turn":1.0,`, CheckGolden, "data.turn"},
		{"text-turn.tools.json", 5, `"Ask the user`, `"\u0041sk the user`, CheckSidecar, "initial.0.description"},
	} {
		t.Run(c.file+" "+c.to, func(t *testing.T) {
			opts := copyBundled(t)
			opts.Shuffle = -1
			path := filepath.Join(opts.Golden, c.file)
			tamperLine(t, path, c.line, c.from, c.to)
			name, _, _ := strings.Cut(c.file, ".")
			f := failureWith(t, replayOne(t, mustLoad(t, opts), name), c.check)
			checkMismatch(t, f, c.file, c.line, c.path, "same JSON value, different bytes at "+c.path)
		})
	}
}

// The value of the first differing byte is named whichever side holds
// the longer bytes: a number's form ends on one side where it goes on on
// the other.
func TestPathAtEither(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{`{"a":1,"b":2}`, `{"a":1.0,"b":2}`, "a"},
		{`{"a":[1]}`, `{"a":[1.0]}`, "a.0"},
		{`{"a":"x","b":1}`, `{"a":"x","b":1e0}`, "b"},
		{`{"a":1}`, `{"a":1 }`, ""},
	} {
		for _, ab := range [][2]string{{c.a, c.b}, {c.b, c.a}} {
			x, y := []byte(ab[0]), []byte(ab[1])
			if got := pathAtEither(x, y, commonPrefix(x, y)); got != c.want {
				t.Errorf("pathAtEither(%s, %s) = %q, want %q", x, y, got, c.want)
			}
		}
	}
}

// pathAt names the innermost value holding a byte, a member's key being
// part of it, and nothing between members or at the top level.
func TestPathAt(t *testing.T) {
	doc := `{"a": [1, {"b\u0041": "x"}], "c": 2}`
	for _, c := range []struct {
		at   string // the first occurrence marks the offset
		want string
	}{
		{`{"a"`, ""},
		{`"a"`, "a"},
		{`[1`, "a"},
		{`1,`, "a.0"},
		{`, {`, "a"},
		{`"b\u0041"`, "a.1.bA"},
		{`"x"`, "a.1.bA"},
		{`}], "c"`, "a.1"},
		{`, "c"`, ""},
		{`2}`, "c"},
	} {
		off := strings.Index(doc, c.at)
		if got := pathAt(gjson.Parse(doc), off); got != c.want {
			t.Errorf("pathAt at %q (byte %d) = %q, want %q", c.at, off, got, c.want)
		}
	}
}
