package verify

import (
	"mime"
	"net/url"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/site"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// FuzzCrawlLinks: whatever a hostile page links to or redirects to, the
// crawl only ever queues URLs on the site's host, under its path, and
// each at most once.
func FuzzCrawlLinks(f *testing.F) {
	f.Add([]byte(`<a href="/blog/a?x=1">a</a><a href="//evil/blog/">e</a><base href="../"><a href="b">b</a>`), "/blog/%2e%2e/x")
	f.Add([]byte(`<frame src="/blog"><iframe src="http://h/blog/c#f">`), "https://h/blog/")
	f.Fuzz(func(t *testing.T, page []byte, loc string) {
		root, _ := url.Parse("http://h/blog/")
		cr := &crawler{c: crawlConfig{site: root}, prefix: "/blog/", res: &crawlResult{paths: map[string]bool{}}, seen: map[string]bool{}, pending: map[string]*queuedLink{}}
		pageURL, _ := url.Parse("http://h/blog/p/q.html")
		var links []*url.URL
		for _, q := range cr.fresh(cr.links(pageURL, site.Inspect(page, pageURL).URLs), allArchives) {
			links = append(links, q.u)
		}
		if next := cr.redirect(pageURL, loc, 1, map[string]bool{siteurl.PathKey(pageURL): true}); next != nil {
			links = append(links, next)
		}
		seen := map[string]bool{}
		for _, u := range links {
			k := siteurl.PathKey(u)
			if u.Host != "h" || u.Scheme != "http" || !strings.HasPrefix(u.EscapedPath(), "/blog") || seen[k] {
				t.Fatalf("queued %s (key %q)", u, k)
			}
			seen[k] = true
		}
	})
}

// FuzzListedType: whatever Content-Type and path a site sends, a page is
// listed exactly when its type is text/html or application/xhtml+xml, a
// page not listed says why, and a listed page is read and followed.
func FuzzListedType(f *testing.F) {
	for _, ct := range []string{"", "text/html; charset=utf-8", "application/xhtml+xml", "text/plain", "image/png", "text/html; =x", "TEXT/HTML"} {
		f.Add(ct, "/a/b.html")
	}
	f.Add("application/octet-stream", "/")
	f.Fuzz(func(t *testing.T, ct, p string) {
		reason, read, follow := listedType(ct, &url.URL{Path: p})
		mt, _, err := mime.ParseMediaType(ct)
		html := err == nil && (mt == "text/html" || mt == "application/xhtml+xml")
		switch {
		case html != (reason == ""):
			t.Fatalf("%q: reason %q", ct, reason)
		case html && (!read || !follow):
			t.Fatalf("%q: an HTML page is not read or not followed", ct)
		case follow && !read:
			t.Fatalf("%q: followed but not read", ct)
		}
	})
}
