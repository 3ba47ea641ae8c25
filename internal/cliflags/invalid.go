package cliflags

import (
	"errors"

	"github.com/headergold/headergold/harness"
)

// InvalidFixture is a fixture that did not load (a harness.FixtureError)
// as the -json summaries of replay and record give it, for a program to
// point at (an annotation, say).
type InvalidFixture struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// LoadErrors splits an error of harness.Load into its messages, one per
// invalid fixture (or the one of a load that failed otherwise: a
// directory that cannot be read, a journal record did not write), and
// the invalid fixtures among them.
func LoadErrors(err error) (msgs []string, fixtures []InvalidFixture) {
	all := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		all = j.Unwrap()
	}
	for _, err := range all {
		msgs = append(msgs, err.Error())
		var fe *harness.FixtureError
		if errors.As(err, &fe) {
			fixtures = append(fixtures, InvalidFixture{File: fe.File, Line: fe.Line, Column: fe.Column, Path: fe.Path, Message: fe.Msg})
		}
	}
	return msgs, fixtures
}
