package cliflags

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	cmd := Command{Name: "tool sub", Usage: "usage: tool sub [-json] A B\n", Help: "Compares A and B.\n"}
	newFS := func() (*flag.FlagSet, *bool, *string) {
		fs := flag.NewFlagSet("tool sub", flag.ContinueOnError)
		return fs, fs.Bool("json", false, "print JSON"), fs.String("format", "auto", "input `F`")
	}
	for _, c := range []struct {
		args     []string
		pos      []string
		json     bool
		format   string
		code     int
		ok       bool
		stdout   string // a fragment, "" for empty
		stderr   string // the whole of it
		noStdout bool
	}{
		{args: []string{"a", "b", "-json"}, pos: []string{"a", "b"}, json: true, format: "auto", ok: true},
		{args: []string{"-format", "x", "a", "-json", "b"}, pos: []string{"a", "b"}, json: true, format: "x", ok: true},
		{args: []string{"a", "--", "-json", "b"}, pos: []string{"a", "-json", "b"}, format: "auto", ok: true},
		{args: []string{"a", "-"}, pos: []string{"a", "-"}, format: "auto", ok: true},
		{args: []string{"a", "-h"}, code: 0, stdout: "usage: tool sub [-json] A B\n\nCompares A and B.\n\nFlags:\n  -format F\n"},
		{args: []string{"a", "-bogus"}, code: 2,
			stderr: "tool sub: flag provided but not defined: -bogus\nusage: tool sub [-json] A B\nRun 'tool sub -h' for details.\n"},
	} {
		fs, asJSON, format := newFS()
		var out, errOut strings.Builder
		pos, code, ok := cmd.Parse(fs, c.args, &out, &errOut)
		if ok != c.ok || code != c.code {
			t.Errorf("%q: ok %v code %d, want %v %d", c.args, ok, code, c.ok, c.code)
		}
		if !ok {
			if !strings.Contains(out.String(), c.stdout) || (c.stdout == "" && out.Len() > 0) {
				t.Errorf("%q: stdout %q, want it to hold %q", c.args, out.String(), c.stdout)
			}
			if errOut.String() != c.stderr {
				t.Errorf("%q: stderr %q, want %q", c.args, errOut.String(), c.stderr)
			}
			continue
		}
		if !slices.Equal(pos, c.pos) || *asJSON != c.json || *format != c.format {
			t.Errorf("%q: args %q json %v format %q, want %q %v %q", c.args, pos, *asJSON, *format, c.pos, c.json, c.format)
		}
		if out.Len()+errOut.Len() > 0 {
			t.Errorf("%q: printed %q %q on success", c.args, out.String(), errOut.String())
		}
	}
}

// A usage error is one line of error, whatever the message holds.
func TestFailIsOneLine(t *testing.T) {
	cmd := Command{Name: "tool", Usage: "usage: tool [flags]"}
	var w strings.Builder
	if code := cmd.Fail(&w, "-x %q:\n%s", "a", "two\nlines"); code != ExitUsage {
		t.Errorf("exit %d", code)
	}
	const want = "tool: -x \"a\": two lines\nusage: tool [flags]\nRun 'tool -h' for details.\n"
	if w.String() != want {
		t.Errorf("Fail wrote %q, want %q", w.String(), want)
	}
}
