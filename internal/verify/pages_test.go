package verify_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/verify"
)

// serveIndexAsIs serves "/index.html" itself, as Python's http.server
// does, where http.FileServer redirects it to "/".
func serveIndexAsIs(dir string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/index.html" {
			f, err := os.Open(filepath.Join(dir, "index.html"))
			if err == nil {
				defer f.Close()
				info, _ := f.Stat()
				http.ServeContent(w, r, "index.html", info.ModTime(), f)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// TestVerifyIndexAlias: a link to index.html makes the crawl fetch the
// root page twice, as "/" and "/index.html": it is one page, counted
// once among pages, carriers and one-hop pages (inject counts 12
// carriers), its second URL counted as an alias.
func TestVerifyIndexAlias(t *testing.T) {
	s := sitetest.ServedInjected(t, serveIndexAsIs)
	p := filepath.Join(s.Site, "p0.html")
	page, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	sitetest.WriteFile(t, s.Site, "p0.html", []byte(strings.Replace(string(page), "<body>", `<body><a href="index.html">home</a>`, 1)))
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Crawl
	if c.Requests != 13 || c.Pages != 12 || c.Aliases != 1 || c.Carriers != 12 {
		t.Errorf("crawl %+v: want 13 requests, 12 pages, 1 alias, 12 carriers", c)
	}
	if m := rep.Manifest; !m.Root || m.OneHopPages != 11 || m.OneHop != 11 || m.Kept != 12 {
		t.Errorf("manifest placement %+v: the root page counted again as a one-hop page", m)
	}
	if len(rep.Hygiene) != 12 {
		t.Errorf("%d pages checked for signals, want 12 (the root page once)", len(rep.Hygiene))
	}
	for _, a := range rep.Archives {
		if a.Pages != 12 || a.Carriers != 12 || a.Disallowed != 0 {
			t.Errorf("archive %+v", a)
		}
	}
}

// TestVerifyRobotsPerArchive: a page counts when one archive's crawler
// may fetch it; an archive robots.txt shuts out entirely is a warning,
// not a short generation, unless every archive is shut out.
func TestVerifyRobotsPerArchive(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	cases := []struct {
		name, robots string
		short        bool
		pages        [2]int // pages the Internet Archive and Common Crawl would keep
		warn         string
	}{
		// ia_archiver shut out: the Internet Archive keeps nothing,
		// Common Crawl everything (CCBot has no group: "*" allows).
		{"ia_archiver only", "User-agent: ia_archiver\nDisallow: /\n", false, [2]int{0, 12}, "robots.txt keeps Internet Archive (ia_archiver, archive.org_bot) from every page"},
		// CCBot shut out by "*", the Internet Archive's agents allowed by
		// their own groups.
		{"everyone but the Internet Archive", "User-agent: *\nDisallow: /\n\nUser-agent: ia_archiver\nUser-agent: archive.org_bot\nAllow: /\n", false, [2]int{12, 0}, "robots.txt keeps Common Crawl (CCBot) from every page"},
		// One page kept from each archive, but not from both: all count.
		{"one page each", "User-agent: CCBot\nDisallow: /p1.html\n\nUser-agent: archive.org_bot\nDisallow: /p2.html\n", false, [2]int{11, 11}, ""},
		// Everyone shut out: short, both archives named.
		{"everyone", "User-agent: *\nDisallow: /\n", true, [2]int{0, 0}, "robots.txt keeps Common Crawl (CCBot) from every page"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sitetest.WriteFile(t, s.Site, "robots.txt", []byte(c.robots))
			rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
			if c.short != errors.Is(err, verify.ErrShort) || !c.short && err != nil {
				t.Fatalf("err %v, want short %v", err, c.short)
			}
			for i, a := range rep.Archives {
				if a.Pages != c.pages[i] || (!c.short && a.Carriers != c.pages[i]) {
					t.Errorf("archive %+v, want %d pages", a, c.pages[i])
				}
			}
			warnings := strings.Join(rep.Warnings, "\n")
			if c.warn != "" && !strings.Contains(warnings, c.warn) || c.warn == "" && warnings != "" {
				t.Errorf("warnings %q, want %q", rep.Warnings, c.warn)
			}
			if !c.short && (len(rep.Excluded) != 0 || rep.Crawl.Carriers != 12) {
				t.Errorf("excluded %+v, carriers %d: a page one archive keeps counts", rep.Excluded, rep.Crawl.Carriers)
			}
		})
	}
	t.Run("note", func(t *testing.T) {
		sitetest.WriteFile(t, s.Site, "robots.txt", []byte("User-agent: CCBot\nDisallow: /p1.html\n"))
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if err != nil {
			t.Fatal(err)
		}
		cc := rep.Archives[1]
		if cc.Disallowed != 1 || len(cc.Examples) != 1 || cc.Examples[0] != s.URL+"p1.html: disallowed for CCBot; ia_archiver, archive.org_bot may fetch it" {
			t.Errorf("Common Crawl %+v", cc)
		}
	})
}

// TestVerifyMissingPages: blocks stripped from eight pages. With a
// placement plan (the serve history, or the owner key's listing) the
// report and the error name those pages and how many blocks each lost;
// without one, the report says no plan was known.
func TestVerifyMissingPages(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	stripped := map[string]bool{}
	for _, name := range []string{"p0.html", "p1.html", "p2.html", "p3.html", "p4.html", "p5.html", "p6.html", "p7.html"} {
		stripped[s.URL+name] = true
	}
	removeComments(t, s.Site, map[string]bool{"index.html": true, "p8.html": true, "p9.html": true, "p10.html": true},
		func(htmlblock.Kind, string) bool { return true })
	hist := []history.Store{history.Dir(filepath.Join(filepath.Dir(s.Site), "state", "history"))}
	cases := []struct {
		name string
		o    func() verify.Options
		plan string
	}{
		{"server key", func() verify.Options { return s.VerifyOptions(s.Server, false) }, ""},
		{"server key and history", func() verify.Options {
			o := s.VerifyOptions(s.Server, false)
			o.History = hist
			return o
		}, "serve history"},
		{"owner key", func() verify.Options { return s.VerifyOptions(s.Owner, true) }, "listing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := runVerify(t, c.o())
			if !errors.Is(err, verify.ErrShort) {
				t.Fatalf("err %v, want ErrShort", err)
			}
			if rep.Plan != c.plan || len(rep.Excluded) != 0 {
				t.Fatalf("plan %q, want %q; excluded %+v", rep.Plan, c.plan, rep.Excluded)
			}
			if c.plan == "" {
				if len(rep.Missing) != 0 || strings.Contains(err.Error(), "missing their blocks") {
					t.Errorf("no plan, yet missing %+v, error %v", rep.Missing, err)
				}
				return
			}
			if rep.MissingPages != 8 || len(rep.Missing) != 8 {
				t.Fatalf("missing %+v, want the 8 stripped pages", rep.Missing)
			}
			for _, m := range rep.Missing {
				if !stripped[m.URL] || m.Blocks == 0 || m.Blocks != m.Planned || !m.Fetched {
					t.Errorf("missing %+v", m)
				}
			}
			if !strings.Contains(err.Error(), "pages missing their blocks: "+rep.Missing[0].URL) || !strings.Contains(err.Error(), "and 3 more") {
				t.Errorf("error %v does not name the pages", err)
			}
		})
	}
}

// TestVerifyUnreachable: no crawl ran, so no report.
func TestVerifyUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u := srv.URL + "/"
	srv.Close()
	s := sitetest.ServedInjected(t, nil)
	o := s.VerifyOptions(s.Server, false)
	o.SiteURL = u
	rep, err := runVerify(t, o)
	if !errors.Is(err, verify.ErrSiteUnreachable) || rep != nil {
		t.Fatalf("report %+v, error %v; want no report and ErrSiteUnreachable", rep, err)
	}
}
