package harness

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
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
