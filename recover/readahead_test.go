package recover_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// readAheadInputs makes a directory of WARC files and a mirror directory
// worth reading ahead: two generations of a site, the older crawled
// twice (the second crawl's pages have digests seen before), the newer
// with its root page last, and damaged copies of pages (problems in the
// report, in the order pages were taken).
func readAheadInputs(t *testing.T) (warcs, mirror string, owner []byte) {
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 6)
	tA := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tB := tA.Add(30 * 24 * time.Hour)
	a := injectLight(t, s, tA, 1)
	b := injectLight(t, s, tB, 2)
	var names []string
	for i := range 6 {
		names = append(names, fmt.Sprintf("p%d.html", i))
	}
	for _, g := range []lightGen{a, b} {
		for _, n := range []string{"p1.html", "p4.html"} {
			g.pages["bad-"+n] = damaged(t, g.pages[n])
		}
	}
	warcs = t.TempDir()
	writeCrawl(t, filepath.Join(warcs, "c1.warc.gz"), a, tA.Add(time.Hour), append([]string{"", "bad-p1.html"}, names...)...)
	writeCrawl(t, filepath.Join(warcs, "c2.warc.gz"), a, tA.Add(2*time.Hour), append(names, "")...)
	writeCrawl(t, filepath.Join(warcs, "c3.warc.gz"), b, tB.Add(time.Hour), append(append(names, "bad-p4.html"), "")...)
	mirror = t.TempDir()
	for n, page := range b.pages {
		if n == "" {
			n = "index.html"
		}
		sitetest.WriteFile(t, mirror, n, page)
	}
	return warcs, mirror, s.Owner.Marshal()
}

// damaged returns page with a byte inside each of its Lazarus comments
// changed.
func damaged(t *testing.T, page []byte) []byte {
	out := bytes.Clone(page)
	n := 0
	for f := range htmlblock.All(page) {
		out[(f.Offset+f.End)/2] ^= 1
		n++
	}
	if n == 0 {
		t.Fatal("no comment to damage")
	}
	return out
}

// TestReadAheadKeepsReports: reading and scanning captures ahead, on any
// number of workers, and extracting early give the report (byte for
// byte, as saved), the pages and the files of a session scanning each
// capture as it takes it and extracting at the end, run after run: from
// a directory of WARC files and from a mirror directory, with every page
// wanted or only until the recovery is done. Early extractions are
// committed, and none is left behind.
func TestReadAheadKeepsReports(t *testing.T) {
	warcs, mirror, owner := readAheadInputs(t)
	for _, tc := range []struct {
		name  string
		src   lzrecover.Source
		pages bool
	}{
		{"warc", source.WARCSource{Path: warcs}, false},
		{"warc, every page", source.WARCSource{Path: warcs}, true},
		{"mirror", source.DirSource{Dir: mirror}, false},
		{"mirror, every page", source.DirSource{Dir: mirror}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := recoverWith(t, 1, false, owner, tc.src, tc.pages)
			committed := lzrecover.EarlyCommits()
			for _, workers := range []int{1, 2, 8, 8, 3} {
				if got := recoverWith(t, workers, true, owner, tc.src, tc.pages); got != want {
					t.Fatalf("%d workers, extracting early: got\n%s\nwant (1 worker, extracting at the end)\n%s", workers, got, want)
				}
			}
			if n := lzrecover.EarlyCommits() - committed; n != 5 {
				t.Errorf("%d of 5 recoveries committed an early extraction", n)
			}
		})
	}
}

// recoverWith recovers from src scanning on workers goroutines,
// extracting early or not, and returns the saved report and every file
// written (the restored tree, the pages), names and contents.
func recoverWith(t *testing.T, workers int, early bool, owner []byte, src lzrecover.Source, pages bool) string {
	t.Helper()
	defer lzrecover.SetScanWorkers(workers)()
	defer lzrecover.SetExtractEarly(early)()
	out := t.TempDir()
	o := lzrecover.Options{OwnerKey: owner, Out: out, SiteURL: "https://example.org/", Sources: []lzrecover.Source{src}}
	if pages {
		o.PagesDir = filepath.Join(out, "pages")
	}
	if _, err := lzrecover.Run(context.Background(), o); err != nil {
		t.Logf("%d workers: %v", workers, err) // the same outcome each time, compared through the report
	}
	var b bytes.Buffer
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := os.ReadFile(p)
		rel, _ := filepath.Rel(out, p)
		fmt.Fprintf(&b, "== %s (%v)\n%s\n", rel, err, raw)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
