package recover_test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// revisitAt is when the second crawl found every page unchanged.
var revisitAt = siteAt.Add(7 * 24 * time.Hour)

// streamed reads a WARC source through and returns its captures with
// their pages.
func streamed(t *testing.T, src source.WARCSource) (caps []lzrecover.Capture, pages map[string][]byte) {
	t.Helper()
	pages = map[string][]byte{}
	err := src.Stream(context.Background(), nil, func(c lzrecover.Capture, page []byte) error {
		caps = append(caps, c)
		pages[c.Locator] = page
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return caps, pages
}

// TestRevisitsAreCaptures: a second crawl found every page unchanged and
// stored revisit records, naming their originals each of the three ways,
// in a later file or an earlier one; "/index.html" is a revisit of "/".
// Expected: each revisit is a capture of its own URL and date, delivered
// after its original and naming it, so its bytes are the original's.
func TestRevisitsAreCaptures(t *testing.T) {
	site, _ := sitetest.Injected(t)
	caps := sitetest.CapturesOf(t, site, siteAt)
	same := func(c archivetest.Capture) string { return c.URL }
	for _, tc := range []struct {
		name, how, originals, revisits string
		url                            func(archivetest.Capture) string
	}{
		{"by record id, later file", "id", "a.warc.gz", "b.warc.gz", same},
		{"by URI and date, earlier file", "uri", "b.warc.gz", "a.warc.gz", same},
		{"by digest", "digest", "a.warc.gz", "b.warc.gz", same},
		{"index.html of /", "id", "a.warc.gz", "b.warc.gz", func(c archivetest.Capture) string {
			if strings.HasSuffix(c.URL, "/") {
				return c.URL + "index.html"
			}
			return c.URL
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ids := sitetest.ResponseWARC(t, filepath.Join(dir, tc.originals), caps)
			sitetest.RevisitWARC(t, filepath.Join(dir, tc.revisits), caps, ids, tc.how, revisitAt, tc.url)
			got, pages := streamed(t, source.WARCSource{Path: dir})
			body := map[string][]byte{}
			for _, c := range caps {
				body[tc.url(c)] = c.Body
			}
			revisits := 0
			for _, c := range got {
				if c.Unreadable != nil {
					t.Fatalf("%s: %v", c.URL, c.Unreadable)
				}
				if !c.Time.Equal(revisitAt) {
					continue
				}
				revisits++
				original, delivered := pages[c.Original]
				if !delivered || pages[c.Locator] != nil || string(original) != string(body[c.URL]) {
					t.Errorf("revisit of %s: original %q delivered before it %v, its bytes %d, want %d", c.URL, c.Original, delivered, len(original), len(body[c.URL]))
				}
			}
			if len(got) != 2*len(caps) || revisits != len(caps) {
				t.Fatalf("%d captures, %d revisits; want %d and %d", len(got), revisits, 2*len(caps), len(caps))
			}
		})
	}
}

// TestFetchOfRevisitGivesOriginal: fetching a revisit capture of a WARC
// source (as status does when it reads a page again) gives its
// original's bytes.
func TestFetchOfRevisitGivesOriginal(t *testing.T) {
	site, _ := sitetest.Injected(t)
	caps := sitetest.CapturesOf(t, site, siteAt)
	dir := t.TempDir()
	ids := sitetest.ResponseWARC(t, filepath.Join(dir, "a.warc.gz"), caps)
	sitetest.RevisitWARC(t, filepath.Join(dir, "b.warc.gz"), caps, ids, "id", revisitAt, func(c archivetest.Capture) string { return c.URL })
	src := source.WARCSource{Path: dir}
	got, _ := streamed(t, src)
	c := got[len(got)-1]
	rc, err := src.Fetch(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	for _, o := range caps {
		if o.URL == c.URL && string(o.Body) != string(b) {
			t.Fatalf("fetched %d bytes for the revisit of %s, want its original's %d", len(b), c.URL, len(o.Body))
		}
	}
}

// TestUnresolvableRevisitIsReported: a WARC holding only a later crawl's
// revisits, whose originals are in a file nobody gave. Expected: each is
// named, with the capture it refers to, and recovery says so.
func TestUnresolvableRevisitIsReported(t *testing.T) {
	site, owner := sitetest.Injected(t)
	caps := sitetest.CapturesOf(t, site, siteAt)
	dir := t.TempDir()
	sitetest.RevisitWARC(t, filepath.Join(dir, "later.warc.gz"), caps, nil, "uri", revisitAt, func(c archivetest.Capture) string { return c.URL })
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: t.TempDir(),
		Sources: []lzrecover.Source{source.WARCSource{Path: dir}}})
	want := fmt.Sprintf("revisit https://example.org/p3.html of %s refers to a capture of https://example.org/p3.html of %s, which the source does not hold",
		revisitAt.UTC().Format(time.RFC3339), siteAt.UTC().Format(time.RFC3339))
	if err == nil || !strings.Contains(strings.Join(rep.Problems, "\n"), want) || rep.Captures != len(caps) {
		t.Fatalf("err %v, %d captures; problems:\n%s", err, rep.Captures, strings.Join(rep.Problems, "\n"))
	}
}

// TestRevisitBookkeepingIsBounded: a WARC of 1,500 originals and 1,500
// revisits that name no original, each with header values of 7 KiB (just
// under the limit), then records with values of 60 KiB (540 MB of
// headers in all). Expected: once the source is read, the live heap
// holds the index (hashes) and the waiting revisits (16 MiB at most; the
// rest counted in an error), and over-long records take no part.
func TestRevisitBookkeepingIsBounded(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "big.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	body := "<html>x</html>"
	msg := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	at := siteAt.UTC().Format(time.RFC3339)
	for _, size := range []int{7 << 10, 60 << 10} {
		long := strings.Repeat("a", size)
		for i := range 1500 {
			w.WriteRecord(warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:%d:%s>", i, long[:size-100])},
				{Name: "WARC-Target-URI", Value: fmt.Sprintf("https://example.org/o%d?%s", i, long[:size-100])}, {Name: "WARC-Date", Value: at},
				{Name: "Content-Type", Value: "application/http; msgtype=response"}, {Name: "WARC-Payload-Digest", Value: fmt.Sprintf("sha1:%d%s", i, long[:size-100])}}, []byte(msg))
			w.WriteRecord(warc.Header{{Name: "WARC-Type", Value: "revisit"}, {Name: "WARC-Target-URI", Value: fmt.Sprintf("https://example.org/r%d?%s", i, long[:size-100])},
				{Name: "WARC-Date", Value: at}, {Name: "WARC-Refers-To", Value: fmt.Sprintf("<urn:none:%d>", i)},
				{Name: "WARC-Payload-Digest", Value: fmt.Sprintf("sha1:none%d%s", i, long[:size-100])}}, nil)
		}
	}
	f.Close()
	site, _ := url.Parse("https://example.org/")
	var responses, unresolved int
	var live runtime.MemStats
	err = source.WARCSource{Path: dir}.Stream(context.Background(), site, func(c lzrecover.Capture, page []byte) error {
		switch {
		case c.Unreadable != nil:
			if unresolved++; unresolved == 1 { // the source is read: what waits is all held now
				runtime.GC()
				runtime.ReadMemStats(&live)
			}
		case page != nil:
			responses++
		}
		return nil
	})
	t.Logf("3,000 originals and 3,000 revisits with 7 and 60 KiB header values: live heap %d MiB once read; %d unresolved revisits reported; %v",
		live.HeapAlloc>>20, unresolved, err)
	if live.HeapAlloc > 32<<20 {
		t.Errorf("live heap %d MiB once the source was read", live.HeapAlloc>>20)
	}
	if responses != 3000 || unresolved == 0 || unresolved >= 1500 || err == nil || !strings.Contains(err.Error(), "revisit records not resolved") {
		t.Errorf("%d responses, %d unresolved revisits reported, err %v", responses, unresolved, err)
	}
}

