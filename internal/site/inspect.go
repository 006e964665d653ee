package site

import (
	"net/http"
	"net/url"
	"strings"
)

// Inspection is what a server needs to know about one page it is serving.
type Inspection struct {
	// Links are the site-relative paths ("/", "/about/") of the pages the
	// page links to on its own host, without query strings, in document
	// order and without duplicates; a link with a query string counts as
	// its path.
	Links []string
	// URLs are the same links with their query strings, if any: path and
	// query ("/about/", "/search?q=x", "/list?"), in document order and
	// without duplicates, for a crawler that tells them apart (archives
	// rarely keep URLs with a query string).
	URLs []string
	// Excluded says why archives should not keep the page, "" if nothing
	// does: "noindex" or "noarchive" from a robots <meta> tag or one naming
	// an archive crawler (see DefaultAgents).
	Excluded string
	// NoFollow reports whether such a tag says "nofollow" or "none": a
	// crawler honouring it does not follow the page's links.
	NoFollow bool
}

// Inspect scans a page served at pageURL (absolute http or https) for its
// links and robots directives. It never fails: unparsable markup yields
// what the tokenizer could read, and an unusable pageURL yields no links.
func Inspect(page []byte, pageURL *url.URL) Inspection {
	names := []string{"robots"}
	for _, a := range DefaultAgents() {
		if a != "*" {
			names = append(names, strings.ToLower(a))
		}
	}
	s := scanPage(page, names)
	in := Inspection{NoFollow: s.robots.nofollow != ""}
	switch {
	case s.robots.noindex != "":
		in.Excluded = "noindex"
	case s.robots.noarchive != "":
		in.Excluded = "noarchive"
	}
	if pageURL == nil {
		return in
	}
	host := &url.URL{Scheme: pageURL.Scheme, Host: pageURL.Host, Path: "/"}
	root, err := newSiteRoot(host)
	if err != nil {
		return in
	}
	seen := map[string]bool{}
	for _, t := range root.targets(&s, pageURL) {
		in.URLs = append(in.URLs, t.String()) // targets has no duplicates
		if !seen[t.path] {
			seen[t.path] = true
			in.Links = append(in.Links, t.path)
		}
	}
	return in
}

// HeaderExcluded says why the X-Robots-Tag headers of a response keep
// archives from keeping the page: "noindex" or "noarchive" (also for
// "none" and Bing's "nocache"), whether the directive names an agent
// ("CCBot: noarchive") or not, or "" if none does.
func HeaderExcluded(h http.Header) string {
	var m robotsMeta
	for _, v := range h.Values("X-Robots-Tag") {
		m.add("x-robots-tag", strings.ReplaceAll(v, ":", " "))
	}
	switch {
	case m.noindex != "":
		return "noindex"
	case m.noarchive != "":
		return "noarchive"
	}
	return ""
}
