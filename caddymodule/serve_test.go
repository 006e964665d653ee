package caddymodule

import (
	"bytes"
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
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

// TestUpstreamRequest: the next handler sees the client's request but for
// Accept-Encoding, unless the module answers it: the request carries one
// of our ETags, the page is one the module changed before, or it turns out
// to be one now (then the last request is a plain GET for the whole page).
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
		// client's Range and conditionals were left on.
		wantMethod string
		kept       bool
	}{
		{"not HTML", "GET", "", &page{body: "x", header: png}, cond, "GET", true},
		{"HEAD, not HTML", "HEAD", "", &page{body: "x", header: png}, cond, "HEAD", true},
		{"404", "GET", "", &page{body: html, status: 404}, cond, "GET", true},
		{"HTML 200", "GET", "", &page{body: html}, cond, "GET", true},
		{"HEAD of HTML", "HEAD", "", &page{body: html}, cond, "GET", false},
		{"our ETag", "GET", "", &page{body: html}, ours, "GET", false},
		{"our ETag, HEAD", "HEAD", "", &page{body: html}, ours, "GET", false},
		{"page changed before", "HEAD", "/known", &page{body: html}, cond, "GET", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := cmp.Or(tt.path, "/p"+strconv.Itoa(i))
			serve(t, h, tt.up, tt.method, path, tt.hdr)
			got := tt.up.got
			if got.Method != tt.wantMethod || got.Header.Get("Accept-Encoding") != "" {
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
