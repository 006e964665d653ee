package verify

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/lazarus-preserve/lazarus/internal/contentcoding"
	"github.com/lazarus-preserve/lazarus/internal/fetch"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/site"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// maxCrawlFailures bounds the failed URLs a crawl lists (the rest are
// counted).
const maxCrawlFailures = 20

// Bounds of the links a crawl keeps, in multiples of its page bound: a
// site of pages full of unique links must not make it hold them all.
// The links found past them are counted (crawlResult.dropped) and
// reported as a limit.
const (
	queuePerPage = 10 // links queued and not yet requested
	seenPerPage  = 12 // paths remembered as queued, fetched or skipped
)

// crawlConfig configures crawl.
type crawlConfig struct {
	site      *url.URL // the root page; the crawl stays on its host, under its path
	client    source.Doer
	skipQuery bool  // ignore links with a query string
	maxPages  int   // requests, robots.txt aside
	maxBytes  int64 // body bytes read in all
	maxPage   int64 // body bytes read of one page
	linkBytes int64 // links are taken from this many first bytes of a page, what archives keep
	workers   int   // requests in flight; defaults to fetch.DefaultConcurrency
	// progress, if set, is called after every page, one call at a time.
	progress func(fetched, queued int, bytes int64)
}

// crawledPage is one page the crawl fetched with status 200: an HTML
// page, or one listedType says to read.
type crawledPage struct {
	URL     *url.URL // after same-host redirects
	Depth   int      // link hops from the root page
	Header  http.Header
	Body    []byte // at most crawlConfig.maxPage bytes
	Partial bool   // the page is longer than Body
	// Archives are the archive crawlers that would keep the page by
	// robots.txt: those that reach it by links through pages they may
	// fetch and may fetch it (see robotsVerdict). Empty, Blocked says why;
	// RobotsNote says why some archives do and others do not.
	Archives   archiveSet
	Blocked    string
	RobotsNote string
	Excluded   string // "noindex" or "noarchive" (robots <meta> or X-Robots-Tag), or ""
	Unlisted   string // why recover's listing skips the page for its Content-Type (see listedType), or ""
}

// crawlResult summarizes a crawl.
type crawlResult struct {
	requests int
	pages    int   // distinct HTML pages handed to visit (a Content-Type recover's listing takes); see aliases
	aliases  int   // pages handed to visit under a second URL of a page (see pageKey): "/index.html" after "/"
	bytes    int64 // body bytes read
	queries  int   // distinct links with a query string not followed
	notHTML  int   // answers 200 whose Content-Type recover's listing skips (read or not; never in pages)
	failed   []string
	failures int             // pages that could not be fetched (failed lists the first)
	dropped  int             // links not kept: the queue or the set of paths seen was full
	limit    string          // why the crawl stopped before its end, "" if it did not
	robots   string          // why robots.txt could not be read, "" if it was (or there is none)
	paths    map[string]bool // pathKey of every URL handed to visit
	keys     map[string]bool // pageKey of every page handed to visit
}

// crawl fetches the site the way an archive's crawler finds it: the root
// page, then breadth-first the pages its links reach, following the links
// of <a>, <area>, <frame> and <iframe> (resolved against <base>), on the
// root's host and under its path, links with a query string unless
// c.skipQuery. robots.txt is read first, for each of archiveCrawlers; if it
// cannot be read for a server or network error, archives assume
// everything is disallowed, and so does the crawl. Each page is credited
// to the archives that reach it by links through pages they may fetch and
// may fetch it too (crawledPage.Archives; the links found on one level
// are merged, so a page is credited by its shortest links). Pages no
// archive would keep, or whose robots directives say nofollow, are fetched
// (and visited, marked) but their links are not followed. Every HTML page answered 200 is
// handed to visit, which may be called from several goroutines at once
// and must not keep p.Body. The crawl stops at c.maxPages requests or
// c.maxBytes bytes, saying so in the result.
//
// It fails, wrapping ErrSiteUnreachable, if the root page cannot be
// fetched as an HTML page; other failures are counted in the result.
func crawl(ctx context.Context, c crawlConfig, visit func(p *crawledPage)) (*crawlResult, error) {
	if c.workers <= 0 {
		c.workers = fetch.DefaultConcurrency
	}
	cr := &crawler{c: c, visit: visit, res: &crawlResult{paths: map[string]bool{}, keys: map[string]bool{}}, seen: map[string]bool{}}
	prefix := c.site.EscapedPath()
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	cr.prefix = prefix
	if err := cr.loadRobots(ctx); err != nil {
		return cr.res, err
	}
	cr.seen[siteurl.PathKey(c.site)] = true
	level := []*queuedLink{{u: c.site, from: allArchives}}
	for depth := 0; len(level) > 0; depth++ {
		next, err := cr.level(ctx, level, depth)
		if err != nil {
			return cr.res, err
		}
		if depth == 0 && len(cr.res.keys) == 0 {
			return cr.res, fmt.Errorf("%w: %s", ErrSiteUnreachable, cr.rootErr)
		}
		level = next
		if cr.res.limit != "" && len(level) > 0 {
			cr.res.limit += fmt.Sprintf("; %s found not fetched", humane.Count(len(level), "more page", "more pages"))
			break
		}
	}
	cr.droppedLimit()
	return cr.res, nil
}

