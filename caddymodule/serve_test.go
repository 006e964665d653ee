package caddymodule

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

func TestInjectIdempotent(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	up := &page{body: html}
	w1 := serve(t, h, up, "GET", "/a", nil)
	w2 := serve(t, h, up, "GET", "/a", nil)
	b := w1.Body.Bytes()
	if w1.Code != 200 || !hasComments(b) || !bytes.HasSuffix(b, []byte("</body></html>")) {
		t.Fatalf("status %d body %.200q", w1.Code, b)
	}
	if !bytes.Equal(b, w2.Body.Bytes()) || w1.Header().Get("ETag") != w2.Header().Get("ETag") {
		t.Fatal("two requests for one URL differ")
	}
	etag := w1.Header().Get("ETag")
	if !strings.HasPrefix(etag, `"lz-`) || len(etag) != 37 {
		t.Fatalf("ETag %q", etag)
	}
	if cl := w1.Header().Get("Content-Length"); cl != strconv.Itoa(len(b)) {
		t.Fatalf("Content-Length %s for %d bytes", cl, len(b))
	}
	// No Last-Modified: the upstream sent none (a dynamic page).
	if w1.Header().Get("Accept-Ranges") != "none" || w1.Header().Get("Last-Modified") != "" {
		t.Fatalf("headers %v", w1.Header())
	}
	// The plan names /a for the manifest; an unplanned page gets none.
	if !bytes.Contains(b, []byte("<!-- lazarus manifest 1")) {
		t.Fatal("no manifest on /a")
	}
	other := serve(t, h, up, "GET", "/not-planned", nil)
	ob := other.Body.Bytes()
	if !hasComments(ob) || other.Header().Get("ETag") == etag || bytes.Contains(ob, []byte("lazarus manifest")) {
		t.Fatal("unplanned page: no blocks, same ETag or a manifest")
	}
	if int64(len(ob)-len(html)) > h.PageBudget {
		t.Fatalf("unplanned page grew by %d bytes, budget %d", len(ob)-len(html), h.PageBudget)
	}
}

// TestUpstreamRequest: the next handler sees the client's request as
// sent, Accept-Encoding included, unless the module answers it: the page
// is one the module changed before, or it turns out to be one now (then
// the last request is a plain identity GET for the whole page). One of our ETags in the
// request changes nothing: next judges it (it never matches next's own),
// so a file keeps its Range, conditionals and HEAD.
func TestUpstreamRequest(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	serve(t, h, &page{body: html}, "GET", "/known", nil)
	cond := map[string]string{"Accept-Encoding": "gzip", "Range": "bytes=0-1", "If-None-Match": `"x"`, "If-Modified-Since": genTime.Format(http.TimeFormat)}
	ours := map[string]string{"Accept-Encoding": "gzip", "If-None-Match": `"lz-0123"`, "Range": "bytes=0-1"}
	png := http.Header{"Content-Type": {"image/png"}}
	tests := []struct {
		name, method, path string // path "" is one not served before
		up                 *page
		hdr                map[string]string
		// Expected: the last request next got: its method and whether the
		// client's Accept-Encoding, Range and conditionals were left on.
		wantMethod string
		kept       bool
	}{
		{"not HTML", "GET", "", &page{body: "x", header: png}, cond, "GET", true},
		{"HEAD, not HTML", "HEAD", "", &page{body: "x", header: png}, cond, "HEAD", true},
		{"404", "GET", "", &page{body: html, status: 404}, cond, "GET", true},
		{"HTML 200", "GET", "", &page{body: html}, cond, "GET", true},
		{"HEAD of HTML", "HEAD", "", &page{body: html}, cond, "GET", false},
		{"our ETag", "GET", "", &page{body: html}, ours, "GET", true},
		{"our ETag, not HTML", "GET", "", &page{body: "x", header: png}, ours, "GET", true},
		{"our ETag, HEAD, not HTML", "HEAD", "", &page{body: "x", header: png}, ours, "HEAD", true},
		{"our ETag, HEAD", "HEAD", "", &page{body: html}, ours, "GET", false},
		{"page changed before", "HEAD", "/known", &page{body: html}, cond, "GET", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := cmp.Or(tt.path, "/p"+strconv.Itoa(i))
			serve(t, h, tt.up, tt.method, path, tt.hdr)
			got := tt.up.got
			if got.Method != tt.wantMethod || (got.Header.Get("Accept-Encoding") != "") != tt.kept {
				t.Fatalf("next got %s with Accept-Encoding %q", got.Method, got.Header.Get("Accept-Encoding"))
			}
			for _, name := range revalidation {
				if kept := got.Header.Get(name) != ""; kept != (tt.kept && tt.hdr[name] != "") {
					t.Errorf("%s kept %v", name, kept)
				}
			}
		})
	}
}

