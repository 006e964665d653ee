package site

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Limits and defaults.
const (
	// DefaultMaxPageBytes is the default Options.MaxPageBytes: Common Crawl
	// truncates records at 1 MiB, and 256 KiB stay free for blocks.
	DefaultMaxPageBytes = 1<<20 - 256<<10

	// DefaultMaxPages is the default Options.MaxPages.
	DefaultMaxPages = 100_000

	// MaxRobotsBytes bounds the robots.txt read; the rest is ignored, as
	// Google does.
	MaxRobotsBytes = 500 << 10

	// MaxSitemapBytes bounds the size of sitemap.xml (the sitemap protocol's
	// limit for an uncompressed sitemap).
	MaxSitemapBytes = 50 << 20

	// maxReadBytes bounds how much of one page is read into memory, and
	// MaxPageBytes. Links beyond it are not seen; such a page is far too
	// large to carry blocks anyway.
	maxReadBytes = 64 << 20

	// urlsPerPage bounds the distinct linked URLs (pages, other files,
	// skipped URLs) of a crawl to urlsPerPage × MaxPages.
	urlsPerPage = 8

	// entriesPerPage bounds the directory entries walked to find unlinked
	// pages to entriesPerPage × MaxPages.
	entriesPerPage = 16
)

// Errors that callers branch on.
var (
	// ErrNoRoot means the site directory has neither index.html nor
	// index.htm, the page at the site URL.
	ErrNoRoot = errors.New("site directory has no index.html or index.htm")

	// ErrTooManyPages means the crawl or the directory walk exceeded its
	// bounds (see Options.MaxPages).
	ErrTooManyPages = errors.New("site has too many pages")
)

// DefaultAgents returns the robots.txt user agents whose rules a carrier must
// satisfy when Options.Agents is empty: the generic "*" group, the Internet
// Archive's two crawlers and Common Crawl's.
func DefaultAgents() []string {
	return []string{"*", "ia_archiver", "archive.org_bot", "CCBot"}
}

// Options configures Discover.
type Options struct {
	// SiteURL is the public URL of the site root, the URL at which the
	// directory's index.html is served. It is required and must be an
	// absolute http or https URL without query or fragment; a path that does
	// not end in "/" is taken as a directory. Links to other hosts, ports or
	// to paths outside the root are ignored; http and https links to the
	// same host are the same site.
	SiteURL *url.URL

	// Agents are the robots.txt user agents whose rules must all allow a
	// carrier, and whose <meta name="…"> tags are honoured besides
	// <meta name="robots">. Each is "*" or a product token of letters,
	// digits, "_", "-" and ".". Defaults to DefaultAgents().
	Agents []string

	// MaxPageBytes is the largest size, after htmlblock.Strip, of a
	// carrier, at most 64 MiB. Defaults to DefaultMaxPageBytes.
	MaxPageBytes int64

	// MaxPages bounds the number of distinct page files the crawl visits;
	// Discover fails with ErrTooManyPages beyond it. Defaults to
	// DefaultMaxPages.
	MaxPages int
}

// config is Options validated and with defaults applied.
type config struct {
	site      siteRoot
	agents    []string // as given, for messages
	metaNames []string // lower-case <meta name> values honoured
	maxBytes  int64
	maxPages  int
}

// newConfig validates opts and applies the defaults.
func newConfig(opts Options) (*config, error) {
	s, err := newSiteRoot(opts.SiteURL)
	if err != nil {
		return nil, err
	}
	c := &config{site: s, agents: opts.Agents, maxBytes: opts.MaxPageBytes, maxPages: opts.MaxPages}
	if len(c.agents) == 0 {
		c.agents = DefaultAgents()
	}
	c.metaNames = []string{"robots"}
	for _, a := range c.agents {
		if !validAgent(a) {
			return nil, fmt.Errorf("invalid robots.txt user agent %q", a)
		}
		if a != "*" {
			c.metaNames = append(c.metaNames, strings.ToLower(a))
		}
	}
	switch {
	case c.maxBytes < 0:
		return nil, fmt.Errorf("negative MaxPageBytes %d", c.maxBytes)
	case c.maxBytes == 0:
		c.maxBytes = DefaultMaxPageBytes
	case c.maxBytes > maxReadBytes:
		return nil, fmt.Errorf("MaxPageBytes %d is over the limit of %d", c.maxBytes, maxReadBytes)
	}
	switch {
	case c.maxPages < 0:
		return nil, fmt.Errorf("negative MaxPages %d", c.maxPages)
	case c.maxPages == 0:
		c.maxPages = DefaultMaxPages
	}
	return c, nil
}

// validAgent reports whether a is "*" or a product token.
func validAgent(a string) bool {
	if a == "*" {
		return true
	}
	if a == "" || len(a) > 100 {
		return false
	}
	for i := 0; i < len(a); i++ {
		if !isTokenChar(a[i]) {
			return false
		}
	}
	return true
}

// isTokenChar reports whether c may occur in a user-agent product token.
// RFC 9309 allows letters, "_" and "-"; digits and "." occur in real tokens
// such as "archive.org_bot".
func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '.'
}
