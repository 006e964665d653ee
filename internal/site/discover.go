package site

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
)

// Page is one HTML page of the site that links reach from the root page.
type Page struct {
	// URL is the path of the page's URL relative to the site root, starting
	// with "/" and percent-encoded in normal form: "/", "/about/",
	// "/blog/post.html". When several linked URLs serve the same file, it is
	// the shallowest one robots.txt allows, smallest first (see Aliases).
	URL string

	// Aliases are the other linked URLs that serve the same file, sorted.
	Aliases []string

	// File is the slash path of the page's file relative to the site
	// directory: "index.html", "about/index.html".
	File string

	// Depth is the number of link hops from the root page to URL (the root
	// is 0).
	Depth int

	// Size is the size of the file in bytes after htmlblock.Strip, so that
	// it does not change when blocks are injected.
	Size int64

	// Carrier reports whether the page may carry blocks.
	Carrier bool

	// Reason says why the page is not a carrier, "" for carriers: one or
	// more of "robots.txt disallows it for CCBot", "noindex", "noarchive",
	// "noindex for ia_archiver" (a per-agent meta tag), "too large (1.2 MiB,
	// limit 768 KiB)", separated by "; ".
	Reason string
}

// Site is the result of Discover.
type Site struct {
	// Pages are the HTML pages linked from the root page, directly or not,
	// sorted by Depth, then URL. The root page comes first.
	Pages []Page

	// Unlinked are the slash paths of the HTML files under the site
	// directory that the crawl does not reach, sorted. Archives never find
	// them, so they are never carriers.
	Unlinked []string

	// Skipped are the linked site URLs, relative to the site root, that are
	// not pages: URLs with a query string ("/search?q=x"), which archives
	// rarely keep, and URLs with no file ("/missing.html"), sorted.
	Skipped []string

	// Outside maps unlinked files (of Unlinked) to a path on the site's
	// host, outside the site URL's path, at which a crawled page links
	// them, read as if the site were served from the host's root: with a
	// site URL of https://example.org/blog/, "post1.html" linked as
	// "/post1.html". Their pages are served outside the site URL's path,
	// or the site URL names the wrong path. At most maxOutside links are
	// looked at.
	Outside map[string]string
}

// Carriers returns the pages that may carry blocks, in the order of Pages.
func (s *Site) Carriers() []Page {
	var out []Page
	for _, p := range s.Pages {
		if p.Carrier {
			out = append(out, p)
		}
	}
	return out
}

// Discover crawls the static site in directory dir as an archive's crawler
// would, breadth-first from the root page, and reports which pages can
// carry blocks. See the package documentation for the rules. It fails with
// ErrNoRoot without a root page and with ErrTooManyPages beyond its bounds.
func Discover(dir string, opts Options) (*Site, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("site directory: %w", err)
	}
	defer root.Close()
	c := &crawler{cfg: cfg, root: root, seen: make(map[string]bool), files: make(map[string]*fileState)}
	if err := c.crawl(); err != nil {
		return nil, err
	}
	return c.result()
}

// crawler is the state of one Discover.
type crawler struct {
	cfg     *config
	root    *os.Root
	rules   [][]rule // robots.txt rules per agent of cfg.agents
	queue   []visit
	seen    map[string]bool // site-relative URLs ever queued or skipped
	files   map[string]*fileState
	skipped []string
	outside map[string]bool // host paths linked outside the site URL's path, at most maxOutside
}

// maxOutside bounds the links outside the site URL's path a crawl keeps.
const maxOutside = 1000

// visit is one queued URL.
type visit struct {
	url   string // normalized site-relative path, without query
	depth int
}

// fileState is what the crawl knows about one page file.
type fileState struct {
	file string
	urls []pageURL // every URL serving it, in crawl order
	size int64
	meta robotsMeta
	scan *pageScan // nil once its links have been queued
}

// pageURL is one URL serving a page file.
type pageURL struct {
	url     string
	depth   int
	blocked string // the first agent robots.txt disallows it for, or ""
}

// crawl runs the breadth-first crawl from the root page.
func (c *crawler) crawl() error {
	if _, ok := c.index(""); !ok {
		return ErrNoRoot
	}
	if err := c.loadRobots(); err != nil {
		return err
	}
	c.seen["/"] = true
	c.queue = append(c.queue, visit{url: "/"})
	for i := 0; i < len(c.queue); i++ {
		if err := c.visit(c.queue[i]); err != nil {
			return err
		}
	}
	return nil
}

// loadRobots reads robots.txt, if there is one.
func (c *crawler) loadRobots() error {
	var r *Robots
	f, err := c.root.Open("robots.txt")
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("robots.txt: %w", err)
	default:
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, MaxRobotsBytes))
		if err != nil {
			return fmt.Errorf("robots.txt: %w", err)
		}
		r = ParseRobots(data)
	}
	for _, a := range c.cfg.agents {
		c.rules = append(c.rules, r.rulesFor(a))
	}
	return nil
}

