package recover_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// encodedWARC writes the injected site's pages into dir/crawl.warc.gz as
// a crawler stores what a server answered in codings: the encoded body
// under "Content-Encoding: codings".
func encodedWARC(t *testing.T, site, dir string, codings ...string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "crawl.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := warc.NewWriter(f, true)
	for _, c := range sitetest.CapturesOf(t, site, siteAt) {
		body := c.Body
		if codings[0] != "xz" {
			body = codingtest.MustEncode(t, c.Body, codings...)
		} else {
			body = append([]byte("\xfd7zXZ\x00"), body...) // no encoder: only its name and magic
		}
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: %s\r\nContent-Length: %d\r\n\r\n%s",
			strings.Join(codings, ", "), len(body), body)
		if err := w.WriteResponse(c.URL, c.Time, []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecoverFromEncodedCrawl: a site served with Caddy's `encode zstd
// gzip` to a crawler asking for "gzip, deflate, zstd" is archived in
// zstd; browsers' crawls get br; a proxy may stack codings. Expected:
// every server file rebuilt from such a WARC, byte for byte.
func TestRecoverFromEncodedCrawl(t *testing.T) {
	site, owner := sitetest.Injected(t)
	for _, codings := range [][]string{{"zstd"}, {"br"}, {"gzip", "zstd"}, {"deflate"}} {
		t.Run(strings.Join(codings, ","), func(t *testing.T) {
			dir := t.TempDir()
			encodedWARC(t, site, dir, codings...)
			rep, _ := recoverWARC(t, site, owner, dir)
			if rep.Pages == 0 {
				t.Fatal("no page scanned")
			}
		})
	}
}

// TestUnreadableCodingIsReported: a crawl whose every page is in a
// coding nothing here can undo. Expected: not "the sources hold no
// captures", but each capture named with the coding it is in.
func TestUnreadableCodingIsReported(t *testing.T) {
	site, owner := sitetest.Injected(t)
	dir := t.TempDir()
	encodedWARC(t, site, dir, "xz")
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: t.TempDir(),
		Sources: []lzrecover.Source{source.WARCSource{Path: dir}}})
	if !errors.Is(err, lzrecover.ErrNothingFound) || !strings.Contains(err.Error(), `encoded with "xz", which cannot be read`) {
		t.Fatalf("err %v", err)
	}
	problems := strings.Join(rep.Problems, "\n")
	if n := strings.Count(problems, `is encoded with "xz", which cannot be read`); n != 12 || !strings.Contains(problems, "capture https://example.org/p3.html of 2026-") {
		t.Fatalf("%d captures named, problems:\n%s", n, problems)
	}
}

// encodingArchive serves the injected site through archivetest, its raw
// (id_) replays answered as serve says from the stored bytes.
func encodingArchive(t *testing.T, site string, serve func(w http.ResponseWriter, body []byte)) string {
	t.Helper()
	srv, err := archivetest.New(sitetest.CapturesOf(t, site, siteAt), archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		resp, err := http.Get(srv.URL + r.RequestURI)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for k, v := range resp.Header {
			if k != "Content-Length" {
				w.Header()[k] = v
			}
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(r.RequestURI, "id_/") {
			w.WriteHeader(resp.StatusCode)
			w.Write(body)
			return
		}
		serve(w, body)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// TestRecoverFromEncodedReplay: a Wayback replay serves the original
// response's coding (id_: the stored bytes and Content-Encoding), or
// keeps its chunked framing inside its own. Expected: every server file
// rebuilt, byte for byte.
func TestRecoverFromEncodedReplay(t *testing.T) {
	site, owner := sitetest.Injected(t)
	for name, serve := range map[string]func(w http.ResponseWriter, body []byte){
		"zstd": func(w http.ResponseWriter, body []byte) {
			w.Header().Set("Content-Encoding", "zstd")
			w.Write(codingtest.MustEncode(t, body, "zstd"))
		},
		"br under the original's header only": func(w http.ResponseWriter, body []byte) {
			w.Header().Set("X-Archive-Orig-Content-Encoding", "br")
			w.Write(codingtest.MustEncode(t, body, "br"))
		},
		"stacked": func(w http.ResponseWriter, body []byte) {
			w.Header().Set("Content-Encoding", "br, gzip")
			w.Write(codingtest.MustEncode(t, body, "br", "gzip"))
		},
		"double-chunked": func(w http.ResponseWriter, body []byte) {
			w.Header().Set("Transfer-Encoding", "chunked")
			w.Write(chunked(body, 1000)) // framed again by the server
		},
		"chunked inside Content-Length": func(w http.ResponseWriter, body []byte) {
			w.Header().Set("X-Archive-Orig-Transfer-Encoding", "chunked")
			framed := chunked(codingtest.MustEncode(t, body, "zstd"), 700)
			w.Header().Set("X-Archive-Orig-Content-Encoding", "zstd")
			w.Header().Set("Content-Length", fmt.Sprint(len(framed)))
			w.Write(framed)
		},
	} {
		t.Run(name, func(t *testing.T) {
			recoverFrom(t, site, owner, encodingArchive(t, site, serve))
		})
	}
}

// TestUnreadableReplayIsReported: a replay in a coding nothing here can
// undo. Expected: the fetch fails naming the coding, and recovery says
// so rather than "none holds a Lazarus block".
func TestUnreadableReplayIsReported(t *testing.T) {
	site, owner := sitetest.Injected(t)
	base := encodingArchive(t, site, func(w http.ResponseWriter, body []byte) {
		w.Header().Set("Content-Encoding", "xz")
		w.Write(append([]byte("\xfd7zXZ\x00"), body...))
	})
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: t.TempDir(), SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{source.CDXSource{Base: base, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 6000})}}})
	if !errors.Is(err, lzrecover.ErrNothingFound) || !strings.Contains(err.Error(), `encoded with "xz", which cannot be read`) {
		t.Fatalf("err %v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
}

// TestRecoverFromCompressedMirror: a mirror whose files were saved
// compressed (a crawl tool keeping what the server sent, a copy made
// with zstd -r). Expected: the magic numbers say so; every server file
// rebuilt.
func TestRecoverFromCompressedMirror(t *testing.T) {
	site, owner := sitetest.Injected(t)
	mirror := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	for i, f := range files {
		b, _ := os.ReadFile(f)
		coding := []string{"gzip", "zstd"}[i%2]
		sitetest.WriteFile(t, mirror, filepath.Base(f), codingtest.MustEncode(t, b, coding))
	}
	out := t.TempDir()
	rep, err := sitetest.RecoverDir(mirror, lzrecover.Options{OwnerKey: owner, Out: out})
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	sameFiles(t, filepath.Join(filepath.Dir(site), "src"), out)
}

// chunked frames b in HTTP/1.1 chunks of at most n bytes.
func chunked(b []byte, n int) []byte {
	var out strings.Builder
	for len(b) > 0 {
		c := b[:min(n, len(b))]
		fmt.Fprintf(&out, "%x\r\n%s\r\n", len(c), c)
		b = b[len(c):]
	}
	out.WriteString("0\r\n\r\n")
	return []byte(out.String())
}
