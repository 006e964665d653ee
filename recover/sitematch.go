package recover

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// sameSite reports whether a manifest's site URL names the site at site:
// the same host (case, a leading "www.", a final dot, IDN and IP address
// spellings aside) and port (a scheme's
// default port aside, so an http → https move still matches), and one
// path under the other. One key may protect several sites; their
// generations must not stand in for each other's.
func sameSite(manifestSite string, site *url.URL) bool {
	if site == nil {
		return true
	}
	m, err := url.Parse(manifestSite)
	if err != nil {
		return false
	}
	host := func(u *url.URL) string {
		h := strings.TrimSuffix(u.Hostname(), ".")
		if a, err := idna.ToASCII(h); err == nil {
			h = a // bücher.example is xn--bcher-kva.example
		}
		if ip := net.ParseIP(h); ip != nil {
			h = ip.String() // one spelling of an address
		}
		return strings.TrimPrefix(strings.ToLower(h), "www.")
	}
	port := func(u *url.URL) string {
		switch p := u.Port(); p {
		case "", "80", "443":
			return ""
		default:
			return p
		}
	}
	if host(m) != host(site) || port(m) != port(site) {
		return false
	}
	a, b := dirOf(m.Path), dirOf(site.Path)
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// dirOf returns p's directory with a final slash ("/" for "").
func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return "/"
}

// SameSite reports whether two site URLs name one site, by the rule
// recovery matches a manifest's site URL with (sameSite): host spellings,
// default ports and one path under the other aside.
func SameSite(a, b string) bool {
	u, err := url.Parse(b)
	if err != nil || u.Host == "" {
		return false
	}
	return sameSite(a, u)
}
