package site

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// addFiles adds the contents of the files matching pattern as seeds.
func addFiles(f *testing.F, pattern string, add func([]byte)) {
	paths, err := filepath.Glob(pattern)
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		add(b)
	}
}

// FuzzRobots checks that ParseRobots never panics, keeps its output
// bounded by its input, and that Allowed does not depend on how a path is
// escaped and always allows /robots.txt.
func FuzzRobots(f *testing.F) {
	f.Add([]byte(rfcExample), "foobot", "/example/page.html")
	f.Add([]byte("User-agent: *\nDisallow: /*.gif$\nAllow: /a%2A$\n"), "CCBot", "/a*")
	addFiles(f, "testdata/site/robots.txt", func(b []byte) { f.Add(b, "ia_archiver", "/ia-only/x") })
	f.Fuzz(func(t *testing.T, data []byte, agent, path string) {
		r := ParseRobots(data)
		in := min(len(data), MaxRobotsBytes)
		lines, size := 0, 0
		for _, g := range r.groups {
			lines += len(g.agents) + len(g.rules)
			for _, rl := range g.rules {
				size += rl.length
			}
		}
		if lines > bytes.Count(data[:in], []byte("\n"))+bytes.Count(data[:in], []byte("\r"))+1 || size > 3*in {
			t.Fatalf("%d lines and %d pattern bytes from %d input bytes", lines, size, in)
		}
		if !r.Allowed(agent, "/robots.txt") {
			t.Fatal("/robots.txt disallowed")
		}
		if a, b := r.Allowed(agent, path), r.Allowed(agent, robotsPath(path)); a != b {
			t.Fatalf("Allowed(%q) = %v but Allowed(%q) = %v", path, a, robotsPath(path), b)
		}
	})
}

// FuzzLinks checks that link extraction never panics on arbitrary HTML and
// returns only normalized paths of the site.
func FuzzLinks(f *testing.F) {
	f.Add([]byte(`<base href="../x/"><a href="%2e%2e/a b.html?q#f"><area href="//example.org/">`), "/d/p.html")
	f.Add([]byte(`<a href="\\..\\..\\x"><iframe src="HTTP://EXAMPLE.ORG:80/%7e">`), "/")
	addFiles(f, "testdata/site/*.html", func(b []byte) { f.Add(b, "/") })
	site := mustSiteRoot(f, "https://example.org/root/")
	f.Fuzz(func(t *testing.T, page []byte, docPath string) {
		doc, err := site.abs(normalizePath(docPath))
		if err != nil {
			t.Skip()
		}
		s := scanPage(page, []string{"robots", "ccbot"})
		for _, tg := range site.targets(&s, doc) {
			p := tg.path
			if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?# ") || normalizePath(p) != p {
				t.Fatalf("target path %q is not normalized", p)
			}
			if tg.query != "" && tg.query[0] != '?' {
				t.Fatalf("target query %q", tg.query)
			}
			u, err := site.abs(p)
			if err != nil {
				t.Fatalf("target %q: %v", p, err)
			}
			if back, ok := site.locate(u); !ok || back.path != p {
				t.Fatalf("target %q locates to %q, %v", p, back.path, ok)
			}
		}
	})
}

// FuzzUpdateSitemap checks that sitemap updates never panic, change
// nothing without changed pages, keep the sitemap well-formed and are
// idempotent.
func FuzzUpdateSitemap(f *testing.F) {
	addFiles(f, "testdata/sitemap/*.xml", func(b []byte) { f.Add(b) })
	f.Add([]byte("<urlset><url><loc>https://example.org/</loc><lastmod/></url></urlset>"))
	site := mustSiteRoot(f, testSiteURL)
	stamps, err := lastmods(testChanged())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		same, n, err := updateSitemap(data, site, nil)
		if err == nil && (n != 0 || !bytes.Equal(same, data)) {
			t.Fatalf("no changes: %d entries, output differs", n)
		}
		out, n, err := updateSitemap(data, site, stamps)
		if err != nil {
			return
		}
		again, n2, err := updateSitemap(out, site, stamps)
		if err != nil {
			t.Fatalf("output does not parse: %v\n%q", err, out)
		}
		if n2 != 0 || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %d then %d entries\n%q\n%q", n, n2, out, again)
		}
	})
}

// FuzzSetNotice checks that SetNotice never panics, is idempotent, can go
// back to an earlier text, and writes the escaped text.
func FuzzSetNotice(f *testing.F) {
	addFiles(f, "testdata/site/*.html", func(b []byte) { f.Add(b, "Updated") })
	f.Add([]byte("<p data-lazarus-notice>x</p>"), "a & b")
	f.Add([]byte("<script>"), "<")
	f.Fuzz(func(t *testing.T, page []byte, text string) {
		out, _, err := SetNotice(page, text)
		if err != nil {
			return
		}
		if !bytes.Contains(out, []byte(html.EscapeString(text))) {
			t.Fatalf("text missing from %q", out)
		}
		again, changed, err := SetNotice(out, text)
		if err != nil || changed || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %v %v\n%q\n%q", changed, err, out, again)
		}
		other, _, err := SetNotice(out, time.Unix(0, 0).UTC().String())
		if err != nil {
			t.Fatalf("changing the text: %v", err)
		}
		back, _, err := SetNotice(other, text)
		if err != nil || !bytes.Equal(back, out) {
			t.Fatalf("going back: %v\n%q\n%q", err, out, back)
		}
	})
}
