package recover

import (
	"net/url"
	"strings"
)

// pageKey identifies a page of the site as inject and the site package
// name it: pathKey, with a directory's index file named by the directory
// ("/index.html" and "/index.htm" are "/", "/a/index.html" is "/a/"), as
// a static file server serves both at either URL. Verify counts such a
// page once; its other URLs are aliases. A URL with a query string is its
// own page.
func pageKey(u *url.URL) string {
	k := pathKey(u)
	if strings.Contains(k, "?") {
		return k
	}
	for _, index := range []string{"index.html", "index.htm"} {
		if strings.HasSuffix(k, "/"+index) {
			return strings.TrimSuffix(k, index)
		}
	}
	return k
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
