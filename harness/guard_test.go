package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// layout makes a fixtures/golden pair in a temp dir holding one fixture,
// recorded, and returns the options.
func layout(t *testing.T, fixtures map[string]string) Options {
	t.Helper()
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: 2, Seed: 1}
	if err := os.MkdirAll(opts.Fixtures, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range fixtures {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), body)
	}
	if _, failed, err := mustLoad(t, opts).Record(RecordOptions{}); err != nil {
		t.Fatalf("record: %v %v", err, failed)
	}
	return opts
}

func TestGuardGoldenWithoutFixture(t *testing.T) {
	opts := layout(t, map[string]string{"one": minimalFixture})
	writeFile(t, filepath.Join(opts.Golden, "gone.golden"), "")
	writeFile(t, filepath.Join(opts.Golden, "gone.system.md"), "\n")
	s := mustLoad(t, opts)
	got := s.Findings()
	if len(got) != 2 {
		t.Fatalf("findings = %v, want the orphan golden log and sidecar", got)
	}
	for _, f := range got {
		if !strings.Contains(f.String(), "gone.") || !strings.Contains(f.Msg, "no fixture") {
			t.Errorf("finding %q does not name the orphan and its missing fixture", f)
		}
	}
}

func TestGuardFixtureWithoutGolden(t *testing.T) {
	opts := layout(t, map[string]string{"one": minimalFixture})
	writeFile(t, filepath.Join(opts.Fixtures, "two.json"), minimalFixture)
	s := mustLoad(t, opts)
	failureWith(t, replayOne(t, s, "two"), CheckGuard, "two.golden", "missing", "GOLDIE_UPDATE=1 go test, or the record command")
	if fails := replayOne(t, s, "one"); len(fails) != 0 {
		t.Errorf("the recorded fixture fails: %v", fails)
	}
}

func TestGuardNotTemplated(t *testing.T) {
	opts := layout(t, map[string]string{"one": minimalFixture})
	s := mustLoad(t, opts)
	out, _ := s.Check(s.Fixture("one"))
	// The full log in place of the templated one: it is not a fixed point.
	writeFile(t, filepath.Join(opts.Golden, "one.golden"), string(out.Log))
	failureWith(t, replayOne(t, s, "one"), CheckGuard, "one.golden:4", "not templated at data.header.system", `it holds "P.", not "<<system>>"`)
	// The placeholder in other bytes is said to be that: escaped.
	escaped := strings.Replace(string(out.Golden), `"system":"<<system>>"`, `"system":"\u003c\u003csystem>>"`, 1)
	if escaped == string(out.Golden) {
		t.Fatalf("no system placeholder in\n%s", out.Golden)
	}
	writeFile(t, filepath.Join(opts.Golden, "one.golden"), escaped)
	failureWith(t, replayOne(t, s, "one"), CheckGuard, "one.golden:4", "not templated at data.header.system", `it holds "\u003c\u003csystem>>", the placeholder escaped, not "<<system>>" as written`)
}

func TestGuardSidecars(t *testing.T) {
	pinned := strings.Replace(minimalFixture, `"description": "minimal",`, `"description": "minimal", "pin": true,`, 1)
	opts := layout(t, map[string]string{"pinned": pinned, "plain": minimalFixture})
	if err := os.Remove(filepath.Join(opts.Golden, "pinned.tools.json")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(opts.Golden, "plain.system.md"), "P.\n")
	s := mustLoad(t, opts)
	failureWith(t, replayOne(t, s, "pinned"), CheckGuard, "pinned.tools.json", "missing")
	failureWith(t, replayOne(t, s, "plain"), CheckGuard, "plain.system.md", "not pinned")
}

