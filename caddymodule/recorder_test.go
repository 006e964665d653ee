package caddymodule

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestCaddyUnknownLengthStaysBounded: reverse_proxy relays 64 MiB of HTML
// without Content-Length; the module holds at most max_buffer (4 MiB) of
// it and streams the rest, so when the upstream has written its last byte
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
// maxPooledBuffer (a 3 MiB page: buffered, too large for blocks) is left
// to the garbage collector, not kept in the pool for the next request.
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