// visit processes one queued URL.
func (c *crawler) visit(v visit) error {
	file, at, kind := c.resolve(v.url)
	switch {
	case kind == kindMissing:
		c.skipped = append(c.skipped, v.url)
		return nil
	case kind == kindOther:
		return nil
	case at != v.url:
		// A redirect to the directory: the page is at the new URL.
		if c.seen[at] {
			return nil
		}
		c.seen[at] = true
	}
	fsState, err := c.file(file)
	if err != nil {
		return err
	}
	u := pageURL{url: at, depth: v.depth, blocked: c.blocked(at)}
	fsState.urls = append(fsState.urls, u)
	if u.blocked != "" || fsState.scan == nil {
		return nil
	}
	scan := fsState.scan
	fsState.scan = nil
	if fsState.meta.nofollow != "" {
		return nil
	}
	return c.follow(scan, at, v.depth+1)
}

// file returns the state of a page file, reading it on first use.
func (c *crawler) file(file string) (*fileState, error) {
	if f, ok := c.files[file]; ok {
		return f, nil
	}
	if len(c.files) >= c.cfg.maxPages {
		return nil, fmt.Errorf("more than %d pages: %w", c.cfg.maxPages, ErrTooManyPages)
	}
	size, scan, err := c.readPage(file)
	if err != nil {
		return nil, fmt.Errorf("page %s: %w", file, err)
	}
	f := &fileState{file: file, size: size, meta: scan.robots, scan: &scan}
	c.files[file] = f
	return f, nil
}

// follow queues the links of the page scanned as s and served at the URL
// path at.
func (c *crawler) follow(s *pageScan, at string, depth int) error {
	doc, err := c.cfg.site.abs(at)
	if err != nil {
		return fmt.Errorf("page %s: %w", at, err)
	}
	on, outside := c.cfg.site.links(s, doc)
	for _, p := range outside {
		if c.outside == nil {
			c.outside = map[string]bool{}
		}
		if len(c.outside) < maxOutside {
			c.outside[p] = true
		}
	}
	for _, t := range on {
		key := t.String()
		if c.seen[key] {
			continue
		}
		if len(c.seen) >= urlsPerPage*c.cfg.maxPages {
			return fmt.Errorf("more than %d linked URLs: %w", urlsPerPage*c.cfg.maxPages, ErrTooManyPages)
		}
		c.seen[key] = true
		if t.query != "" {
			c.skipped = append(c.skipped, key)
			continue
		}
		c.queue = append(c.queue, visit{url: t.path, depth: depth})
	}
	return nil
}

// blocked returns the first agent whose robots.txt rules disallow the
// site-relative URL path rel, or "".
func (c *crawler) blocked(rel string) string {
	p := robotsPath(c.cfg.site.fullPath(rel))
	for i, rules := range c.rules {
		if !allowedBy(rules, p) {
			return c.cfg.agents[i]
		}
	}
	return ""
}

// result assembles the Site.
func (c *crawler) result() (*Site, error) {
	all, err := c.htmlFiles()
	if err != nil {
		return nil, fmt.Errorf("listing pages: %w", err)
	}
	s := &Site{Skipped: c.skipped}
	for _, name := range all {
		if c.files[name] == nil {
			s.Unlinked = append(s.Unlinked, name)
		}
	}
	for _, f := range c.files {
		s.Pages = append(s.Pages, c.page(f))
	}
	slices.SortFunc(s.Pages, func(a, b Page) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), strings.Compare(a.URL, b.URL))
	})
	slices.Sort(s.Skipped)
	c.linkedOutside(s)
	return s, nil
}

// linkedOutside fills s.Outside: the unlinked files that the links
// outside the site URL's path reach when read from the host's root.
func (c *crawler) linkedOutside(s *Site) {
	unlinked := map[string]bool{}
	for _, f := range s.Unlinked {
		unlinked[f] = true
	}
	for _, p := range slices.Sorted(maps.Keys(c.outside)) {
		file, _, kind := c.resolve(p)
		if kind != kindPage || !unlinked[file] {
			continue
		}
		if s.Outside == nil {
			s.Outside = map[string]string{}
		}
		if _, ok := s.Outside[file]; !ok {
			s.Outside[file] = p
		}
	}
}

// page returns the Page of a page file.
func (c *crawler) page(f *fileState) Page {
	urls := slices.Clone(f.urls)
	slices.SortFunc(urls, func(a, b pageURL) int {
		return cmp.Or(cmp.Compare(boolInt(a.blocked != ""), boolInt(b.blocked != "")),
			cmp.Compare(a.depth, b.depth), strings.Compare(a.url, b.url))
	})
	p := Page{URL: urls[0].url, File: f.file, Depth: urls[0].depth, Size: f.size}
	for _, u := range urls[1:] {
		p.Aliases = append(p.Aliases, u.url)
	}
	slices.Sort(p.Aliases)
	p.Reason = c.reason(f, urls[0])
	p.Carrier = p.Reason == ""
	return p
}