func TestGuardMalformedHeader(t *testing.T) {
	for _, tc := range []struct {
		name, header, want string
		sidecarErr         bool // Sidecars reads full logs and must refuse it too
	}{
		{"system number", `{"config":{},"system":42}`, "system is not a string", true},
		{"tools object", `{"config":{},"tools":{"a":1}}`, "tools is not an array", true},
		{"tools other string", `{"config":{},"tools":"<<other>>"}`, "tools is not an array", true},
		{"no header", `null`, "without a header object", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := `{"type":"turn/start","data":{"turn":1}}` + "\n" +
				`{"type":"request/header","data":{"turn":1,"step":1,"reason":"initial","header":` + tc.header + `}}` + "\n"
			_, err := Template([]byte(log))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line 2") {
				t.Fatalf("Template error = %v, want line 2 and %q", err, tc.want)
			}
			_, _, err = Sidecars([]byte(log))
			var te *TemplateError
			switch {
			case !tc.sidecarErr:
			case err == nil:
				t.Errorf("Sidecars accepted a malformed header")
			case !errors.As(err, &te) || te.Line != 2 || !strings.HasPrefix(te.Path, "data.header.") || !strings.Contains(te.Msg, tc.want):
				t.Errorf("Sidecars error = %#v, want a *TemplateError at line 2, data.header.*, %q", err, tc.want)
			}
		})
	}
}

