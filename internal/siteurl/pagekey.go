package siteurl

import (
	"net/url"
	"strings"
)

// PageKey identifies a page of the site as inject and the site package
// name it: canonicalPage of pathKey. Verify counts such a page once; its
// other URLs are aliases.
func PageKey(u *url.URL) string { return CanonicalPage(PathKey(u)) }

// CanonicalPage is the page a path names: a directory's index file is
// named by the directory ("/index.html" and "/index.htm" are "/",
// "/a/index.html" is "/a/"), as a static file server serves both at
// either URL, so that crawls and archives that fetched both count one
// page. A path with a query string is its own page. Verify (pageKey) and
// status (depths, aliases) both name pages so.
func CanonicalPage(p string) string {
	if strings.Contains(p, "?") {
		return p
	}
	for _, index := range []string{"index.html", "index.htm"} {
		if strings.HasSuffix(p, "/"+index) {
			return strings.TrimSuffix(p, index)
		}
	}
	return p
}

// PageKeyOf is pageKey of an absolute or host-relative URL string, or the
// string itself if it does not parse.
func PageKeyOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return PageKey(u)
}

// PathKey identifies a URL of the site: its escaped path and query.
func PathKey(u *url.URL) string {
	k := u.EscapedPath()
	if k == "" {
		k = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		k += "?" + u.RawQuery
	}
	return k
}

// SetEscapedPath sets u's path from its escaped form.
func SetEscapedPath(u *url.URL, escaped string) error {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return err
	}
	u.Path, u.RawPath = p, ""
	if u.EscapedPath() != escaped {
		u.RawPath = escaped
	}
	return nil
}

// PathKeyOf is pathKey of a URL string ("" if it does not parse).
func PathKeyOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return PathKey(u)
}
