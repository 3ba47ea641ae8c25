package canon_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/headergold/headergold/internal/canon"
)

// nodeScript reads [{text, indents}] on stdin and writes, per input, null
// when JSON.parse rejects it, or {compact, indented: [...]}.
const nodeScript = `
let s = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', d => s += d);
process.stdin.on('end', () => {
  const out = JSON.parse(s).map(({text, indents}) => {
    let v;
    try { v = JSON.parse(text); } catch (e) { return null; }
    return {compact: JSON.stringify(v), indented: indents.map(g => JSON.stringify(v, null, g))};
  });
  process.stdout.write(JSON.stringify(out));
});
`

type nodeInput struct {
	Text    string   `json:"text"`
	Indents []string `json:"indents"`
}

type nodeOutput struct {
	Compact  string   `json:"compact"`
	Indented []string `json:"indented"`
}

// runNode evaluates all inputs in one node process.
func runNode(t *testing.T, inputs []nodeInput) []*nodeOutput {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not on PATH: the JavaScript differential test needs Node.js (" + err.Error() + ")")
	}
	payload, err := json.Marshal(inputs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "-e", nodeScript)
	cmd.Stdin = bytes.NewReader(payload)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.Bytes())
	}
	var outs []*nodeOutput
	if err := json.Unmarshal(stdout, &outs); err != nil {
		t.Fatalf("node output: %v", err)
	}
	if len(outs) != len(inputs) {
		t.Fatalf("node answered %d inputs, want %d", len(outs), len(inputs))
	}
	return outs
}

// TestNodeDifferential compares Compact and Indent byte for byte with
// JSON.stringify(JSON.parse(x)) and JSON.stringify(JSON.parse(x), null, g)
// as Node.js computes them, and checks both sides agree on what is valid.
func TestNodeDifferential(t *testing.T) {
	t.Parallel()
	const seed = 20260501
	defaultIndents := []string{"  ", "\t"}
	var inputs []nodeInput
	add := func(text string, indents ...string) {
		if !utf8.ValidString(text) {
			return // JSON.parse works on strings: invalid UTF-8 has no equivalent
		}
		inputs = append(inputs, nodeInput{text, append(indents, defaultIndents...)})
	}
	for _, tc := range compactCases {
		add(tc.in)
	}
	for _, tc := range syntaxCases {
		add(tc.in)
	}
	for _, tc := range indentCases {
		add(tc.in, tc.indent)
	}
	for _, path := range corpusSchemaFiles() {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		add(string(data))
	}
	g := newJSONGen(seed)
	for range 2000 {
		text := g.text()
		add(text)
		add(g.mutate(text))
	}

	outs := runNode(t, inputs)
	failures := 0
	for i, in := range inputs {
		out := outs[i]
		got, err := canon.Compact(nil, []byte(in.Text))
		switch {
		case out == nil && err == nil:
			t.Errorf("seed %d: JSON.parse rejects %q but Compact accepts it as %q", seed, in.Text, got)
		case out != nil && err != nil:
			t.Errorf("seed %d: JSON.parse accepts %q but Compact fails: %v", seed, in.Text, err)
		case out != nil && string(got) != out.Compact:
			t.Errorf("seed %d: Compact(%q)\n   go %q\n node %q", seed, in.Text, got, out.Compact)
		case out != nil:
			for j, indent := range in.Indents {
				ind, err := canon.Indent(nil, []byte(in.Text), indent)
				if err != nil || string(ind) != out.Indented[j] {
					t.Errorf("seed %d: Indent(%q, %q)\n   go %q (err %v)\n node %q", seed, in.Text, indent, ind, err, out.Indented[j])
				}
			}
		}
		if t.Failed() {
			if failures++; failures > 20 {
				t.Fatal("too many differences")
			}
		}
	}
	valid := 0
	for _, o := range outs {
		if o != nil {
			valid++
		}
	}
	// Guard against a generator that silently stopped producing either kind.
	if valid < len(inputs)/3 || valid > len(inputs)*9/10 {
		t.Errorf("only %d of %d inputs are valid JSON; the generator is off balance", valid, len(inputs))
	}
	t.Logf("seed %d: %d inputs (%d valid) identical to Node %s", seed, len(inputs), valid, strings.TrimSpace(nodeVersion()))
}

func nodeVersion() string {
	out, _ := exec.Command("node", "--version").Output()
	return string(out)
}

// corpusSchemaFiles returns the shared corpus's tool-schema files when the
// corpus sits beside this checkout, or nothing.
func corpusSchemaFiles() []string {
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	for {
		if files, _ := filepath.Glob(filepath.Join(dir, "shared", "corpus", "dsh", "*", "tool-schemas.expected.json")); len(files) > 0 {
			return files
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil
		}
		dir = parent
	}
}
