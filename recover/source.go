package recover

import (
	"context"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Capture is one archived copy of one page.
type Capture struct {
	Source  string    // the source's name
	URL     string    // the page's original URL, or its path in a mirror
	Time    time.Time // capture time; zero if unknown
	Digest  string    // payload digest as the source reports it; may be empty
	Locator string    // where the source finds it again (opaque to callers)
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
// the file's mtime.
type DirSource struct{ Dir string }

// Name implements Source.
func (d DirSource) Name() string { return "dir=" + d.Dir }

// List implements Source; the site is not needed.
func (d DirSource) List(ctx context.Context, _ *url.URL, fn func(Capture) error) error {
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
		caps = append(caps, Capture{Source: d.Name(), URL: "/" + filepath.ToSlash(rel), Time: info.ModTime(), Locator: p})
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

// Fetch implements Source.
func (d DirSource) Fetch(_ context.Context, c Capture) (io.ReadCloser, error) {
	return os.Open(c.Locator)
}