// TestFetchResolvesRevisitAsListed: a revisit on example.org whose record
// id names a page of another site and whose digest names one of its own.
// Expected: listing and fetching it agree, on its own site's page.
func TestFetchResolvesRevisitAsListed(t *testing.T) {
	dir := t.TempDir()
	mine := []archivetest.Capture{{URL: "https://example.org/a", Time: siteAt, Body: []byte("<html>page A of example.org</html>")}}
	sitetest.ResponseWARC(t, filepath.Join(dir, "a.warc.gz"), mine)
	other := []archivetest.Capture{{URL: "https://other.example/x", Time: siteAt, Body: []byte("<html>other site</html>")}}
	otherIDs := sitetest.ResponseWARC(t, filepath.Join(dir, "b.warc.gz"), other)
	f, _ := os.Create(filepath.Join(dir, "c.warc.gz"))
	w := warc.NewWriter(f, true)
	w.WriteRecord(warc.Header{{Name: "WARC-Type", Value: "revisit"}, {Name: "WARC-Target-URI", Value: "https://example.org/r"},
		{Name: "WARC-Date", Value: revisitAt.UTC().Format(time.RFC3339)}, {Name: "WARC-Refers-To", Value: otherIDs[other[0].URL]},
		{Name: "WARC-Payload-Digest", Value: "sha1:" + archivetest.Digest(mine[0].Body)}}, nil)
	f.Close()
	site, _ := url.Parse("https://example.org/")
	src := source.WARCSource{Path: dir}
	var rev lzrecover.Capture
	pages := map[string][]byte{}
	src.Stream(context.Background(), site, func(c lzrecover.Capture, page []byte) error {
		pages[c.Locator] = page
		if c.URL == "https://example.org/r" {
			rev = c
		}
		return nil
	})
	rc, err := src.Fetch(context.Background(), rev)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(pages[rev.Original]) != string(mine[0].Body) || string(b) != string(mine[0].Body) {
		t.Fatalf("listed as %q, fetched %q; want example.org's page A both times", pages[rev.Original], b)
	}
}
