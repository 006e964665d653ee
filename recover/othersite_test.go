package recover_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// twoSiteGenerations injects, with one key, a generation of
// https://example.org/ and a day later one of https://shop.example.org/,
// and returns a mirror directory of each site's pages (captured an hour
// after each generation), the owner key and the two generation ids.
func twoSiteGenerations(t *testing.T) (a, b string, owner []byte, g1, g2 string) {
	t.Helper()
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 6)
	sitetest.ServerSide(t, s.Dir, 6000)
	gen := func(siteURL, version string, at time.Time) (string, string) {
		sitetest.WriteFile(t, s.Dir, "src/app/version.txt", []byte(version))
		o := s.Options(siteURL)
		o.Includes = s.Include("app")
		o.Now = func() time.Time { return at }
		id := sitetest.Inject(t, o).Generation
		return id, mirrorOf(t, s.Pages(), at.Add(time.Hour))
	}
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	g1, a = gen("https://example.org/", "version 1\n", day)
	g2, b = gen("https://shop.example.org/", "version 2\n", day.Add(24*time.Hour))
	return a, b, s.Owner.Marshal(), g1, g2
}

// mirrorOf copies the HTML pages of dir into a new directory, each
// modified at at (when a mirror directory says it was captured).
func mirrorOf(t *testing.T, dir string, at time.Time) string {
	t.Helper()
	out := t.TempDir()
	files, err := filepath.Glob(filepath.Join(dir, "*.html"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no pages in %s: %v", dir, err)
	}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(out, filepath.Base(f))
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestRecoverOtherSite: recover of example.org restores example.org's
// generation, not the newer one of shop.example.org signed with the same
// key, unless asked for it by id; recover under a URL no generation names
// restores what it finds and says for which site it was made.
func TestRecoverOtherSite(t *testing.T) {
	a, b, owner, g1, g2 := twoSiteGenerations(t)
	run := func(site, gen string, dirs ...string) (*lzrecover.Report, error) {
		var srcs []lzrecover.Source
		for _, d := range dirs {
			srcs = append(srcs, source.DirSource{Dir: d})
		}
		return lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, SiteURL: site,
			Generation: gen, Out: t.TempDir(), Sources: srcs})
	}
	rep, err := run("https://example.org/", "", a, b)
	if err != nil || rep.Generation != g1 || !slices.Equal(rep.OtherSites, []string{"https://shop.example.org/"}) {
		t.Fatalf("recover of example.org: %v, generation %s, other sites %q; want %s and shop.example.org named", err, rep.Generation, rep.OtherSites, g1)
	}
	if rep, err := run("https://example.org/", g2, a, b); err != nil || rep.Generation != g2 {
		t.Fatalf("asked for %s by id: %v, generation %s", g2, err, rep.Generation)
	}
	rep, err = run("https://moved.example/", "", a)
	if err != nil || rep.Generation != g1 {
		t.Fatalf("recover under a URL no generation names: %v, generation %s; want %s restored", err, rep.Generation, g1)
	}
	if !sitetest.HasLine(rep.Problems, "made for https://example.org/, not https://moved.example/") {
		t.Errorf("no problem line says for which site the generations were made: %q", rep.Problems)
	}
	// Only shop.example.org's pages, recovered as example.org: nothing
	// names example.org, so what is found is restored, and said to be
	// shop.example.org's.
	rep, err = run("https://example.org/", "", b)
	if err != nil || rep.Generation != g2 || !sitetest.HasLine(rep.Problems, "made for https://shop.example.org/, not https://example.org/") {
		t.Fatalf("only the other site's pages: %v, generation %s, problems %q", err, rep.Generation, rep.Problems)
	}
}
