package recover

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// DefaultMaxCapture bounds one fetched capture (bytes).
const DefaultMaxCapture = 32 << 20

// Recover rebuilds the server side from the captures its sources hold.
//
// It lists every source, then fetches the root page's captures first
// (where the manifest is), newest first; once a manifest is verified, the
// carriers its listing names, captured after that generation, come next;
// then everything else, newest first. Captures with a digest already seen
// are skipped, and fetching stops as soon as the newest generation found
// is complete. A source that fails is reported and the others go on.
func Recover(ctx context.Context, o Options) (*Report, error) {
	a, err := o.assembler()
	if err != nil {
		return nil, err
	}
	defer a.Close()
	s := &session{o: o, a: a, rep: &Report{}, seen: map[string]bool{}, listed: map[string]bool{}}
	out, err := openRoot(o.Out)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	if s.j, err = openJournal(out, o.Out, o.StateDir); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	defer s.j.close()
	if o.PagesDir != "" {
		if s.pages, err = openSub(out, o.Out, o.PagesDir, 0o755); err != nil {
			return nil, fmt.Errorf("pages directory: %w", err)
		}
		defer s.pages.Close()
	}
	if o.Site != "" {
		if s.site, err = url.Parse(o.Site); err != nil || s.site.Host == "" {
			return nil, fmt.Errorf("site URL %q is not an absolute URL", o.Site)
		}
	}
	if err := s.list(ctx); err != nil {
		return nil, err
	}
	if err := s.fetchAll(ctx); err != nil {
		return s.rep, err
	}
	err = restore(a, s.manifests, s.rep, o)
	if serr := s.rep.save(out); serr != nil && err == nil {
		err = serr
	}
	return s.rep, err
}

// session is one Recover run.
type session struct {
	o         Options
	a         *codec.Assembler
	rep       *Report
	site      *url.URL
	queue     []queued
	seen      map[string]bool
	manifests []*manifest.Signed
	carriers  map[string]bool      // page paths the target generation's listing names
	genTime   time.Time            // the target generation's time
	j         *journal             // nil without a state directory
	pages     *os.Root             // PagesDir, nil without one
	saved     map[string]time.Time // pages written to PagesDir, by path
	listed    map[string]bool      // source + page URL already listed page by page
	streamers []streamer           // sources read in one pass
}

type streamer struct {
	Streamer
	src Source
}

type queued struct {
	c   Capture
	src Source
}

func (s *session) list(ctx context.Context) error {
	for _, src := range s.o.Sources {
		if st, ok := src.(Streamer); ok {
			s.streamers = append(s.streamers, streamer{st, src})
			continue
		}
		caps, ok := s.j.listing(src)
		if !ok {
			var err error
			if caps, err = listAll(ctx, src, s.site); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				s.rep.problem("%s: listing: %v", src.Name(), err)
				s.rep.source(src).Error = err.Error()
			} else if err := s.j.saveListing(src, caps); err != nil {
				return fmt.Errorf("journal: %w", err)
			}
		}
		s.rep.source(src).Captures += len(caps)
		for _, c := range caps {
			s.queue = append(s.queue, queued{c, src})
		}
	}
	s.rep.Captures = len(s.queue)
	s.sort()
	return nil
}

func listAll(ctx context.Context, src Source, site *url.URL) ([]Capture, error) {
	var caps []Capture
	err := src.List(ctx, site, func(c Capture) error {
		caps = append(caps, c)
		return nil
	})
	return caps, err
}

// sort orders the queue: root page, then the target generation's carriers
// captured after it, then the rest; newest first within each.
func (s *session) sort() {
	sort.SliceStable(s.queue, func(i, j int) bool {
		pi, pj := s.priority(s.queue[i].c), s.priority(s.queue[j].c)
		if pi != pj {
			return pi < pj
		}
		return s.queue[i].c.Time.After(s.queue[j].c.Time)
	})
}

func (s *session) priority(c Capture) int {
	p := pagePath(c.URL)
	switch {
	case p == "/" || p == "/index.html" || p == "/index.htm" || strings.Count(p, "/") == 2 && strings.HasSuffix(p, "/index.html") && s.site == nil:
		return 0
	case s.carriers[p] && !c.Time.Before(s.genTime):
		return 1
	}
	return 2
}

// fetchAll fetches queued captures until the newest generation found is
// complete or the queue is empty.
func (s *session) fetchAll(ctx context.Context) error {
	for _, st := range s.streamers {
		sr := s.rep.source(st.src)
		err := st.Stream(ctx, s.site, func(c Capture, page []byte) error {
			s.rep.Captures++
			sr.Captures++
			if key := captureKey(c); s.seen[key] {
				return nil
			} else {
				s.seen[key] = true
			}
			if err := s.take(ctx, c, page); err != nil {
				return err
			}
			if s.o.PagesDir == "" && s.done() {
				return errStop
			}
			return nil
		})
		switch {
		case errors.Is(err, errStop):
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			s.rep.problem("%s: %v", st.src.Name(), err)
			sr.Error = err.Error()
		}
	}
	for len(s.queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := s.queue[0]
		s.queue = s.queue[1:]
		if key := captureKey(q.c); s.seen[key] {
			continue
		} else {
			s.seen[key] = true
		}
		if err := s.fetch(ctx, q); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.rep.problem("%s %s: %v", q.src.Name(), q.c.URL, err)
			continue
		}
		s.progress()
		if s.o.PagesDir == "" && s.done() { // a mirror wants every page
			return nil
		}
	}
	return nil
}