// droppedLimit adds the links not kept to the result's limit.
func (cr *crawler) droppedLimit() {
	if cr.res.dropped == 0 {
		return
	}
	msg := fmt.Sprintf("%d links found were not kept, repeats included (at most %d are queued and %d paths remembered: %d and %d times the page bound)",
		cr.res.dropped, cr.maxQueue(), cr.maxSeen(), queuePerPage, seenPerPage)
	if cr.res.limit != "" {
		msg = cr.res.limit + "; " + msg
	}
	cr.res.limit = msg
}

func (cr *crawler) maxQueue() int { return queuePerPage * max(cr.c.maxPages, 1) }
func (cr *crawler) maxSeen() int  { return seenPerPage * max(cr.c.maxPages, 1) }

// mark adds a path to the set of paths seen, unless the set is full: then
// it counts a link dropped and returns false. The caller holds mu.
func (cr *crawler) mark(k string) bool {
	if len(cr.seen) >= cr.maxSeen() {
		cr.res.dropped++
		return false
	}
	cr.seen[k] = true
	return true
}

// crawler is the state of one crawl.
type crawler struct {
	c       crawlConfig
	visit   func(*crawledPage)
	prefix  string // the site's path, ending in "/"
	robots  *site.Robots
	mu      sync.Mutex // guards what follows
	res     *crawlResult
	seen    map[string]bool        // path and query of every URL queued or skipped
	pending map[string]*queuedLink // the next level's links by pathKey
	queued  int
	rootErr string
}

// queuedLink is a URL to fetch and the archives whose crawlers reach it
// by links through pages they may fetch.
type queuedLink struct {
	u    *url.URL
	from archiveSet
}

// level fetches the pages of one depth, c.workers at a time, and returns
// the new URLs their links reach, in a stable order.
func (cr *crawler) level(ctx context.Context, urls []*queuedLink, depth int) ([]*queuedLink, error) {
	jobs := make(chan *queuedLink)
	var next []*queuedLink
	var wg sync.WaitGroup
	for range cr.c.workers {
		wg.Go(func() {
			for l := range jobs {
				links, from := cr.page(ctx, l, depth)
				cr.mu.Lock()
				next = append(next, cr.fresh(links, from)...)
				cr.mu.Unlock()
			}
		})
	}
	cr.mu.Lock()
	cr.queued = len(urls)
	cr.pending = map[string]*queuedLink{}
	cr.mu.Unlock()
	for _, u := range urls {
		if ctx.Err() != nil || !cr.admit() {
			break
		}
		jobs <- u
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(next, func(a, b *queuedLink) int { return strings.Compare(a.u.String(), b.u.String()) })
	return next, nil
}

// admit counts one more request, or says the crawl must stop.
func (cr *crawler) admit() bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	switch {
	case cr.res.limit != "":
		return false
	case cr.res.requests >= cr.c.maxPages:
		cr.res.limit = fmt.Sprintf("stopped after %s (the page bound)", humane.Count(cr.res.requests, "page"))
		return false
	case cr.res.bytes >= cr.c.maxBytes:
		cr.res.limit = fmt.Sprintf("stopped after %s of pages (the byte bound)", humane.Count(int(cr.res.bytes), "byte"))
		return false
	}
	cr.res.requests++
	cr.queued--
	return true
}

