package mediawiki

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
)

// The MediaWiki stack: Debian's MediaWiki (unpacked by setup.sh) on the
// PHP stack of e2etest (PHP-FPM and MariaDB on private sockets, Caddy
// in-process from a Caddyfile).

// needMediaWikiStack returns the tools or skips the test.
func needMediaWikiStack(t *testing.T) e2etest.Tools {
	t.Helper()
	tools := e2etest.NeedPHPStack(t)
	e2etest.NeedFiles(t, filepath.Join(mediaWikiDir(), "includes/WebStart.php"), debianImagesDir())
	return tools
}

// mediaWikiDir is Debian's MediaWiki, /usr/share/mediawiki, in the cache.
func mediaWikiDir() string {
	return filepath.Join(e2etest.CacheDir(), "mediawiki/usr/share/mediawiki")
}

// debianImagesDir is the uploads directory Debian's package makes,
// /var/lib/mediawiki/images, in the cache.
func debianImagesDir() string {
	return filepath.Join(e2etest.CacheDir(), "mediawiki/var/lib/mediawiki/images")
}

// mwCore makes what Debian's mediawiki package installs in
// /usr/share/mediawiki, in a new directory: MediaWiki's files and the
// package's links into /var/lib/mediawiki (LocalSettings.php, images,
// extensions, config), without the bundled extensions' files, which the
// wiki does not load. Its files are hard links to the cache's where the
// file system allows: nothing writes to them.
func mwCore(t *testing.T) string {
	t.Helper()
	core := filepath.Join(e2etest.SharedTempDir(t), "core")
	e2etest.LinkTree(t, mediaWikiDir(), core, regexp.MustCompile(`^extensions-core/`))
	return core
}
