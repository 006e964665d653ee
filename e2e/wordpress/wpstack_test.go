package wordpress

import (
	"path/filepath"
	"testing"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
)

// The WordPress stack: Debian's WordPress and its Twenty Twenty-Three
// theme (unpacked by setup.sh) on the PHP stack of e2etest (PHP-FPM and
// MariaDB on private sockets, Caddy in-process from a Caddyfile).

// needWordPressStack returns the tools or skips the test.
func needWordPressStack(t *testing.T) e2etest.Tools {
	t.Helper()
	tools := e2etest.NeedPHPStack(t)
	e2etest.NeedFiles(t, filepath.Join(e2etest.WordPressDir(), "wp-settings.php"), wordpressThemeDir())
	return tools
}

// wordpressThemeDir is Debian's Twenty Twenty-Three theme in the cache.
func wordpressThemeDir() string {
	return filepath.Join(e2etest.CacheDir(), "wordpress-theme/usr/share/wordpress/wp-content/themes/twentytwentythree")
}

// wpCore makes what Debian's wordpress and wordpress-theme-twentytwentythree
// packages install in /usr/share/wordpress: WordPress's files with the
// theme, in a new directory.
func wpCore(t *testing.T) string {
	t.Helper()
	core := filepath.Join(e2etest.SharedTempDir(t), "core")
	e2etest.CopyTree(t, e2etest.WordPressDir(), core, nil)
	e2etest.CopyTree(t, wordpressThemeDir(), filepath.Join(core, "wp-content/themes/twentytwentythree"), nil)
	return core
}
