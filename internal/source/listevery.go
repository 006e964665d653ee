package source

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/archive"
)

// ListEvery lists a source's captures of the site for Status. Unlike
// Recover, a CDX listing is not collapsed by digest: every capture
// counts in the capture rates, and a collapsed listing would hide the
// unchanged ones. Sources that list page by page (Memento) are asked for
// the root page and every page in pages (site paths, from the history).
// fn is given each capture's stored length where the listing says it (a
// CDX listing's length field, a Common Crawl record's), else 0.
func ListEvery(ctx context.Context, src Source, site *url.URL, pages []string, fn func(Capture, int64) error) error {
	if s, ok := src.(CDXSource); ok {
		pattern, err := SitePattern(site)
		if err != nil {
			return err
		}
		o, err := s.listOptions()
		if err != nil {
			return err
		}
		o.Collapse = "-"
		return archive.List(ctx, s.Client, s.Base, pattern, o, func(c archive.Capture) error {
			return fn(FromArchive(c, c.Replay), max(c.Length, 0))
		})
	}
	_, cc := src.(CommonCrawlSource)
	withLength := func(c Capture) error {
		if cc {
			return fn(c, locatorLength(c.Locator))
		}
		return fn(c, 0)
	}
	if err := src.List(ctx, site, withLength); err != nil {
		return err
	}
	pl, ok := src.(PageLister)
	if !ok {
		return nil
	}
	root := site.ResolveReference(&url.URL{Path: "/"}).String()
	for _, p := range pages {
		ref, err := url.Parse(p)
		if err != nil {
			continue
		}
		abs := site.ResolveReference(ref).String()
		if abs == root || abs == site.String() {
			continue
		}
		if err := pl.ListPage(ctx, abs, withLength); err != nil {
			return err
		}
	}
	return nil
}

// locatorLength is the record length a Common Crawl locator
// ("URL#offset,length") names, 0 if it names none.
func locatorLength(loc string) int64 {
	_, rng, ok := strings.Cut(loc, "#")
	_, length, ok2 := strings.Cut(rng, ",")
	n, err := strconv.ParseInt(length, 10, 64)
	if !ok || !ok2 || err != nil || n < 0 {
		return 0
	}
	return n
}