func TestHeadAndConditionals(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	up := &page{body: html, header: http.Header{"Last-Modified": {genTime.Add(-24 * time.Hour).Format(http.TimeFormat)}}}
	get := serve(t, h, up, "GET", "/b", nil)
	etag, lm := get.Header().Get("ETag"), get.Header().Get("Last-Modified")
	later := genTime.Add(24 * time.Hour).Format(http.TimeFormat)
	earlier := genTime.Add(-24 * time.Hour).Format(http.TimeFormat)
	tests := []struct {
		name   string
		method string
		hdr    map[string]string
		status int
		body   bool
	}{
		{"HEAD: same headers, no body", "HEAD", nil, 200, false},
		{"Range: full 200", "GET", map[string]string{"Range": "bytes=0-10"}, 200, true},
		{"If-None-Match match: 304", "GET", map[string]string{"If-None-Match": etag}, 304, false},
		{"If-None-Match weak match: 304", "GET", map[string]string{"If-None-Match": `"zz", W/` + etag}, 304, false},
		{"If-None-Match star: 304", "GET", map[string]string{"If-None-Match": "*"}, 304, false},
		{"If-None-Match other: 200 even if IMS matches", "GET", map[string]string{"If-None-Match": `"zz"`, "If-Modified-Since": later}, 200, true},
		{"If-Modified-Since equal: 304", "GET", map[string]string{"If-Modified-Since": lm}, 304, false},
		{"If-Modified-Since later: 304", "GET", map[string]string{"If-Modified-Since": later}, 304, false},
		{"If-Modified-Since earlier: 200", "GET", map[string]string{"If-Modified-Since": earlier}, 200, true},
		{"If-Match other: 412", "GET", map[string]string{"If-Match": `"zz"`}, 412, false},
		{"If-Match ours: 200", "GET", map[string]string{"If-Match": etag}, 200, true},
		{"If-Unmodified-Since earlier: 412", "GET", map[string]string{"If-Unmodified-Since": earlier}, 412, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(t, h, up, tt.method, "/b", tt.hdr)
			if w.Code != tt.status || (w.Body.Len() > 0) != tt.body {
				t.Fatalf("status %d, %d body bytes", w.Code, w.Body.Len())
			}
			if w.Header().Get("ETag") != etag {
				t.Fatalf("ETag %q, want %q", w.Header().Get("ETag"), etag)
			}
			if tt.status == 200 && w.Header().Get("Content-Length") != strconv.Itoa(get.Body.Len()) {
				t.Fatalf("Content-Length %s, want %d", w.Header().Get("Content-Length"), get.Body.Len())
			}
			if tt.body && !bytes.Equal(w.Body.Bytes(), get.Body.Bytes()) {
				t.Fatal("body differs from GET")
			}
		})
	}
}

