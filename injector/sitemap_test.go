package injector

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSitemapAnnounced: with Sitemap a site without one gets a
// sitemap.xml of its linked pages and a robots.txt naming it, and the
// report says where, also on the run that first writes the pages (whose
// lastmods inject then updates in it); without it inject writes
// neither.
func TestSitemapAnnounced(t *testing.T) {
	g := newFixture(t, 3, 2)
	first := g.options()
	first.Sitemap = true
	if res, err := Run(context.Background(), first); err != nil || res.Sitemap == "" || strings.Contains(strings.Join(res.Warnings, "\n"), "sitemap") {
		t.Fatalf("first run: %v, sitemap %q, warnings %q", err, res.Sitemap, res.Warnings)
	}
	f := newFixture(t, 3, 2)
	o := f.options()
	res, err := Run(context.Background(), o)
	if err != nil || res.Sitemap != "" {
		t.Fatalf("%v, sitemap %q", err, res.Sitemap)
	}
	for _, name := range []string{"sitemap.xml", "robots.txt"} {
		if _, err := os.Stat(filepath.Join(o.SiteDir, name)); err == nil {
			t.Fatalf("%s written without the option", name)
		}
	}
	o.Sitemap = true
	if res, err = Run(context.Background(), o); err != nil || res.Sitemap != "https://example.org/sitemap.xml" {
		t.Fatalf("%v, sitemap %q", err, res.Sitemap)
	}
	sm, _ := os.ReadFile(filepath.Join(o.SiteDir, "sitemap.xml"))
	for _, p := range []string{"https://example.org/<", "https://example.org/p0.html", "https://example.org/p2.html"} {
		if !strings.Contains(string(sm), p) {
			t.Fatalf("sitemap lacks %s:\n%s", p, sm)
		}
	}
	if robots, _ := os.ReadFile(filepath.Join(o.SiteDir, "robots.txt")); string(robots) != "Sitemap: https://example.org/sitemap.xml\n" {
		t.Fatalf("robots.txt %q", robots)
	}
}
