package status_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/history"
)

// twoSites is one key protecting two sites: g1 of https://example.org/
// and, later, g2 of https://shop.example.org/, each written as a mirror
// directory (under host, when host is not "") captured an hour after it
// was made.
type twoSites struct {
	a      *statusSite
	g1, g2 statusGen
}

func newTwoSites(t *testing.T) *twoSites {
	a := newStatusSite(t, 6)
	g1 := a.inject(t, statusT1)
	b := newStatusSite(t, 6)
	b.Owner, b.Server, b.hist, b.siteURL = a.Owner, a.Server, a.hist, "https://shop.example.org/"
	g2 := b.inject(t, statusT2)
	return &twoSites{a: a, g1: g1, g2: g2}
}

// siteMirror writes g's pages into a new directory, under host if not "".
func siteMirror(t *testing.T, g statusGen, host string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, host), 0o755); err != nil {
		t.Fatal(err)
	}
	for u, body := range g.pages {
		name := strings.TrimPrefix(u, "https://example.org/")
		if name == "" {
			name = "index.html"
		}
		p := filepath.Join(dir, host, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, g.time.Add(time.Hour), g.time.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestStatusOtherSite: audited as example.org, the newer generation of
// shop.example.org (same key) is not example.org's newest; audited as a
// site no generation names (the site URL was recorded otherwise), the
// generations found still count, and the report says for which site they
// were made.
func TestStatusOtherSite(t *testing.T) {
	w := newTwoSites(t)
	audit := func(site string, dirs ...string) *status.Report {
		var srcs []source.Source
		for _, d := range dirs {
			srcs = append(srcs, source.DirSource{Dir: d})
		}
		rep, err := status.Run(context.Background(), status.Options{SiteURL: site, ServerKey: w.a.Server.Marshal(),
			Now: statusNow, NoLive: true, Sources: srcs, History: []history.Store{w.a.hist}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := audit("https://example.org/", siteMirror(t, w.g1, "example.org"), siteMirror(t, w.g2, "example.org"))
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || !rp.Newest || rep.Newest != w.g1.id {
		t.Fatalf("restore point %+v, newest %s; want %s, the newest of example.org (not shop.example.org's %s)", rp, rep.Newest, w.g1.id, w.g2.id)
	}
	if !sitetest.HasLine(rep.Problems, "is of the site https://shop.example.org/") {
		t.Errorf("no problem line names the other site: %q", rep.Problems)
	}
	rep = audit("https://www.example.org/", siteMirror(t, w.g1, "www.example.org"))
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || sitetest.HasLine(rep.Problems, "made for") {
		t.Fatalf("www.example.org is example.org: restore point %+v, problems %q", rp, rep.Problems)
	}
	rep = audit("https://moved.example/", siteMirror(t, w.g1, "moved.example"))
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id {
		t.Fatalf("a site no generation names: restore point %+v, want %s (the data must not be lost)", rp, w.g1.id)
	}
	if !sitetest.HasLine(rep.Problems, "https://example.org/, https://shop.example.org/, not https://moved.example/: counted") {
		t.Errorf("no problem line says for which sites the generations were made: %q", rep.Problems)
	}
}