// fresh returns the links not seen before, found on a page the archives
// in from reach and keep, and marks them seen, as many as the queue bound
// leaves room for (the rest are counted dropped). A link already queued
// for the next level is credited to from too. The caller holds mu.
func (cr *crawler) fresh(links []*url.URL, from archiveSet) []*queuedLink {
	var out []*queuedLink
	for _, l := range links {
		k := siteurl.PathKey(l)
		switch {
		case cr.seen[k]:
			if q := cr.pending[k]; q != nil {
				q.from |= from
			}
		case cr.queued >= cr.maxQueue():
			cr.res.dropped++
		case cr.mark(k):
			q := &queuedLink{u: l, from: from}
			cr.pending[k] = q
			out = append(out, q)
			cr.queued++
		}
	}
	return out
}

// page fetches one URL, following its redirects on the site (see
// redirect), visits it if it is an HTML page, and returns the links to
// follow and the archives that reach them.
func (cr *crawler) page(ctx context.Context, l *queuedLink, depth int) ([]*url.URL, archiveSet) {
	cr.mu.Lock()
	from := l.from // final: the level that credits it is done
	cr.mu.Unlock()
	u := l.u
	chain := map[string]bool{siteurl.PathKey(u): true}
	for {
		resp, err := cr.get(ctx, u)
		if err != nil {
			cr.fail(u, err.Error(), depth)
			return nil, 0
		}
		loc := redirectLocation(resp)
		if loc == "" {
			defer resp.Body.Close()
			return cr.answer(u, from, resp, depth)
		}
		resp.Body.Close()
		// A redirect is followed by the archives that may fetch its URL.
		allowed, _ := cr.robotsFor(u)
		if from &= allowed; from == 0 {
			return nil, 0
		}
		if u = cr.redirect(u, loc, depth, chain); u == nil || !cr.admit() {
			return nil, 0
		}
	}
}

// answer reads a response that is not a redirect: an HTML page answered
// 200 is visited, and its links to follow returned, with the archives
// that keep it.
func (cr *crawler) answer(u *url.URL, from archiveSet, resp *http.Response, depth int) ([]*url.URL, archiveSet) {
	final := u
	if resp.Request != nil && resp.Request.URL != nil {
		final = resp.Request.URL // a Client that follows redirects itself
	}
	if why := cr.offSite(u, final); why != "" {
		cr.fail(u, why, depth)
		return nil, 0
	}
	if resp.StatusCode != http.StatusOK {
		cr.fail(u, fmt.Sprintf("HTTP %d", resp.StatusCode), depth)
		return nil, 0
	}
	ct := resp.Header.Get("Content-Type")
	unlisted, read, follow := listedType(ct, final)
	if unlisted != "" {
		cr.count(func(r *crawlResult) { r.notHTML++ })
	}
	if !read {
		if depth == 0 {
			cr.fail(u, "not an HTML page ("+ct+")", depth)
		}
		return nil, 0
	}
	decoded, _, err := contentcoding.Response(resp)
	if err != nil {
		cr.fail(u, "answered in a coding recover cannot read: "+err.Error(), depth)
		return nil, 0
	}
	body, partial, err := readPage(decoded, cr.c.maxPage)
	if err != nil {
		cr.fail(u, err.Error(), depth)
		return nil, 0
	}
	if !cr.first(final, unlisted == "") {
		return nil, 0 // a redirect to a page already fetched
	}
	in := site.Inspect(body[:min(int64(len(body)), cr.c.linkBytes)], final)
	allowed, disallowed := cr.robotsFor(final)
	kept, blocked, note := robotsVerdict(from, allowed, disallowed)
	p := &crawledPage{URL: final, Depth: depth, Header: resp.Header, Body: body, Partial: partial,
		Archives: kept, Blocked: blocked, RobotsNote: note,
		Excluded: cmp.Or(in.Excluded, site.HeaderExcluded(resp.Header)), Unlisted: unlisted}
	cr.visit(p)
	cr.done(int64(len(body)))
	if kept == 0 || in.NoFollow || !follow {
		return nil, 0
	}
	return cr.links(final, in.URLs), kept
}

// get sends a GET for u, asking for the codings the Internet Archive's
// crawler asks for (crawlAcceptEncoding).
func (cr *crawler) get(ctx context.Context, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept-Encoding", crawlAcceptEncoding)
	return cr.c.client.Do(req)
}

