package site

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var announceT = time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)

func announceIn(t *testing.T, dir, site string, pages map[string]time.Time) Announced {
	t.Helper()
	u, _ := url.Parse(site)
	a, err := Announce(dir, u, pages)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnnounceFreshSite: a site with neither sitemap nor robots.txt gets
// a sitemap of its pages in path order, escaped, each with its lastmod,
// and a robots.txt naming it; a later run rewrites the sitemap (a page
// added) and leaves robots.txt as it is.
func TestAnnounceFreshSite(t *testing.T) {
	dir := t.TempDir()
	a := announceIn(t, dir, "https://example.org/", map[string]time.Time{"/b.html": announceT, "/": announceT.Add(time.Hour), "/a&b.html": {}})
	if a.Sitemap != "https://example.org/sitemap.xml" || !a.Robots {
		t.Fatalf("%+v", a)
	}
	want := `<?xml version="1.0" encoding="UTF-8"?>
` + sitemapMark + `
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>https://example.org/</loc><lastmod>2026-11-28T11:00:00Z</lastmod></url>
  <url><loc>https://example.org/a&amp;b.html</loc></url>
  <url><loc>https://example.org/b.html</loc><lastmod>2026-11-28T10:00:00Z</lastmod></url>
</urlset>
`
	if got := readFile(t, filepath.Join(dir, "sitemap.xml")); got != want {
		t.Fatalf("sitemap:\n%s\nwant:\n%s", got, want)
	}
	if got := readFile(t, filepath.Join(dir, "robots.txt")); got != "Sitemap: https://example.org/sitemap.xml\n" {
		t.Fatalf("robots.txt %q", got)
	}
	// Expected: the sitemap is XML that UpdateSitemap, which inject runs
	// after it for the pages whose blocks changed, reads and updates.
	u, _ := url.Parse("https://example.org/")
	if n, err := UpdateSitemap(dir, u, map[string]time.Time{"/b.html": announceT.Add(2 * time.Hour)}); n != 1 || err != nil {
		t.Fatalf("UpdateSitemap on the written sitemap: %d, %v", n, err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "sitemap.xml")); fi.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v", fi.Mode())
	}
	a = announceIn(t, dir, "https://example.org/", map[string]time.Time{"/": announceT, "/c.html": announceT})
	if a.Robots || !strings.Contains(readFile(t, filepath.Join(dir, "sitemap.xml")), "/c.html") {
		t.Fatalf("second run: %+v", a)
	}
	if got := readFile(t, filepath.Join(dir, "robots.txt")); strings.Count(got, "Sitemap:") != 1 {
		t.Fatalf("robots.txt %q", got)
	}
}

// TestAnnounceLeavesTheSitesOwn: a sitemap.xml the site wrote, or a
// robots.txt naming another sitemap, means the site announces its pages
// itself: nothing is written. A robots.txt without a Sitemap: line gets
// one appended, its bytes and permissions kept.
func TestAnnounceLeavesTheSitesOwn(t *testing.T) {
	pages := map[string]time.Time{"/": announceT}
	own := t.TempDir()
	mine := `<urlset><url><loc>https://example.org/</loc></url></urlset>`
	os.WriteFile(filepath.Join(own, "sitemap.xml"), []byte(mine), 0o640)
	if a := announceIn(t, own, "https://example.org/", pages); a.Sitemap != "" || a.Robots || readFile(t, filepath.Join(own, "sitemap.xml")) != mine {
		t.Fatalf("the site's sitemap: %+v", a)
	}
	if _, err := os.Stat(filepath.Join(own, "robots.txt")); err == nil {
		t.Fatal("robots.txt written beside the site's own sitemap")
	}
	other := t.TempDir()
	robots := "User-agent: *\nDisallow: /private/\nsitemap: https://example.org/sitemap_index.xml\n"
	os.WriteFile(filepath.Join(other, "robots.txt"), []byte(robots), 0o600)
	if a := announceIn(t, other, "https://example.org/", pages); a.Sitemap != "" || readFile(t, filepath.Join(other, "robots.txt")) != robots {
		t.Fatalf("robots naming another sitemap: %+v", a)
	}
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "robots.txt"), []byte("User-agent: *\nDisallow: /private/"), 0o600)
	if a := announceIn(t, plain, "https://example.org/", pages); !a.Robots {
		t.Fatalf("%+v", a)
	}
	if got := readFile(t, filepath.Join(plain, "robots.txt")); got != "User-agent: *\nDisallow: /private/\nSitemap: https://example.org/sitemap.xml\n" {
		t.Fatalf("robots.txt %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(plain, "robots.txt")); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
}

// TestAnnounceBelowTheRoot: a site at /blog/ gets a sitemap of its URLs
// there; robots.txt, which crawlers read at the host's root, is not
// written.
func TestAnnounceBelowTheRoot(t *testing.T) {
	dir := t.TempDir()
	a := announceIn(t, dir, "https://example.org/blog/", map[string]time.Time{"/": announceT, "/post.html": announceT})
	if a.Sitemap != "https://example.org/blog/sitemap.xml" || a.Robots || !strings.Contains(readFile(t, filepath.Join(dir, "sitemap.xml")), "https://example.org/blog/post.html") {
		t.Fatalf("%+v", a)
	}
	if _, err := os.Stat(filepath.Join(dir, "robots.txt")); err == nil {
		t.Fatal("robots.txt written for a site below the host's root")
	}
}

// TestAnnounceBounds: at most MaxSitemapURLs pages are listed, the rest
// counted; a robots.txt that is a symbolic link is refused.
func TestAnnounceBounds(t *testing.T) {
	pages := map[string]time.Time{}
	for i := range MaxSitemapURLs + 3 {
		pages[fmt.Sprintf("/p%06d.html", i)] = announceT
	}
	dir := t.TempDir()
	if a := announceIn(t, dir, "https://example.org/", pages); a.Left != 3 {
		t.Fatalf("%+v", a)
	}
	link := t.TempDir()
	os.Symlink("/etc/passwd", filepath.Join(link, "robots.txt"))
	u, _ := url.Parse("https://example.org/")
	if _, err := Announce(link, u, map[string]time.Time{"/": announceT}); err == nil {
		t.Fatal("a symbolic link robots.txt accepted")
	}
}
