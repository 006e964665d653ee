package siteurl

import (
	"net/url"
	"testing"
)

// TestPageKey: a directory's index file is the directory, as inject and
// the site package name pages; nothing else changes.
func TestPageKey(t *testing.T) {
	for in, want := range map[string]string{
		"http://h/":                    "/",
		"http://h":                     "/",
		"http://h/index.html":          "/",
		"http://h/index.htm":           "/",
		"http://h/a/index.html":        "/a/",
		"http://h/a/index.html?x=1":    "/a/index.html?x=1",
		"http://h/myindex.html":        "/myindex.html",
		"http://h/a/":                  "/a/",
		"http://h/a":                   "/a",
		"http://h/index.html/":         "/index.html/",
		"http://h/a%20b/index.html":    "/a%20b/",
		"http://h/blog/p/index.xhtml":  "/blog/p/index.xhtml",
		"http://h/blog/index.html#top": "/blog/",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := PageKey(u); got != want {
			t.Errorf("pageKey(%s) = %q, want %q", in, got, want)
		}
	}
}
