package recover

import (
	"net/url"
	"strings"
)

// pageKey identifies a page of the site as inject and the site package
// name it: canonicalPage of pathKey. Verify counts such a page once; its
// other URLs are aliases.
func pageKey(u *url.URL) string { return canonicalPage(pathKey(u)) }

// canonicalPage is the page a path names: a directory's index file is
// named by the directory ("/index.html" and "/index.htm" are "/",
// "/a/index.html" is "/a/"), as a static file server serves both at
// either URL, so that crawls and archives that fetched both count one
// page. A path with a query string is its own page. Verify (pageKey) and
// status (depths, aliases) both name pages so.
func canonicalPage(p string) string {
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

// pageKeyOf is pageKey of an absolute or host-relative URL string, or the
// string itself if it does not parse.
func pageKeyOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return pageKey(u)
}
