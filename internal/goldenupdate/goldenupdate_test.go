package goldenupdate

import (
	"flag"
	"testing"
)

func TestOn(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "0": false, "false": false, "no": false, "yes": false, "2": false,
		"1": true, "true": true, "TRUE": true, "t": true, "T": true,
	} {
		t.Setenv("GOLDIE_UPDATE", v)
		if got := On(); got != want {
			t.Errorf("GOLDIE_UPDATE=%q: On() = %v, want %v", v, got, want)
		}
	}
}

func TestInCI(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "false": false, "FALSE": false, "0": false,
		"true": true, "1": true, "yes": true, "off": true,
	} {
		t.Setenv("CI", v)
		if got := InCI(); got != want {
			t.Errorf("CI=%q: InCI() = %v, want %v", v, got, want)
		}
	}
}

// An -update flag given on the command line wins over GOLDIE_UPDATE, as
// in goldie; one not given leaves the variable to decide.
func TestFlagWinsOverEnv(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{
		{[]string{"-update=false"}, "1", false},
		{[]string{"-update"}, "", true},
		{nil, "1", true},
		{nil, "", false},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.Bool("update", false, "")
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if got := on(fs, func(string) string { return c.env }); got != c.want {
			t.Errorf("%v with GOLDIE_UPDATE=%q: %v, want %v", c.args, c.env, got, c.want)
		}
	}
}