// first records the page's final URL and reports whether it is new (a
// redirect may lead to a page fetched already). A new page is counted
// among the pages if it is HTML (listed), among the aliases if another
// URL of it was seen; one recover's listing skips is counted in notHTML
// already.
func (cr *crawler) first(final *url.URL, listed bool) bool {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	k := siteurl.PathKey(final)
	if cr.res.paths[k] {
		return false
	}
	cr.res.paths[k] = true
	cr.seen[k] = true // a fetched page is always remembered
	if pk := siteurl.PageKey(final); cr.res.keys[pk] {
		cr.res.aliases++
	} else {
		cr.res.keys[pk] = true
		if listed {
			cr.res.pages++
		}
	}
	return true
}

// done counts a page's bytes and reports progress.
func (cr *crawler) done(n int64) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	cr.res.bytes += n
	if cr.c.progress != nil {
		cr.c.progress(cr.res.requests, cr.queued, cr.res.bytes)
	}
}

func (cr *crawler) count(f func(*crawlResult)) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	f(cr.res)
}

// fail records a page that could not be fetched.
func (cr *crawler) fail(u *url.URL, why string, depth int) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if depth == 0 {
		cr.rootErr = fmt.Sprintf("root page %s: %s", u.Redacted(), why)
	}
	cr.res.failures++
	if len(cr.res.failed) < maxCrawlFailures {
		cr.res.failed = append(cr.res.failed, u.Redacted()+": "+why)
	}
}

// links turns a page's links (site.Inspection.URLs, paths from the host's
// root) into the URLs to follow: under the site's path, with a query
// string unless c.skipQuery (then they are counted once each).
func (cr *crawler) links(page *url.URL, refs []string) []*url.URL {
	var out []*url.URL
	cr.mu.Lock()
	room := cr.maxQueue() - cr.queued // links past it would be dropped by fresh
	cr.mu.Unlock()
	over := 0
	defer func() {
		if over > 0 {
			cr.mu.Lock()
			cr.res.dropped += over
			cr.mu.Unlock()
		}
	}()
	for _, ref := range refs {
		p, q, hasQuery := strings.Cut(ref, "?")
		if !strings.HasPrefix(p, cr.prefix) && p+"/" != cr.prefix {
			continue
		}
		if len(out) > room && !(hasQuery && cr.c.skipQuery) {
			over++ // no room in the queue: not even worth a URL
			continue
		}
		u := &url.URL{Scheme: page.Scheme, Host: page.Host, RawQuery: q, ForceQuery: hasQuery && q == ""}
		if err := siteurl.SetEscapedPath(u, p); err != nil {
			continue
		}
		if hasQuery && cr.c.skipQuery {
			cr.mu.Lock()
			if k := siteurl.PathKey(u); !cr.seen[k] && cr.mark(k) {
				cr.res.queries++
			}
			cr.mu.Unlock()
			continue
		}
		out = append(out, u)
	}
	return out
}

// loadRobots reads the host's robots.txt. A missing one (4xx, or
// redirects that lead nowhere) allows
// everything; one that cannot be read for a server or network error
// disallows everything (RFC 9309 §2.3.1.4), as archives then assume. A
// host that does not answer at all fails the crawl.
func (cr *crawler) loadRobots(ctx context.Context) error {
	u := &url.URL{Scheme: cr.c.site.Scheme, Host: cr.c.site.Host, Path: "/robots.txt"}
	resp, err := cr.getRobots(ctx, u)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, fetch.ErrUnreachable):
		return fmt.Errorf("%w: %v", ErrSiteUnreachable, err)
	case err != nil:
		cr.res.robots = fmt.Sprintf("robots.txt could not be read (%v): archives then assume every page is disallowed", err)
		cr.robots = site.ParseRobots([]byte("User-agent: *\nDisallow: /\n"))
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, site.MaxRobotsBytes))
	if err != nil {
		cr.res.robots = fmt.Sprintf("robots.txt could not be read (%v): archives then assume every page is disallowed", err)
		data = []byte("User-agent: *\nDisallow: /\n")
	}
	cr.robots = site.ParseRobots(data)
	return nil
}

// readPage reads at most limit bytes of a body; partial says there was
// more.
func readPage(r io.Reader, limit int64) (body []byte, partial bool, err error) {
	body, err = io.ReadAll(io.LimitReader(r, limit+1))
	if errors.Is(err, fetch.ErrTooLarge) {
		return body, true, nil
	}
	if int64(len(body)) > limit {
		return body[:limit], true, nil
	}
	return body, false, err
}
