package cliflags

import (
	"strings"
	"testing"
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
	for _, bad := range [][]string{{"ftp://x"}, {"claude=https://x"}, {"https://a", "https://b"}} {
		if _, err := ParseUpstream(bad); err == nil {
			t.Errorf("ParseUpstream(%q) accepted", bad)
		}
	}
}
