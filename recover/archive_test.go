package recover_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/warc"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// archiveOf serves an injected site's pages from a local archive: every
// page captured once, an hour after injection.
func archiveOf(t *testing.T, site string, cfg archivetest.Config) *archivetest.Server {
	t.Helper()
	caps := sitetest.CapturesOf(t, site, time.Unix(1795258800, 0))
	srv, err := archivetest.New(caps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// TestFromArchives: the same site rebuilt through a Wayback-style CDX
// server and through Memento TimeMaps, on loopback.
func TestFromArchives(t *testing.T) {
	site, owner := sitetest.Injected(t)
	srv := archiveOf(t, site, archivetest.Config{TimeMapPageSize: 1, CCPageSize: 2}) // paged TimeMaps and CC index
	client := lzrecover.NewClient(lzrecover.ClientOptions{Rate: 6000})
	for name, src := range map[string]lzrecover.Source{
		"cdx":         source.CDXSource{Base: srv.URL, Client: client},
		"memento":     source.MementoSource{TimeMapBase: srv.URL + "/timemap/link/", Client: client},
		"commoncrawl": source.CommonCrawlSource{IndexBase: srv.URL, DataBase: srv.URL, Client: client},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
				OwnerKey: owner, Out: out, SiteURL: "https://example.org/", Sources: []lzrecover.Source{src}})
			if err != nil {
				t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
			}
			if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
				t.Fatalf("app.conf %q %v", b, err)
			}
		})
	}
}

// TestPoliteUnderFaults: with throttling answers and dropped connections
// the recovery still completes, and the configured rate is never exceeded.
func TestPoliteUnderFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out Retry-After")
	}
	site, owner := sitetest.Injected(t)
	srv := archiveOf(t, site, archivetest.Config{Faults: archivetest.Faults{Throttle: 0.15, Unavailable: 0.05, Reset: 0.1, RetryAfter: time.Second, Seed: 7}})
	const perMinute = 600
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{
		OwnerKey: owner, Out: t.TempDir(), SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{source.CDXSource{Base: srv.URL, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: perMinute})}}})
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	if got := srv.MaxRequestsIn(time.Second); got > perMinute/60 {
		t.Fatalf("%d requests within one second, limit %d", got, perMinute/60)
	}
	faults := map[string]int{}
	for _, r := range srv.Requests() {
		faults[r.Fault]++
	}
	if faults["429"] == 0 || faults["reset"]+faults["503"] == 0 {
		t.Fatalf("faults injected: %v; the test needs some to prove anything", faults)
	}
	t.Logf("requests by fault: %v", faults)
}

// TestFromWARC: pages captured into a WARC (one gzip member per record,
// as wget and Heritrix write them), one record truncated, rebuild the
// server side.
func TestFromWARC(t *testing.T) {
	site, owner := sitetest.Injected(t)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "crawl.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	for i, p := range files {
		body, _ := os.ReadFile(p)
		if i == 3 {
			body = body[:len(body)/2] // a capture cut short: its intact blocks still count
		}
		resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		if err := w.WriteResponse("https://example.org/"+filepath.Base(p), time.Unix(1795258800, 0), []byte(resp)); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	out := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out,
		Sources: []lzrecover.Source{source.WARCSource{Path: dir}}})
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
		t.Fatalf("app.conf %q %v", b, err)
	}
}

// TestRecoverFetchesEachDigestOnce: recovery fetches a source's captures
// once per parsed digest: the root page listed at two times under two
// spellings of its SHA-256 is fetched once, and the pages listed by
// SHA-1 and by SHA-256 are each read for their own blocks.
func TestRecoverFetchesEachDigestOnce(t *testing.T) {
	site, owner := sitetest.Injected(t)
	caps := sitetest.CapturesOf(t, site, time.Unix(1795258800, 0))
	for i := range caps {
		if i%2 == 0 || caps[i].URL == "https://example.org/" {
			caps[i].Digest = sitetest.SHA256Spelling(i, caps[i].Body)
		}
		if caps[i].URL == "https://example.org/" {
			again := caps[i]
			again.Time, again.Digest = again.Time.Add(time.Hour), sitetest.SHA256Spelling(i+1, again.Body)
			caps = append(caps, again)
		}
	}
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	out := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out, SiteURL: "https://example.org/",
		Sources: []lzrecover.Source{source.CDXSource{Base: srv.URL, Client: lzrecover.NewClient(lzrecover.ClientOptions{Rate: 60000})}}})
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
		t.Fatalf("app.conf %q %v", b, err)
	}
	roots := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.URI, "/web/") && strings.HasSuffix(r.URI, "id_/https://example.org/") {
			roots++
		}
	}
	if roots != 1 {
		t.Fatalf("the root page's two captures of one digest were fetched %d times, want once", roots)
	}
}
