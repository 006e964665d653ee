package verify_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/verify"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

// removeComments rewrites the pages of the site directory that keep
// does not name without the Lazarus comments drop says to remove (given
// the comment's kind and, for blocks, the segment name), and returns how
// many it removed.
func removeComments(t *testing.T, site string, keep map[string]bool, drop func(kind htmlblock.Kind, segment string) bool) int {
	t.Helper()
	all, _ := filepath.Glob(filepath.Join(site, "*.html"))
	var pages []string
	for _, p := range all {
		if !keep[filepath.Base(p)] {
			pages = append(pages, p)
		}
	}
	removed := 0
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var out []byte
		last := 0
		for f := range htmlblock.All(page) {
			name := ""
			if f.Err == nil && f.Kind == htmlblock.KindBlock {
				b, err := block.Parse(f.Payload)
				if err != nil {
					t.Fatal(err)
				}
				name = b.Name
			}
			if f.Err == nil && drop(f.Kind, name) {
				out = append(out, page[last:f.Offset]...)
				last = f.End
				removed++
			}
		}
		out = append(out, page[last:]...)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return removed
}

// TestVerifyF4MissingSegmentWithoutManifest (review finding F4): with no
// manifest on any page, a data segment whose blocks are all gone must not
// go unnoticed: Verify is short, and says no manifest was found on a page
// archives would keep. Every block present but no manifest is short too
// (recover needs the manifest to know the generation's segments), and so
// is a manifest found only on a page archives would not keep.
func TestVerifyF4MissingSegmentWithoutManifest(t *testing.T) {
	const want = "no manifest on any page archives would keep"
	t.Run("segment etc gone", func(t *testing.T) {
		s := sitetest.ServedInjected(t, nil)
		if n := removeComments(t, s.Site, nil, func(k htmlblock.Kind, seg string) bool {
			return k == htmlblock.KindManifest || strings.Contains(seg, "etc")
		}); n == 0 {
			t.Fatal("nothing removed")
		}
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if !errors.Is(err, verify.ErrShort) || rep.Rebuildable || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, rebuildable %v; want ErrShort saying %q", err, rep != nil && rep.Rebuildable, want)
		}
		if !strings.Contains(err.Error(), "of segments app, but no manifest") {
			t.Errorf("error %q does not say what was seen (segment app)", err)
		}
		t.Log(err)
	})
	t.Run("every block, no manifest", func(t *testing.T) {
		s := sitetest.ServedInjected(t, nil)
		removeComments(t, s.Site, nil, func(k htmlblock.Kind, _ string) bool { return k == htmlblock.KindManifest })
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if !errors.Is(err, verify.ErrShort) || rep.Rebuildable || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v; want ErrShort saying %q", err, want)
		}
	})
	t.Run("manifest only where archives would not keep it", func(t *testing.T) {
		s := sitetest.ServedInjected(t, nil)
		// Keep the manifest on p1 only, and disallow p1 for every archive
		// crawler (one archive allowed would keep it: see
		// TestVerifyRobotsPerArchive).
		removeComments(t, s.Site, map[string]bool{"p1.html": true}, func(k htmlblock.Kind, _ string) bool { return k == htmlblock.KindManifest })
		sitetest.WriteFile(t, s.Site, "robots.txt", []byte("User-agent: *\nDisallow: /p1.html\n"))
		rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
		if !errors.Is(err, verify.ErrShort) || rep.Rebuildable || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v; want ErrShort saying %q", err, want)
		}
		if !rep.FromManifest || rep.Manifest.Root || rep.Manifest.OneHop != 0 || rep.Manifest.Kept != 0 {
			t.Fatalf("the manifest was found (on an excluded page only) but the report says %+v, from manifest %v", rep.Manifest, rep.FromManifest)
		}
		if !strings.Contains(err.Error(), "p1.html (robots.txt disallows it for ia_archiver, archive.org_bot, CCBot)") {
			t.Errorf("error %q does not name the page the manifest is on", err)
		}
		t.Log(err)
	})
}

