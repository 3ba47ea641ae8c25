package cliflags

import (
	"flag"
	"strings"
	"testing"

	"github.com/headergold/headergold/harness"
)

func TestListenRefusesRemoteAddresses(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "10.1.2.3:8089", "[::]:0", "example.com:80"} {
		if ln, err := Listen(addr, false); err == nil {
			ln.Close()
			t.Errorf("Listen(%s) accepted a non-loopback address", addr)
		} else if !strings.Contains(err.Error(), "not a loopback address") {
			t.Errorf("Listen(%s): %v", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		ln, err := Listen(addr, false)
		if err != nil {
			if strings.Contains(addr, "::1") {
				continue // no IPv6 loopback on this machine
			}
			t.Errorf("Listen(%s): %v", addr, err)
			continue
		}
		ln.Close()
	}
}

func TestParseUpstream(t *testing.T) {
	u, err := ParseUpstream([]string{"https://api.example.com", "gemini=http://127.0.0.1:9/g"})
	if err != nil || u.URL != "https://api.example.com" || u.ByFormat["gemini"] != "http://127.0.0.1:9/g" || len(u.ByFormat) != 1 {
		t.Errorf("ParseUpstream = %+v, %v", u, err)
	}
	for _, bad := range [][]string{{"ftp://x"}, {"anthropic="}, {"claude=https://x"}, {"https://a", "https://b"}, {"https://gw/v1?key=K"},
		{"https://bob:PW@a.example/?key=SECRET1", "https://b.example/?key=SECRET2"}, {"https://bob:PW@a.example", "https://b.example/x?key=SECRET2"}} {
		_, err := ParseUpstream(bad)
		if err == nil {
			t.Errorf("ParseUpstream(%q) accepted", bad)
			continue
		}
		// Named as the proxy's messages name an upstream.
		for _, secret := range []string{"SECRET", "PW", "bob"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("ParseUpstream(%q): %v", bad, err)
			}
		}
	}
}

// A well-formed address the system refuses is this machine's state; a
// malformed one is a usage error.
func TestNotUsage(t *testing.T) {
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Listen(ln.Addr().String(), false)
	if err == nil || !NotUsage(err) {
		t.Errorf("a port in use: %v, NotUsage %v", err, NotUsage(err))
	}
	for _, addr := range []string{"127.0.0.1:99999", "127.0.0.1:no-such-service", "localhost:-1", "nohostport"} {
		if l, err := Listen(addr, false); err == nil {
			l.Close()
			t.Errorf("%s accepted", addr)
		} else if NotUsage(err) {
			t.Errorf("%s: %v is taken for the machine's state", addr, err)
		}
	}
}

// CaptureOnly refuses -listen and -upstream where no selected fixture is
// a captured scenario, which would ignore them.
func TestCaptureOnly(t *testing.T) {
	ref := &harness.Fixture{Name: "ref"}
	captured := &harness.Fixture{Name: "cap", Agent: &harness.AgentSpec{}}
	up := harness.Options{Upstream: &harness.Upstream{URL: "http://127.0.0.1:1"}}
	if msg := CaptureOnly(up, []*harness.Fixture{ref}); !strings.Contains(msg, "no fixture is a captured scenario") {
		t.Errorf("upstream, reference only: %q", msg)
	}
	if msg := CaptureOnly(up, []*harness.Fixture{ref, captured}); msg != "" {
		t.Errorf("upstream with a captured scenario: %q", msg)
	}
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	listen := harness.Options{Listen: ln}
	if msg := CaptureOnly(listen, []*harness.Fixture{ref}); !strings.Contains(msg, "ref is a reference fixture") {
		t.Errorf("listen, reference: %q", msg)
	}
	if msg := CaptureOnly(listen, []*harness.Fixture{captured}); msg != "" {
		t.Errorf("listen, captured: %q", msg)
	}
	if msg := CaptureOnly(harness.Options{}, []*harness.Fixture{ref}); msg != "" {
		t.Errorf("no flags: %q", msg)
	}
}

// Flags repeats -upstream, -listen and -listen-remote for a reproducing
// command line, each upstream URL without user information or query.
func TestCaptureFlags(t *testing.T) {
	var c Capture
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	c.Register(fs, true)
	if err := fs.Parse([]string{"-upstream", "https://bob:PW@api.example.com/v1", "-upstream", "gemini=http://127.0.0.1:9/g", "-listen", "[::1]:0", "-listen-remote"}); err != nil {
		t.Fatal(err)
	}
	if got, want := c.Flags(), " -upstream https://api.example.com/v1 -upstream gemini=http://127.0.0.1:9/g -listen '[::1]:0' -listen-remote"; got != want {
		t.Errorf("Flags() = %q, want %q", got, want)
	}
	if got := RecordCommands("fx", "golden", func(string) string { return c.Flags() }); !strings.HasPrefix(got.Record("^a$"), "record -fixtures fx -upstream") || strings.Contains(got.Prune, "-upstream") {
		t.Errorf("RecordCommands: record %q, prune %q", got.Record("^a$"), got.Prune)
	}
}
