package site

import (
	"maps"
	"testing"
)

// TestDiscoverLinkedOutsideSitePath: a site built for "/" given a site
// URL with a path (https://example.org/blog) links its pages at paths
// outside that path; those files are unlinked, and Outside says where
// the links reach them, so the cause can be named. Links to other hosts
// and to missing files are not counted.
func TestDiscoverLinkedOutsideSitePath(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"index.html": htmlPage(`<a href="/post1.html">1</a> <a href="/about/">about</a> <a href="https://other.example/post2.html">2</a>` +
			` <a href="/missing.html">m</a> <a href="/blog/in.html">in</a>`),
		"post1.html":       htmlPage("1"),
		"post2.html":       htmlPage("2"),
		"about/index.html": htmlPage("about"),
		"in.html":          htmlPage("in"),
	})
	s, err := Discover(dir, Options{SiteURL: mustURL(t, "https://example.org/blog")})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"post1.html": "/post1.html", "about/index.html": "/about/"}
	if !maps.Equal(s.Outside, want) {
		t.Errorf("Outside = %v, want %v", s.Outside, want)
	}
	if len(s.Pages) != 2 { // the root and /in.html, linked as /blog/in.html
		t.Errorf("pages %+v", s.Pages)
	}
	// With the site URL it is built for, nothing is outside.
	s, err = Discover(dir, Options{SiteURL: mustURL(t, "https://example.org/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Outside) != 0 {
		t.Errorf("site URL at the root: Outside = %v", s.Outside)
	}
}
