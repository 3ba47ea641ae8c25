package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/headergold/headergold/internal/bundletest"
)

// TestBisectRecipe runs the README's bisect block, exactly as printed, on
// a throwaway repository whose history breaks an unrelated fixture,
// deletes another, changes only the README, and then edits text-turn's
// header; the recipe must name the header edit.
func TestBisectRecipe(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the replay binary at several commits")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	bundletest.SkipWhileRecording(t)
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	recipe := bisectBlock(t, readme)

	repo := t.TempDir()
	for _, d := range []string{"cmd", "harness", "internal", "fixtures", "golden"} {
		if err := os.CopyFS(filepath.Join(repo, d), os.DirFS(filepath.Join(root, d))); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"go.mod", "go.sum", "README.md"} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(repo, f), b)
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.invalid",
			"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.invalid", "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	commit := func(msg string) string {
		git("add", "-A")
		git("commit", "-q", "-m", msg)
		return git("rev-parse", "HEAD")
	}
	git("init", "-q", "-b", "main")
	good := commit("good")
	write(t, filepath.Join(repo, "fixtures", "tool-turn.json"), []byte("{ this is not JSON\n"))
	commit("break an unrelated fixture")
	os.Remove(filepath.Join(repo, "fixtures", "resume.json"))
	commit("delete an unrelated fixture (its golden file stays in the saved copy)")
	write(t, filepath.Join(repo, "README.md"), append(readme, "\nA note.\n"...))
	commit("README only")
	tt := filepath.Join(repo, "fixtures", "text-turn.json")
	b, err := os.ReadFile(tt)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(b, []byte(`"Read a UTF-8 text file.`), []byte(`"Read a UTF-8 text file, carefully.`), 1)
	if bytes.Equal(edited, b) {
		t.Fatal("the text-turn description to edit is gone; update this test")
	}
	write(t, tt, edited)
	edit := commit("edit read_file's description")
	write(t, filepath.Join(repo, "README.md"), append(readme, "\nAnother note.\n"...))
	commit("README again")

	// The block keeps its copies in /tmp: here in a directory of the
	// test's own, so that two test runs on one machine do not share them.
	scratch := t.TempDir()
	script := strings.ReplaceAll(strings.ReplaceAll(recipe, "LAST_GOOD", good), "/tmp/", scratch+"/")
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = repo
	// HOME is the throwaway repository's, for git; the go command keeps
	// this machine's module and build caches, which it would otherwise
	// look for under that HOME: empty, so each go build of the bisect
	// would download every module again (a network failure exits 125,
	// a skip, and bisect names no commit) and rebuild from scratch.
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo, "CI=")
	cmd.Env = append(cmd.Env, goCaches(t)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the recipe failed: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`(?m)^([0-9a-f]{40}) is the first bad commit`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no first bad commit in the output:\n%s", out)
	}
	if string(m[1]) != edit {
		t.Fatalf("bisect named %s, want the header edit %s\n%s", m[1], edit, out)
	}
}

// goCaches returns GOPATH, GOMODCACHE and GOCACHE as the go command
// sees them here, as environment entries.
func goCaches(t *testing.T) []string {
	t.Helper()
	names := []string{"GOPATH", "GOMODCACHE", "GOCACHE"}
	out, err := exec.Command("go", append([]string{"env"}, names...)...).Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	values := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(values) != len(names) {
		t.Fatalf("go env %v: %q", names, out)
	}
	env := make([]string, len(names))
	for i, n := range names {
		env[i] = n + "=" + values[i]
	}
	return env
}

// bisectBlock returns the shell block of the README's bisect section.
func bisectBlock(t *testing.T, readme []byte) string {
	t.Helper()
	_, sec, ok := strings.Cut(string(readme), "## Finding the commit that changed a header")
	if !ok {
		t.Fatal("README has no bisect section")
	}
	_, block, ok := strings.Cut(sec, "```sh\n")
	if !ok {
		t.Fatal("the bisect section has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	if !strings.Contains(block, "git bisect run") || !strings.Contains(block, "LAST_GOOD") {
		t.Fatalf("unexpected bisect block:\n%s", block)
	}
	return block
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