func TestPassThrough(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	h.MaxBuffer = 1000
	big := "<html><body>" + strings.Repeat("x", 2000) + "</body></html>"
	tests := []struct {
		name, method, target string
		up                   *page
		hdr                  map[string]string
	}{
		{"404", "GET", "/a", &page{body: html, status: 404}, nil},
		{"not HTML", "GET", "/a", &page{body: html, header: http.Header{"Content-Type": {"text/plain"}}}, nil},
		{"no-transform", "GET", "/a", &page{body: html, header: http.Header{"Cache-Control": {"public, no-transform"}}}, nil},
		{"content encoding", "GET", "/a", &page{body: html, header: http.Header{"Content-Encoding": {"gzip"}}}, nil},
		{"SSE with flushes", "GET", "/a", &page{body: "data: x\n\n", flushes: 3, header: http.Header{"Content-Type": {"text/event-stream"}}}, nil},
		{"too large, length known", "GET", "/a", &page{body: big, header: http.Header{"Content-Length": {strconv.Itoa(len(big))}}}, nil},
		{"too large, length unknown", "GET", "/a", &page{body: big}, nil},
		{"query string", "GET", "/a?x=1", &page{body: html}, nil},
		{"POST", "POST", "/a", &page{body: html}, nil},
		{"websocket upgrade", "GET", "/a", &page{body: html}, map[string]string{"Connection": "Upgrade", "Upgrade": "websocket"}},
		{"noarchive meta", "GET", "/a", &page{body: `<html><head><meta name="robots" content="noarchive"></head><body></body></html>`}, nil},
		{"noindex for CCBot", "GET", "/x", &page{body: `<html><head><meta name="CCBot" content="noindex"></head><body></body></html>`}, nil},
		{"X-Robots-Tag", "GET", "/a", &page{body: html, header: http.Header{"X-Robots-Tag": {"archive.org_bot: noarchive"}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := serve(t, h, tt.up, tt.method, tt.target, tt.hdr)
			want := tt.up.body
			if tt.up.flushes > 0 {
				want = strings.Repeat(want, tt.up.flushes)
				if !w.Flushed {
					t.Error("flushes did not reach the client")
				}
			}
			// Expected: the upstream's bytes, untouched, no ETag of ours.
			if w.Body.String() != want || w.Code != tt.up.status || strings.HasPrefix(w.Header().Get("ETag"), `"lz-`) {
				t.Fatalf("status %d body %.100q", w.Code, w.Body.String())
			}
		})
	}
}

func TestQueryCarriers(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	h.QueryCarriers = true
	a := serve(t, h, &page{body: html}, "GET", "/a?x=1", nil)
	b := serve(t, h, &page{body: html}, "GET", "/a?x=2", nil)
	if !hasComments(a.Body.Bytes()) || !hasComments(b.Body.Bytes()) {
		t.Fatal("query URLs carry no blocks")
	}
}

// TestLongPathsPassThrough: a page at an overlong URL (a catch-all route
// answers any path) gets no blocks, so attacker-chosen paths cannot fill
// the placer's memory or storage records.
func TestLongPathsPassThrough(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	long := "/" + strings.Repeat("x", maxKeyLen)
	w := serve(t, h, &page{body: html}, "GET", long, nil)
	if hasComments(w.Body.Bytes()) || w.Body.String() != html {
		t.Fatal("an overlong path got blocks")
	}
	if !hasComments(serve(t, h, &page{body: html}, "GET", long[:maxKeyLen], nil).Body.Bytes()) {
		t.Fatal("a path of maxKeyLen bytes got no blocks")
	}
}

func TestNoBundlePassesThrough(t *testing.T) {
	h := newHandler(t, t.TempDir())
	w := serve(t, h, &page{body: html}, "GET", "/", nil)
	if w.Body.String() != html {
		t.Fatalf("body %q", w.Body.String())
	}
}

// TestMaxPageBytes: blocks that would take a page over MaxPageBytes are
// left off it; when none fits the page passes through untouched.
func TestMaxPageBytes(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	full := serve(t, h, &page{body: html}, "GET", "/a", nil)
	if n := strings.Count(full.Body.String(), "<!-- lazarus block 1"); n < 2 {
		t.Fatalf("fixture page carries %d blocks, want several", n)
	}
	h.MaxPageBytes = int64(len(html)) + noticeReserve + 4000 // room for the manifest or a block or two
	some := serve(t, h, &page{body: html}, "GET", "/a", nil)
	n := strings.Count(some.Body.String(), "<!-- lazarus ")
	if n == 0 || n >= strings.Count(full.Body.String(), "<!-- lazarus ") || int64(some.Body.Len()) > h.MaxPageBytes ||
		some.Header().Get("ETag") == full.Header().Get("ETag") {
		t.Fatalf("%d comments in %d bytes, ETag %s", n, some.Body.Len(), some.Header().Get("ETag"))
	}
	h.MaxPageBytes = int64(len(html)) + noticeReserve + 100
	if w := serve(t, h, &page{body: html}, "GET", "/a", nil); w.Body.String() != html || w.Header().Get("ETag") != "" {
		t.Fatalf("nothing fits: body %.80q, ETag %q", w.Body.String(), w.Header().Get("ETag"))
	}
}

// TestDynamicPageValidators: an upstream that sends no Last-Modified (a
// dynamic page) gets none invented, so If-Modified-Since cannot turn a
// changed page into a stale 304; the ETag still follows the bytes.
func TestDynamicPageValidators(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	now := genTime.Add(time.Hour)
	h.now = func() time.Time { return now }
	first := serve(t, h, &page{body: html}, "GET", "/a", nil)
	if lm := first.Header().Get("Last-Modified"); lm != "" {
		t.Errorf("Last-Modified %q invented for a page whose upstream sent none", lm)
	}
	changed := &page{body: "<html><body><p>hello again</p></body></html>"}
	w := serve(t, h, changed, "GET", "/a", map[string]string{"If-Modified-Since": now.Format(http.TimeFormat)})
	if w.Code != 200 || !strings.Contains(w.Body.String(), "hello again") || !hasComments(w.Body.Bytes()) {
		t.Fatalf("changed page after If-Modified-Since: status %d, body %.80q", w.Code, w.Body.String())
	}
	if w := serve(t, h, changed, "GET", "/a", map[string]string{"If-None-Match": first.Header().Get("ETag")}); w.Code != 200 {
		t.Fatalf("changed page after If-None-Match of the old one: status %d", w.Code)
	}
}

// nonced is an upstream page that differs on every request (a CSRF
// token, a timestamp), padded with links to size bytes.
type nonced struct {
	n     int
	links string
}

func newNonced(size int) *nonced {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<a href=/%s/%d>.</a>", strings.Repeat("p", 40), i)
	}
	return &nonced{links: b.String()}
}

