package caddymodule

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
		{"handler": "lazarus", "bundle": %q, "fill": true},
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
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
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
	return runCaddyRouteOn(t, t.TempDir(), handlers)
}

// runCaddyRouteOn is runCaddyRoute with Caddy's storage in the directory
// storage.
func runCaddyRouteOn(t *testing.T, storage, handlers string) string {
	t.Helper()
	addr := freeAddr(t)
	cfg := fmt.Sprintf(`{"admin": {"disabled": true, "config": {"persist": false}}, "logging": {"logs": {"default": {"level": "ERROR"}}},
	"storage": {"module": "file_system", "root": %q},
	"apps": {"http": {"servers": {"t": {"listen": [%q], "automatic_https": {"disable": true},
	"routes": [{"handle": [%s]}]}}}}}`, storage, addr, handlers)
	if err := caddy.Load([]byte(cfg), true); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { caddy.Stop() })
	return addr
}

// servedFile is a file an upstream serves with http.ServeContent, as
// file_server does: ETag, Last-Modified, Range, conditionals and HEAD.
type servedFile struct {
	body  []byte
	ctype string
	etag  string
}

// contentUpstream is an upstream serving files with http.ServeContent,
// recording the method of every request it gets.
func contentUpstream(t *testing.T, files map[string]servedFile) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var methods []string
	mod := genTime.Add(-24 * time.Hour)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		methods = append(methods, r.Method+" "+r.URL.Path)
		mu.Unlock()
		f, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", f.ctype)
		w.Header().Set("ETag", f.etag)
		http.ServeContent(w, r, r.URL.Path, mod, bytes.NewReader(f.body))
	}))
	t.Cleanup(up.Close)
	return up, func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := methods
		methods = nil
		return out
	}
}

