package goldenupdate

import "testing"

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
