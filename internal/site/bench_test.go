package site

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchSite writes a site of 1,000 pages, the root, 9 sections and 110
// posts in each, every page about 4 KiB with links up, across and to the
// root, and returns its directory and total size.
func benchSite(b *testing.B) (string, int64) {
	b.Helper()
	dir := b.TempDir()
	var total int64
	write := func(name, body string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		page := htmlPage(body + strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", 50))
		if err := os.WriteFile(p, []byte(page), 0o644); err != nil {
			b.Fatal(err)
		}
		total += int64(len(page))
	}
	var root strings.Builder
	for s := range 9 {
		fmt.Fprintf(&root, "<a href=\"s%d/\">section %d</a>\n", s, s)
		var sec strings.Builder
		sec.WriteString("<a href=\"/\">home</a>\n")
		for p := range 110 {
			fmt.Fprintf(&sec, "<a href=\"post-%d.html\">post %d</a>\n", p, p)
			write(fmt.Sprintf("s%d/post-%d.html", s, p), fmt.Sprintf(
				"<a href=\"/\">home</a> <a href=\"./\">up</a> <a href=\"post-%d.html\">next</a> <a href=\"?page=%d\">q</a>",
				(p+1)%110, p))
		}
		write(fmt.Sprintf("s%d/index.html", s), sec.String())
	}
	write("index.html", root.String())
	robots := "User-agent: *\nDisallow: /s8/post-1*.html$\n\nUser-agent: CCBot\nDisallow: /*?\nDisallow: /s8/post-1*.html$\n"
	if err := os.WriteFile(filepath.Join(dir, "robots.txt"), []byte(robots), 0o644); err != nil {
		b.Fatal(err)
	}
	return dir, total
}

func BenchmarkDiscover_1000Pages(b *testing.B) {
	dir, total := benchSite(b)
	opts := Options{SiteURL: mustURL(b, testSiteURL)}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Discover(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Pages) != 1000 {
			b.Fatalf("%d pages", len(s.Pages))
		}
	}
}

func BenchmarkRobotsAllowed(b *testing.B) {
	data, err := os.ReadFile("testdata/site/robots.txt")
	if err != nil {
		b.Fatal(err)
	}
	r := ParseRobots(data)
	paths := []string{"/", "/private/x.html", "/blog/posts/first.html", "/ccbot-blocked.html"}
	b.ReportAllocs()
	for b.Loop() {
		for _, p := range paths {
			r.Allowed("CCBot", p)
		}
	}
}

func BenchmarkSetNotice_4K(b *testing.B) {
	page := []byte(htmlPage(strings.Repeat("<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>\n", 64)))
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := SetNotice(page, "Updated 2026-11-21"); err != nil {
			b.Fatal(err)
		}
	}
}
