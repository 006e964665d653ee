package site

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"time"
)

// sitemapName is the only sitemap UpdateSitemap maintains.
const sitemapName = "sitemap.xml"

// lastmodLayout is the W3C datetime format UpdateSitemap writes.
const lastmodLayout = "2006-01-02T15:04:05Z"

// UpdateSitemap sets the <lastmod> of the pages in changed, keyed by
// site-relative URL path as in Page.URL ("/", "/about/"), to their time, in
// the sitemap.xml of the site directory dir, if it has one. It returns how
// many <url> entries it updated.
//
// An entry is updated when its <loc>, an absolute URL, names a page of
// changed: same site as siteURL (as for Discover), the same normalized path
// and no query. Its first <lastmod> gets the time, in UTC to the second
// ("2026-11-21T10:00:00Z"), unless it already holds that instant; an entry
// without one gets a <lastmod> right after its </loc>, on a line of its own
// indented like <loc> when <loc> is on a line of its own. All other bytes of
// the file stay as they are. The file is replaced through a temporary file
// and a rename, keeping its permissions; when nothing changes it is not
// written at all.
//
// The sitemap must be a regular file (not a symbolic link) holding
// well-formed UTF-8 XML of at most MaxSitemapBytes; a leading byte order
// mark is kept.
// Sitemap index files, compressed sitemaps and sitemaps named elsewhere
// (robots.txt Sitemap: lines) are not handled.
func UpdateSitemap(dir string, siteURL *url.URL, changed map[string]time.Time) (updated int, err error) {
	s, err := newSiteRoot(siteURL)
	if err != nil {
		return 0, err
	}
	stamps, err := lastmods(changed)
	if err != nil {
		return 0, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, fmt.Errorf("site directory: %w", err)
	}
	defer root.Close()
	data, mode, err := readSitemap(root)
	if data == nil || err != nil {
		return 0, err
	}
	out, n, err := updateSitemap(data, s, stamps)
	if err != nil || n == 0 {
		return 0, err
	}
	if err := replaceFile(root, sitemapName, out, mode); err != nil {
		return 0, err
	}
	return n, nil
}

// lastmods normalizes the keys of changed and formats its times.
func lastmods(changed map[string]time.Time) (map[string]string, error) {
	out := make(map[string]string, len(changed))
	latest := make(map[string]time.Time, len(changed))
	for k, t := range changed {
		if !strings.HasPrefix(k, "/") || strings.ContainsAny(k, "?#") {
			return nil, fmt.Errorf("changed page %q is not a site-relative URL path", k)
		}
		if t.IsZero() || t.UTC().Year() < 1 || t.UTC().Year() > 9999 {
			return nil, fmt.Errorf("changed page %q has an invalid time %v", k, t)
		}
		p := normalizePath(k)
		if old, ok := latest[p]; !ok || t.After(old) {
			latest[p] = t
			out[p] = t.UTC().Format(lastmodLayout)
		}
	}
	return out, nil
}

// readSitemap reads sitemap.xml and returns nil data if there is none.
func readSitemap(root *os.Root) ([]byte, fs.FileMode, error) {
	data, mode, err := readSmall(root, sitemapName, MaxSitemapBytes, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("sitemap: %w", err)
	}
	return data, mode, nil
}

// replaceFile atomically replaces the file name in root with data and the
// permissions mode.
func replaceFile(root *os.Root, name string, data []byte, mode fs.FileMode) (err error) {
	tmp := "." + name + ".lazarus-" + rand.Text()
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = root.Rename(tmp, name); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}

// bom is the UTF-8 byte order mark, which encoding/xml does not accept.
var bom = []byte("\xef\xbb\xbf")

// updateSitemap returns data with the lastmod of the entries whose <loc> is
// a key of stamps set to its value, and how many entries it changed.
func updateSitemap(data []byte, s siteRoot, stamps map[string]string) ([]byte, int, error) {
	body := bytes.TrimPrefix(data, bom)
	edits, err := sitemapEdits(body, s, stamps)
	if err != nil {
		return nil, 0, fmt.Errorf("sitemap: %w", err)
	}
	if len(edits) == 0 {
		return data, 0, nil
	}
	shift := len(data) - len(body)
	out := make([]byte, 0, len(data)+len(edits)*64)
	at := 0
	for _, e := range edits {
		out = append(out, data[at:shift+e.start]...)
		out = append(out, e.text...)
		at = shift + e.end
	}
	return append(out, data[at:]...), len(edits), nil
}
