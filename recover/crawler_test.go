package recover_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// serveSite serves a static site on loopback, as a web server would.
func serveSite(t *testing.T, dir string) string {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	return srv.URL
}

func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed (bash .ci/run installs it from Debian's packages)", name)
	}
	return p
}

// TestFromRealCrawlers: the served site is crawled by wget (mirror plus
// WARC) and by httrack, as an archive or a person would, and the server
// side is rebuilt from each crawl.
func TestFromRealCrawlers(t *testing.T) {
	site, owner := sitetest.Injected(t)
	base := serveSite(t, site)
	work := t.TempDir()
	check := func(t *testing.T, src lzrecover.Source) {
		out := t.TempDir()
		rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out, Sources: []lzrecover.Source{src}})
		if err != nil {
			t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
		}
		if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
			t.Fatalf("app.conf %q %v", b, err)
		}
	}
	t.Run("wget", func(t *testing.T) {
		wget := needTool(t, "wget")
		cmd := exec.Command(wget, "--mirror", "--no-verbose", "--no-host-directories", "-e", "robots=off",
			"--warc-file="+filepath.Join(work, "crawl"), "--no-warc-keep-log", "-P", filepath.Join(work, "wget"), base+"/")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("wget: %v\n%s", err, out)
		}
		t.Run("warc", func(t *testing.T) { check(t, source.WARCSource{Path: filepath.Join(work, "crawl.warc.gz")}) })
		t.Run("mirror", func(t *testing.T) { check(t, source.DirSource{Dir: filepath.Join(work, "wget")}) })
	})
	t.Run("httrack", func(t *testing.T) {
		httrack := needTool(t, "httrack")
		dir := filepath.Join(work, "httrack")
		cmd := exec.Command(httrack, base+"/", "-O", dir, "-q", "-%v0", "-s0")
		cmd.Env = append(os.Environ(), "HOME="+work)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("httrack: %v\n%s", err, out)
		}
		check(t, source.DirSource{Dir: dir})
	})
}

// TestAfterMinifierAndToolbar: captures that went through a real HTML
// minifier keeping comments (whitespace collapsed, lines joined) and
// pages in the Wayback Machine's rewritten mode (toolbar comments
// inserted) still rebuild.
func TestAfterMinifierAndToolbar(t *testing.T) {
	minify := needTool(t, "minify")
	site, owner := sitetest.Injected(t)
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(site, "*.html"))
	for i, f := range files {
		out, err := exec.Command(minify, "--html-keep-comments", "--html-keep-document-tags", "--html-keep-end-tags", f).Output()
		if err != nil {
			t.Fatalf("minify %s: %v", f, err)
		}
		if i%2 == 0 {
			out = []byte(strings.Replace(string(out), "<body>", "<body><!-- BEGIN WAYBACK TOOLBAR INSERT --><div id=wm-ipp>toolbar</div><!-- END WAYBACK TOOLBAR INSERT -->", 1))
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(filepath.Join(site, "p1.html"))
	after, _ := os.ReadFile(filepath.Join(dir, "p1.html"))
	if !strings.Contains(string(before), "-->\n") || strings.Contains(string(after), "-->\n") {
		t.Fatalf("the minifier changed nothing; the test would prove nothing:\n%.300s", after)
	}
	out := t.TempDir()
	rep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: owner, Out: out, Sources: []lzrecover.Source{source.DirSource{Dir: dir}}})
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	if b, err := os.ReadFile(filepath.Join(out, "etc/app.conf")); err != nil || string(b) != "secret = 1\n" {
		t.Fatalf("app.conf %q %v", b, err)
	}
}