func (v *nonced) ServeHTTP(w http.ResponseWriter, r *http.Request) error {
	v.n++
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><body><input type=hidden name=csrf value=%d>%s</body></html>", v.n, v.links)
	return nil
}

// TestInspectCacheBounded: what the module remembers of inspected pages
// is bounded in bytes (links kept as 16-byte hashes), and a page too large
// to carry blocks is not inspected at all. Before the fix a 3 MiB page
// changing on every request added 3.3 MiB of live heap per request, up to
// 4,096 entries, and was tokenized each time.
func TestInspectCacheBounded(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	huge := newNonced(3 << 20)
	for range 3 {
		serve(t, h, huge, "GET", "/huge", nil)
	}
	// Expected: over MaxPageBytes: never inspected.
	if n := len(h.inspected.m); n != 0 {
		t.Fatalf("a page too large for blocks was inspected: %d cache entries", n)
	}
	page := newNonced(900 << 10) // under max_page_bytes, ~20,000 links
	for range 24 {
		serve(t, h, page, "GET", "/x", nil)
	}
	per := 0
	for _, in := range h.inspected.m {
		per = max(per, in.size())
	}
	t.Logf("24 versions of a %d KiB page: inspect cache %d KiB in %d entries, at most %d KiB each",
		len(page.links)>>10, h.inspected.size>>10, len(h.inspected.m), per>>10)
	// Expected: the cache within its bound, an entry far smaller than the
	// page's links (kept as strings, they took over 1 MiB a version).
	if h.inspected.size > defaultInspectBytes || per > len(page.links)/2 {
		t.Fatalf("inspect cache %d bytes (bound %d), an entry of %d bytes", h.inspected.size, defaultInspectBytes, per)
	}
}

// TestHoldAtMostMaxPageBytes: a page of unknown length stops being held
// once it passes max_page_bytes (it could carry no block), not only at
// max_buffer: before the fix each request for a 3.5 MiB page held all of
// it (64 slow clients: +328 MiB of heap, against 4 MiB without the
// module).
func TestHoldAtMostMaxPageBytes(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	w := httptest.NewRecorder()
	chunk := []byte("<p>" + strings.Repeat("x", 64<<10) + "</p>\n")
	held := int64(-1) // bytes written when the client first got some
	up := caddyhttp.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) error {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Write([]byte("<html><body>"))
		written := int64(12)
		for written < 3500<<10 {
			n, _ := rw.Write(chunk)
			written += int64(n)
			if held < 0 && w.Body.Len() > 0 {
				held = written
			}
		}
		rw.Write([]byte("</body></html>"))
		return nil
	})
	if err := h.ServeHTTP(w, httptest.NewRequest("GET", "/big", nil), up); err != nil {
		t.Fatal(err)
	}
	// Expected: streamed on once past max_page_bytes (960 KiB), not held whole.
	if held < 0 || held > h.MaxPageBytes+int64(len(chunk)) {
		t.Fatalf("the client got its first byte after %d bytes of a %d-byte page (max_page_bytes %d)", held, w.Body.Len(), h.MaxPageBytes)
	}
}

