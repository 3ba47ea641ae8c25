package harness

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSplitPattern(t *testing.T) {
	for p, want := range map[string][]string{
		"TestGolden":             {"TestGolden"},
		"TestGolden/^text-turn$": {"TestGolden", "^text-turn$"},
		"TestGolden/[a/b]/(x/y)": {"TestGolden", "[a/b]", "(x/y)"},
		`TestGolden/a\/b`:        {"TestGolden", `a\/b`},
		"TestGolden//":           {"TestGolden", "", ""},
	} {
		if got := splitPattern(p); !slices.Equal(got, want) {
			t.Errorf("splitPattern(%q) = %q, want %q", p, got, want)
		}
	}
}

// With GOLDIE_UPDATE, go test -run 'TestX/^a$' records fixture a only.
func TestRecordingFollowsGoTestRun(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Fixtures: filepath.Join(dir, "fixtures"), Golden: filepath.Join(dir, "golden"), Seed: 1}
	os.MkdirAll(opts.Fixtures, 0o755)
	for _, name := range []string{"a", "b"} {
		writeFile(t, filepath.Join(opts.Fixtures, name+".json"), minimalFixture)
	}
	fl := flag.Lookup("test.run")
	old := fl.Value.String()
	t.Cleanup(func() { fl.Value.Set(old) })
	fl.Value.Set(t.Name() + "/^a$")
	t.Setenv("GOLDIE_UPDATE", "1")
	t.Setenv("CI", "")
	Test(t, opts)
	if _, err := os.Stat(filepath.Join(opts.Golden, "a.golden")); err != nil {
		t.Errorf("a was not recorded: %v", err)
	}
	if _, err := os.Stat(filepath.Join(opts.Golden, "b.golden")); err == nil {
		t.Error("b was recorded although -run selects a only")
	}
}
