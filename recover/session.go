package recover

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/problems"
	"github.com/lazarus-preserve/lazarus/internal/rootfile"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// Run rebuilds the server side from the captures its sources hold.
//
// Sources are opened one at a time, the cheapest first (local files, then
// the live site, then archives), and a source is only listed if the ones
// before it did not complete the recovery: when the live site still gives
// every block, no archive is asked anything. Within what is listed, the
// root page's captures come first (where the manifest is), newest first;
// once a manifest is verified, the carriers its listing names, captured
// after that generation, come next; then everything else, newest first.
// Captures with a digest already seen are skipped, and fetching stops as
// soon as the newest generation found is complete (unless PagesDir wants
// every page); a Streamer is read to its end, scanning only captures made
// after that generation once it is complete. A source that fails is
// reported and the others go on.
func Run(ctx context.Context, o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	a, err := o.assembler()
	if err != nil {
		return nil, err
	}
	defer a.Close()
	s := &session{o: o, a: a, rep: &Report{}, seen: map[string]bool{}, failed: map[string]int{}, listed: map[string]bool{}}
	out, err := openOut(o.Out)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	if s.j, err = openJournal(out, o.Out, o.StateDir); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	defer s.j.close()
	if o.PagesDir != "" {
		if s.pages, err = rootfile.OpenSub(out, o.Out, o.PagesDir, 0o755); err != nil {
			return nil, fmt.Errorf("pages directory: %w", err)
		}
		defer s.pages.Close()
		s.reservedPage = reserved(&o, o.PagesDir)
	}
	if o.SiteURL != "" {
		s.site, _ = url.Parse(o.SiteURL) // Validate parsed it
	}
	if err := s.run(ctx); err != nil {
		return s.rep, err
	}
	err = restore(a, s.manifests, s.rep, o)
	return s.rep, saveReport(s.rep, out, o.Out, err)
}

// session is one Recover run.
type session struct {
	o            Options
	a            *codec.Assembler
	rep          *Report
	site         *url.URL
	queue        []queued
	seen         map[string]bool
	failed       map[string]int // failed fetches by capture key (see maxTriesPerKey)
	manifests    []*manifest.Signed
	carriers     map[string]bool      // page paths the target generation's listing names
	genTime      time.Time            // the target generation's time
	wanted       []string             // the target generation's carrier URLs, resolved
	opened       []source.Source      // sources listed so far, for carriers found later
	j            *journal             // nil without a state directory
	pages        *os.Root             // PagesDir, nil without one
	reservedPage func(string) bool    // top-level names pages may not use
	saved        map[string]time.Time // pages written to PagesDir, by path
	listed       map[string]bool      // source + page URL already listed page by page
}

// run lists every source (one request per archive for most sites), reads
// the streamed ones (local WARC files), then fetches the queue until the
// recovery is finished.
func (s *session) run(ctx context.Context) error {
	var streams []source.Source
	for _, src := range s.o.Sources {
		if _, ok := src.(source.Streamer); ok {
			streams = append(streams, src)
			continue
		}
		if err := s.open(ctx, src); err != nil {
			return err
		}
	}
	for _, src := range streams {
		if err := s.open(ctx, src); err != nil {
			return err
		}
	}
	return s.drain(ctx)
}

// finished reports whether fetching can stop: the newest generation found
// is complete, no listed capture of the root page could reveal a newer
// one (see priority), and no mirror of every page is wanted. So a stale
// mirror or a squatter replaying old pages on the live site cannot make
// recovery settle for an old generation while the archives hold a newer
// one.
func (s *session) finished() bool {
	return s.o.PagesDir == "" && s.done() && !s.rootPending()
}

// open lists a source (a Streamer is read through at once), and asks it
// for the target generation's carriers if it lists page by page.
func (s *session) open(ctx context.Context, src source.Source) error {
	s.opened = append(s.opened, src)
	sr := s.rep.source(src)
	if st, ok := src.(source.Streamer); ok {
		return s.stream(ctx, st, src, sr)
	}
	caps, ok := s.j.listing(src, s.site)
	if !ok {
		var err error
		if caps, err = listAll(ctx, src, s.site); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.rep.problem("%s: listing: %v", src.Name(), err)
			sr.Error = problems.Clip(err.Error(), problems.MaxLineBytes)
		} else if err := s.j.saveListing(src, s.site, caps); err != nil {
			return fmt.Errorf("journal: %w", err)
		}
	}
	sr.Captures += len(caps)
	s.rep.Captures += len(caps)
	for _, c := range caps {
		s.queue = append(s.queue, queued{c, src})
	}
	s.listPages(ctx, src, s.wanted)
	s.sort()
	return nil
}

