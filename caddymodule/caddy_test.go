package caddymodule

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/caddyserver/caddy/v2/modules/caddyhttp/reverseproxy"
	_ "github.com/caddyserver/caddy/v2/modules/filestorage"
)

// TestCaddyEndToEnd runs Caddy in-process with encode gzip, lazarus and
// file_server on 127.0.0.1, fetches the pages with and without gzip and
// recovers the backup from them.
func TestCaddyEndToEnd(t *testing.T) {
	urls := []string{"/", "/a.html", "/b.html", "/c.html"}
	f := newFixture(t, urls...)
	site := t.TempDir()
	for _, u := range urls[1:] {
		writeFile(t, filepath.Join(site, u), []byte(html))
	}
	writeFile(t, filepath.Join(site, "index.html"), []byte(html))
	addr := runCaddy(t, f.bundle, fmt.Sprintf(`{"handler": "file_server", "root": %q}`, site))
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	pages := map[string][]byte{}
	for _, u := range urls {
		plain := fetch(t, client, "http://"+addr+u, "")
		zipped := fetch(t, client, "http://"+addr+u, "gzip")
		if !bytes.Equal(plain, zipped) || !hasComments(plain) {
			t.Fatalf("%s: gzip and identity bodies differ or carry no blocks", u)
		}
		pages[u] = plain
	}
	checkRecover(t, f, pages)
}

// fetch GETs url and returns the decoded body; with enc it asks for and
// requires that Content-Encoding.
func fetch(t *testing.T, c *http.Client, url, enc string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if enc != "" {
		req.Header.Set("Accept-Encoding", enc)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != enc {
		t.Fatalf("%s: status %d, encoding %q", url, resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	var r io.Reader = resp.Body
	if enc == "gzip" {
		if r, err = gzip.NewReader(resp.Body); err != nil {
			t.Fatal(err)
		}
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// runCaddy loads a one-route config (encode gzip → lazarus → handler) on
// a free loopback address and returns the address.
func runCaddy(t *testing.T, bundle, handler string) string {
	t.Helper()
	return runCaddyRoute(t, fmt.Sprintf(`{"handler": "encode", "encodings": {"gzip": {}}, "minimum_length": 1},
		{"handler": "lazarus", "bundle": %q}, %s`, bundle, handler))
}

// TestPrecompressedSidecars: file_server with precompressed .gz files
// would hand out the sidecar to a client accepting gzip; Lazarus asks for
// the identity file instead, so the page still gets its blocks (and encode
// compresses the result).
func TestPrecompressedSidecars(t *testing.T) {
	f := newFixture(t, "/", "/a.html")
	site := t.TempDir()
	for _, name := range []string{"index.html", "a.html"} {
		writeFile(t, filepath.Join(site, name), []byte(html))
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write([]byte(html))
		zw.Close()
		writeFile(t, filepath.Join(site, name+".gz"), gz.Bytes())
	}
	addr := runCaddy(t, f.bundle, fmt.Sprintf(`{"handler": "file_server", "root": %q, "precompressed": {"gzip": {}}, "precompressed_order": ["gzip"]}`, site))
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, u := range []string{"/", "/a.html"} {
		if body := fetch(t, client, "http://"+addr+u, "gzip"); !hasComments(body) {
			t.Fatalf("%s: the precompressed sidecar was served without blocks", u)
		}
	}
}

// TestReverseProxyGzipUpstream: an upstream that gzips whenever it may is
// asked for identity bytes, so proxied pages get their blocks too.
func TestReverseProxyGzipUpstream(t *testing.T) {
	f := newFixture(t, "/", "/a.html")
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			zw.Write([]byte(html))
			zw.Close()
			return
		}
		io.WriteString(w, html)
	}))
	defer up.Close()
	addr := runCaddy(t, f.bundle, fmt.Sprintf(`{"handler": "reverse_proxy", "upstreams": [{"dial": %q}]}`, strings.TrimPrefix(up.URL, "http://")))
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	if body := fetch(t, client, "http://"+addr+"/a.html", "gzip"); !hasComments(body) {
		t.Fatal("proxied page carries no blocks")
	}
	if body := fetch(t, client, "http://"+addr+"/a.html", ""); !hasComments(body) {
		t.Fatal("proxied page (identity) carries no blocks")
	}
}
