package site

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
)

// MaxSitemapURLs is the most URLs one sitemap may list (the sitemap
// protocol's limit).
const MaxSitemapURLs = 50_000

// sitemapMark opens a sitemap.xml Announce wrote: it rewrites such a file
// on every run. A sitemap.xml without it is the site's own, whose
// lastmods UpdateSitemap keeps up to date and Announce leaves alone. (No
// "--" in it: XML comments may not hold one.)
const sitemapMark = "<!-- written by lazarus inject, sitemap option: rewritten on every run -->"

// robotsName is the file crawlers read for Sitemap: lines.
const robotsName = "robots.txt"

// Announced is what Announce wrote.
type Announced struct {
	// Sitemap is the sitemap's URL when Announce wrote sitemap.xml, ""
	// when the site has a sitemap of its own.
	Sitemap string
	// Robots reports that a Sitemap: line was added to robots.txt (which
	// was created if missing).
	Robots bool
	// Left counts the pages left out of the sitemap beyond
	// MaxSitemapURLs.
	Left int
}

// Announce lets crawlers that find pages through sitemaps (Common Crawl,
// whose crawls start from sitemaps and links) find the site's pages. In
// the site directory dir, served at siteURL, it writes sitemap.xml
// listing pages (site-relative URL paths as in Page.URL, each with its
// lastmod) unless the site has a sitemap of its own: a sitemap.xml it
// did not write, or a robots.txt Sitemap: line naming another. For a site
// at its host's root, whose robots.txt crawlers read, it then adds
// "Sitemap: URL" to robots.txt (creating it with that line alone), unless
// a Sitemap: line names it already. Files are replaced through a
// temporary file and a rename, keeping their permissions (0644 for new
// ones); robots.txt's other bytes stay as they are. Pages are listed in
// path order, at most MaxSitemapURLs.
func Announce(dir string, siteURL *url.URL, pages map[string]time.Time) (Announced, error) {
	var out Announced
	s, err := newSiteRoot(siteURL)
	if err != nil {
		return out, err
	}
	loc, err := s.abs("sitemap.xml")
	if err != nil {
		return out, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return out, fmt.Errorf("site directory: %w", err)
	}
	defer root.Close()
	atRoot := s.prefix == "/"
	var robots []byte
	robotsMode := fs.FileMode(0o644)
	if atRoot {
		if robots, robotsMode, err = readSmall(root, robotsName, MaxRobotsBytes, robotsMode); err != nil {
			return out, err
		}
	}
	named := sitemapLines(robots)
	if slices.ContainsFunc(named, func(u string) bool { return u != loc.String() }) {
		return out, nil // the site announces a sitemap of its own
	}
	old, mode, err := readSmall(root, sitemapName, MaxSitemapBytes, 0o644)
	if err != nil {
		return out, err
	}
	if old != nil && !bytes.Contains(old, []byte(sitemapMark)) {
		return out, nil // the site's own sitemap.xml
	}
	body, left, err := sitemapXML(s, pages)
	if err != nil {
		return out, err
	}
	if !bytes.Equal(body, old) {
		if err := replaceFile(root, sitemapName, body, mode); err != nil {
			return out, err
		}
	}
	out.Sitemap, out.Left = loc.String(), left
	if !atRoot || len(named) > 0 {
		return out, nil
	}
	if len(robots) > 0 && !bytes.HasSuffix(robots, []byte("\n")) {
		robots = append(robots, '\n')
	}
	robots = append(robots, "Sitemap: "+loc.String()+"\n"...)
	if err := replaceFile(root, robotsName, robots, robotsMode); err != nil {
		return out, err
	}
	out.Robots = true
	return out, nil
}

// readSmall reads the regular file name in root, at most limit bytes,
// and its permissions; nil data (and mode def) if it does not exist.
func readSmall(root *os.Root, name string, limit int64, def fs.FileMode) ([]byte, fs.FileMode, error) {
	fi, err := root.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, def, nil
	case err != nil:
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	case !fi.Mode().IsRegular():
		return nil, 0, fmt.Errorf("%s is not a regular file", name)
	case fi.Size() > limit:
		return nil, 0, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, 0, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, fi.Mode().Perm(), nil
}

// sitemapLines returns the URLs of robots.txt's Sitemap: lines (the key
// matched case-insensitively, comments dropped).
func sitemapLines(robots []byte) []string {
	var out []string
	for _, line := range strings.FieldsFunc(string(robots), func(r rune) bool { return r == '\n' || r == '\r' }) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "sitemap") && strings.TrimSpace(v) != "" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// sitemapXML is the sitemap listing pages in path order, at most
// MaxSitemapURLs, and how many were left out.
func sitemapXML(s siteRoot, pages map[string]time.Time) ([]byte, int, error) {
	paths := make([]string, 0, len(pages))
	for p := range pages {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "?#") {
			return nil, 0, fmt.Errorf("page %q is not a site-relative URL path", p)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	left := max(len(paths)-MaxSitemapURLs, 0)
	paths = paths[:len(paths)-left]
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + sitemapMark + "\n")
	b.WriteString("<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n")
	for _, p := range paths {
		u, err := s.abs(p)
		if err != nil {
			return nil, 0, fmt.Errorf("page %q: %w", p, err)
		}
		fmt.Fprintf(&b, "  <url><loc>%s</loc>", html.EscapeString(u.String()))
		if t := pages[p]; !t.IsZero() {
			fmt.Fprintf(&b, "<lastmod>%s</lastmod>", t.UTC().Format(lastmodLayout))
		}
		b.WriteString("</url>\n")
	}
	b.WriteString("</urlset>\n")
	if b.Len() > MaxSitemapBytes {
		return nil, 0, fmt.Errorf("sitemap of %d pages is larger than %d bytes", len(paths), MaxSitemapBytes)
	}
	return b.Bytes(), left, nil
}
