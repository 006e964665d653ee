package source

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
	"github.com/lazarus-preserve/lazarus/internal/history"
)

// Capture is one archived copy of one page.
type Capture struct {
	Source  string    // the source's name
	URL     string    // the page's original URL, or its path in a mirror
	Time    time.Time // capture time; zero if unknown
	Digest  string    // payload digest as the source reports it; may be empty
	Locator string    // where the source finds it again (opaque to callers)
	// Unreadable, set by a Streamer, says why the capture's bytes cannot
	// be read (a content coding nothing here undoes, a damaged stream, a
	// revisit whose original is not in the source); its page is then nil.
	// Other sources say so from Fetch.
	Unreadable error `json:"-"`
	// Original, set by a Streamer for a revisit (a page fetched again and
	// found unchanged), is the Locator of the capture holding its bytes,
	// which the same stream delivered before it; its page is then nil.
	Original string `json:"-"`
}

// Source is somewhere archived pages can be found: an archive's API, a
// WARC file, a mirror directory. Implementations must be safe for use by
// one goroutine at a time; they do their own politeness.
type Source interface {
	// Name identifies the source in reports.
	Name() string
	// List calls fn for every capture of pages of the site.
	List(ctx context.Context, site *url.URL, fn func(Capture) error) error
	// Fetch returns the original bytes of a capture.
	Fetch(ctx context.Context, c Capture) (io.ReadCloser, error)
}

// DirSource reads saved pages from a directory tree: a wget --mirror or
// httrack tree, a browser's saved pages, a copy of the site. Every HTML
// file (.html, .htm, .xhtml, or no extension) is a capture whose time is
// the file's mtime. Given the site's URL, files under a directory named
// like its host (wget's and httrack's layout) are captures of the site's
// URLs: HOST/about/index.html is SCHEME://HOST/about/index.html.
type DirSource struct{ Dir string }

// Name implements Source.
func (d DirSource) Name() string { return "dir=" + d.Dir }

// List implements Source; the site is not needed.
func (d DirSource) List(ctx context.Context, site *url.URL, fn func(Capture) error) error {
	var caps []Capture
	err := filepath.WalkDir(d.Dir, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if !e.Type().IsRegular() || (ext != ".html" && ext != ".htm" && ext != ".xhtml" && ext != "") {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(d.Dir, p)
		caps = append(caps, Capture{Source: d.Name(), URL: mirrorURL(filepath.ToSlash(rel), site), Time: info.ModTime(), Locator: p})
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(caps, func(i, j int) bool { return caps[i].URL < caps[j].URL })
	for _, c := range caps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return nil
}

// mirrorURL is the URL of a mirror file at rel: the site's own URL when
// rel starts with the site's host directory, else "/" + rel.
func mirrorURL(rel string, site *url.URL) string {
	if site != nil {
		if host, rest, ok := strings.Cut(rel, "/"); ok && strings.EqualFold(host, site.Host) {
			return site.Scheme + "://" + site.Host + "/" + rest
		}
	}
	return "/" + rel
}

// Fetch implements Source. A file saved compressed (gzip or zstd, told
// by its magic number) is read decompressed.
func (d DirSource) Fetch(_ context.Context, c Capture) (io.ReadCloser, error) {
	f, err := os.Open(c.Locator)
	if err != nil {
		return nil, err
	}
	body, _, err := contentcoding.Decode(f, nil)
	if err != nil {
		f.Close()
		return nil, unreadable(c.Locator, err)
	}
	return readCloser{body, f}, nil
}

// Key is the key recovery fetches a capture once by: its
// source's listed digest (parsed: spellings of one digest are one key,
// and digests of the two algorithms never are; one that does not parse
// as listed), else its source and locator.
func Key(c Capture) string {
	if d, ok := history.ParseDigest(c.Digest); ok {
		return c.Source + "\x00digest\x00" + d.String()
	}
	if c.Digest != "" {
		return c.Source + "\x00digest\x00" + c.Digest
	}
	return c.Source + "\x00" + c.Locator
}

// DefaultMaxCapture bounds one fetched capture (bytes).
const DefaultMaxCapture = 32 << 20
