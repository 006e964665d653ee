package recover_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/contentcoding/codingtest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// hostileAt is when the hostile copy of the root page was captured: a
// day after the site's pages, so recovery asks for it first (the newest
// root capture may hold the newest manifest).
var (
	siteAt    = time.Unix(1795258800, 0)
	hostileAt = siteAt.Add(24 * time.Hour)
)

// hostileArchive serves the injected site through archivetest, plus a
// newer capture of the root page whose replay serve answers instead.
func hostileArchive(t *testing.T, site string, serve http.HandlerFunc) string {
	t.Helper()
	caps := append(sitetest.CapturesOf(t, site, siteAt), archivetest.Capture{URL: "https://example.org/", Time: hostileAt, Body: []byte("hostile")})
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	hostile := "/web/" + hostileAt.UTC().Format("20060102150405") + "id_/https://example.org/"
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI == hostile {
			serve(w, r)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// recoverFrom recovers the injected site from a CDX server at base and
// checks every server file, returning the peak live heap during the run.
func recoverFrom(t *testing.T, site string, owner []byte, base string) uint64 {
	t.Helper()
	out := t.TempDir()
	peak := heapPeak(t)
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out, SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{source.CDXSource{Base: base, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 6000})}}})
	heap := peak()
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	sameFiles(t, filepath.Join(filepath.Dir(site), "src"), out)
	return heap
}

// countingWriter counts the bytes a handler got written.
type countingWriter struct {
	w http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// TestHugePageFromArchive: the newest capture of the root page is a
// 100 MB HTML page. Expected: recovery reads at most its capture bound
// of it (DefaultMaxCapture, 32 MiB) and drops the rest unread, so the
// archive sends far less than 100 MB and the live heap stays bounded,
// then rebuilds the site from the other captures.
func TestHugePageFromArchive(t *testing.T) {
	site, owner := sitetest.Injected(t)
	const size = 100 << 20
	var sent atomic.Int64
	base := hostileArchive(t, site, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(size))
		line := []byte(strings.Repeat("<p>lorem ipsum dolor sit amet</p>", 31) + "\n") // 1 KiB
		cw := countingWriter{w, &sent}
		for i := 0; i < size/len(line); i++ {
			if _, err := cw.Write(line); err != nil {
				return
			}
		}
		cw.Write(line[:size%len(line)])
	})
	heap := recoverFrom(t, site, owner, base)
	t.Logf("100 MiB page: %d MiB sent before the client stopped reading, peak heap %d MiB", sent.Load()>>20, heap>>20)
	if sent.Load() > 64<<20 {
		t.Errorf("the archive sent %d MiB of a 100 MiB page: not bounded", sent.Load()>>20)
	}
	if heap > 160<<20 {
		t.Errorf("peak heap %d MiB for a page read to 32 MiB", heap>>20)
	}
}

// bombSize is what the gzip bombs inflate to: 8 times the capture bound.
const bombSize = 256 << 20

