package site

import (
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
	// Excluded says why archives should not keep the page, "" if nothing
	// does: "noindex" or "noarchive" from a robots <meta> tag or one naming
	// an archive crawler (see DefaultAgents).
	Excluded string
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
	var in Inspection
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
		if !seen[t.path] {
			seen[t.path] = true
			in.Links = append(in.Links, t.path)
		}
	}
	return in
}
