package recover_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// TestStatusOtherSiteIgnored: one key protects two sites; a mirror of
// site A's pages audited as site B (another port, as in a user's trial)
// does not make A's generation B's restore point.
func TestStatusOtherSiteIgnored(t *testing.T) {
	s := newStatusSite(t, 6)
	g := s.inject(t, statusT1)
	// A wget-style mirror of the pages under the audited host's name,
	// captured an hour after the generation was made.
	mirror := func(host string) string {
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
			if err := os.Chtimes(p, statusT1.Add(time.Hour), statusT1.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	audit := func(site string) *lzrecover.StatusReport {
		u, _ := url.Parse(site)
		rep, err := lzrecover.Status(context.Background(), lzrecover.StatusOptions{SiteURL: site, ServerKey: s.server.Marshal(),
			Now: statusNow, NoLive: true, Sources: []lzrecover.Source{lzrecover.DirSource{Dir: mirror(u.Host)}},
			History: []history.Store{s.hist}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := audit("https://www.example.org/"); rep.RestorePoint == nil || rep.RestorePoint.Generation != g.id {
		t.Fatalf("audited as www.example.org: restore point %+v, want %s", rep.RestorePoint, g.id)
	}
	rep := audit("https://shop.example.org/")
	if rep.RestorePoint != nil {
		t.Fatalf("audited as another site: restore point %+v, want none", rep.RestorePoint)
	}
	found := false
	for _, p := range rep.Problems {
		found = found || strings.Contains(p, "is of the site https://example.org/")
	}
	if !found {
		t.Errorf("no problem line names the other site: %q", rep.Problems)
	}
}

// TestRecoverOtherSiteIgnored: recover of site B does not restore site
// A's generation signed with the same key from a mirror of A's pages.
func TestRecoverOtherSiteIgnored(t *testing.T) {
	s := newStatusSite(t, 6)
	g := s.inject(t, statusT1)
	dir := t.TempDir()
	for u, body := range g.pages {
		name := strings.TrimPrefix(u, "https://example.org/")
		if name == "" {
			name = "index.html"
		}
		if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(site string) (*lzrecover.Report, error) {
		return lzrecover.Recover(context.Background(), lzrecover.Options{OwnerKey: s.owner.Marshal(), SiteURL: site,
			Out: t.TempDir(), Sources: []lzrecover.Source{lzrecover.DirSource{Dir: dir}}})
	}
	if _, err := run("https://example.org/"); err != nil {
		t.Fatalf("recover of the site itself: %v", err)
	}
	rep, err := run("https://shop.example.org/")
	if !errors.Is(err, lzrecover.ErrNothingFound) || !strings.Contains(err.Error(), "for another site (https://example.org/)") {
		t.Fatalf("recover of another site: %v (segments %+v); want nothing found, naming the other site", err, rep.Segments)
	}
}