func listAll(ctx context.Context, src source.Source, site *url.URL) ([]source.Capture, error) {
	var caps []source.Capture
	err := src.List(ctx, site, func(c source.Capture) error {
		caps = append(caps, c)
		return nil
	})
	return caps, err
}

// stream reads a Streamer through, taking every capture as it comes. It
// never stops early: what a stream holds further on is unknown until it
// is read (a directory's next WARC file may be a crawl of a newer
// generation). Once the recovery is finished, only the captures made
// after the target generation are scanned: one made before cannot hold a
// newer generation.
func (s *session) stream(ctx context.Context, st source.Streamer, src source.Source, sr *SourceReport) error {
	err := st.Stream(ctx, s.site, func(c source.Capture, page []byte) error {
		s.rep.Captures++
		sr.Captures++
		switch {
		case c.Unreadable != nil:
			s.rep.problem("%s: %v", src.Name(), c.Unreadable)
			if sr.Failed++; sr.Error == "" {
				sr.Error = problems.Clip(c.Unreadable.Error(), problems.MaxLineBytes)
			}
			return nil
		case c.Original != "":
			return nil // a revisit: its original's bytes were taken
		}
		if s.finished() && !captured(c).After(s.newest().Manifest.Time) {
			return nil
		}
		if s.seenBefore(c) {
			return nil
		}
		return s.take(ctx, c, page)
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		s.rep.problem("%s: %v", src.Name(), err)
		sr.Error = problems.Clip(err.Error(), problems.MaxLineBytes)
	}
	return nil
}

// seenBefore reports whether a capture with the same key was taken.
func (s *session) seenBefore(c source.Capture) bool {
	key := source.Key(c)
	if s.seen[key] {
		return true
	}
	s.seen[key] = true
	return false
}

// drain fetches queued captures until the recovery is finished or the
// queue is empty.
func (s *session) drain(ctx context.Context) error {
	for len(s.queue) > 0 && !s.finished() {
		if err := ctx.Err(); err != nil {
			return err
		}
		q := s.queue[0]
		s.queue = s.queue[1:]
		if s.seenBefore(q.c) {
			continue
		}
		if err := s.fetch(ctx, q); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.rep.problem("%s %s: %v", q.src.Name(), q.c.URL, err)
			s.retryLater(q.c)
			sr := s.rep.source(q.src)
			sr.Failed++
			if sr.Error == "" {
				sr.Error = problems.Clip(err.Error(), problems.MaxLineBytes)
			}
			continue
		}
		s.progress()
	}
	return nil
}

// retryLater forgets that a capture's key was seen after its fetch
// failed, so another capture with the same key is tried, up to
// maxTriesPerKey captures.
func (s *session) retryLater(c source.Capture) {
	key := source.Key(c)
	s.failed[key]++
	if s.failed[key] < source.MaxTriesPerKey {
		delete(s.seen, key)
	}
}

func (s *session) fetch(ctx context.Context, q queued) error {
	limit := s.o.MaxCapture
	if limit <= 0 {
		limit = source.DefaultMaxCapture
	}
	page, err := s.j.fetch(ctx, q.src, q.c, limit)
	if err != nil {
		return err
	}
	return s.take(ctx, q.c, page)
}

// take scans one capture's bytes into the assembler.
func (s *session) take(ctx context.Context, c source.Capture, page []byte) error {
	pr := s.a.AddPage(page, codec.Origin{Source: c.Source, URL: c.URL, Time: c.Time})
	s.rep.Pages++
	for _, sr := range s.rep.Sources {
		if sr.Name == c.Source {
			sr.Fetched++
		}
	}
	for _, m := range s.rep.credit(pr) {
		s.addManifest(ctx, m)
	}
	s.savePage(c, page)
	return nil
}

// newest returns the newest wanted manifest of the site's generations
// found, nil if none.
func (s *session) newest() *manifest.Signed {
	var newest *manifest.Signed
	other := s.o.otherSites(s.manifests)
	for _, m := range s.manifests {
		if !s.o.wants(m) || other[m.Manifest.Generation] {
			continue
		}
		if newest == nil || m.Manifest.Time.After(newest.Manifest.Time) {
			newest = m
		}
	}
	return newest
}

// done reports whether the newest manifest's data segments are complete.
func (s *session) done() bool {
	newest := s.newest()
	if newest == nil || !s.o.namesSite(newest) {
		return false // another site's (or a misrecorded URL's): look on for this site's
	}
	status := map[block.Layout]codec.SegmentStatus{}
	for _, st := range s.a.Status() {
		status[st.Layout] = st
	}
	_, ok := complete(newest, status)
	return ok
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
