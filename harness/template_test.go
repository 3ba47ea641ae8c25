package harness

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// The doc comments give these constants' values, which go doc does not
// show for a constant defined as another package's: they must agree.
func TestDocumentedConstantValues(t *testing.T) {
	for got, want := range map[string]string{
		SystemPlaceholder: "<<system>>",
		ToolsPlaceholder:  "<<tools>>",
		UnlistedTools:     "<unlisted-tools>",
		PolicyReorder:     "reorder",
		PolicyReject:      "reject",
	} {
		if got != want {
			t.Errorf("constant is %q, its doc says %q", got, want)
		}
	}
}

// Templating leaves out a capture/request event's headerSpaces wherever
// the member stands, with its comma and nothing else, and is a fixed
// point.
func TestTemplateLeavesOutHeaderSpaces(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"capture/request","data":{"request":1,"body":{},"spaces":[[1," "]],"headerSpaces":[[12,"\n"]]}}`: `{"type":"capture/request","data":{"request":1,"body":{},"spaces":[[1," "]]}}`,
		`{"type":"capture/request","data":{"headerSpaces":[[12,"\n"]], "request":1,"body":{}}}`:                   `{"type":"capture/request","data":{ "request":1,"body":{}}}`,
		`{"type":"capture/request","data":{"request":1,"headerSp\u0061ces":[],"body":{}}}`:                        `{"type":"capture/request","data":{"request":1,"body":{}}}`,
		`{"type":"capture/request","data":{"request":1,"body":{"headerSpaces":[]}}}`:                              `{"type":"capture/request","data":{"request":1,"body":{"headerSpaces":[]}}}`,
		`{"type":"capture/reply","data":{"request":1,"headerSpaces":[]}}`:                                         `{"type":"capture/reply","data":{"request":1,"headerSpaces":[]}}`,
	} {
		got, err := Template([]byte(in + "\n"))
		if err != nil || string(got) != want+"\n" {
			t.Errorf("Template(%s) = %s, %v; want %s", in, got, err, want)
		}
		if again, err := Template(got); err != nil || string(again) != string(got) {
			t.Errorf("Template is not a fixed point on %s: %s", got, again)
		}
	}
}

// Template agrees with a templating written independently, through
// gjson's paths, on events whose members come in any order: the type
// before or after data, data's members shuffled (format, header,
// headerSpaces anywhere), the header's too, system a string or any value
// of a captured header, tools an array or already the placeholder.
func TestTemplateAgreesWithGjson(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	shuffle := func(members []string) string {
		rng.Shuffle(len(members), func(i, j int) { members[i], members[j] = members[j], members[i] })
		return "{" + strings.Join(members, ",") + "}"
	}
	values := []string{`"s"`, `"a \"quoted\" }{ text"`, `[{"type":"text","text":"x"}]`, `{"parts":[{"text":"y"}]}`}
	for i := range 5000 {
		typ := []string{"request/header", "capture/request", "turn/start"}[rng.IntN(3)]
		captured := rng.IntN(2) == 0
		var header []string
		header = append(header, `"config":{"model":"m","n":[1,{"k":"}"}]}`)
		if rng.IntN(3) > 0 {
			sys := values[0]
			if captured {
				sys = values[rng.IntN(len(values))]
			}
			header = append(header, `"system":`+sys)
		}
		if rng.IntN(3) > 0 {
			header = append(header, `"tools":`+[]string{`[{"name":"a","d":"]"}]`, `[]`, `"<<tools>>"`}[rng.IntN(3)])
		}
		data := []string{`"request":1`, `"reason":"initial"`, `"header":` + shuffle(header)}
		if captured {
			data = append(data, `"format":"anthropic"`)
		}
		if rng.IntN(2) == 0 {
			data = append(data, `"headerSpaces":[[3," "]]`)
		}
		line := shuffle([]string{`"type":"` + typ + `"`, `"data":` + shuffle(data)})
		got, err := Template([]byte(line + "\n"))
		if err != nil {
			t.Fatalf("%d: Template(%s): %v", i, line, err)
		}
		want := line
		switch typ {
		case "request/header":
			type cut struct {
				at, end int
				with    string
			}
			var cuts []cut
			for path, with := range map[string]string{"data.header.system": `"<<system>>"`, "data.header.tools": `"<<tools>>"`} {
				if v := gjson.Get(line, path); v.Exists() {
					cuts = append(cuts, cut{v.Index, v.Index + len(v.Raw), with})
				}
			}
			slices.SortFunc(cuts, func(a, b cut) int { return a.at - b.at })
			want, prev := "", 0
			for _, c := range cuts {
				want += line[prev:c.at] + c.with
				prev = c.end
			}
			want += line[prev:]
			if string(got) != want+"\n" {
				t.Fatalf("%d: Template(%s)\n = %s\nwant %s", i, line, got, want)
			}
			continue
		case "capture/request":
			if v := gjson.Get(line, "data.headerSpaces"); v.Exists() {
				// The member and one comma beside it go.
				key := strings.LastIndex(line[:v.Index], `"headerSpaces"`)
				from, to := key, v.Index+len(v.Raw)
				if c := strings.LastIndex(line[:key], ","); c > strings.LastIndex(line[:key], "{") {
					from = c
				} else if to < len(line) && line[to] == ',' {
					to++
				}
				want = line[:from] + line[to:]
			}
		}
		if string(got) != want+"\n" {
			t.Fatalf("%d: Template(%s)\n = %s\nwant %s", i, line, got, want)
		}
	}
}
