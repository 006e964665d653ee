package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/porttest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard" // file_server, encode

	_ "github.com/lazarus-preserve/lazarus/caddymodule" // http.handlers.lazarus
	"github.com/lazarus-preserve/lazarus/injector"
)

// wordpressCore keeps WordPress's top-level PHP files, wp-content and the
// PHP files directly in wp-includes (and every symbolic link): a smaller
// server side for the Caddy test.
var wordpressCore = regexp.MustCompile(`^(wp-admin|wp-includes/[^/]+)/`)

// startCaddy starts an in-process Caddy on a free loopback port: encode
// gzip, then the Lazarus module serving bundle, then file_server for
// site, as a deployment would. It returns the site's URL; the server
// stops when the test ends.
func startCaddy(t *testing.T, site, bundle string) string {
	t.Helper()
	return runCaddy(t, func(string) []any {
		return []any{
			map[string]any{"handler": "encode", "encodings": map[string]any{"gzip": map[string]any{}}},
			map[string]any{"handler": "lazarus", "bundle": bundle},
			map[string]any{"handler": "file_server", "root": site},
		}
	})
}

// runCaddy starts an in-process Caddy on a free loopback port with one
// route of the handlers handle returns for the site's URL, and returns
// that URL ("http://127.0.0.1:PORT/"); the server stops when the test
// ends.
func runCaddy(t *testing.T, handle func(base string) []any) string {
	t.Helper()
	port := porttest.FreePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d/", port)
	cfg := map[string]any{
		"admin":   map[string]any{"disabled": true},
		"storage": map[string]any{"module": "file_system", "root": t.TempDir()},
		"logging": map[string]any{"logs": map[string]any{"default": map[string]any{"level": "ERROR"}}},
		"apps": map[string]any{"http": map[string]any{"servers": map[string]any{"e2e": map[string]any{
			"listen":          []string{fmt.Sprintf("127.0.0.1:%d", port)},
			"automatic_https": map[string]any{"disable": true},
			"routes":          []any{map[string]any{"handle": handle(base)}},
		}}}},
	}
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := caddy.Load(raw, true); err != nil {
		t.Fatalf("starting Caddy: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping Caddy: %v", err)
		}
	})
	return base
}

// wgetCompression returns wget's flag asking for gzip, if this wget has
// one.
func wgetCompression(t *testing.T) []string {
	t.Helper()
	help, _ := exec.Command(needTool(t, "wget"), "--help").Output()
	if strings.Contains(string(help), "--compression=") {
		return []string{"--compression=auto"}
	}
	t.Logf("this wget has no --compression; crawling with its default")
	return nil
}

// gzipResponses counts the records of a WARC whose HTTP headers say
// "Content-Encoding: gzip".
func gzipResponses(t *testing.T, warc string) int {
	t.Helper()
	f, err := os.Open(warc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // reads every member: the whole WARC
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("reading %s: %v", warc, err)
	}
	return bytes.Count(bytes.ToLower(raw), []byte("\r\ncontent-encoding: gzip\r\n"))
}

// TestThroughCaddyWithGzip: the manual served by Caddy with the Lazarus
// module adding the blocks from a bundle and gzip on the wire, crawled
// into a WARC by wget; the server side comes back from the WARC.
func TestThroughCaddyWithGzip(t *testing.T) {
	needMaterial(t)
	needTool(t, "wget")
	if e2etest.RaceEnabled {
		t.Skip("megabytes of real material are too slow under the race detector")
	}
	site, urls := copyManual(t)
	srv := newServerSide(t, wordpressCore)
	files, links, size := treeStats(t, srv.WordPress)
	t.Logf("site: %d pages; server side: WordPress %d files (%d bytes) and %d symlinks, a %d-byte sqlite3 dump",
		len(urls), files, size, links, len(srv.Dump))
	o, owner := srv.injectOptions(t)
	o.BundleDir, o.URLs = filepath.Join(t.TempDir(), "bundle"), urls
	o.MaxBlockBytes, o.PageBudget = 32<<10, 512<<10 // the largest page (389 KB) stays below 960 KiB
	res, err := injector.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	logResult(t, res)
	pristine, _ := os.ReadFile(filepath.Join(site, "ch01.en.html"))

	base := startCaddy(t, site, o.BundleDir)
	work := t.TempDir()
	start := time.Now()
	comp := wgetCompression(t)
	warc := wgetMirror(t, base, work, comp...)
	t.Logf("crawled through Caddy in %v", time.Since(start).Round(time.Millisecond))
	if b, _ := os.ReadFile(filepath.Join(site, "ch01.en.html")); string(b) != string(pristine) {
		t.Fatal("the site's files changed; the blocks must come from the module")
	}
	if gz := gzipResponses(t, warc); gz == 0 && len(comp) > 0 {
		t.Fatal("no response in the WARC was gzipped; the test would not cover gzip on the wire")
	} else {
		t.Logf("%d responses in the WARC were sent gzipped", gz)
	}
	mirrored, _ := os.ReadFile(filepath.Join(work, "mirror", "ch01.en.html"))
	if !strings.Contains(string(mirrored), "<!-- lazarus") {
		t.Fatalf("the crawled ch01.en.html carries no block (%d bytes); the module did not serve the bundle", len(mirrored))
	}
	srv.check(t, recoverInto(t, owner, source.WARCSource{Path: warc}))
}
