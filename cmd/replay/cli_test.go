package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command-line conventions of the go tools, for replay and each of its
// subcommands: a usage error is one line of error, the short usage and
// where the help is, on stderr, exit 2, nothing on stdout; -h and help
// print the full help to stdout, exit 0, nothing on stderr; flags are
// accepted after arguments.

const (
	replayShort    = "usage: replay [flags]\n       replay diff [flags] A B\n       replay stability [flags] LOG...\n       replay help [diff | stability]\nRun 'replay -h' for details.\n"
	diffShort      = "usage: replay diff [-format F] [-json] [-redact RULE]... [-model M] A B\nRun 'replay diff -h' for details.\n"
	stabilityShort = "usage: replay stability [-json] [-threshold F] LOG...\nRun 'replay stability -h' for details.\n"
)

func TestReplayUsageErrors(t *testing.T) {
	log := filepath.Join(t.TempDir(), "a.jsonl")
	os.WriteFile(log, []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n"), 0o644)
	for _, c := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"-nope"}, "replay: flag provided but not defined: -nope\n" + replayShort},
		{[]string{"-shard", "0/3"}, "replay: -shard \"0/3\": want I/N with 1 <= I <= N\n" + replayShort},
		{[]string{"-shard", "4/3"}, "replay: -shard \"4/3\": want I/N with 1 <= I <= N\n" + replayShort},
		{[]string{"-shard", "x"}, "replay: -shard \"x\": want I/N with 1 <= I <= N\n" + replayShort},
		{[]string{"-run", "("}, "replay: -run: error parsing regexp: missing closing ): `(`\n" + replayShort},
		{[]string{"extra"}, "replay: unexpected argument \"extra\" (subcommands: diff, stability, help)\n" + replayShort},
		{[]string{"-v", "extra", "-json"}, "replay: unexpected argument \"extra\" (subcommands: diff, stability, help)\n" + replayShort},
		// A subcommand after replay's flags is not taken for an argument
		// of replay: the message says where the flags go.
		{[]string{"-json", "diff", "a b.jsonl", "b.jsonl"}, "replay: the subcommand diff comes first, its flags after it: replay diff -json 'a b.jsonl' b.jsonl\n" + replayShort},
		{[]string{"-run", "diff", "-json", "stability", "a", "b"}, "replay: the subcommand stability comes first, its flags after it: replay stability -run diff -json a b\n" + replayShort},
		{[]string{"--", "diff", "a", "b"}, "replay: the subcommand diff comes first, its flags after it: replay diff -- a b\n" + replayShort},
		{[]string{"-v", "help", "diff", "-json"}, "replay: help takes no flags: replay help diff\n" + replayShort},
		{[]string{"-shuffle", "-1"}, "replay: -shuffle -1: want 0 or more\n" + replayShort},
		{[]string{"-listen-remote"}, "replay: -listen-remote needs -listen\n" + replayShort},
		{[]string{"help", "frob"}, "replay: no help on \"frob\" (topics: diff, stability)\n" + replayShort},
		{[]string{"diff", "-frob", log, log}, "replay diff: flag provided but not defined: -frob\n" + diffShort},
		{[]string{"diff", log}, "replay diff: want two inputs A and B, got 1\n" + diffShort},
		{[]string{"stability", "-nope", log, log}, "replay stability: flag provided but not defined: -nope\n" + stabilityShort},
		{[]string{"stability", log}, "replay stability: give at least two logs of the same task; got 1\n" + stabilityShort},
		{[]string{"stability", log, log, "-threshold", "0"}, "replay stability: -threshold 0: want a share in (0, 1]\n" + stabilityShort},
	} {
		r := replay(t, nil, false, c.args...)
		if r.code != exitUsage || r.stdout != "" || r.stderr != c.stderr {
			t.Errorf("%q: exit %d, stdout %q, stderr\n%s\nwant exit %d, no stdout, stderr\n%s", c.args, r.code, r.stdout, r.stderr, exitUsage, c.stderr)
		}
	}
}

func TestReplayHelp(t *testing.T) {
	for _, c := range []struct {
		args  []string
		wants []string
	}{
		{[]string{"-h"}, []string{"usage: replay [flags]\n", "Examples", "git bisect run", "\nFlags:\n", "-fixtures DIR", "-golden DIR", "Exit status: 0 all match"}},
		{[]string{"-json", "-h"}, []string{"usage: replay [flags]\n", "\nFlags:\n"}},
		{[]string{"--help"}, []string{"usage: replay [flags]\n"}},
		{[]string{"help"}, []string{"usage: replay [flags]\n", "\nFlags:\n", "-shuffle N"}},
		{[]string{"help", "diff"}, []string{"usage: replay diff ", "-redact RULE", "Exit status: 0 identical"}},
		{[]string{"diff", "a", "b", "-h"}, []string{"usage: replay diff "}},
		{[]string{"help", "stability"}, []string{"usage: replay stability ", "\nFlags:\n", "-threshold F", "Exit status: 0 report printed"}},
		{[]string{"stability", "x", "-h"}, []string{"usage: replay stability "}},
	} {
		r := replay(t, nil, false, c.args...)
		if r.code != exitOK || r.stderr != "" {
			t.Errorf("%q: exit %d, stderr %q; want 0 and nothing on stderr", c.args, r.code, r.stderr)
		}
		for _, want := range c.wants {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%q: help lacks %q:\n%s", c.args, want, r.stdout)
			}
		}
	}
}

// TestFlagsAfterArguments: every subcommand reads a flag after its
// arguments as a flag, never as a file; "--" ends the flags.
func TestFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	logs := []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")}
	for _, l := range logs {
		os.WriteFile(l, []byte(`{"type":"turn/start","data":{"turn":1}}`+"\n"+
			`{"type":"turn/end","data":{"turn":1,"reason":"completed"}}`+"\n"), 0o644)
	}
	r := replay(t, nil, false, "stability", logs[0], logs[1], "-json")
	if r.code != exitOK || !strings.HasPrefix(strings.TrimSpace(r.stdout), "{") {
		t.Errorf("stability A B -json: exit %d, stdout %q, stderr %q; want a JSON report", r.code, r.stdout, r.stderr)
	}
	r = replay(t, nil, false, "stability", logs[0], "--", logs[1], "-json")
	if r.code != exitCannotRun || !strings.Contains(r.stderr, "-json") {
		t.Errorf("stability A -- B -json: exit %d, stderr %q; want -json read as a file after --", r.code, r.stderr)
	}
	// diff: TestDiffExitStatus, "flags after files".
	fx, gd := copyBundled(t)
	r = replay(t, nil, false, "-fixtures", fx, "-golden", gd, "-shuffle", "0", "-run", "^text-turn$", "-json")
	if r.code != exitOK || !strings.Contains(r.stdout, `"fixture":"text-turn"`) {
		t.Errorf("replay -run X -json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
