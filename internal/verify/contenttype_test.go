package verify_test

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyExcludesPagesNotServedAsHTML: a page served without a
// Content-Type, or with one that is not HTML, is not listed by recover:
// its blocks do not count, and it is reported as excluded with the
// reason.
func TestVerifyExcludesPagesNotServedAsHTML(t *testing.T) {
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/p0.html", "/p1.html":
				w.Header()["Content-Type"] = nil // no Content-Type at all
			case "/p2.html":
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			case "/p3.html":
				w.Header().Set("Content-Type", "application/xhtml+xml")
			}
			h.ServeHTTP(w, r)
		})
	})
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil && !errors.Is(err, verify.ErrShort) {
		t.Fatal(err)
	}
	got := map[string]verify.ExcludedPage{}
	for _, e := range rep.Excluded {
		got[strings.TrimPrefix(e.URL, s.URL)] = e
	}
	for name, reason := range map[string]string{
		"p0.html": "no Content-Type: archives list it as unknown; recover's listing skips it",
		"p1.html": "no Content-Type",
		"p2.html": "Content-Type text/plain",
	} {
		page, _ := os.ReadFile(filepath.Join(s.Site, name))
		n := len(shardsOf(t, page, map[string]int{}))
		if e, ok := got[name]; !ok || !strings.HasPrefix(e.Reason, reason) || e.Blocks != n || n == 0 {
			t.Errorf("%s: %+v (listed %v), want reason %q and %d blocks", name, e, ok, reason, n)
		}
	}
	if _, ok := got["p3.html"]; ok {
		t.Errorf("an application/xhtml+xml page is excluded: %+v", got["p3.html"])
	}
	if len(got) != 3 || rep.Crawl.Carriers != 12-3 {
		t.Errorf("excluded %+v, carriers %d", rep.Excluded, rep.Crawl.Carriers)
	}
	// The pages are the HTML pages only: the three of another type, or
	// none, are counted apart (a page without a Content-Type is not
	// counted among the HTML pages and also reported as not kept).
	files, err := filepath.Glob(filepath.Join(s.Site, "*.html"))
	if err != nil || len(files) < 4 {
		t.Fatalf("site pages %v: %v", files, err)
	}
	if c := rep.Crawl; c.NotHTML != 3 || c.Pages != len(files)-3 {
		t.Errorf("crawl counts %d HTML pages and %d others, want %d and 3", c.Pages, c.NotHTML, len(files)-3)
	}
	// The root links every page: its one-hop HTML pages are the others
	// but the three.
	if m := rep.Manifest; m.OneHopPages != len(files)-1-3 {
		t.Errorf("%d one-hop HTML pages, want %d", m.OneHopPages, len(files)-1-3)
	}
}
