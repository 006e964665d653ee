package caddymodule

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/encode/brotli"
	"github.com/klauspost/compress/zstd"
)

// get sends one request with headers and returns the response with its
// body read (decoded for gzip and zstd).
func get(t *testing.T, method, url string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r io.Reader = resp.Body
	switch resp.Header.Get("Content-Encoding") {
	case "gzip":
		if r, err = gzip.NewReader(resp.Body); err != nil {
			t.Fatal(err)
		}
	case "zstd":
		d, err := zstd.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		r = d
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestCaddyHTTP runs encode zstd gzip → lazarus → file_server (with .gz
// and .br sidecars) in-process and checks each HTTP rule on the wire.
func TestCaddyHTTP(t *testing.T) {
	f := newFixture(t, "/", "/a.html")
	site := t.TempDir()
	for _, name := range []string{"index.html", "a.html"} {
		writeFile(t, filepath.Join(site, name), []byte(html))
		writeFile(t, filepath.Join(site, name+".br"), []byte("a brotli sidecar the module must never see"))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte("<html><body>the gzip sidecar</body></html>"))
		zw.Close()
		writeFile(t, filepath.Join(site, name+".gz"), gz.Bytes())
	}
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "encode", "encodings": {"zstd": {}, "gzip": {}}, "prefer": ["zstd", "gzip"], "minimum_length": 1},
		{"handler": "lazarus", "bundle": %q},
		{"handler": "file_server", "root": %q, "precompressed": {"br": {}, "gzip": {}}, "precompressed_order": ["br", "gzip"]}`, f.bundle, site))
	base := "http://" + addr
	_, identity := get(t, "GET", base+"/a.html", nil)
	if !hasComments(identity) || !bytes.HasPrefix(identity, []byte("<html><body><p>hello</p>")) {
		t.Fatalf("identity body: %.80q", identity)
	}
	t.Run("encodings", func(t *testing.T) {
		// Expected: whatever the client accepts, the decoded body is the
		// identity page with blocks, never a sidecar.
		for _, enc := range []string{"zstd", "gzip", "br, gzip", "br"} {
			resp, body := get(t, "GET", base+"/a.html", map[string]string{"Accept-Encoding": enc})
			if !bytes.Equal(body, identity) {
				t.Fatalf("Accept-Encoding %q (got %q): body differs from the identity page", enc, resp.Header.Get("Content-Encoding"))
			}
		}
	})
	t.Run("range", func(t *testing.T) {
		// Expected: the full 200, never a range of the body without blocks.
		resp, body := get(t, "GET", base+"/a.html", map[string]string{"Range": "bytes=0-9"})
		if resp.StatusCode != 200 || !bytes.Equal(body, identity) || resp.Header.Get("Accept-Ranges") != "none" {
			t.Fatalf("status %d, %d bytes, Accept-Ranges %q", resp.StatusCode, len(body), resp.Header.Get("Accept-Ranges"))
		}
	})
	t.Run("conditional and HEAD", func(t *testing.T) {
		resp, _ := get(t, "GET", base+"/a.html", nil)
		etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		if r, _ := get(t, "GET", base+"/a.html", map[string]string{"If-None-Match": etag}); r.StatusCode != 304 {
			t.Fatalf("If-None-Match: %d", r.StatusCode)
		}
		if r, _ := get(t, "GET", base+"/a.html", map[string]string{"If-Modified-Since": lm}); r.StatusCode != 304 {
			t.Fatalf("If-Modified-Since: %d", r.StatusCode)
		}
		if r, _ := get(t, "GET", base+"/a.html", map[string]string{"If-None-Match": `"lz-other"`}); r.StatusCode != 200 {
			t.Fatalf("other ETag: %d", r.StatusCode)
		}
		head, body := get(t, "HEAD", base+"/a.html", nil)
		if len(body) != 0 || head.Header.Get("ETag") != etag || head.ContentLength != int64(len(identity)) {
			t.Fatalf("HEAD: %d body bytes, ETag %q, length %d; want 0, %q, %d", len(body), head.Header.Get("ETag"), head.ContentLength, etag, len(identity))
		}
	})
}

// TestCaddySSE: a streaming event source behind reverse_proxy passes
// through with its flushes: the first event arrives while the upstream is
// still holding the response open.
func TestCaddySSE(t *testing.T) {
	f := newFixture(t)
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: first\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "data: last\n\n")
	}))
	defer up.Close()
	defer close(release)
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, strings.TrimPrefix(up.URL, "http://")))
	resp, err := http.Get("http://" + addr + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: first\n" {
		t.Fatalf("first event: %q, %v", line, err)
	}
}

// TestCaddySelfBuilding: with build options, Caddy starts without
// building (the dump below waits for a file the test creates later), pages
// pass through untouched until the background build is done, then carry
// blocks.
func TestCaddySelfBuilding(t *testing.T) {
	f := newBuildFixture(t)
	gate := filepath.Join(t.TempDir(), "go")
	f.build.Dumps[0].Command = fmt.Sprintf("while [ ! -e %s ]; do sleep 0.02; done; cat %s", gate, filepath.Join(f.src, "db.sql"))
	site := t.TempDir()
	writeFile(t, filepath.Join(site, "index.html"), []byte(html))
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "name": "site", "reload_interval": "50ms", "build": {
		"sources": [{"path": %q}], "dumps": [{"name": "db", "command": %q}], "key": %q, "site_url": "https://example.org/"}},
		{"handler": "file_server", "root": %q}`, f.build.Sources[0].Path, f.build.Dumps[0].Command, f.build.Key, site))
	// Expected: caddy.Load returned while the build waits on the gate.
	if _, body := get(t, "GET", "http://"+addr+"/", nil); hasComments(body) {
		t.Fatal("blocks before the build could have finished: Provision built")
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, body := get(t, "GET", "http://"+addr+"/", nil); hasComments(body) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no blocks 30 s after the build could start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runCaddyRoute loads a one-route config of the given handlers on a free
// loopback address with storage in a temp dir, and returns the address.
func runCaddyRoute(t *testing.T, handlers string) string {
	t.Helper()
	addr := freeAddr(t)
	cfg := fmt.Sprintf(`{"admin": {"disabled": true, "config": {"persist": false}}, "logging": {"logs": {"default": {"level": "ERROR"}}},
	"storage": {"module": "file_system", "root": %q},
	"apps": {"http": {"servers": {"t": {"listen": [%q], "automatic_https": {"disable": true},
	"routes": [{"handle": [%s]}]}}}}}`, t.TempDir(), addr, handlers)
	if err := caddy.Load([]byte(cfg), true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { caddy.Stop() })
	return addr
}
