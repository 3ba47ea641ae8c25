package cliflags

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/headergold/headergold/harness"
	"github.com/headergold/headergold/internal/capture"
	"github.com/headergold/headergold/internal/wire"
)

// Listen opens addr (host:port) for harness.Options.Listen. A fake provider
// records what an agent sends and answers with a script, so by default it
// listens on loopback only: any other address is refused unless
// allowRemote is true.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("-listen %q: want HOST:PORT, such as 127.0.0.1:8089: %w", addr, err)
	}
	loopback := host == "localhost"
	if ip := net.ParseIP(host); ip != nil {
		loopback = ip.IsLoopback()
	}
	if !loopback && !allowRemote {
		return nil, fmt.Errorf("-listen %q is not a loopback address: the fake provider would be reachable from other machines; use 127.0.0.1:PORT, or -listen-remote if you mean it", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-listen: %w", err)
	}
	return ln, nil
}

// upstreamFormat splits an -upstream value FORMAT=URL; ok is false for a
// URL alone (an = in a URL comes after its scheme's colon or a slash).
func upstreamFormat(v string) (name, base string, ok bool) {
	name, base, ok = strings.Cut(v, "=")
	return name, base, ok && !strings.Contains(name, "/") && !strings.Contains(name, ":")
}

// ParseUpstream reads -upstream values: URL (every format's path is
// appended to it) or FORMAT=URL (that format only), as many as needed.
func ParseUpstream(values []string) (*harness.Upstream, error) {
	u := &harness.Upstream{ByFormat: map[string]string{}}
	for _, v := range values {
		if name, base, ok := upstreamFormat(v); ok {
			if _, err := wire.ParseFormat(name); err != nil {
				return nil, fmt.Errorf("-upstream %q: %w", name+"=…", err)
			}
			if base == "" {
				return nil, fmt.Errorf("-upstream %s=: no URL after the =", name)
			}
			u.ByFormat[name] = base
		} else {
			if u.URL != "" {
				return nil, fmt.Errorf("-upstream: a second default URL, %s (the first is %s); give the others as FORMAT=URL", capture.ShownBase(v), capture.ShownBase(u.URL))
			}
			u.URL = v
		}
	}
	for _, base := range append([]string{u.URL}, mapValues(u.ByFormat)...) {
		if base == "" {
			continue
		}
		if _, err := capture.UpstreamURL(base, &url.URL{}); err != nil {
			// Named as messages name it: without query or user information.
			return nil, fmt.Errorf("-upstream: %v", err)
		}
	}
	return u, nil
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
