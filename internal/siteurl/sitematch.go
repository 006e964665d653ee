package siteurl

import (
	"net"
	"net/url"
	"strings"

	"golang.org/x/net/idna"
)

// SameSite reports whether a manifest's site URL names the site at site:
// the same host (case, a leading "www.", a final dot, IDN and IP address
// spellings aside) and port (a scheme's
// default port aside, so an http → https move still matches), and one
// path under the other. One key may protect several sites; their
// generations must not stand in for each other's.
func SameSite(manifestSite string, site *url.URL) bool {
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
	return host(m) == host(site) && port(m) == port(site) && PathsRelated(m, site)
}

// PathsRelated reports whether two site URLs' paths are one under the
// other, by their directories.
func PathsRelated(a, b *url.URL) bool {
	da, db := DirOf(a.Path), DirOf(b.Path)
	return strings.HasPrefix(da, db) || strings.HasPrefix(db, da)
}

// CarrierOn maps a carrier URL a manifest names (absolute, or relative to
// made, the manifest's site URL) onto the site asked for (asked; made if
// nil): its path and query with asked's scheme, host and port; nil if it
// may not be fetched. It must be an http(s) URL on asked's host, or on
// made's when made and asked differ only by scheme, host and port (one
// path under the other, as sameSite allows): a moved site (a new domain,
// http and https, a staging host or port) is read where it is now, by
// the carriers' paths. A carrier on a third host gives nil: manifests
// choose these URLs, unsigned ones anybody, and sources fetch what they
// are given, so a manifest never sends a request to a host the user did
// not name. Recover and Verify map carriers so.
func CarrierOn(asked, made *url.URL, raw string) *url.URL {
	base := made
	if base == nil {
		base = asked
	}
	if asked == nil {
		asked = made
	}
	ref, err := url.Parse(raw)
	if err != nil || base == nil {
		return nil
	}
	ref = base.ResolveReference(ref)
	if !OnSite(asked, ref) && !(made != nil && OnSite(made, ref) && PathsRelated(made, asked)) {
		return nil
	}
	u := &url.URL{Scheme: asked.Scheme, Host: asked.Host, RawQuery: ref.RawQuery}
	if err := SetEscapedPath(u, ref.EscapedPath()); err != nil {
		return nil
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u
}

// OnSite reports whether u is an http(s) URL on site's host and port; a
// leading "www." is ignored and a missing port means the scheme's default.
func OnSite(site, u *url.URL) bool {
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	default:
		return false
	}
	bare := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	return u.Hostname() != "" && bare(u.Hostname()) == bare(site.Hostname()) && u.Port() == site.Port()
}

// DirOf returns p's directory with a final slash ("/" for "").
func DirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return "/"
}

// SameSiteURLs reports whether two site URLs name one site, by the rule
// recovery matches a manifest's site URL with (sameSite): host spellings,
// default ports and one path under the other aside.
func SameSiteURLs(a, b string) bool {
	u, err := url.Parse(b)
	if err != nil || u.Host == "" {
		return false
	}
	return SameSite(a, u)
}