// TestCaddyUnchangedKeepsHTTP: through reverse_proxy, responses the module
// does not change (here a 10 MiB file) keep Range, conditionals and HEAD
// exactly as the upstream serves them; pages it changes are answered for
// the final bytes, whatever the upstream made of the request.
func TestCaddyUnchangedKeepsHTTP(t *testing.T) {
	f := newFixture(t, "/", "/a.html")
	big := make([]byte, 10<<20)
	rand.Read(big)
	up, methods := contentUpstream(t, map[string]servedFile{
		"/big.bin": {big, "application/octet-stream", `"big-1"`},
		"/a.html":  {[]byte(html), "text/html; charset=utf-8", `"a-1"`},
		"/b.html":  {[]byte(html), "text/html; charset=utf-8", `"b-1"`},
		"/c.html":  {[]byte(html), "text/html; charset=utf-8", `"c-1"`},
		"/d.html":  {[]byte(html), "text/html; charset=utf-8", `"d-1"`},
		"/e.html":  {[]byte(html), "text/html; charset=utf-8", `"e-1"`},
		"/noarchive.html": {[]byte(`<html><head><meta name="robots" content="noarchive"></head><body>not archived</body></html>`),
			"text/html; charset=utf-8", `"n-1"`},
	})
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, strings.TrimPrefix(up.URL, "http://")))
	base := "http://" + addr
	full, _ := get(t, "GET", base+"/big.bin", nil)
	t.Run("Range on a file", func(t *testing.T) {
		// Expected: the upstream's 206 with the ten bytes asked for.
		resp, body := get(t, "GET", base+"/big.bin", map[string]string{"Range": "bytes=0-9"})
		if resp.StatusCode != 206 || !bytes.Equal(body, big[:10]) || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 0-9/%d", len(big)) {
			t.Fatalf("status %d, %d bytes, Content-Range %q", resp.StatusCode, len(body), resp.Header.Get("Content-Range"))
		}
	})
	t.Run("conditionals on a file", func(t *testing.T) {
		// Expected: the upstream's 304s.
		for _, hdr := range []map[string]string{{"If-None-Match": full.Header.Get("ETag")}, {"If-Modified-Since": full.Header.Get("Last-Modified")}} {
			if resp, body := get(t, "GET", base+"/big.bin", hdr); resp.StatusCode != 304 || len(body) != 0 {
				t.Fatalf("%v: status %d, %d bytes", hdr, resp.StatusCode, len(body))
			}
		}
	})
	t.Run("HEAD on a file", func(t *testing.T) {
		// Expected: the upstream gets a HEAD, never a GET for the body.
		methods()
		resp, _ := get(t, "HEAD", base+"/big.bin", nil)
		if got := methods(); resp.StatusCode != 200 || resp.ContentLength != int64(len(big)) || !slices.Equal(got, []string{"HEAD /big.bin"}) {
			t.Fatalf("status %d, length %d, upstream got %v", resp.StatusCode, resp.ContentLength, got)
		}
	})
	page, body := get(t, "GET", base+"/a.html", nil)
	if !hasComments(body) {
		t.Fatal("the page carries no blocks")
	}
	t.Run("Range on a page", func(t *testing.T) {
		// Expected: the full page with blocks, never a range of the page
		// without them.
		resp, got := get(t, "GET", base+"/a.html", map[string]string{"Range": "bytes=0-9"})
		if resp.StatusCode != 200 || !bytes.Equal(got, body) || resp.Header.Get("Accept-Ranges") != "none" {
			t.Fatalf("status %d, %d bytes, Accept-Ranges %q", resp.StatusCode, len(got), resp.Header.Get("Accept-Ranges"))
		}
	})
	t.Run("upstream validators on a page", func(t *testing.T) {
		// Expected: a client holding the page without blocks (the
		// upstream's ETag or date) gets the page with blocks, not the
		// upstream's 304; also for a page not served before.
		for _, path := range []string{"/a.html", "/b.html"} {
			for _, hdr := range []map[string]string{{"If-None-Match": `"` + path[1:2] + `-1"`}, {"If-Modified-Since": genTime.Add(-time.Hour).Format(http.TimeFormat)}} {
				if resp, got := get(t, "GET", base+path, hdr); resp.StatusCode != 200 || !hasComments(got) {
					t.Fatalf("%s %v: status %d, blocks %v", path, hdr, resp.StatusCode, hasComments(got))
				}
			}
		}
	})
	t.Run("our validators on a page", func(t *testing.T) {
		// Expected: 304 for the page's own ETag and Last-Modified.
		for _, hdr := range []map[string]string{{"If-None-Match": page.Header.Get("ETag")}, {"If-Modified-Since": page.Header.Get("Last-Modified")}} {
			if resp, _ := get(t, "GET", base+"/a.html", hdr); resp.StatusCode != 304 {
				t.Fatalf("%v: status %d", hdr, resp.StatusCode)
			}
		}
	})
	t.Run("HEAD on a page", func(t *testing.T) {
		// Expected: the GET's headers without a body; the upstream is asked
		// for the whole page, after a HEAD the first time.
		for _, path := range []string{"/a.html", "/c.html"} {
			want, wantBody := get(t, "GET", base+path, nil)
			resp, got := get(t, "HEAD", base+path, nil)
			if len(got) != 0 || resp.Header.Get("ETag") != want.Header.Get("ETag") || resp.ContentLength != int64(len(wantBody)) {
				t.Fatalf("HEAD %s: %d body bytes, ETag %q, length %d; want 0, %q, %d", path, len(got), resp.Header.Get("ETag"), resp.ContentLength, want.Header.Get("ETag"), len(wantBody))
			}
		}
		methods()
		get(t, "HEAD", base+"/d.html", nil)
		if got := methods(); !slices.Equal(got, []string{"HEAD /d.html", "GET /d.html"}) {
			t.Fatalf("a page not served before: upstream got %v", got)
		}
	})
	t.Run("Range on a page not served before", func(t *testing.T) {
		// Expected: the upstream's 206 is held, the whole page asked for.
		resp, got := get(t, "GET", base+"/e.html", map[string]string{"Range": "bytes=0-9"})
		if resp.StatusCode != 200 || !hasComments(got) || resp.Header.Get("Accept-Ranges") != "none" {
			t.Fatalf("status %d, %d bytes, Accept-Ranges %q", resp.StatusCode, len(got), resp.Header.Get("Accept-Ranges"))
		}
	})
	t.Run("a page that passes unchanged", func(t *testing.T) {
		// Expected: robots noarchive: the upstream's own 206 and 304.
		if resp, got := get(t, "GET", base+"/noarchive.html", map[string]string{"Range": "bytes=0-9"}); resp.StatusCode != 206 || len(got) != 10 {
			t.Fatalf("Range: status %d, %d bytes", resp.StatusCode, len(got))
		}
		if resp, _ := get(t, "GET", base+"/noarchive.html", map[string]string{"If-None-Match": `"n-1"`}); resp.StatusCode != 304 {
			t.Fatalf("If-None-Match: status %d", resp.StatusCode)
		}
	})
}

