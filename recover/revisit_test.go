package recover_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// revisitAt is when the second crawl found every page unchanged.
var revisitAt = siteAt.Add(7 * 24 * time.Hour)

// crawlWARC writes caps as response records to path, each with a record
// id made from its URL, and returns the ids by URL.
func crawlWARC(t *testing.T, path string, caps []archivetest.Capture) map[string]string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	ids := map[string]string{}
	for i, c := range caps {
		ids[c.URL] = fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i+1)
		msg := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(c.Body), c.Body)
		h := warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Record-ID", Value: ids[c.URL]}, {Name: "WARC-Target-URI", Value: c.URL},
			{Name: "WARC-Date", Value: c.Time.UTC().Format(time.RFC3339)}, {Name: "Content-Type", Value: "application/http; msgtype=response"},
			{Name: "WARC-Payload-Digest", Value: "sha1:" + archivetest.Digest(c.Body)}}
		if err := w.WriteRecord(h, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// revisitWARC writes, for each capture, a revisit record at revisitAt of
// url(c) naming c as its original the way how says: "id" (WARC-Refers-To),
// "uri" (-Target-URI and -Date) or "digest" (the payload digest alone).
func revisitWARC(t *testing.T, path string, caps []archivetest.Capture, ids map[string]string, how string, url func(archivetest.Capture) string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	for _, c := range caps {
		h := warc.Header{{Name: "WARC-Type", Value: "revisit"}, {Name: "WARC-Target-URI", Value: url(c)}, {Name: "WARC-Date", Value: revisitAt.UTC().Format(time.RFC3339)},
			{Name: "WARC-Profile", Value: "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}, {Name: "WARC-Payload-Digest", Value: "sha1:" + archivetest.Digest(c.Body)}}
		switch how {
		case "id":
			h = append(h, warc.Field{Name: "WARC-Refers-To", Value: ids[c.URL]})
		case "uri":
			h = append(h, warc.Field{Name: "WARC-Refers-To-Target-URI", Value: c.URL}, warc.Field{Name: "WARC-Refers-To-Date", Value: c.Time.UTC().Format(time.RFC3339)})
		}
		msg := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" // headers only
		if err := w.WriteRecord(h, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
}

// streamed reads a WARC source through and returns its captures with
// their pages.
func streamed(t *testing.T, src lzrecover.WARCSource) (caps []lzrecover.Capture, pages map[string][]byte) {
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
	site, _ := injectedSite(t)
	caps := capturesOf(t, site, siteAt)
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
			ids := crawlWARC(t, filepath.Join(dir, tc.originals), caps)
			revisitWARC(t, filepath.Join(dir, tc.revisits), caps, ids, tc.how, tc.url)
			got, pages := streamed(t, lzrecover.WARCSource{Path: dir})
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
	site, _ := injectedSite(t)
	caps := capturesOf(t, site, siteAt)
	dir := t.TempDir()
	ids := crawlWARC(t, filepath.Join(dir, "a.warc.gz"), caps)
	revisitWARC(t, filepath.Join(dir, "b.warc.gz"), caps, ids, "id", func(c archivetest.Capture) string { return c.URL })
	src := lzrecover.WARCSource{Path: dir}
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
	site, owner := injectedSite(t)
	caps := capturesOf(t, site, siteAt)
	dir := t.TempDir()
	revisitWARC(t, filepath.Join(dir, "later.warc.gz"), caps, nil, "uri", func(c archivetest.Capture) string { return c.URL })
	rep, err := lzrecover.Recover(context.Background(), lzrecover.Options{OwnerKey: owner, Out: t.TempDir(),
		Sources: []lzrecover.Source{lzrecover.WARCSource{Path: dir}}})
	want := fmt.Sprintf("revisit https://example.org/p3.html of %s refers to a capture of https://example.org/p3.html of %s, which the source does not hold",
		revisitAt.UTC().Format(time.RFC3339), siteAt.UTC().Format(time.RFC3339))
	if err == nil || !strings.Contains(strings.Join(rep.Problems, "\n"), want) || rep.Captures != len(caps) {
		t.Fatalf("err %v, %d captures; problems:\n%s", err, rep.Captures, strings.Join(rep.Problems, "\n"))
	}
}

// TestStatusCountsRevisits: status over a WARC of two crawls, the second
// all revisits. Expected: 24 captures, not the 12 responses alone.
func TestStatusCountsRevisits(t *testing.T) {
	site, owner := injectedSite(t)
	caps := capturesOf(t, site, siteAt)
	dir := t.TempDir()
	ids := crawlWARC(t, filepath.Join(dir, "a.warc.gz"), caps)
	revisitWARC(t, filepath.Join(dir, "b.warc.gz"), caps, ids, "id", func(c archivetest.Capture) string { return c.URL })
	rep, err := lzrecover.Status(context.Background(), lzrecover.StatusOptions{OwnerKey: owner, SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{lzrecover.WARCSource{Path: dir}}, Now: revisitAt.Add(time.Hour)})
	if err != nil && rep == nil {
		t.Fatal(err)
	}
	if got := rep.Sources[0].Captures; got != 2*len(caps) {
		t.Fatalf("%d captures counted, want %d", got, 2*len(caps))
	}
}