// bomb is bombSize bytes of 'a' in coding (gzip: about 1/1000 of it;
// br and zstd: far less), streamed through a 1 MiB buffer.
func bomb(t *testing.T, coding string) []byte {
	t.Helper()
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	b, err := codingtest.Stream(coding, func(w io.Writer) error {
		for range bombSize / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// bombCodings are the codings a crawler may have been answered in.
var bombCodings = []string{"gzip", "br", "zstd"}

// TestBombHTTP: the newest capture of the root page is answered with a
// Content-Encoding whose body inflates to 256 MiB (gzip 256 KiB, br and
// zstd a few KiB). Expected: the client inflates at most the capture
// bound, the live heap stays bounded and the site is rebuilt from the
// other captures.
func TestBombHTTP(t *testing.T) {
	site, owner := sitetest.Injected(t)
	for _, coding := range bombCodings {
		t.Run(coding, func(t *testing.T) {
			body := bomb(t, coding)
			base := hostileArchive(t, site, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.Header().Set("Content-Encoding", coding)
				w.Write(body)
			})
			heap := recoverFrom(t, site, owner, base)
			t.Logf("%s bomb over HTTP: %d KiB → %d MiB, peak heap %d MiB", coding, len(body)>>10, bombSize>>20, heap>>20)
			if heap > 200<<20 {
				t.Errorf("peak heap %d MiB for a bomb that must be read to 32 MiB at most", heap>>20)
			}
		})
	}
}

// warcOfSite writes the injected site's pages as WARC response records
// (one gzip member each when gz) to w.
func warcOfSite(t *testing.T, w io.Writer, site string, gz bool) {
	t.Helper()
	ww := warc.NewWriter(w, gz)
	for _, c := range sitetest.CapturesOf(t, site, siteAt) {
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(c.Body), c.Body)
		if err := ww.WriteResponse(c.URL, c.Time, []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
}

// recoverWARC recovers the injected site from the WARC files in dir and
// checks every server file; it returns the report and the peak heap.
func recoverWARC(t *testing.T, site string, owner []byte, dir string) (*lzrecover.Report, uint64) {
	t.Helper()
	out := t.TempDir()
	peak := heapPeak(t)
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out,
		Sources: []lzrecover.Source{source.WARCSource{Path: dir}}})
	heap := peak()
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	sameFiles(t, filepath.Join(filepath.Dir(site), "src"), out)
	return rep, heap
}

// hostileRecord is a WARC response record of the root page captured at
// hostileAt whose header says Content-Length: length, and whose block is
// block.
func hostileRecord(length int64, block string) string {
	return fmt.Sprintf("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.org/\r\nWARC-Date: %s\r\n"+
		"WARC-Record-ID: <urn:uuid:%s>\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n",
		hostileAt.UTC().Format(time.RFC3339), "00000000-0000-4000-8000-000000000001", length, block)
}

// TestWARCLyingContentLength: a WARC file whose first record claims 100
// bytes of a 20 kB block (the rest is junk before the next record) and
// whose last claims 1 GiB, far past the end of the file. Expected: both
// are skipped past (the first's junk up to the next record, the last
// read to the end of the file), no 1 GiB is ever allocated, and every
// intact record between them is used: the site is rebuilt.
func TestWARCLyingContentLength(t *testing.T) {
	site, owner := sitetest.Injected(t)
	page := strings.Repeat("<p>"+strings.Repeat("x", 96)+"</p>\n", 200) // 20 kB
	block := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>" + page + "</body></html>"
	var buf bytes.Buffer
	buf.WriteString(hostileRecord(100, block))
	warcOfSite(t, &buf, site, false)
	buf.WriteString(hostileRecord(1<<30, block))
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lying.warc"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, heap := recoverWARC(t, site, owner, dir)
	t.Logf("lying Content-Length: %d KiB file, peak heap %d MiB; problems: %q", buf.Len()>>10, heap>>20, rep.Problems)
	if heap > 64<<20 {
		t.Errorf("peak heap %d MiB for a %d KiB file", heap>>20, buf.Len()>>10)
	}
}

// TestBombWARC: a WARC record, one gzip member of 256 KiB, inflates to
// a 256 MiB page before the site's intact records; then records whose
// HTTP body is a br or zstd bomb of 256 MiB. Expected: each page is read
// to the capture bound at most, the live heap stays bounded, and the
// site is rebuilt from the records after it.
func TestBombWARC(t *testing.T) {
	site, owner := sitetest.Injected(t)
	t.Run("gzip member", func(t *testing.T) {
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, "bomb.warc.gz"))
		if err != nil {
			t.Fatal(err)
		}
		http := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
		head := hostileRecord(int64(len(http))+bombSize, http)
		head = head[:len(head)-4] // the block and its separator follow
		gz, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
		io.WriteString(gz, head)
		chunk := bytes.Repeat([]byte("a"), 1<<20)
		for range bombSize / len(chunk) {
			gz.Write(chunk) // 256 MiB through one 1 MiB buffer, never held whole
		}
		io.WriteString(gz, "\r\n\r\n")
		gz.Close()
		warcOfSite(t, f, site, true)
		size, _ := f.Seek(0, io.SeekCurrent)
		f.Close()
		rep, heap := recoverWARC(t, site, owner, dir)
		t.Logf("gzip bomb in a WARC: %d KiB file, one record inflating to %d MiB; peak heap %d MiB; problems %q", size>>10, bombSize>>20, heap>>20, rep.Problems)
		if heap > 200<<20 {
			t.Errorf("peak heap %d MiB for a record that must be read to 32 MiB at most", heap>>20)
		}
	})
	for _, coding := range bombCodings[1:] {
		t.Run(coding+" body", func(t *testing.T) {
			dir := t.TempDir()
			body := bomb(t, coding)
			var b bytes.Buffer
			msg := "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: " + coding + "\r\n\r\n" + string(body)
			b.WriteString(hostileRecord(int64(len(msg)), msg))
			warcOfSite(t, &b, site, false)
			if err := os.WriteFile(filepath.Join(dir, "bomb.warc"), b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, heap := recoverWARC(t, site, owner, dir)
			t.Logf("%s bomb in a WARC: %d KiB record inflating to %d MiB; peak heap %d MiB; problems %q", coding, len(body)>>10, bombSize>>20, heap>>20, rep.Problems)
			if heap > 200<<20 {
				t.Errorf("peak heap %d MiB for a record that must be read to 32 MiB at most", heap>>20)
			}
		})
	}
}
