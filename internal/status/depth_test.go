package status_test

import (
	"bytes"
	"context"
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

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

// TestDepthFromOnePassWARC: a local WARC file is read in one pass, a
// page before the pages it links to: those links are kept until the
// listing ends, then the ones to pages listed stay and the walk finds
// the depths.
func TestDepthFromOnePassWARC(t *testing.T) {
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
		ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true})
	checkDepths(t, rep, map[string]int{"/": 0, "/a.html": 1, "/b.html": 2, "/c.html": status.DepthUnknown}, "")
}

// TestDepthIsBreadthFirstOverArchivedLinks: "/" and "/index.html" are
// one page; depths come from a breadth-first walk of the archived pages'
// links, and a page the walk does not reach has an unknown depth, not 1.
func TestDepthIsBreadthFirstOverArchivedLinks(t *testing.T) {
	site := newStatusSite(t, 1)
	site.inject(t, statusT1)
	page := func(links ...string) []byte {
		s := "<html><body>"
		for _, l := range links {
			s += `<a href="` + l + `">x</a>`
		}
		return []byte(s + "</body></html>")
	}
	root := page("/blog/", "/about.html")
	caps := []archivetest.Capture{
		{URL: "https://example.org/", Time: statusT1.Add(day), Body: root},
		{URL: "https://example.org/index.html", Time: statusT1.Add(2 * day), Body: root},
		{URL: "https://example.org/blog/", Time: statusT1.Add(day), Body: page("/blog/post1.html")},
		{URL: "https://example.org/blog/post1.html", Time: statusT1.Add(day), Body: page()},
		{URL: "https://example.org/about.html", Time: statusT1.Add(day), Body: page()},
		{URL: "https://example.org/orphan.html", Time: statusT1.Add(day), Body: page()},
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true,
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Label: "wayback", Client: client}}}
	rep := runStatus(t, o)
	checkDepths(t, rep, map[string]int{"/": 0, "/blog/": 1, "/about.html": 1, "/blog/post1.html": 2, "/orphan.html": status.DepthUnknown},
		`("/index.html" is "/")`)
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

// TestLinksToUnknownPagesNotKept: the links of archived pages to pages
// neither the history nor a listing knows are not kept: 40 pages of
// 1,000 links of 4,000 bytes (160 MB of links) leave the heap, measured
// after a collection between fetches, well under 48 MiB above where it
// started.
func TestLinksToUnknownPagesNotKept(t *testing.T) {
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
		ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true, Progress: measure, StateDir: state})
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

// TestDepthFromInjectsHistory: inject records each page's link depth in
// its serve history; status, reading no page's links (every capture known
// from the history, no spot check, no live read), takes the depths from
// there instead of leaving them unknown.
func TestDepthFromInjectsHistory(t *testing.T) {
	rep, srv := injectedSiteStatus(t)
	if n := srv.RequestsTo("/web/"); n != 0 {
		t.Fatalf("%d captures fetched: their links were read", n)
	}
	want := map[string]int{"/": 0}
	for i := range 6 {
		want[fmt.Sprintf("/p%d.html", i)] = 1
	}
	checkDepths(t, rep, want, "")
}