func (s *session) fetch(ctx context.Context, q queued) error {
	limit := s.o.MaxCapture
	if limit <= 0 {
		limit = DefaultMaxCapture
	}
	page, err := s.j.fetch(ctx, q.src, q.c, limit)
	if err != nil {
		return err
	}
	return s.take(ctx, q.c, page)
}

// take scans one capture's bytes into the assembler.
func (s *session) take(ctx context.Context, c Capture, page []byte) error {
	pr := s.a.AddPage(page, codec.Origin{Source: c.Source, URL: c.URL, Time: c.Time})
	s.rep.Pages++
	for _, m := range s.rep.credit(pr) {
		s.addManifest(ctx, m)
	}
	return s.savePage(c, page)
}

// addManifest keeps a verified manifest and, if it is the newest, makes its
// carriers the next captures to fetch.
func (s *session) addManifest(ctx context.Context, m *manifest.Signed) {
	for _, old := range s.manifests {
		if old.Digest == m.Digest {
			return
		}
	}
	s.manifests = append(s.manifests, m)
	if !s.o.wants(m) || !m.Manifest.Time.After(s.genTime) && s.carriers != nil {
		return
	}
	s.genTime, s.carriers = m.Manifest.Time, map[string]bool{}
	urls := []string{}
	for _, c := range m.Manifest.Listing.Carriers {
		s.carriers[pagePath(c.URL)] = true
		urls = append(urls, c.URL)
	}
	if list, err := s.a.Listing(m); err == nil {
		for _, c := range list.Carriers {
			s.carriers[pagePath(c.URL)] = true
			urls = append(urls, c.URL)
		}
	}
	s.listPages(ctx, m.Manifest.Site, urls)
	s.sort()
}

// listPages asks the sources that list page by page for the carriers a
// manifest names (relative URLs resolve against the manifest's site).
func (s *session) listPages(ctx context.Context, site string, urls []string) {
	base, err := url.Parse(site)
	if err != nil {
		return
	}
	for _, src := range s.o.Sources {
		pl, ok := src.(PageLister)
		if !ok {
			continue
		}
		for _, u := range urls {
			ref, err := url.Parse(u)
			if err != nil {
				continue
			}
			abs := base.ResolveReference(ref).String()
			if s.listed[src.Name()+"\x00"+abs] {
				continue
			}
			s.listed[src.Name()+"\x00"+abs] = true
			if !s.carrierOnSite(src, base, abs) {
				continue
			}
			sr := s.rep.source(src)
			if sr.Captures >= archive.DefaultMaxRows { // one allowance for all the source's pages
				s.rep.problem("%s: listing %s: skipped, the source already listed %d captures", src.Name(), abs, sr.Captures)
				continue
			}
			err = pl.ListPage(ctx, abs, func(c Capture) error {
				s.queue = append(s.queue, queued{c, src})
				s.rep.Captures++
				sr.Captures++
				return nil
			})
			if err != nil && ctx.Err() == nil {
				s.rep.problem("%s: listing %s: %v", src.Name(), abs, err)
			}
		}
	}
}

// done reports whether the newest manifest's data segments are complete.
func (s *session) done() bool {
	var newest *manifest.Signed
	for _, m := range s.manifests {
		if !s.o.wants(m) {
			continue
		}
		if newest == nil || m.Manifest.Time.After(newest.Manifest.Time) {
			newest = m
		}
	}
	if newest == nil {
		return false
	}
	status := map[block.Layout]codec.SegmentStatus{}
	for _, st := range s.a.Status() {
		status[st.Layout] = st
	}
	_, ok := complete(newest, status)
	return ok
}

// pagePath returns a capture's or carrier's path: "/about/index.html" for
// "https://example.org/about/"; mirror paths keep their host directory.
func pagePath(u string) string {
	p := u
	if pu, err := url.Parse(u); err == nil && pu.Host != "" {
		p = pu.EscapedPath()
	}
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return path.Clean("/" + p)
}

func captureKey(c Capture) string {
	if c.Digest != "" {
		return c.Source + "\x00digest\x00" + c.Digest
	}
	return c.Source + "\x00" + c.Locator
}

func (s *session) progress() {
	if s.o.Progress == nil {
		return
	}
	p := Progress{Listed: s.rep.Captures, Fetched: s.rep.Pages}
	for _, st := range s.a.Status() {
		p.Stripes += int(st.Stripes)
		p.Complete += int(st.Complete)
	}
	s.o.Progress(p)
}

// savePage writes the newest capture of each page, without its Lazarus
// comments, under PagesDir: a browsable mirror of the client side.
func (s *session) savePage(c Capture, page []byte) error {
	if s.pages == nil {
		return nil
	}
	p := pagePath(c.URL)
	if t, ok := s.saved[p]; ok && !c.Time.After(t) {
		return nil
	}
	if s.saved == nil {
		s.saved = map[string]time.Time{}
	}
	s.saved[p] = c.Time
	return writeAtomic(s.pages, strings.TrimPrefix(p, "/"), htmlblock.Strip(page), 0o644)
}