// A captured header holds the body's own tools member, and Gemini's API
// takes a single tool object there: it templates, and a pin's sidecar
// holds it with its tokens as sent.
func TestCapturedToolsObject(t *testing.T) {
	log := `{"type":"request/header","data":{"request":1,"reason":"initial","format":"gemini","header":{"config":{},"tools":{"functionDeclarations":[{"name":"f","description":"d\u00e9"}]}}}}` + "\n"
	got, err := Template([]byte(log))
	if want := `{"type":"request/header","data":{"request":1,"reason":"initial","format":"gemini","header":{"config":{},"tools":"<<tools>>"}}}` + "\n"; err != nil || string(got) != want {
		t.Errorf("Template = %s, %v; want %s", got, err, want)
	}
	_, tools, err := Sidecars([]byte(log))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "initial": {
    "functionDeclarations": [
      {
        "name": "f",
        "description": "d\u00e9"
      }
    ]
  },
  "changes": []
}
`
	if string(tools) != want {
		t.Errorf("tools sidecar:\n%s\nwant:\n%s", tools, want)
	}
}

func TestGuardUniformity(t *testing.T) {
	// The pin never reaches turn 2, so its late plugin never registers;
	// a fixture that extends it with two turns gets another header.
	pin := `{
  "description": "pin with a plugin due in turn 2",
  "pin": true,
  "config": {"persona": "P.", "model": "m"},
  "plugins": [{"name": "p", "tools": [{"name": "a"}]},
              {"name": "late", "registerAt": {"turn": 2, "step": 1}, "tools": [{"name": "z"}]}],
  "turns": [{"user": "hi", "replies": [{"text": "hello"}]}]
}`
	same := `{"description": "same turns", "extends": "pin", "turns": [{"user": "yo", "replies": [{"text": "hey"}]}]}`
	longer := `{"description": "reaches turn 2", "extends": "pin", "turns": [
  {"user": "a", "replies": [{"text": "b"}]}, {"user": "c", "replies": [{"text": "d"}]}]}`
	adds := `{"description": "adds a plugin", "extends": "pin", "plugins": [{"name": "more", "tools": [{"name": "m"}]}],
  "turns": [{"user": "a", "replies": [{"text": "b"}]}]}`
	// Through a fixture that adds nothing either, the pin is the one to
	// match; through one that adds a plugin, there is none.
	grand := `{"description": "extends longer", "extends": "longer", "turns": [
  {"user": "a", "replies": [{"text": "b"}]}, {"user": "c", "replies": [{"text": "d"}]}]}`
	viaAdds := `{"description": "extends adds", "extends": "adds", "turns": [
  {"user": "a", "replies": [{"text": "b"}]}, {"user": "c", "replies": [{"text": "d"}]}]}`
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Shuffle: -1, Seed: 1}
	os.MkdirAll(opts.Fixtures, 0o755)
	for name, body := range map[string]string{"pin": pin, "same": same, "longer": longer, "adds": adds, "grand": grand, "via-adds": viaAdds} {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), body)
	}
	s := mustLoad(t, opts)
	check := func(name string) []Failure {
		_, res := s.Check(s.Fixture(name))
		return res.Failures
	}
	if fails := check("same"); len(fails) != 0 {
		t.Errorf("same: %v", fails)
	}
	failureWith(t, check("longer"), CheckUniformity, "longer.golden:11:", "longer extends the pin pin", "header 2 differs: the pin has 1 distinct headers, longer 2")
	if fails := check("adds"); len(fails) != 0 {
		t.Errorf("a fixture that adds a plugin is exempt, got %v", fails)
	}
	failureWith(t, check("grand"), CheckUniformity, "grand extends the pin pin (through longer, which adds nothing either)", "header 2 differs")
	if p := s.Pins(s.Fixture("grand")); p.Kind != PinUniform || p.Pin != "pin" {
		t.Errorf("Pins(grand) = %+v, want uniform with pin", p)
	}
	if fails := check("via-adds"); len(fails) != 0 {
		t.Errorf("a fixture extending one that adds a plugin is exempt, got %v", fails)
	}
}

// distinctHeaders reads each header event's header where it is, in any
// member order and with escaped keys, and leaves out a header that
// repeats the one in force.
func TestDistinctHeaders(t *testing.T) {
	log := `{"type":"turn/start","data":{"turn":1}}` + "\n" +
		`{"type":"request/header","data":{"turn":1,"reason":"initial","header":{"system":"A","tools":[]}}}` + "\n" +
		`{"data":{"header":{"system":"A","tools":[]},"reason":"resume"},"type":"request/header"}` + "\n" +
		`{"type":"request/header","data":{"h\u0065ader":{"system":"B","tools":[{"name":"x"}]},"turn":2}}` + "\n" +
		`{"type":"assistant/message","data":{"header":{"system":"C"}}}` + "\n" +
		`{"type":"request/header","data":{"turn":3,"header":{"system":"A","tools":[]}}}` + "\n"
	var got []string
	for _, h := range distinctHeaders([]byte(log)) {
		got = append(got, fmt.Sprintf("%d:%s", h.line, h.raw))
	}
	want := []string{`2:{"system":"A","tools":[]}`, `4:{"system":"B","tools":[{"name":"x"}]}`, `6:{"system":"A","tools":[]}`}
	if !slices.Equal(got, want) {
		t.Errorf("distinctHeaders = %q, want %q", got, want)
	}
}

// Replaying or checking a name the suite does not have is a failure of
// check invalid, not a nil dereference; a Duration prints as a duration.
func TestNoFixture(t *testing.T) {
	s := mustLoad(t, layout(t, map[string]string{"one": minimalFixture}))
	res := s.Replay(s.Fixture("typo"))
	if res.Passed() || !res.Invalid() {
		t.Errorf("Replay(nil) = %+v, want a failure of check invalid", res)
	}
	if out, res := s.Check(nil); out != nil || !res.Invalid() {
		t.Errorf("Check(nil) = %v, %+v", out, res)
	}
	if got := fmt.Sprint(Duration(90 * time.Second)); got != "1m30s" {
		t.Errorf("Duration prints as %q", got)
	}
}

// The distinct headers a run takes from its loop are the ones its log's
// text gives, lines included, for every bundled reference fixture (a
// resume among them, whose second loop instance continues the log).
func TestDistinctHeadersFromTheLoop(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: -1, Seed: 1})
	n := 0
	for _, f := range s.Fixtures() {
		if f.Captured() {
			continue
		}
		r, err := runFixture(f, nil)
		if err != nil {
			continue // the fixtures about failures to run
		}
		if r.headers == nil {
			t.Errorf("%s: the run has no headers from its loop", f.Name)
			continue
		}
		sameAt := func(a, b headerAt) bool { return a.line == b.line && a.text() == b.text() }
		if got, want := r.distinctHeaders(), distinctHeaders(r.fullLog()); !slices.EqualFunc(got, want, sameAt) {
			t.Errorf("%s: from the loop %v, from the log %v", f.Name, got, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d fixtures compared", n)
	}
}
