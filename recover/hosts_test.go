package recover

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/source"
)

// TestListPagesStaysOnSite: the carriers a manifest names are listed page
// by page only when they are on the site, by their paths on the site
// asked for (the live source fetches what it is given; redirects to
// "www." and between http and https are followed). Each other one is a
// problem line.
func TestListPagesStaysOnSite(t *testing.T) {
	site, _ := url.Parse("https://example.org/")
	s := &session{o: Options{Sources: []source.Source{source.LiveSource{}}}, rep: &Report{}, site: site, listed: map[string]bool{}}
	s.listPages(context.Background(), source.LiveSource{}, s.resolve("https://example.org/", []string{
		"/about/",                                 // relative: on the site
		"https://www.example.org/blog/",           // www. aside, the same site: fetched on the site asked for
		"http://example.org/old.html",             // another scheme, same host: likewise
		"http://169.254.169.254/latest/meta-data", // cloud metadata
		"https://evil.example/x",                  // another site
		"https://example.org:8443/admin",          // another port
		"file:///etc/passwd",                      // not the web
	}))
	var listed []string
	for _, q := range s.queue {
		listed = append(listed, q.c.Locator)
	}
	t.Logf("listed %q\nproblems %q", listed, s.rep.Problems)
	want := []string{"https://example.org/about/", "https://example.org/blog/", "https://example.org/old.html"}
	if strings.Join(listed, " ") != strings.Join(want, " ") {
		t.Errorf("listed %q, want %q", listed, want)
	}
	if len(s.rep.Problems) != 4 || !strings.Contains(strings.Join(s.rep.Problems, "\n"), "169.254.169.254") {
		t.Errorf("problems %q, want the 4 off-site carriers", s.rep.Problems)
	}
}

// TestListPagesManifestSite: without Options.SiteURL the manifest's own site
// is the site.
func TestListPagesManifestSite(t *testing.T) {
	s := &session{o: Options{Sources: []source.Source{source.LiveSource{}}}, rep: &Report{}, listed: map[string]bool{}}
	s.listPages(context.Background(), source.LiveSource{}, s.resolve("https://example.org/", []string{"/a", "https://other.example/b"}))
	if len(s.queue) != 1 || s.queue[0].c.Locator != "https://example.org/a" || len(s.rep.Problems) != 1 {
		t.Errorf("queue %+v, problems %q; want /a listed and one problem", s.queue, s.rep.Problems)
	}
}

// TestListingTruncatedReported: a CDX server that hands out resume keys
// forever ends in a problem line saying the listing was truncated.
func TestListingTruncatedReported(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `[["timestamp","original"],[],["key-%d"]]`, n.Add(1))
	}))
	defer srv.Close()
	rep, err := Run(context.Background(), Options{AllowUnsigned: true, Out: t.TempDir(), SiteURL: "https://example.org/",
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Client: srv.Client()}}})
	t.Logf("%d requests, err %v, problems %q", n.Load(), err, rep.Problems)
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "listing truncated at 0 rows") {
		t.Errorf("problems %q, want the truncated listing reported", rep.Problems)
	}
}

// TestCollInfoForeignIndexReported: a collinfo.json naming a crawl index
// on another host is not followed there, and the report says so.
func TestCollInfoForeignIndexReported(t *testing.T) {
	var foreign atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { foreign.Add(1) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `[{"id":"CC-EVIL","cdx-api":"%s/CC-EVIL-index"}]`, other.URL)
	}))
	defer srv.Close()
	rep, _ := Run(context.Background(), Options{AllowUnsigned: true, Out: t.TempDir(), SiteURL: "https://example.org/",
		Sources: []source.Source{source.CommonCrawlSource{IndexBase: srv.URL, DataBase: srv.URL, Client: srv.Client()}}})
	t.Logf("problems %q", rep.Problems)
	if foreign.Load() != 0 || !strings.Contains(strings.Join(rep.Problems, "\n"), "CC-EVIL") {
		t.Errorf("%d requests to the other host, problems %q; want none and the crawl reported", foreign.Load(), rep.Problems)
	}
}

// TestCollInfoForeignIndexKeepsOthers: a crawl whose index is on another
// host is left out, the crawls on the index host are still listed.
func TestCollInfoForeignIndexKeepsOthers(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/collinfo.json":
			fmt.Fprintf(w, `[{"id":"CC-EVIL","cdx-api":"http://169.254.169.254/x"},{"id":"CC-GOOD","cdx-api":"%s/CC-GOOD-index"}]`, srv.URL)
		case "/CC-GOOD-index":
			if r.URL.Query().Get("showNumPages") != "" {
				fmt.Fprintln(w, `{"pages": 1, "pageSize": 5, "blocks": 1}`)
				return
			}
			fmt.Fprintln(w, `{"urlkey":"org,example)/","timestamp":"20260101000000","url":"https://example.org/","filename":"a.warc.gz","offset":"0","length":"10","mime":"text/html","status":"200","digest":"X"}`)
		}
	}))
	defer srv.Close()
	rep, _ := Run(context.Background(), Options{AllowUnsigned: true, Out: t.TempDir(), SiteURL: "https://example.org/",
		Sources: []source.Source{source.CommonCrawlSource{IndexBase: srv.URL, DataBase: srv.URL, Client: srv.Client()}}})
	if len(rep.Sources) != 1 || rep.Sources[0].Captures != 1 || !strings.Contains(rep.Sources[0].Error, "CC-EVIL") {
		t.Fatalf("sources %+v", rep.Sources[0])
	}
}
