package harness

import "testing"

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
