package caddymodule

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCaddyUnknownLengthStaysBounded: reverse_proxy relays 64 MiB of HTML
// without Content-Length; the module holds at most max_buffer (4 MiB;
// max_page_bytes, 960 KiB, caps it) of it and streams the rest, so when the upstream has written its last byte
// the live heap has grown by far less than the body (the margin is wide:
// buffering it all adds 64 MiB or more). The client gets the upstream's
// bytes unchanged.
func TestCaddyUnknownLengthStaysBounded(t *testing.T) {
	const size = 64 << 20
	f := newFixture(t)
	chunk := bytes.Repeat([]byte("<p>lorem ipsum dolor sit amet</p>\n"), 1000)
	body := func(w io.Writer) {
		io.WriteString(w, "<html><body>")
		for n := 0; n < size; n += len(chunk) {
			w.Write(chunk)
		}
		io.WriteString(w, "</body></html>")
	}
	want := sha256.New()
	body(want)
	heap := make(chan uint64, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		body(w)
		w.(http.Flusher).Flush()
		heap <- liveHeap()
	}))
	defer up.Close()
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "max_buffer": %d}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, 4<<20, strings.TrimPrefix(up.URL, "http://")))
	base := liveHeap()
	resp, err := http.Get("http://" + addr + "/big.html")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := sha256.New()
	n, err := io.Copy(got, resp.Body)
	if err != nil || resp.StatusCode != 200 || !bytes.Equal(got.Sum(nil), want.Sum(nil)) {
		t.Fatalf("status %d, %d bytes (%v): not the upstream's body", resp.StatusCode, n, err)
	}
	grown := int64(<-heap) - int64(base)
	t.Logf("live heap grew by %d KiB", grown>>10)
	if grown > 24<<20 {
		t.Fatalf("live heap grew by %d MiB relaying a %d MiB body of unknown length with max_buffer 4 MiB", grown>>20, size>>20)
	}
}

// TestBufferPoolDropsGrownBuffers: a buffer that grew past
// maxPooledBuffer (a 3 MiB page, held up to max_page_bytes, then streamed
// on) is left to the garbage collector, not kept in the pool for the next
// request.
func TestBufferPoolDropsGrownBuffers(t *testing.T) {
	f := newFixture(t)
	h := newHandler(t, f.bundle)
	big := &page{body: "<html><body>" + strings.Repeat("x", 3<<20) + "</body></html>"}
	for range 4 {
		if w := serve(t, h, big, "GET", "/big", nil); w.Body.Len() != len(big.body) {
			t.Fatalf("%d bytes served, want %d", w.Body.Len(), len(big.body))
		}
	}
	for range 8 {
		if b := bufPool.Get().(*bytes.Buffer); b.Cap() > maxPooledBuffer {
			t.Fatalf("the pool holds a buffer of %d bytes, over %d", b.Cap(), maxPooledBuffer)
		}
	}
}

// streamingUpstream writes an HTML head, flushes, and writes the rest only
// once release is closed (a report's progress page).
func streamingUpstream(release chan struct{}, hdr http.Header) caddyhttp.Handler {
	return caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		maps.Copy(w.Header(), hdr)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<html><body><p>working…</p>\n")
		if err := http.NewResponseController(w).Flush(); err != nil {
			return err
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		io.WriteString(w, "<p>done</p></body></html>")
		return nil
	})
}

// TestStreamingHTML: an HTML page the upstream flushes and then keeps
// open reaches the client, unchanged, once the upstream has been silent
// for streamIdle after a flush, or at once when it says Incremental: ?1;
// before the fix it was held to the end (the client timed out waiting
// for headers). A page whose upstream flushes between writes without
// pausing still gets blocks.
func TestStreamingHTML(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		name string
		idle time.Duration
		hdr  http.Header
	}{
		{"silent after a flush", 100 * time.Millisecond, nil},
		{"Incremental", time.Hour, http.Header{"Incremental": {"?1"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHandler(t, f.bundle)
			h.streamIdle = tt.idle
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if err := h.ServeHTTP(w, r, streamingUpstream(release, tt.hdr)); err != nil {
					t.Error(err)
				}
			}))
			defer srv.Close()
			c := &http.Client{Timeout: 10 * time.Second}
			resp, err := c.Get(srv.URL + "/report")
			if err != nil {
				close(release)
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			line, err := br.ReadString('\n')
			close(release) // only now: the first line came while the upstream waited
			if err != nil || line != "<html><body><p>working…</p>\n" {
				t.Fatalf("first line %q, %v", line, err)
			}
			rest, _ := io.ReadAll(br)
			if string(rest) != "<p>done</p></body></html>" {
				t.Fatalf("rest %q: want the upstream's bytes unchanged", rest)
			}
		})
	}
	t.Run("flushes between writes", func(t *testing.T) {
		h := newHandler(t, f.bundle)
		h.streamIdle = time.Hour
		w := serve(t, h, &page{body: html, flushes: 3}, "GET", "/a", nil)
		if !hasComments(w.Body.Bytes()) {
			t.Fatal("a page flushed between writes got no blocks")
		}
	})
}
