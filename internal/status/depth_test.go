package status_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// Regression tests for the second review of lazarus status (issue 10),
// one per finding.

// downSource lists captures with their true digests, but none of them
// can be fetched: every replay answers HTTP 503.
type downSource struct {
	caps []archivetest.Capture
}

func (downSource) Name() string { return "down" }

func (s downSource) List(_ context.Context, _ *url.URL, fn func(source.Capture) error) error {
	for _, c := range s.caps {
		if err := fn(source.Capture{Source: "down", URL: c.URL, Time: c.Time, Digest: archivetest.Digest(c.Body), Locator: c.URL}); err != nil {
			return err
		}
	}
	return nil
}

func (downSource) Fetch(_ context.Context, c source.Capture) (io.ReadCloser, error) {
	return nil, errors.New("GET " + c.Locator + ": HTTP 503")
}

// TestStatusR1SpotCheckUnfetchable: an archive lists every generation 2
// page under its true digest, but none of its copies can be fetched. The
// spot check confirms nothing: the history's credit is withdrawn, the
// report says the archive's copies could not be fetched, and status
// exits 1, as recover fails.
func TestStatusR1SpotCheckUnfetchable(t *testing.T) {
	site := newStatusSite(t, 8)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	src := downSource{caps: g2.plant(statusT2.Add(day), "", g2.names()...)}
	rep := runStatus(t, status.Options{SiteURL: "https://example.org/", Sources: []source.Source{src},
		ServerKey: site.server.Marshal(), History: []history.Store{site.hist}, Now: statusNow, NoLive: true})
	if out := rep.Outcome(); out != status.NothingRecoverable || rep.RestorePoint != nil {
		t.Fatalf("outcome %d, restore point %+v; want nothing recoverable (no copy can be fetched)", out, rep.RestorePoint)
	}
	if !strings.Contains(strings.Join(rep.Problems, "\n"), "copies could not be fetched") {
		t.Fatalf("problems do not say the archive's copies could not be fetched: %q", rep.Problems)
	}
	for _, c := range rep.Captures {
		if c.How == status.HowHistory || c.Blocks > 0 {
			t.Fatalf("capture %s still credited: %+v", c.URL, c)
		}
	}
	rrep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: site.owner.Marshal(), Out: t.TempDir(),
		SiteURL: "https://example.org/", Sources: []source.Source{src}})
	if err == nil && rrep.Generation != "" {
		t.Fatalf("recover restored generation %s from an archive none of whose copies can be fetched", rrep.Generation)
	}
}

// linkySource serves pages pages, each linking to 1,000 pages no one
// knows by paths of 4,000 bytes: one shared body, after a prefix of its
// own (every page has its own bytes, so each is fetched).
type linkySource struct {
	pages int
	body  []byte
}

func (linkySource) Name() string { return "linky" }

func (s linkySource) List(_ context.Context, _ *url.URL, fn func(source.Capture) error) error {
	for i := range s.pages {
		u := fmt.Sprintf("https://example.org/p%d.html", i)
		if err := fn(source.Capture{Source: "linky", URL: u, Time: statusT1.Add(time.Duration(i) * time.Hour), Locator: u}); err != nil {
			return err
		}
	}
	return nil
}

func (s linkySource) Fetch(_ context.Context, c source.Capture) (io.ReadCloser, error) {
	return io.NopCloser(io.MultiReader(strings.NewReader("<html><!-- "+c.Locator+" -->"), bytes.NewReader(s.body))), nil
}