// placementRecords counts the page records under Caddy's storage dir.
func placementRecords(t *testing.T, storage string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(storage, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(filepath.Dir(p)) == "pages" {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCaddyJunkSpellings: file_server answers //post.html, /./post.html
// and /x/../post.html with /post.html; the module places them all as
// /post.html, so spellings cannot take placement records of their own.
// Before the fix: 15 distinct ETags for 20 spellings, each a record until
// the state was full.
func TestCaddyJunkSpellings(t *testing.T) {
	f := newFixture(t)
	site := t.TempDir()
	writeFile(t, filepath.Join(site, "post.html"), []byte(html))
	storage := t.TempDir()
	addr := runCaddyRouteOn(t, storage, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "file_server", "root": %q}`, f.bundle, site))
	etags := map[string]bool{}
	spellings := []string{"/./post.html", "/x/../post.html", "/a/b/../../post.html"}
	for i := 1; i <= 20; i++ {
		spellings = append(spellings, strings.Repeat("/", i)+"post.html")
	}
	for _, p := range spellings {
		resp, body := get(t, "GET", "http://"+addr+p, nil)
		if resp.StatusCode != 200 || !hasComments(body) {
			t.Fatalf("%s: status %d, blocks %v", p, resp.StatusCode, hasComments(body))
		}
		etags[resp.Header.Get("ETag")] = true
	}
	// Expected: one page, one ETag, one record.
	if n := placementRecords(t, storage); len(etags) != 1 || n != 1 {
		t.Fatalf("%d spellings of /post.html: %d ETags, %d placement records; want 1 and 1", len(spellings), len(etags), n)
	}
}

// TestCaddyOwnETagsOnFiles: a request carrying one of our ETags ("lz-…")
// for a file goes to the upstream as sent: HEAD stays HEAD, and the
// upstream judges If-Match and Range itself. Before the fix the module
// asked for the whole file with a GET: HEAD cost a 10 MiB transfer, and
// If-Match "big-1", "lz-0" with a Range got the whole 200.
func TestCaddyOwnETagsOnFiles(t *testing.T) {
	f := newFixture(t)
	big := make([]byte, 10<<20)
	rand.Read(big)
	up, methods := contentUpstream(t, map[string]servedFile{"/big.bin": {big, "application/octet-stream", `"big-1"`}})
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, strings.TrimPrefix(up.URL, "http://")))
	base := "http://" + addr + "/big.bin"
	tests := []struct {
		method string
		hdr    map[string]string
		// Expected: the upstream's own answer, from one request of the
		// client's method.
		status int
		body   int
	}{
		{"HEAD", map[string]string{"If-None-Match": `"lz-0"`}, 200, 0},
		{"HEAD", map[string]string{"Range": "bytes=0-9", "If-Range": `"lz-0"`}, 200, 0},
		{"GET", map[string]string{"If-Match": `"lz-0"`}, 412, 0},
		{"GET", map[string]string{"Range": "bytes=0-9", "If-Match": `"big-1", "lz-0"`}, 206, 10},
	}
	for _, tt := range tests {
		methods()
		resp, body := get(t, tt.method, base, tt.hdr)
		if got := methods(); resp.StatusCode != tt.status || len(body) != tt.body || !slices.Equal(got, []string{tt.method + " /big.bin"}) {
			t.Errorf("%s %v: status %d, %d bytes, upstream got %v", tt.method, tt.hdr, resp.StatusCode, len(body), got)
		}
	}
}

// TestCaddySidecarsOfFiles: precompressed sidecars of files the module
// does not change are served as without it (before the fix: the identity
// file, 56,000 bytes instead of the 14-byte br sidecar); a page still
// gets blocks, whatever the client accepts.
func TestCaddySidecarsOfFiles(t *testing.T) {
	f := newFixture(t, "/", "/a.html")
	site := t.TempDir()
	js := bytes.Repeat([]byte("console.log('hello world');\n"), 2000)
	writeFile(t, filepath.Join(site, "app.js"), js)
	writeFile(t, filepath.Join(site, "app.js.br"), []byte("pretend-brotli"))
	writeFile(t, filepath.Join(site, "a.html"), []byte(html))
	writeFile(t, filepath.Join(site, "a.html.br"), []byte("a brotli sidecar the module must never send"))
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true},
		{"handler": "file_server", "root": %q, "precompressed": {"br": {}}}`, f.bundle, site))
	for i := range 2 {
		// Expected: the br sidecar, the first time and after.
		resp, body := get(t, "GET", "http://"+addr+"/app.js", map[string]string{"Accept-Encoding": "br"})
		if resp.Header.Get("Content-Encoding") != "br" || string(body) != "pretend-brotli" {
			t.Fatalf("request %d: Content-Encoding %q, %d bytes", i, resp.Header.Get("Content-Encoding"), len(body))
		}
		// Expected: the page with blocks, identity.
		resp, body = get(t, "GET", "http://"+addr+"/a.html", map[string]string{"Accept-Encoding": "br"})
		if resp.Header.Get("Content-Encoding") != "" || !hasComments(body) {
			t.Fatalf("page, request %d: Content-Encoding %q, blocks %v", i, resp.Header.Get("Content-Encoding"), hasComments(body))
		}
	}
}

// TestCaddyMultiRange: a multi-range request for a page not served before
// gets the whole page with blocks (before the fix: the upstream's
// multipart/byteranges of the page without them); for a file, the
// upstream's multipart answer.
func TestCaddyMultiRange(t *testing.T) {
	f := newFixture(t, "/", "/a.html")
	big := make([]byte, 1<<20)
	rand.Read(big)
	up, _ := contentUpstream(t, map[string]servedFile{
		"/b.html":  {[]byte(html), "text/html; charset=utf-8", `"b-1"`},
		"/big.bin": {big, "application/octet-stream", `"big-1"`},
	})
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, strings.TrimPrefix(up.URL, "http://")))
	ranges := map[string]string{"Range": "bytes=0-4,10-14"}
	resp, body := get(t, "GET", "http://"+addr+"/b.html", ranges)
	if resp.StatusCode != 200 || !hasComments(body) || resp.Header.Get("Accept-Ranges") != "none" {
		t.Fatalf("page: status %d, %q, blocks %v", resp.StatusCode, resp.Header.Get("Content-Type"), hasComments(body))
	}
	resp, _ = get(t, "GET", "http://"+addr+"/big.bin", ranges)
	if mt := resp.Header.Get("Content-Type"); resp.StatusCode != 206 || !strings.HasPrefix(mt, "multipart/byteranges") {
		t.Fatalf("file: status %d, %q", resp.StatusCode, mt)
	}
}

