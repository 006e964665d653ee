package recover_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// lightGen is one generation of a site injected with inject's default
// plan (light pages: few blocks per page): its id and every page's bytes
// by name ("" is the root page, "p0.html"…).
type lightGen struct {
	id    string
	pages map[string][]byte
}

// injectLight makes the next generation of s at time at with inject's
// defaults; src/app/version.txt holds "version N".
func injectLight(tb testing.TB, s *sitetest.Site, at time.Time, n int) lightGen {
	tb.Helper()
	noise := make([]byte, 6000)
	rand.Read(noise)
	sitetest.WriteFile(tb, s.Dir, "src/app/version.txt", []byte(fmt.Sprintf("version %d\n", n)))
	sitetest.WriteFile(tb, s.Dir, "src/app/blob.bin", noise)
	o := s.DefaultOptions("https://example.org/")
	o.Includes = s.Include("app")
	o.Now = func() time.Time { return at }
	res := sitetest.Inject(tb, o)
	g := lightGen{id: res.Generation, pages: map[string][]byte{}}
	files, _ := filepath.Glob(filepath.Join(s.Pages(), "*.html"))
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		g.pages[strings.TrimSuffix(filepath.Base(f), "index.html")] = body
	}
	return g
}

// writeCrawl writes file, a .warc.gz holding a crawl at time at of the
// named pages of g, in that order, as wget --warc-file writes one.
func writeCrawl(tb testing.TB, file string, g lightGen, at time.Time, names ...string) {
	tb.Helper()
	f, err := os.Create(file)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	for i, n := range names {
		body, ok := g.pages[n]
		if !ok {
			tb.Fatalf("no page %q", n)
		}
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		if err := w.WriteResponse("https://example.org/"+n, at.Add(time.Duration(i)*time.Second), []byte(resp)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestWARCDirectoryNewest: a directory of WARC files (an old crawl, a
// partial one, a crawl after the site moved to a newer generation) is
// recovered to the newest generation, whatever the order of the files
// and of the pages in them; a newer generation only partly crawled
// makes the restore of the older one exit 3, never a silent rollback.
func TestWARCDirectoryNewest(t *testing.T) {
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 6)
	tA := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tB := tA.Add(30 * 24 * time.Hour)
	a := injectLight(t, s, tA, 1)
	b := injectLight(t, s, tB, 2)
	names := func(g lightGen) []string { // the root first, as wget crawls
		out := []string{""}
		for i := 0; i < 6; i++ {
			out = append(out, fmt.Sprintf("p%d.html", i))
		}
		return out
	}
	rootLast := append(names(b)[1:], "")
	crawls := t.TempDir()
	c1 := filepath.Join(crawls, "c1.warc.gz")
	c2 := filepath.Join(crawls, "c2.warc.gz")
	c3 := filepath.Join(crawls, "c3.warc.gz")
	c3man := filepath.Join(crawls, "c3man.warc.gz")
	c3blocks := filepath.Join(crawls, "c3blocks.warc.gz")
	old := filepath.Join(crawls, "z-old.warc.gz") // after the newer crawl in walk order
	writeCrawl(t, c1, a, tA.Add(time.Hour), names(a)...)
	writeCrawl(t, c2, a, tA.Add(2*time.Hour), "p1.html", "p2.html")
	writeCrawl(t, c3, b, tB.Add(time.Hour), rootLast...) // a page before the root
	// captures of the newer generation that lost part of the page: its
	// manifest without its blocks, its blocks without its manifest
	man := lightGen{id: b.id, pages: map[string][]byte{"": without(b.pages[""], htmlblock.KindBlock)}}
	blocks := lightGen{id: b.id, pages: map[string][]byte{"p3.html": without(b.pages["p3.html"], htmlblock.KindManifest)}}
	if kinds(man.pages[""]) != "manifest" || kinds(blocks.pages["p3.html"]) != "block" {
		t.Fatalf("cut pages: %q and %q", kinds(man.pages[""]), kinds(blocks.pages["p3.html"]))
	}
	writeCrawl(t, c3man, man, tB.Add(time.Hour), "")
	writeCrawl(t, c3blocks, blocks, tB.Add(time.Hour), "p3.html")
	writeCrawl(t, old, a, tA.Add(time.Hour), names(a)...)
	in := func(files ...string) string { // a directory of copies of files
		d := t.TempDir()
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sitetest.WriteFile(t, d, filepath.Base(f), raw)
		}
		return d
	}
	run := func(paths ...string) (*lzrecover.Report, string, error) {
		t.Helper()
		out := t.TempDir()
		var srcs []lzrecover.Source
		for _, p := range paths {
			src, err := source.Parse("warc="+p, nil)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, src)
		}
		rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
			OwnerKey: s.Owner.Marshal(), Out: out, SiteURL: "https://example.org/", Sources: srcs})
		v, _ := os.ReadFile(filepath.Join(out, "app/version.txt"))
		return rep, string(v), err
	}
	for _, tc := range []struct {
		name  string
		paths []string
	}{
		{"c1 c2 c3", []string{in(c1, c2, c3)}},
		{"c1 c3", []string{in(c1, c3)}},
		{"separate c1 then c3", []string{c1, c3}},
		{"newer crawl first", []string{in(c3, old)}},
	} {
		rep, v, err := run(tc.paths...)
		if err != nil || rep.Generation != b.id || v != "version 2\n" || len(rep.Newer) != 0 {
			t.Errorf("%s: err %v, generation %s (want the newer %s, the older is %s), %q, newer %+v",
				tc.name, err, rep.Generation, b.id, a.id, v, rep.Newer)
		}
	}
	// Captures made before the restored generation cannot hold a newer
	// one: once it is complete, they are not scanned.
	if rep, _, _ := run(in(c3, old)); rep.Pages > len(names(b)) {
		t.Errorf("newer crawl first: %d pages scanned, want at most the %d of the newer crawl", rep.Pages, len(names(b)))
	}
	// A crawl of the newer generation that misses its blocks, or its
	// manifest: the older one is restored, and the outcome says a newer
	// one was seen.
	for _, part := range []string{c3man, c3blocks} {
		rep, v, err := run(in(c1, c2, part))
		if !errors.Is(err, lzrecover.ErrOlder) || rep.Generation != a.id || v != "version 1\n" ||
			len(rep.Newer) != 1 || rep.Newer[0].Generation != b.id {
			t.Errorf("%s: err %v, generation %s (want %s), %q, newer %+v", filepath.Base(part), err, rep.Generation, a.id, v, rep.Newer)
		}
	}
}

// without returns page without its Lazarus comments of a kind.
func without(page []byte, kind htmlblock.Kind) []byte {
	var out []byte
	at := 0
	for f := range htmlblock.All(page) {
		if f.Kind == kind {
			out = append(out, page[at:f.Offset]...)
			at = f.End
		}
	}
	return append(out, page[at:]...)
}

// kinds lists the distinct kinds of a page's Lazarus comments.
func kinds(page []byte) string {
	var out []string
	for f := range htmlblock.All(page) {
		if !slices.Contains(out, string(f.Kind)) {
			out = append(out, string(f.Kind))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
