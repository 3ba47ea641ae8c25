package capture

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Upstream is where the recording proxy sends one request: the upstream
// base URL with the agent's path and query appended. Only Shown, which
// holds neither the query (Gemini's key may be there) nor user
// information, goes into a message.
type Upstream struct {
	URL *url.URL
}

// UpstreamURL joins base (http:// or https://, with a host) and the
// path and query of the agent's request u. An error names base as Shown
// would.
func UpstreamURL(base string, u *url.URL) (*Upstream, error) {
	b, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil {
		// Not the parser's error, which quotes a part of the URL (a
		// password read as a port).
		return nil, fmt.Errorf("upstream URL %s does not parse as a URL", ShownBase(base))
	}
	if (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" {
		return nil, fmt.Errorf("upstream URL %s: want an http:// or https:// URL with a host", ShownBase(base))
	}
	if b.RawQuery != "" || b.ForceQuery || b.Fragment != "" {
		// The agent's query replaces it: a key given there would be
		// dropped without a word.
		return nil, fmt.Errorf("upstream URL %s: a base URL has no query or fragment (the agent's request gives the query)", ShownBase(base))
	}
	j := *b
	j.Path = b.Path + u.Path
	j.RawPath = b.EscapedPath() + u.EscapedPath()
	j.RawQuery, j.Fragment = u.RawQuery, ""
	return &Upstream{URL: &j}, nil
}

// Shown is the URL without its query and without its user information
// (a token may be written as the user name).
func (up *Upstream) Shown() string {
	v := *up.URL
	v.RawQuery, v.ForceQuery, v.User = "", false, nil
	return v.String()
}

// Hide returns err's text with the URL as Shown shows it: the URL of a
// *url.Error replaced, and the query and password removed wherever else
// the text holds them.
func (up *Upstream) Hide(err error) string {
	shown := up.Shown()
	var ue *url.Error
	if errors.As(err, &ue) {
		c := *ue
		c.URL = shown
		err = &c
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, up.URL.String(), shown)
	if q := up.URL.RawQuery; q != "" {
		msg = strings.ReplaceAll(msg, q, "…")
	}
	if u := up.URL.User; u != nil {
		if p, ok := u.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "…")
		}
		if n := u.Username(); n != "" {
			msg = strings.ReplaceAll(msg, n+"@", "")
		}
	}
	return msg
}

// safe is a base URL that does not parse, as a message may show it:
// without its query and fragment, and, when it may hold user information
// (an @ anywhere: a password may hold / or ?), only what follows the
// last @.
func safe(base string) string {
	scheme, rest, ok := strings.Cut(base, "://")
	if !ok {
		scheme, rest = "", base
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	rest, _, _ = strings.Cut(rest, "?")
	rest, _, _ = strings.Cut(rest, "#")
	if ok {
		return scheme + "://" + rest
	}
	return rest
}

// ShownBase is an upstream base URL as messages name it, whether or not
// [UpstreamURL] takes it: without query, fragment or user information.
func ShownBase(base string) string {
	b, err := url.Parse(base)
	if err != nil {
		return safe(base)
	}
	b.RawQuery, b.ForceQuery, b.Fragment, b.User = "", false, "", nil
	return b.String()
}