// TestCaddyHeadOfUnchangedPage: a HEAD of an HTML page the module does not
// change (robots noarchive, or too large) costs the upstream one HEAD,
// not a HEAD and a GET each time (before the fix).
func TestCaddyHeadOfUnchangedPage(t *testing.T) {
	f := newFixture(t)
	up, methods := contentUpstream(t, map[string]servedFile{
		"/noarchive.html": {[]byte(`<html><head><meta name="robots" content="noarchive"></head><body>not archived</body></html>`), "text/html; charset=utf-8", `"n-1"`},
		"/large.html":     {[]byte("<html><body>" + strings.Repeat("x", 2<<20) + "</body></html>"), "text/html; charset=utf-8", `"l-1"`},
	})
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, strings.TrimPrefix(up.URL, "http://")))
	for _, p := range []string{"/noarchive.html", "/large.html"} {
		get(t, "GET", "http://"+addr+p, nil)
		for range 2 {
			methods()
			resp, _ := get(t, "HEAD", "http://"+addr+p, nil)
			if got := methods(); resp.StatusCode != 200 || !slices.Equal(got, []string{"HEAD " + p}) {
				t.Fatalf("HEAD %s: status %d, upstream got %v", p, resp.StatusCode, got)
			}
		}
	}
}

// TestCaddyTrailers: the upstream's trailers (a checksum of its body) are
// dropped from a page the module changes, never turned into headers
// (before the fix: X-Checksum became a header), and stay trailers on a
// held page that goes on unchanged.
func TestCaddyTrailers(t *testing.T) {
	f := newFixture(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Trailer", "X-Checksum")
		if r.URL.Path == "/noarchive" {
			io.WriteString(w, `<html><head><meta name="robots" content="noarchive"></head><body></body></html>`)
		} else {
			io.WriteString(w, html)
		}
		w.Header().Set("X-Checksum", "abc")
	}))
	defer up.Close()
	addr := runCaddyRoute(t, fmt.Sprintf(`{"handler": "lazarus", "bundle": %q, "fill": true}, {"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`,
		f.bundle, strings.TrimPrefix(up.URL, "http://")))
	for _, tt := range []struct {
		path    string
		blocks  bool
		trailer string
	}{{"/a", true, ""}, {"/noarchive", false, "abc"}} {
		resp, err := http.Get("http://" + addr + tt.path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if hasComments(b) != tt.blocks || resp.Header.Get("X-Checksum") != "" || resp.Header.Get("Trailer") != "" && tt.blocks ||
			resp.Trailer.Get("X-Checksum") != tt.trailer {
			t.Errorf("%s: blocks %v, header X-Checksum %q, Trailer %q, trailer %v", tt.path, hasComments(b),
				resp.Header.Get("X-Checksum"), resp.Header.Get("Trailer"), resp.Trailer)
		}
	}
}