// TestVerifyF5ContentType (review finding F5): a page served without a
// Content-Type, or with one that is not HTML, is not listed by recover:
// its blocks do not count, and it is reported as excluded with the
// reason.
func TestVerifyF5ContentType(t *testing.T) {
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/p0.html", "/p1.html":
				w.Header()["Content-Type"] = nil // no Content-Type at all
			case "/p2.html":
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			case "/p3.html":
				w.Header().Set("Content-Type", "application/xhtml+xml")
			}
			h.ServeHTTP(w, r)
		})
	})
	rep, err := runVerify(t, s.VerifyOptions(s.Server, false))
	if err != nil && !errors.Is(err, verify.ErrShort) {
		t.Fatal(err)
	}
	got := map[string]verify.ExcludedPage{}
	for _, e := range rep.Excluded {
		got[strings.TrimPrefix(e.URL, s.URL)] = e
	}
	for name, reason := range map[string]string{
		"p0.html": "no Content-Type: archives list it as unknown; recover's listing skips it",
		"p1.html": "no Content-Type",
		"p2.html": "Content-Type text/plain",
	} {
		page, _ := os.ReadFile(filepath.Join(s.Site, name))
		n := len(shardsOf(t, page, map[string]int{}))
		if e, ok := got[name]; !ok || !strings.HasPrefix(e.Reason, reason) || e.Blocks != n || n == 0 {
			t.Errorf("%s: %+v (listed %v), want reason %q and %d blocks", name, e, ok, reason, n)
		}
	}
	if _, ok := got["p3.html"]; ok {
		t.Errorf("an application/xhtml+xml page is excluded: %+v", got["p3.html"])
	}
	if len(got) != 3 || rep.Crawl.Carriers != 12-3 {
		t.Errorf("excluded %+v, carriers %d", rep.Excluded, rep.Crawl.Carriers)
	}
	// The pages are the HTML pages only: the three of another type, or
	// none, are counted apart (the new user's "8 HTML pages" counted a
	// page without a Content-Type that it also said was not kept).
	files, err := filepath.Glob(filepath.Join(s.Site, "*.html"))
	if err != nil || len(files) < 4 {
		t.Fatalf("site pages %v: %v", files, err)
	}
	if c := rep.Crawl; c.NotHTML != 3 || c.Pages != len(files)-3 {
		t.Errorf("crawl counts %d HTML pages and %d others, want %d and 3", c.Pages, c.NotHTML, len(files)-3)
	}
	// The root links every page: its one-hop HTML pages are the others
	// but the three.
	if m := rep.Manifest; m.OneHopPages != len(files)-1-3 {
		t.Errorf("%d one-hop HTML pages, want %d", m.OneHopPages, len(files)-1-3)
	}
}

// TestVerifyF7LinksBounded (review finding F7): pages full of unique
// links do not make the crawl keep them all: the links kept are bounded
// by the page bound, the rest counted and reported as a limit, and the
// heap stays small.
func TestVerifyF7LinksBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("serves 100 pages of 60,000 links")
	}
	const links = 60_000
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		dir := strings.TrimSuffix(r.URL.Path, "/")
		b := make([]byte, 0, links*(len(dir)+16))
		for i := range links {
			b = append(b, `<a href="`...)
			b = append(b, dir...)
			b = append(b, '/')
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `">`...)
		}
		w.Write(b)
	}))
	defer srv.Close()
	_, server, _ := keys.Generate(true)
	o := verify.Options{SiteURL: srv.URL + "/", ServerKey: server.Marshal(), MaxPages: 100, Rate: 600000, HygienePages: -1}
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // slow under -race
	defer cancel()
	rep, err := verify.Run(ctx, o)
	close(stop)
	wg.Wait()
	if !errors.Is(err, verify.ErrNoGeneration) {
		t.Fatalf("got %v, want ErrNoGeneration", err)
	}
	growth := int64(peak.Load()) - int64(base.HeapInuse)
	t.Logf("peak heap growth %d MiB; crawl %+v", growth>>20, rep.Crawl)
	const most = 256 << 20 // 100 pages of 1.4 MiB, a few at a time, and their links: far less
	if growth > most {
		t.Errorf("heap grew by %d MiB, more than %d MiB", growth>>20, most>>20)
	}
	if !strings.Contains(rep.Crawl.Limit, "links") || rep.Crawl.Requests > 100 {
		t.Errorf("the links not kept are not reported: limit %q", rep.Crawl.Limit)
	}
}

// TestVerifyF11RedirectingClient (review finding F11): with a Client that
// follows redirects itself, a page redirecting off the site (another
// port of the same host) is a failure saying so, not a carrier.
func TestVerifyF11RedirectingClient(t *testing.T) {
	var other string
	s := sitetest.ServedInjected(t, func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/p0.html" {
				http.Redirect(w, r, other+"/p0.html", http.StatusFound)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	off := httptest.NewServer(http.FileServer(http.Dir(s.Site))) // the same pages, off the site
	defer off.Close()
	other = off.URL
	o := s.VerifyOptions(s.Server, false)
	o.Client = &http.Client{Timeout: 30 * time.Second} // follows redirects
	rep, err := runVerify(t, o)
	if err != nil && !errors.Is(err, verify.ErrShort) {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Crawl.Failed, "\n"), "p0.html: redirects off the site") {
		t.Errorf("failed %q, want p0.html redirecting off the site", rep.Crawl.Failed)
	}
	if rep.Crawl.Pages != 11 || rep.Crawl.Carriers != 11 {
		t.Errorf("crawl %+v: the off-site page was counted", rep.Crawl)
	}
	for _, h := range rep.Hygiene {
		if strings.HasPrefix(h.URL, other) {
			t.Errorf("off-site page checked as a carrier: %s", h.URL)
		}
	}
}

// TestVerifyRestoreCancelled (review finding on the trial restore): a
// cancellation during the trial restore stops it, Verify returns the
// context's error, and the temporary directory is empty.
func TestVerifyRestoreCancelled(t *testing.T) {
	s := sitetest.ServedInjected(t, nil)
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := s.VerifyOptions(s.Owner, true)
	o.TempDir = tmp
	o.Progress = func(p verify.Progress) {
		if p.Phase == "restore" {
			cancel()
		}
	}
	rep, err := verify.Run(ctx, o)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v (restore %+v), want context.Canceled", err, rep.Restore)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("the cancelled restore left %d entries in the temporary directory", len(left))
	}
}
