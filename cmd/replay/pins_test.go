package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportSaysWhatIsPinned: with -v and with -json, every fixture's
// report says what its golden files pin.
func TestReportSaysWhatIsPinned(t *testing.T) {
	fx, gd := copyBundled(t)
	args := []string{"-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^(text-turn|extends-text-turn|late-registration)$"}
	r := replay(t, nil, false, append(args, "-v")...)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"ok   extends-text-turn", "    pins its headers to the pin text-turn's (uniformity)\n",
		"ok   late-registration", "    pins determinism only: system and tools are placeholders",
		"ok   text-turn", "    pins its headers in full: " + filepath.Join(gd, "text-turn.system.md") + " " + filepath.Join(gd, "text-turn.tools.json") + "\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("-v lacks %q:\n%s", want, r.stdout)
		}
	}
	r = replay(t, nil, false, append(args, "-json")...)
	pins := map[string]pinsReport{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var fr fixtureReport
		if err := json.Unmarshal([]byte(line), &fr); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if fr.Fixture != "" {
			pins[fr.Fixture] = fr.Pins
		}
	}
	want := map[string]pinsReport{
		"extends-text-turn": {Kind: "uniform", Pin: "text-turn"},
		"late-registration": {Kind: "determinism"},
		"text-turn":         {Kind: "sidecars", Files: []string{filepath.Join(gd, "text-turn.system.md"), filepath.Join(gd, "text-turn.tools.json")}},
	}
	for name, w := range want {
		got := pins[name]
		if got.Kind != w.Kind || got.Pin != w.Pin || strings.Join(got.Files, ",") != strings.Join(w.Files, ",") {
			t.Errorf("-json %s: pins %+v, want %+v", name, got, w)
		}
	}
}
