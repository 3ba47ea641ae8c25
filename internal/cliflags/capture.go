// Package cliflags holds what cmd/record and cmd/replay share on the
// command line, so both spell and check it the same way: the usage
// conventions of the go tools (usage.go), the flags of captured scenarios
// (capture.go, listen.go), the exit status of an interrupted run
// (signal.go) and of one whose standard output failed (output.go).
package cliflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/capture"
)

// listValue is a flag that may be given several times.
type listValue []string

func (l *listValue) String() string     { return strings.Join(*l, ",") }
func (l *listValue) Set(v string) error { *l = append(*l, v); return nil }

// Capture are the flags of captured scenarios: recording a real session
// through to the provider (record only), and serving an agent started
// elsewhere.
type Capture struct {
	upstream     listValue
	listen       string
	listenRemote bool
	records      bool // the command records (record), or only replays
}

// Register adds -listen and -listen-remote to fs, and -upstream when
// upstream is true.
func (c *Capture) Register(fs *flag.FlagSet, upstream bool) {
	c.records = upstream // only record has it
	if upstream {
		c.registerUpstream(fs)
	}
	fs.StringVar(&c.listen, "listen", "", "serve the fake provider on `ADDR` (host:port; port 0 picks a free one, printed) and wait for an agent started separately, "+
		"instead of starting agent.exec; needs -run selecting one scenario")
	fs.BoolVar(&c.listenRemote, "listen-remote", false, "allow a -listen address that is not loopback")
}

// Flags repeats the flags given, for a command line that reproduces a
// run: -listen, -listen-remote and -upstream (each URL as messages show
// it, without user information or query).
func (c *Capture) Flags() string {
	s := ""
	for _, u := range c.upstream {
		if name, base, ok := upstreamFormat(u); ok {
			s += " -upstream " + ShellQuote(name+"="+capture.ShownBase(base))
		} else {
			s += " -upstream " + ShellQuote(capture.ShownBase(u))
		}
	}
	if c.listen != "" {
		s += " -listen " + ShellQuote(c.listen)
	}
	if c.listenRemote {
		s += " -listen-remote"
	}
	return s
}

func (c *Capture) registerUpstream(fs *flag.FlagSet) {
	fs.Var(&c.upstream, "upstream", "record captured scenarios from a real provider at `URL` (or FORMAT=URL; repeatable): "+
		"the agent's requests go through to it, with the agent's own API keys, and its replies are written into the fixture")
}

// Apply sets the harness options the flags ask for; progress for the user
// goes to stderr. It returns a function that releases what it opened.
func (c *Capture) Apply(opts *harness.Options, stderr io.Writer) (func(), error) {
	if len(c.upstream) > 0 {
		u, err := ParseUpstream(c.upstream)
		if err != nil {
			return nil, err
		}
		opts.Upstream = u
	}
	if c.listenRemote && c.listen == "" {
		return nil, fmt.Errorf("-listen-remote needs -listen")
	}
	if c.listen != "" && len(c.upstream) > 0 {
		// Recording from a provider ends when the agent does; an agent
		// started separately says nothing of its end.
		return nil, fmt.Errorf("-listen cannot record from -upstream: the recording ends when the agent exits, which an agent started separately does not tell; run it through agent.exec")
	}
	if c.listen == "" {
		return func() {}, nil
	}
	if opts.Run == nil {
		return nil, fmt.Errorf("-listen serves one scenario: select it with -run '^NAME$'")
	}
	ln, err := Listen(c.listen, c.listenRemote)
	if err != nil {
		return nil, err
	}
	opts.Listen = ln
	opts.OnListen = func(s *harness.Session) {
		fmt.Fprintf(stderr, "fake provider for %s on %s; start the agent with:\n", s.Scenario, ln.Addr())
		for _, l := range s.Exports() {
			fmt.Fprintf(stderr, "  %s\n", l)
		}
		stop := "interrupt to stop"
		if c.records {
			stop += "; nothing is recorded then"
		}
		fmt.Fprintf(stderr, "waiting until it has used every scripted reply (%s)\n", stop)
	}
	return func() { ln.Close() }, nil
}

// CaptureOnly returns why the flags that serve captured scenarios
// (-listen, -upstream) cannot apply to the selected fixtures, or "": each
// needs a captured scenario, and a reference fixture would ignore it.
func CaptureOnly(opts harness.Options, selected []*harness.Fixture) string {
	captured := slices.ContainsFunc(selected, (*harness.Fixture).Captured)
	switch {
	case opts.Listen != nil && !captured:
		return fmt.Sprintf("-listen serves the fake provider to a captured scenario (one with \"agent\"); %s is a reference fixture, whose agent runs inside headergold", selected[0].Name)
	case opts.Upstream != nil && !captured:
		what := "no fixture is"
		if opts.Run != nil {
			what = fmt.Sprintf("-run %q selects none that is", opts.Run)
		}
		return fmt.Sprintf("-upstream records a captured scenario's replies from a provider; %s a captured scenario (one with \"agent\")", what)
	}
	return ""
}

// NotUsage reports whether an error of [Capture.Apply] is about this
// machine, not the command line: a -listen address that is well formed
// but that the system will not listen on (in use, not this machine's,
// a port it reserves). A malformed one (a port out of range, a name no
// port has) is a usage error.
func NotUsage(err error) bool {
	var op *net.OpError
	var sys *os.SyscallError
	return errors.As(err, &op) && op.Op == "listen" && errors.As(op.Err, &sys)
}
