package recover

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"sync/atomic"
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
// once a manifest is verified, the root page's captures made after that
// generation and the newest capture of each page the manifest may also
// be on (see manifestPages) made after it, then the carriers its listing
// names, captured after that generation, come next; then everything
// else, newest first. Captures with a digest already seen are skipped,
// and fetching stops as soon as the newest generation found is complete
// and no capture that could reveal a newer one waits (unless PagesDir
// wants every page); a Streamer is read to its end, scanning only captures made
// after that generation once it is complete. A source that fails is
// reported and the others go on. The captures of local sources (WARC
// files, mirrors) are read and scanned ahead on every core, and the
// newest generation's data segments are extracted while pages are still
// read, kept only if they are what extracting at the end would give:
// neither changes the report or the restored files.
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
	defer s.stopEarly()
	if err := s.run(ctx); err != nil {
		return s.rep, err
	}
	err = restore(a, s.manifests, s.rep, o, s.staged)
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
	followed     *manifest.Signed     // the manifest whose data segments are extracted early
	early        []*early             // its data segments' early extractions
	mpages       manifestPages        // pages besides the root that may carry a newer manifest
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
// is complete, no listed capture of the root page or of a page that may
// carry a manifest could reveal a newer one (see priority), and no mirror
// of every page is wanted. So neither a stale mirror or a squatter
// replaying old pages on the live site, nor an archive that captured the
// root page before a new generation and pages one link away after it,
// can make recovery settle for an old generation while the archives hold
// a newer one.
func (s *session) finished() bool {
	return s.o.PagesDir == "" && s.done() && !s.manifestPending()
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
		s.enqueue(c, src)
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
// newer generation. The stream is read and scanned ahead of the session
// (see ahead).
func (s *session) stream(ctx context.Context, st source.Streamer, src source.Source, sr *SourceReport) error {
	var err error
	if workers() == 1 {
		err = st.Stream(ctx, s.site, func(c source.Capture, page []byte) error {
			return s.streamed(ctx, c, page, nil, sr)
		})
	} else {
		err = s.streamAhead(ctx, st, sr)
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		s.rep.problem("%s: %v", src.Name(), err)
		sr.Error = problems.Clip(err.Error(), problems.MaxLineBytes)
	}
	return nil
}

// streamAhead is stream with the captures read and scanned ahead. Only
// the first capture of each key is scanned ahead, and none the finished
// session would leave (see skipHint): those the session takes anyway are
// scanned when taken. It returns the stream's error.
func (s *session) streamAhead(ctx context.Context, st source.Streamer, sr *SourceReport) error {
	var hint skipHint
	err, streamErr := s.ahead(ctx,
		func(ctx context.Context, send func(*readAhead) error) error {
			scanned := map[string]bool{}
			return st.Stream(ctx, s.site, func(c source.Capture, page []byte) error {
				r := &readAhead{q: queued{c: c}, page: page}
				if c.Unreadable == nil && c.Original == "" && !hint.skips(c) {
					key := source.Key(c)
					r.scan, scanned[key] = !scanned[key], true
				}
				return send(r)
			})
		},
		func(r *readAhead, sc *codec.Scanned) error {
			err := s.streamed(ctx, r.q.c, r.page, sc, sr)
			hint.set(s)
			return err
		})
	if err != nil {
		return err
	}
	return streamErr
}

// streamed takes one capture of a stream (scanned ahead as sc, or nil),
// or says why not.
func (s *session) streamed(ctx context.Context, c source.Capture, page []byte, sc *codec.Scanned, sr *SourceReport) error {
	s.rep.Captures++
	sr.Captures++
	switch {
	case c.Unreadable != nil:
		s.rep.problem("%s: %v", sr.Name, c.Unreadable)
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
	return s.take(ctx, c, page, sc)
}

// skipHint tells the goroutine reading a stream ahead which captures the
// session would leave: once it is finished, those made before the target
// generation. It is a hint: a capture the session takes after all is
// scanned then.
type skipHint struct{ before atomic.Pointer[time.Time] }

// set records the session's state after a capture.
func (h *skipHint) set(s *session) {
	if !s.finished() {
		h.before.Store(nil)
		return
	}
	t := s.newest().Manifest.Time
	h.before.Store(&t)
}

// skips reports whether the session would leave c.
func (h *skipHint) skips(c source.Capture) bool {
	t := h.before.Load()
	return t != nil && !captured(c).After(*t)
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
// queue is empty. A run of captures of local sources at the head of the
// queue is read and scanned ahead (see drainAhead).
func (s *session) drain(ctx context.Context) error {
	for len(s.queue) > 0 && !s.finished() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if workers() > 1 {
			if n := s.localRun(); n > 1 {
				if err := s.drainAhead(ctx, n); err != nil {
					return err
				}
				continue
			}
		}
		q := s.queue[0]
		s.queue = s.queue[1:]
		if s.seenBefore(q.c) {
			continue
		}
		page, err := s.j.fetch(ctx, q.src, q.c, s.maxCapture())
		if err := s.fetched(ctx, q, page, err, nil); err != nil {
			return err
		}
	}
	return nil
}

// fetched takes a capture fetched from the head of the queue (scanned
// ahead as sc, or nil), or reports why it could not be fetched.
func (s *session) fetched(ctx context.Context, q queued, page []byte, err error, sc *codec.Scanned) error {
	if err != nil {
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
		return nil
	}
	if err := s.take(ctx, q.c, page, sc); err != nil {
		return err
	}
	s.progress()
	return nil
}

// localRun returns how many captures at the head of the queue are of
// local sources.
func (s *session) localRun() int {
	n := 0
	for n < len(s.queue) && local(s.queue[n].src) {
		n++
	}
	return n
}

// errMoved ends drainAhead when the head of the queue is no longer the
// next capture read ahead.
var errMoved = errors.New("queue reordered")

// drainAhead is drain's loop over the first n captures of the queue, all
// of local sources, read and scanned ahead. It stops as drain would, or
// once the head of the queue is no longer the next capture read ahead (a
// manifest found made its carriers come first); what was read ahead
// beyond is left.
func (s *session) drainAhead(ctx context.Context, n int) error {
	run := slices.Clone(s.queue[:n])
	limit := s.maxCapture()
	err, _ := s.ahead(ctx,
		func(ctx context.Context, send func(*readAhead) error) error {
			for _, q := range run {
				if err := ctx.Err(); err != nil {
					return err
				}
				r := &readAhead{q: q, scan: true}
				r.page, _, r.err = source.Read(ctx, q.src, q.c, limit)
				if err := send(r); err != nil {
					return err
				}
			}
			return nil
		},
		func(r *readAhead, sc *codec.Scanned) error {
			switch {
			case s.finished() || len(s.queue) == 0 || !sameCapture(s.queue[0], r.q):
				return errMoved
			case ctx.Err() != nil:
				return ctx.Err()
			}
			s.queue = s.queue[1:]
			if s.seenBefore(r.q.c) {
				return nil
			}
			return s.fetched(ctx, r.q, r.page, r.err, sc)
		})
	if errors.Is(err, errMoved) {
		return nil
	}
	return err
}

// sameCapture reports whether two queued captures are the same one.
func sameCapture(a, b queued) bool {
	return a.src.Name() == b.src.Name() && a.c.Locator == b.c.Locator && a.c.URL == b.c.URL && a.c.Time.Equal(b.c.Time)
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

// maxCapture is the bound on one capture's bytes.
func (s *session) maxCapture() int64 {
	if s.o.MaxCapture <= 0 {
		return source.DefaultMaxCapture
	}
	return s.o.MaxCapture
}

// take adds one capture's blocks to the assembler: what scanning its
// bytes found (sc, scanned ahead; nil scans them now).
func (s *session) take(ctx context.Context, c source.Capture, page []byte, sc *codec.Scanned) error {
	if sc == nil {
		sc = s.a.Scan(page, origin(c))
	}
	pr := s.a.AddScanned(sc)
	s.rep.Pages++
	for _, sr := range s.rep.Sources {
		if sr.Name == c.Source {
			sr.Fetched++
		}
	}
	noted := s.noteManifestPages(c, page, pr)
	for _, m := range s.rep.credit(pr) {
		s.addManifest(ctx, m)
	}
	if noted && s.carriers != nil {
		s.sort()
	}
	s.follow(ctx)
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
