package recover_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// pywbOf serves an injected site's pages from a pywb collection: every
// page captured an hour after injection, and revisited (the same
// payload, a revisit record) a day later.
func pywbOf(t *testing.T, site string, p archivetest.PywbConfig) *archivetest.Server {
	t.Helper()
	at := time.Unix(1795258800, 0)
	caps := capturesOf(t, site, at)
	for _, c := range slices.Clone(caps) {
		c.Time, c.Revisit = at.Add(24*time.Hour), true
		caps = append(caps, c)
	}
	srv, err := archivetest.New(caps, archivetest.Config{Pywb: &p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestRecoverFromPywbCollection: a pywb collection, spelled as users
// type it, rebuilds the server side: its endpoint as cdx= (the dialect
// found from the endpoint's form), an -index endpoint answering cdxj,
// and pywb= with the collection's URL and its replay prefix, answering
// text. The listing is one request.
func TestRecoverFromPywbCollection(t *testing.T) {
	site, owner := injectedSite(t)
	client := lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})
	for _, tt := range []struct {
		name string
		cfg  archivetest.PywbConfig
		spec func(s *archivetest.Server) string
	}{
		{"cdx endpoint", archivetest.PywbConfig{}, func(s *archivetest.Server) string { return "cdx=" + s.CDXEndpoint() }},
		{"cdx -index cdxj", archivetest.PywbConfig{Coll: "ukwa", CDXEndpoint: "-index", Output: "cdxj"},
			func(s *archivetest.Server) string { return "cdx=" + s.CDXEndpoint() }},
		{"pywb collection text", archivetest.PywbConfig{Coll: "web", Output: "text"},
			func(s *archivetest.Server) string { return "pywb=" + s.URL + "/web," + s.ReplayPrefix() }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := pywbOf(t, site, tt.cfg)
			src, err := source.Parse(tt.spec(srv), client)
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			rep, err := lzrecover.Recover(context.Background(), lzrecover.Options{
				OwnerKey: owner, Out: out, SiteURL: "https://example.org/", Sources: []lzrecover.Source{src}})
			if err != nil {
				t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
			}
			if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
				t.Fatalf("app.conf %q %v", b, err)
			}
			if n := requests(srv, strings.TrimPrefix(srv.CDXEndpoint(), srv.URL)); n != 1 {
				t.Errorf("%d listing requests, want 1", n)
			}
		})
	}
}

// pywbStatusWorld is the planted history of TestStatusNewestCombined
// with the Wayback's captures served by a pywb collection instead, each
// also revisited a day later (same payload), and the Common Crawl
// source as before. The pywb source is labelled "wayback" so that
// checkStripes applies.
func pywbStatusWorld(t *testing.T) (*statusWorld, *archivetest.Server) {
	t.Helper()
	w := newStatusWorld(t, plantNewest)
	caps := slices.Clone(w.wayback)
	for _, c := range w.wayback {
		c.Time, c.Revisit = c.Time.Add(day), true
		caps = append(caps, c)
	}
	srv, err := archivetest.New(caps, archivetest.Config{Pywb: &archivetest.PywbConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	src, err := source.ParseArchive("cdx="+srv.CDXEndpoint(), lzrecover.NewClient(lzrecover.ClientOptions{Rate: 600000}))
	if err != nil {
		t.Fatal(err)
	}
	cdx := src.(source.CDXSource)
	cdx.Label = "wayback"
	w.sources = []lzrecover.Source{cdx, w.sources[1]}
	return w, srv
}

// TestStatusFromPywbCollection: status reads a pywb collection as it
// reads the Wayback: the same stripes and restore point, every capture
// and revisit listed. With the serve history only the truncated capture
// is fetched (revisits are known by their digest, their record length
// is not taken for a cut page); without it each distinct digest once.
// The request counts are logged (see the closing note of the change).
func TestStatusFromPywbCollection(t *testing.T) {
	for _, hist := range []bool{true, false} {
		t.Run(map[bool]string{true: "history", false: "no history"}[hist], func(t *testing.T) {
			w, srv := pywbStatusWorld(t)
			rep := w.status(t, hist, "")
			w.checkStripes(t, rep)
			if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
				t.Fatalf("restore point %+v, want %s (newest)", rp, w.g2.id)
			}
			if got := rep.Sources[0].Captures; got != 2*len(w.wayback) {
				t.Fatalf("listed %d captures, want %d (each revisited)", got, 2*len(w.wayback))
			}
			distinct := map[string]bool{}
			for _, c := range w.wayback {
				distinct[archivetest.Digest(c.Body)] = true
			}
			listing, replays := requests(srv, "/coll/cdx"), requests(srv, "/coll/")-requests(srv, "/coll/cdx")
			want := 1 // the truncated capture
			if !hist {
				want = len(distinct)
			}
			if listing != 1 || replays != want {
				t.Errorf("%d listing requests and %d replays, want 1 and %d", listing, replays, want)
			}
			t.Logf("status against a pywb collection (%d captures, %d distinct digests; history %v): %d requests: %d listing, %d replays",
				2*len(w.wayback), len(distinct), hist, listing+replays, listing, replays)
		})
	}
}

// TestVerifyPywbReplay: the root page's newest capture, as the pywb
// collection lists it (a revisit), is crawled through the collection's
// raw replay like a live site: the archived copy is rebuildable and
// restores.
func TestVerifyPywbReplay(t *testing.T) {
	site, owner := injectedSite(t)
	srv := pywbOf(t, site, archivetest.PywbConfig{})
	client := lzrecover.NewClient(lzrecover.ClientOptions{Rate: 600000})
	src, err := source.Parse("cdx="+srv.CDXEndpoint(), client)
	if err != nil {
		t.Fatal(err)
	}
	var root lzrecover.Capture
	siteURL, _ := url.Parse("https://example.org/")
	err = src.List(context.Background(), siteURL, func(c lzrecover.Capture) error {
		if c.URL == "https://example.org/" && c.Time.After(root.Time) {
			root = c
		}
		return nil
	})
	if err != nil || root.Locator == "" {
		t.Fatalf("listing: %v, root capture %+v", err, root)
	}
	rep, err := verify(t, lzrecover.VerifyOptions{SiteURL: root.Locator, OwnerKey: owner, Rate: 600000})
	if err != nil {
		t.Fatalf("%v\n%+v", err, rep)
	}
	if !rep.Rebuildable || rep.Restore == nil || rep.Crawl.Pages != 12 {
		t.Fatalf("verified %s: rebuildable %v, restore %+v, crawl %+v", root.Locator, rep.Rebuildable, rep.Restore, rep.Crawl)
	}
}
