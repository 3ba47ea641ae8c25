package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/canon"
)

// TestFixtureRulesMore: rules of validateOwn and inherit the other tests
// do not reach, each named at its path.
func TestFixtureRulesMore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "root.json"), `{"description":"r","plugins":[{"name":"p","tools":[]}],"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "plugin-child.json"), `{"description":"c","extends":"root","plugins":[{"name":"q","tools":[]},{"name":"p","tools":[]}],"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "resume-first.json"), `{"description":"f","turns":[{"user":"x","resume":true}]}`)
	writeFile(t, filepath.Join(dir, "turn-zero.json"), `{"description":"z","plugins":[{"name":"p","registerAt":{"turn":0,"step":1},"tools":[]}],"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "listener-step-zero.json"), `{"description":"l","listeners":[{"op":"reverse","registerAt":{"turn":1,"step":0}}],"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "resume-second.json"), `{"description":"s","turns":[{"user":"x", "replies": [{"text": "ok"}]},{"user":"y","resume":true,"replies":[{"text":"ok"}]}]}`)
	for name, want := range map[string]string{
		"plugin-child":       `plugins[1].name: plugin "p" is also defined by root`,
		"resume-first":       `turns[0].resume: the first turn has no log to resume`,
		"turn-zero":          `plugins[0].registerAt: turn and step count from 1`,
		"listener-step-zero": `listeners[0].registerAt: turn and step count from 1`,
	} {
		_, err := loadFixture(dir, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, want)
		}
	}
	if _, err := loadFixture(dir, "resume-second"); err != nil {
		t.Errorf("resume on the second turn: %v", err)
	}
	writeFile(t, filepath.Join(dir, "addtool-at.json"), `{"description":"a","listeners":[{"op":"addTool","schema":{"name":"x"},"at":0}],"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	if _, err := loadFixture(dir, "addtool-at"); err != nil {
		t.Errorf("addTool with its optional at: %v", err)
	}
}

// TestFixtureShapeMore: type and duplicate-key errors the shape check
// reports before the typed decoder runs, at their position.
func TestFixtureShapeMore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var props strings.Builder
	for i := range 20 {
		fmt.Fprintf(&props, `"k%d":{},`, i)
	}
	props.WriteString(`"k18":{}`)
	writeFile(t, filepath.Join(dir, "wide-dup.json"), `{"description":"w","plugins":[{"name":"p","tools":[{"name":"t","parameters":{"type":"object","properties":{`+props.String()+`}}}]}],"turns":[{"user":"x", "replies": [{"text": "ok"}]}]}`)
	writeFile(t, filepath.Join(dir, "pin-number.json"), "{\n  \"description\": \"n\",\n  \"pin\": 1,\n  \"turns\": [{\"user\": \"hi\", \"replies\": [{\"text\": \"ok\"}]}]\n}\n")
	for name, want := range map[string]string{
		"wide-dup":   `field "k18" appears twice`,
		"pin-number": `pin-number.json:3:10: pin: expected bool, found a JSON number`,
	} {
		_, err := loadFixture(dir, name)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, want)
		}
	}
}

// TestUnreachedStepLimit: the last step a turn runs is
// agent.DefaultMaxSteps (32); the one after it is never reached.
func TestUnreachedStepLimit(t *testing.T) {
	t.Parallel()
	var replies []Reply
	for i := range 40 {
		replies = append(replies, Reply{ToolCalls: []ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "t"}}})
	}
	f := &Fixture{Name: "long", Turns: []Turn{{User: "go", Replies: replies}}}
	if why := f.unreached(StepRef{Turn: 1, Step: 32}); why != "" {
		t.Errorf("step 32: %q, want it reached", why)
	}
	if why := f.unreached(StepRef{Turn: 1, Step: 33}); why != "a turn stops at step 32" {
		t.Errorf("step 33: %q, want %q", why, "a turn stops at step 32")
	}
}

// TestLoadedParametersAreValidForCanon: making a fixture's parameters
// canonical waits until a header's bytes are read, which no error can
// reach, on the strength of the load's syntax check. So every text a
// load accepts, canon accepts too; the edge cases of the two checks say
// so here, FuzzLoadedParametersAreValidForCanon beyond them.
func TestLoadedParametersAreValidForCanon(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 9990) + "1" + strings.Repeat("}", 9990)
	for _, params := range []string{
		"{\"k\xffey\": 1}",              // invalid UTF-8 in a key
		"{\"k\": \"v\xc3\"}",            // cut UTF-8 in a value
		`{"k": "\ud800"}`,               // a lone surrogate, escaped
		`{"k": 1e999, "m": -1e-999}`,    // out of a double's range
		`{"k": "a` + "\x01" + `"}`,      // a control character
		`{"k": 1, "k": 2}`,              // a duplicate key
		`{"1": 1, "0": 0}`,              // array-index keys
		`{"k": 01}`,                     // a leading zero
		deep,                            // near the nesting limit
		strings.Repeat("[", 10001) + "", // past it
	} {
		checkLoadedParams(t, []byte(params))
	}
}

// checkLoadedParams fails when a fixture whose tool has params loads but
// canon refuses params.
func checkLoadedParams(t *testing.T, params []byte) {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString(`{"description": "d", "plugins": [{"name": "p", "tools": [{"name": "t", "parameters": `)
	b.Write(params)
	b.WriteString(`}]}], "turns": [{"user": "hi", "replies": [{"text": "ok"}]}]}`)
	if err := os.WriteFile(filepath.Join(dir, "f.json"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(Options{Fixtures: dir, Golden: filepath.Join(dir, "golden")})
	if err != nil {
		return // refused at load: nothing is deferred
	}
	f := s.Fixture("f")
	got := f.Plugins[0].Tools[0].Parameters
	if !f.checkedParams(0, 0, got) {
		t.Fatalf("the loaded text %.40q is not the one the load checked", got)
	}
	if _, err := canon.Compact(nil, got); err != nil {
		t.Fatalf("the load accepted parameters %.60q that canon refuses: %v", got, err)
	}
}

// FuzzLoadedParametersAreValidForCanon: see TestLoadedParametersAreValidForCanon.
func FuzzLoadedParametersAreValidForCanon(f *testing.F) {
	for _, s := range []string{`{"type":"object"}`, `{"a":[1,2.50,"\u00e9"]}`, "{\"k\xffey\": 1}", `{"k": 1e999}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		checkLoadedParams(t, params)
	})
}

// TestReplacedParametersAreCheckedAtOnce: a text put in a loaded fixture
// in place of the one the load checked (which Suite.Fixture's contract
// forbids) is not vouched for, so invalid JSON there fails the run's
// registration as it did before making texts canonical waited.
func TestReplacedParametersAreCheckedAtOnce(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: -1})
	f := s.Fixture("large-toolset")
	tool := &f.Plugins[0].Tools[0]
	orig := tool.Parameters
	defer func() { tool.Parameters = orig }()
	if !f.checkedParams(0, 0, orig) || f.checkedParams(0, 0, orig[:len(orig)-1]) || f.checkedParams(0, 0, bytes.Clone(orig)) {
		t.Fatal("checkedParams does not tell the loaded text from others")
	}
	tool.Parameters = json.RawMessage(`{"a":}`)
	p := preparePlugins(f)
	if err := p.errs[0]; err == nil || !strings.Contains(err.Error(), "parameters") {
		t.Fatalf("replaced invalid parameters: %v", err)
	}
}
