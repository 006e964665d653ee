package archive

import (
	"net/url"
	"strings"
)

// KnownArchiveHosts are public web archives whose mementos a TimeMap on
// another host (an aggregator such as timetravel.mementoweb.org or
// MemGator) may name; their subdomains count too. Archive answers choose
// the URLs a listing follows, so links elsewhere are not fetched.
var KnownArchiveHosts = []string{
	"web.archive.org", "wayback.archive-it.org",
	"archive.today", "archive.ph", "archive.is", "archive.li", "archive.md", "archive.vn", "archive.fo",
	"arquivo.pt", "webarchive.org.uk", "webarchive.nationalarchives.gov.uk", "webarchive.loc.gov",
	"webarchive.nla.gov.au", "vefsafn.is", "perma.cc", "swap.stanford.edu", "webarchiv.cz",
}

// sameHost reports whether a and b name the same host and port (default
// ports filled in from the scheme), whatever their schemes.
func sameHost(a, b *url.URL) bool {
	return a != nil && b != nil && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// port returns u's port, or its scheme's default.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// isWeb reports whether u is an absolute http or https URL.
func isWeb(u *url.URL) bool {
	s := strings.ToLower(u.Scheme)
	return (s == "http" || s == "https") && u.Host != ""
}

// inDomains reports whether host is one of domains or a subdomain of one.
func inDomains(host string, domains []string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, d := range domains {
		d = strings.ToLower(d)
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
