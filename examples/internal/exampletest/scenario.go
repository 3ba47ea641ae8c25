package exampletest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/headergold/headergold/harness"
)

// Scenario writes the fixture fx as fixtures/NAME.json of a new suite in a
// temporary directory, beside an empty golden directory (the golden file
// is missing, a guard failure; the directory is not, which would make the
// suite untestable), loads it and returns the suite and the fixture.
func Scenario(t *testing.T, name string, fx map[string]any) (*harness.Suite, *harness.Fixture) {
	t.Helper()
	data, err := json.MarshalIndent(fx, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	fixtures, golden := filepath.Join(tmp, "fixtures"), filepath.Join(tmp, "golden")
	for _, d := range []string{fixtures, golden} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(fixtures, name+".json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := harness.Load(harness.Options{Fixtures: fixtures, Golden: golden})
	if err != nil {
		t.Fatal(err)
	}
	f := s.Fixture(name)
	if f == nil {
		t.Fatalf("fixture %s not loaded", name)
	}
	return s, f
}
