package verify_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// TestVerifyPywbReplay: the root page's newest capture, as the pywb
// collection lists it (a revisit), is crawled through the collection's
// raw replay like a live site: the archived copy is rebuildable and
// restores.
func TestVerifyPywbReplay(t *testing.T) {
	site, owner := sitetest.Injected(t)
	srv := sitetest.PywbOf(t, site, archivetest.PywbConfig{})
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	src, err := source.Parse("cdx="+srv.CDXEndpoint(), client)
	if err != nil {
		t.Fatal(err)
	}
	var root source.Capture
	siteURL, _ := url.Parse("https://example.org/")
	err = src.List(context.Background(), siteURL, func(c source.Capture) error {
		if c.URL == "https://example.org/" && c.Time.After(root.Time) {
			root = c
		}
		return nil
	})
	if err != nil || root.Locator == "" {
		t.Fatalf("listing: %v, root capture %+v", err, root)
	}
	rep, err := runVerify(t, verify.Options{SiteURL: root.Locator, OwnerKey: owner, Rate: 600000})
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	if !rep.Rebuildable || rep.Restore == nil || rep.Crawl.Pages != 12 {
		t.Fatalf("verified %s: rebuildable %v, restore %+v, crawl %+v", root.Locator, rep.Rebuildable, rep.Restore, rep.Crawl)
	}
}
