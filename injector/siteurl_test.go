package injector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSitePathMissesThePages: a site built for "/" (links like
// "/p1.html") given a site URL with a path, https://example.org/blog,
// has one carrier; the report names the real cause, pages linked
// outside the site URL's path, not "not linked from the root page", and
// so does the error when a fixed redundancy cannot be placed at all.
func TestSitePathMissesThePages(t *testing.T) {
	f := newFixture(t, 6, 3)
	var links strings.Builder
	for i := range 6 {
		fmt.Fprintf(&links, `<a href="/p%d.html">%d</a>`, i, i)
	}
	f.write(t, "site/index.html", "<html><body>"+links.String()+"</body></html>\n")
	o := f.options()
	o.SiteURL, o.DryRun = "https://example.org/blog", true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Carriers != 1 || res.OutsideSitePath != 6 {
		t.Errorf("carriers %d, outside the site path %d; want 1 and 6", res.Carriers, res.OutsideSitePath)
	}
	if want := "/p0.html: linked as /p0.html, outside the site URL's path /blog/"; !strings.Contains(strings.Join(res.Excluded, "\n"), want) {
		t.Errorf("excluded %q, want %q", res.Excluded, want)
	}
	for _, want := range []string{"6 pages are linked at paths outside the site URL's path /blog/, such as /p0.html", "1 carrier page cannot hold more"} {
		if !strings.Contains(strings.Join(res.Warnings, "\n"), want) {
			t.Errorf("warnings %q, want %q", res.Warnings, want)
		}
	}
	o.SetRedundancy("2")
	_, err = Run(context.Background(), o)
	var pe *SitePathError
	if !errors.As(err, &pe) || !errors.Is(err, ErrTooFewPages) || pe.Pages != 6 || pe.Path != "/blog/" || pe.Example != "/p0.html" {
		t.Errorf("fixed redundancy: %v (%+v)", err, pe)
	}
}

// TestSitePathOnePageInTheSingular: one page outside the site URL's path
// is "1 page is linked", in the warning and the error.
func TestSitePathOnePageInTheSingular(t *testing.T) {
	f := newFixture(t, 1, 3)
	f.write(t, "site/index.html", `<html><body><a href="/p0.html">0</a></body></html>`+"\n")
	o := f.options()
	o.SiteURL, o.DryRun = "https://example.org/blog/", true
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 page is linked at a path outside the site URL's path /blog/, /p0.html, so it cannot carry blocks"; !strings.Contains(strings.Join(res.Warnings, "\n"), want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}
}
