package e2e

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/injector"
)

// wordpressAssets matches what is left out of WordPress so the server
// side fits in the manual's 16 pages: the bulky static assets (scripts,
// styles, images, fonts, block definitions), three bundled libraries and
// wp-admin/includes. Every symbolic link stays.
var wordpressAssets = regexp.MustCompile(`^(wp-includes/(js|css|blocks|images|fonts|sodium_compat|SimplePie|Requests|rest-api)|wp-admin/(css|js|images|includes))/`)

// TestRealSiteRealPayload: the Debian Reference manual carries WordPress
// and a sqlite3 dump; wget and httrack crawl it from loopback, and the
// server side is rebuilt byte for byte from the WARC, wget's mirror and
// httrack's mirror.
func TestRealSiteRealPayload(t *testing.T) {
	needMaterial(t)
	if e2etest.RaceEnabled {
		t.Skip("megabytes of real material are too slow under the race detector")
	}
	site, urls := copyManual(t)
	srv := newServerSide(t, wordpressAssets)
	files, links, size := treeStats(t, srv.WordPress)
	t.Logf("site: %d pages; server side: WordPress %d files (%d bytes) and %d symlinks, a %d-byte sqlite3 dump",
		len(urls), files, size, links, len(srv.Dump))
	if links < 20 {
		t.Fatalf("only %d symbolic links copied; Debian's WordPress has more", links)
	}
	o, owner := srv.injectOptions(t)
	o.SiteDir = site
	o.MaxBlockBytes, o.PageBudget = 32<<10, 600<<10
	start := time.Now()
	res, err := injector.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("injected in %v", time.Since(start).Round(time.Millisecond))
	logResult(t, res)

	base := serveDir(t, site)
	work := t.TempDir()
	t.Run("wget", func(t *testing.T) {
		warc := wgetMirror(t, base, work)
		needPages(t, filepath.Join(work, "mirror"), len(urls))
		t.Run("warc", func(t *testing.T) { srv.check(t, recoverInto(t, owner, source.WARCSource{Path: warc})) })
		t.Run("mirror", func(t *testing.T) {
			srv.check(t, recoverInto(t, owner, source.DirSource{Dir: filepath.Join(work, "mirror")}))
		})
	})
	t.Run("httrack", func(t *testing.T) {
		dir := httrackMirror(t, base, filepath.Join(work, "httrack"))
		needPages(t, dir, len(urls))
		srv.check(t, recoverInto(t, owner, source.DirSource{Dir: dir}))
	})
}
