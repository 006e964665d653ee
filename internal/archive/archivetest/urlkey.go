package archivetest

import (
	"strings"
)

// normURL reduces a URL to the form the server matches on: no scheme, a
// lower-case host without "www." and default port, and a path of at least
// "/". It also returns the host alone.
func normURL(u string) (key, host string) {
	if i := strings.Index(u, ":/"); i > 0 && strings.Trim(u[:i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		u = strings.TrimLeft(u[i+2:], "/") // also "http:/x", as some clients collapse "//"
	}
	hostEnd := strings.IndexAny(u, "/?#")
	if hostEnd < 0 {
		hostEnd = len(u)
	}
	host = strings.ToLower(u[:hostEnd])
	host = strings.TrimSuffix(strings.TrimSuffix(host, ":80"), ":443")
	host = strings.TrimPrefix(host, "www.")
	rest := u[hostEnd:]
	if !strings.HasPrefix(rest, "/") {
		rest = "/" + rest
	}
	return host + rest, host
}

// surt returns the SURT-style urlkey IA sorts by, e.g.
// "org,example)/a/b?x=1".
func surt(u string) string {
	key, host := normURL(u)
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	return strings.Join(labels, ",") + ")" + strings.ToLower(key[len(host):])
}

// matcher decides whether a stored URL answers a query URL.
type matcher struct {
	key, host, matchType string
}

// newMatcher interprets the url and matchType parameters like the Wayback
// CDX server: a trailing "*" means prefix, a leading "*." means domain.
func newMatcher(q, matchType string) matcher {
	if strings.HasSuffix(q, "*") && matchType == "" {
		matchType = "prefix"
	}
	if strings.HasPrefix(q, "*.") && matchType == "" {
		matchType = "domain"
	}
	q = strings.TrimPrefix(strings.TrimSuffix(q, "*"), "*.")
	if matchType == "" {
		matchType = "exact"
	}
	key, host := normURL(q)
	if matchType == "prefix" && key == host+"/" && !strings.HasSuffix(q, "/") {
		key = host // "example.org*" matches "example.org.uk/" too, as on IA
	}
	return matcher{key: key, host: host, matchType: matchType}
}

// match reports whether stored URL u answers the query.
func (m matcher) match(u string) bool {
	key, host := normURL(u)
	switch m.matchType {
	case "prefix":
		return strings.HasPrefix(key, m.key)
	case "host":
		return host == m.host
	case "domain":
		return host == m.host || strings.HasSuffix(host, "."+m.host)
	default:
		return key == m.key
	}
}
