package harness

import (
	"bytes"
	"testing"
)

// TestPermutationRequestsComparedThroughTheLog: a permutation run whose
// log agrees with the first run's but whose adapter received other
// requests (here the first two swapped) fails check permute, naming the
// request, although no request is compared byte for byte with the first
// run's.
func TestPermutationRequestsComparedThroughTheLog(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: 2, Seed: 7})
	s.run = func(f *Fixture, reg *registration) (*runResult, error) {
		r, err := runFixture(f, reg)
		if err == nil && reg != nil && len(r.reqs) > 1 {
			r.reqs[0], r.reqs[1] = r.reqs[1], r.reqs[0]
		}
		return r, err
	}
	_, res := s.Check(s.Fixture("tool-turn"))
	f := failureWith(t, res.Failures, CheckPermute, "permutation run 1", "request 1 is not the one the log rebuilds", "seed 7")
	if f.Mismatch == nil || f.Mismatch.Line != 1 {
		t.Errorf("mismatch %+v, want request 1", f.Mismatch)
	}
	for _, fl := range res.Failures {
		if fl.Check == CheckRebuild {
			t.Errorf("the first run's requests are intact, but: %s", fl)
		}
	}
}

// TestPluginsCanonicalisedOncePerReplay: every permutation run registers
// the plugins the first run made canonical, rather than making them again.
func TestPluginsCanonicalisedOncePerReplay(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: 4, Seed: 1})
	var made *preparedPlugins
	runs := 0
	s.run = func(f *Fixture, reg *registration) (*runResult, error) {
		r, err := runFixture(f, reg)
		if err != nil {
			return r, err
		}
		runs++
		if reg == nil {
			made = r.plugins
		} else if reg.plugins != made || r.plugins != made {
			t.Errorf("run %d registered plugins other than the first run's", runs)
		}
		return r, nil
	}
	out, res := s.Check(s.Fixture("large-toolset"))
	if !res.Passed() || made == nil || runs != 5 {
		t.Fatalf("%d runs, prepared %v, failures %v", runs, made != nil, res.Failures)
	}
	if out.Requests != nil {
		t.Errorf("a reference replay kept %d request copies", len(out.Requests))
	}
}

// TestRunTemplatesAsTemplate: the templated log a reference run writes
// beside its log is Template of that log, byte for byte, for every bundled
// reference fixture (initial, change and resume headers; a failing
// Assemble; listeners) and for headers with no system text or no tools.
func TestRunTemplatesAsTemplate(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bare":     `{"description":"no persona, no tools","turns":[{"user":"hi","replies":[{"text":"hello"}]}]}`,
		"no-tools": `{"description":"a persona, no tools","config":{"persona":"P <b>"},"turns":[{"user":"hi","replies":[{"text":"hello"}]},{"user":"again","resume":true,"replies":[{"text":"hi"}]}]}`,
		"no-system": `{"description":"tools, no persona","plugins":[{"name":"p","tools":[{"name":"t","parameters":{ "b" : 1.0 }}]}],` +
			`"turns":[{"user":"hi","replies":[{"text":"hello"}]}]}`,
	} {
		writeFile(t, dir+"/"+name+".json", body)
	}
	var fixtures []*Fixture
	for _, d := range []string{"../fixtures", dir} {
		s := mustLoad(t, Options{Fixtures: d, Golden: t.TempDir()})
		for _, f := range s.Fixtures() {
			if !f.Captured() {
				fixtures = append(fixtures, f)
			}
		}
	}
	if len(fixtures) < 10 {
		t.Fatalf("only %d fixtures", len(fixtures))
	}
	for _, f := range fixtures {
		run, err := runFixture(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Template(run.fullLog())
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		if run.templated == nil {
			t.Fatalf("%s: the run did not template its log", f.Name)
		}
		if m := compareFile(f.Name, want, run.templated); m != nil {
			t.Errorf("%s: the run's templated log differs from Template's: %s", f.Name, m)
		}
	}
}

// TestCheckReturnsTheFullLog: a replay leaves a reference run's log
// unjoined, and Check still returns it in Outputs.Log, for every bundled
// reference fixture: the whole log, whose template is the golden log.
func TestCheckReturnsTheFullLog(t *testing.T) {
	s := mustLoad(t, Options{Fixtures: "../fixtures", Golden: "../golden", Shuffle: -1})
	for _, f := range s.Fixtures() {
		if f.Captured() {
			continue
		}
		out, res := s.Check(f)
		if !res.Passed() {
			t.Fatalf("%s: %v", f.Name, res.Failures)
		}
		run, err := runFixture(f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Log) == 0 || !bytes.Equal(out.Log, run.fullLog()) {
			t.Fatalf("%s: Check's Outputs.Log is %d bytes, not the run's %d-byte log", f.Name, len(out.Log), len(run.fullLog()))
		}
		if want, err := Template(out.Log); err != nil || !bytes.Equal(want, out.Golden) {
			t.Errorf("%s: Template(Outputs.Log) is not Outputs.Golden (%v)", f.Name, err)
		}
	}
}