// TestStatusR2LinksBounded: the links of archived pages to pages neither
// the history nor a listing knows are not kept: 40 pages of 1,000 links
// of 4,000 bytes (160 MB of links) leave the heap, measured after a
// collection between fetches, well under 48 MiB above where it started.
func TestStatusR2LinksBounded(t *testing.T) {
	site := newStatusSite(t, 1)
	var b strings.Builder
	long := strings.Repeat("a", 3990)
	for i := range 1000 {
		fmt.Fprintf(&b, "<a href=\"/x/%s%d\">x</a>\n", long, i)
	}
	src := linkySource{pages: 40, body: []byte(b.String() + "</html>")}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	base, most := ms.HeapAlloc, uint64(0)
	measure := func(status.Progress) {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		most = max(most, ms.HeapAlloc)
	}
	state := t.TempDir()
	rep := runStatus(t, status.Options{SiteURL: "https://example.org/", Sources: []source.Source{src},
		ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true, Progress: measure, StateDir: state})
	if rep.Sources[0].Fetched != 40 {
		t.Fatalf("fetched %d pages, want 40: %+v", rep.Sources[0].Fetched, rep.Sources[0])
	}
	grew := int64(most) - int64(base)
	t.Logf("heap grew by %.1f MiB at most", float64(grew)/(1<<20))
	if grew > 48<<20 {
		t.Fatalf("the heap grew by %d MiB while status read 40 pages of links to unknown pages", grew>>20)
	}
	// Nor are they cached.
	var cached int64
	filepath.WalkDir(state, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				cached += fi.Size()
			}
		}
		return nil
	})
	if cached > 1<<20 {
		t.Fatalf("the cache holds %d bytes for 40 pages without blocks", cached)
	}
}

// TestStatusR2WARCDepth: a local WARC file is read in one pass, a page
// before the pages it links to: those links are kept until the listing
// ends, then the ones to pages listed stay and the walk finds the
// depths.
func TestStatusR2WARCDepth(t *testing.T) {
	site := newStatusSite(t, 1)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "crawl.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	for _, p := range []struct{ path, body string }{
		{"", `<a href="/a.html">a</a><a href="/nowhere.html">n</a>`},
		{"a.html", `<a href="b.html">b</a>`},
		{"b.html", `<a href="/">home</a>`},
		{"c.html", ``},
	} {
		body := "<html><body>" + p.body + "</body></html>"
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		if err := w.WriteResponse("https://example.org/"+p.path, statusT1, []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	rep := runStatus(t, status.Options{SiteURL: "https://example.org/", Sources: []source.Source{source.WARCSource{Path: dir}},
		ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true})
	checkDepths(t, rep, map[string]int{"/": 0, "/a.html": 1, "/b.html": 2, "/c.html": status.DepthUnknown}, "")
}

// TestStatusR5OversizedWARCDigest: a local WARC file whose records are
// junk at least MaxCapture bytes long, each with a forged
// WARC-Payload-Digest naming a generation 2 page, is not credited by the
// history: its digest was not computed from its bytes. Nothing is
// recoverable (exit 1).
func TestStatusR5OversizedWARCDigest(t *testing.T) {
	site := newStatusSite(t, 8)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	const maxCapture = 64 << 10
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "forged.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	for _, n := range g2.names() {
		u := "https://example.org/" + n
		body := "<html>" + strings.Repeat("junk ", maxCapture/5) + "</html>"
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		h := warc.Header{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Target-URI", Value: u},
			{Name: "WARC-Date", Value: warc.FormatDate(statusT2.Add(day))}, {Name: "Content-Type", Value: "application/http; msgtype=response"},
			{Name: "WARC-Payload-Digest", Value: warc.Digest(g2.pages[u])}}
		if err := w.WriteRecord(h, []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	// A local file's digests are computed from its bytes, so no spot
	// check is needed to trust them: the verdict must not rest on one.
	for _, spot := range []int{status.NoSpotChecks, 0} {
		rep := runStatus(t, status.Options{SiteURL: "https://example.org/", Sources: []source.Source{source.WARCSource{Path: dir}},
			ServerKey: site.server.Marshal(), History: []history.Store{site.hist}, Now: statusNow, NoLive: true, MaxCapture: maxCapture, SpotChecks: spot})
		if out := rep.Outcome(); out != status.NothingRecoverable {
			t.Fatalf("spot checks %d: outcome %d, restore point %+v; want nothing recoverable (the records hold no block)", spot, out, rep.RestorePoint)
		}
		for _, c := range rep.Captures {
			if c.How == status.HowHistory || c.How == status.HowChecked || c.Blocks > 0 {
				t.Fatalf("spot checks %d: forged record %s credited: %+v", spot, c.URL, c)
			}
		}
	}
}
