// Package e2etest holds what the end-to-end test packages share: where
// e2e/setup.sh put the real material, copying it, the servers they start
// (daemon.go) and the ends of tools' output for error messages (free
// ports come from internal/porttest); and the PHP stack the CMS tests
// (WordPress, MediaWiki) run on: MariaDB and PHP-FPM on private sockets
// (phpstack.go), an in-process Caddy (caddy.go), pages' weight on the
// wire (wire.go), a wget crawl into a WARC (crawl.go), trees recorded
// before a site is destroyed and checked after (tree.go), and an image
// to upload (photo.go).
package e2etest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// SetupHint is what a skipped test tells the reader to run.
const SetupHint = "run `bash e2e/setup.sh` as root to install the tools and unpack the material"

// CrawlTimeout bounds one crawl of a test site by a real crawler.
const CrawlTimeout = 3 * time.Minute

// CacheDir is where setup.sh unpacked the Debian packages.
func CacheDir() string {
	if d := os.Getenv("LAZARUS_E2E_CACHE"); d != "" {
		return d
	}
	return "/var/cache/lazarus-e2e"
}

// WordPressDir is WordPress's application tree in the cache.
func WordPressDir() string {
	return filepath.Join(CacheDir(), "wordpress/usr/share/wordpress")
}

// CopyTree copies the tree from into to: directories, regular files with
// their permissions and symbolic links as links; files whose
// slash-separated path relative to from matches skip are left out.
func CopyTree(t testing.TB, from, to string, skip *regexp.Regexp) {
	t.Helper()
	copyTree(t, from, to, skip, false)
}

// LinkTree is CopyTree with regular files hard-linked where the file
// system allows (copied where it does not): for a large tree of files
// nothing writes to, such as an application's code.
func LinkTree(t testing.TB, from, to string, skip *regexp.Regexp) {
	t.Helper()
	copyTree(t, from, to, skip, true)
}

func copyTree(t testing.TB, from, to string, skip *regexp.Regexp, link bool) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, dst)
		case info.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm())
		case skip != nil && skip.MatchString(filepath.ToSlash(rel)):
			return nil
		case info.Mode().IsRegular():
			if link && os.Link(p, dst) == nil {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(dst, b, info.Mode().Perm())
		}
		return fmt.Errorf("%s: unexpected file type %v", p, info.Mode())
	})
	if err != nil {
		t.Fatalf("copying %s: %v", from, err)
	}
}

// Tail keeps the end of a tool's output for an error message.
func Tail(out []byte) string {
	if len(out) > 4000 {
		return fmt.Sprintf("…%s", out[len(out)-4000:])
	}
	return string(out)
}

// LogSize logs a file's name and size.
func LogSize(t testing.TB, what, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Logf("%s: %s, %d bytes", what, filepath.Base(path), info.Size())
}