// TestRootLinksFromRootURL: the pages the root links to (which carry the
// manifest) are resolved against "/", even when the same body was first
// served at another URL (a single-page app): before the fix they were
// /deep/dir/about.html and /deep/dir/blog/.
func TestRootLinksFromRootURL(t *testing.T) {
	f := newFixture(t)
	spa := &page{body: `<html><body><a href="about.html">about</a> <a href="blog/">blog</a></body></html>`}
	h := newHandler(t, f.bundle)
	serve(t, h, spa, "GET", "/deep/dir/", nil)
	serve(t, h, spa, "GET", "/", nil)
	p := h.gen.Load().placer
	p.mu.RLock()
	got := slices.Sorted(maps.Keys(p.manifest))
	p.mu.RUnlock()
	if want := []string{"/about.html", "/blog/"}; !slices.Equal(got, want) {
		t.Fatalf("manifest pages %v, want %v", got, want)
	}
}

// failingWrites is storage whose writes and locks fail (a full or
// read-only disk, a storage backend unreachable for writes).
type failingWrites struct{ *memStorage }

func (failingWrites) Lock(context.Context, string) error          { return fs.ErrPermission }
func (failingWrites) Store(context.Context, string, []byte) error { return fs.ErrPermission }

// TestPlacementWriteFailureNoStore: when a new page's placement cannot be
// recorded, the page goes out without blocks like one whose blocks cannot
// be read: marked no-store, so no cache keeps it (before the fix it went
// out cacheable).
func TestPlacementWriteFailureNoStore(t *testing.T) {
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, failingWrites{newMemStorage()})
	w := serve(t, h, staticPage(), "GET", "/new-page", nil)
	if w.Code != 200 || hasComments(w.Body.Bytes()) || w.Header().Get("Cache-Control") != "no-store" || strings.HasPrefix(w.Header().Get("ETag"), `"lz-`) {
		t.Fatalf("status %d, blocks %v, Cache-Control %q, ETag %q", w.Code, hasComments(w.Body.Bytes()), w.Header().Get("Cache-Control"), w.Header().Get("ETag"))
	}
	// Expected: the planned pages need no write and still carry blocks.
	if w := serve(t, h, staticPage(), "GET", "/a", nil); !hasComments(w.Body.Bytes()) {
		t.Fatal("a planned page lost its blocks")
	}
}

// TestRecordsCountServedBlocks: the blocks counted for a page are those it
// carries: a large page, with room for one block, gets a record of one
// block. Before the fix 20 pages of 940 KiB served 60 blocks while 144
// were counted and the placement called itself full.
func TestRecordsCountServedBlocks(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	var links strings.Builder
	for i := range 20 {
		fmt.Fprintf(&links, `<a href="/big%d">.</a>`, i)
	}
	serve(t, h, &page{body: "<html><body>" + links.String() + "</body></html>"}, "GET", "/", nil)
	big := &page{body: "<html><body>" + strings.Repeat("x", 940<<10) + "</body></html>"}
	served := 0
	for i := range 20 {
		served += strings.Count(serve(t, h, big, "GET", fmt.Sprintf("/big%d", i), nil).Body.String(), "<!-- lazarus block 1")
	}
	g := h.gen.Load()
	st, err := g.placer.loadState(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	counted := 0
	for _, c := range st.Counts {
		counted += c
	}
	for _, idx := range g.pages { // the plan's pages count too
		counted -= len(idx)
	}
	root, _ := g.placer.loadRecord(context.Background(), "/")
	if root != nil {
		counted -= len(root.blocks)
	}
	// Expected: counted = served.
	if served == 0 || counted != served || st.Records != 20 {
		t.Fatalf("20 large pages carry %d blocks; %d counted, %d verified records", served, counted, st.Records)
	}
}
