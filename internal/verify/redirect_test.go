package verify_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyRedirectOffSiteFails: with a Client that follows redirects
// itself, a page redirecting off the site (another port of the same
// host) is a failure saying so, not a carrier.
func TestVerifyRedirectOffSiteFails(t *testing.T) {
	var other string
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/p0.html" {
				http.Redirect(w, r, other+"/p0.html", http.StatusFound)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	off := httptest.NewServer(http.FileServer(http.Dir(s.Site))) // the same pages, off the site
	defer off.Close()
	other = off.URL
	o := s.VerifyOptions(s.Server, false)
	o.Client = &http.Client{Timeout: 30 * time.Second} // follows redirects
	rep, err := runVerify(t, o)
	if err != nil && !errors.Is(err, verify.ErrShort) {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Crawl.Failed, "\n"), "p0.html: redirects off the site") {
		t.Errorf("failed %q, want p0.html redirecting off the site", rep.Crawl.Failed)
	}
	if rep.Crawl.Pages != 11 || rep.Crawl.Carriers != 11 {
		t.Errorf("crawl %+v: the off-site page was counted", rep.Crawl)
	}
	for _, h := range rep.Hygiene {
		if strings.HasPrefix(h.URL, other) {
			t.Errorf("off-site page checked as a carrier: %s", h.URL)
		}
	}
}
