package caddymodule

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"go.uber.org/zap"
)

// Bounds of the module's serve history (docs/FORMAT.md §14.1).
const (
	// historyPerPath is how many versions of one page are kept: the
	// newest, by the time they were stored. A page that changes on every
	// request (a CSRF token) keeps only its latest few.
	historyPerPath = 64
	// historyQueue and historyQueueBytes bound the versions waiting to be
	// recorded, and their bytes; a version that finds the queue full is
	// dropped and counted (caddy_lazarus_history_versions_total{result="dropped"}).
	historyQueue      = 1024
	historyQueueBytes = 64 << 20
	// historySeen bounds the versions an instance remembers having queued;
	// past it, it forgets them all (storage still knows them).
	historySeen = 1 << 16
)

// serveHistory records, off the request path, into Caddy's storage
// under lazarus/NAME/history/ the manifest of every generation the
// handler serves, as soon as it serves it (whatever the records), and
// every page version of a verified page (Handler.verified: the root, a
// planned page or one a verified page links to) it produced with blocks
// or the manifest: one key per (URL, digest), at most historyPerPath per
// URL and history.MaxRecords in all. Pages no verified page links to
// (any path of a try_files site, any query) are not recorded: requests
// could make them without end and fill the history. It is advisory: a
// version that cannot be recorded is counted and logged, never an error
// of the request.
type serveHistory struct {
	h       *Handler
	st      *historyStore
	queue   chan *servedVersion
	queued  atomic.Int64 // bytes of the pages in queue
	pending sync.WaitGroup
	start   sync.Once // starts the worker, or (close) marks it never to start
	stop    chan struct{}
	stopped sync.Once
	closed  atomic.Bool
	done    chan struct{} // closed when the worker returns, or by close if it never started

	mu   sync.Mutex
	seen map[versionKey]bool // versions queued or recorded by this instance
	// Generations whose manifest is queued or stored, the ones queued,
	// and the worker's signal that some are.
	gens     map[string]bool
	wantGens []*generation
	wake     chan struct{}
	latest   atomic.Pointer[generation] // the last generation noted (fast path)
	riding   atomic.Pointer[generation] // the last previous generation noted

	// The worker's own.
	total     int             // records in storage; -1 until counted
	manifests map[string]bool // generations whose manifest is stored
}

// versionKey is one page version: its placement key and strong ETag
// (equal ETags mean equal bytes, see layout.etag).
type versionKey struct{ key, etag string }

// servedVersion is a page version waiting to be recorded.
type servedVersion struct {
	versionKey
	page     []byte // shared with the page cache: never written
	at       time.Time
	g        *generation
	manifest bool
	cur      []int
	ride     *generation
	old      []int
}

func newServeHistory(h *Handler) *serveHistory {
	return &serveHistory{
		h:         h,
		st:        newHistoryStore(h.storage, h.Name),
		queue:     make(chan *servedVersion, historyQueue),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
		seen:      map[versionKey]bool{},
		gens:      map[string]bool{},
		wake:      make(chan struct{}, 1),
		total:     -1,
		manifests: map[string]bool{},
	}
}

// served notes that page, laid out as l, is served at key with etag;
// verified is Handler.verified(l.g, key), as the request computed it.
// Called for every page served with blocks, it costs a map lookup once a
// version is queued, and never blocks.
func (s *serveHistory) served(key, etag string, verified bool, l *layout, page []byte) {
	if s == nil || s.closed.Load() {
		return
	}
	s.generation(l.g, &s.latest)
	if l.ride != nil {
		s.generation(l.ride.g, &s.riding)
	}
	if !l.cur.manifest && (len(l.cur.blocks) == 0 && l.ride == nil || !verified) {
		return
	}
	vk := versionKey{key, etag}
	s.mu.Lock()
	if s.seen[vk] {
		s.mu.Unlock()
		return
	}
	if len(s.seen) >= historySeen {
		clear(s.seen)
	}
	s.seen[vk] = true
	s.mu.Unlock()
	v := &servedVersion{versionKey: vk, page: page, at: s.h.now(), g: l.g, manifest: l.cur.manifest, cur: slices.Clone(l.cur.blocks)}
	if l.ride != nil {
		v.ride, v.old = l.ride.g, slices.Clone(l.oldBlocks)
	}
	n := int64(len(page))
	if s.queued.Add(n) > historyQueueBytes {
		s.drop(v)
		return
	}
	s.run1()
	s.pending.Add(1)
	select {
	case s.queue <- v:
	default:
		s.pending.Done()
		s.drop(v)
	}
}

// run1 starts the worker once.
func (s *serveHistory) run1() {
	s.start.Do(func() { go s.run() })
}

// generation notes that g is served: its manifest is queued to be
// stored, once per instance (again after a failure), apart from the
// page versions, so it is never dropped nor left out when the history is
// full: status takes the newest generation from the manifests. last is
// the generation noted last in its role (current or riding along): a
// lookup-free fast path.
func (s *serveHistory) generation(g *generation, last *atomic.Pointer[generation]) {
	if g == nil || last.Load() == g {
		return
	}
	s.mu.Lock()
	if !s.gens[g.id] {
		s.gens[g.id] = true
		s.wantGens = append(s.wantGens, g)
		s.pending.Add(1)
		s.run1()
		select {
		case s.wake <- struct{}{}:
		default: // the worker is signalled already
		}
	}
	last.Store(g)
	s.mu.Unlock()
}

// manifestsNoted stores the manifests of the generations noted since
// last; one that cannot be stored is logged, and noted again when next
// served.
func (s *serveHistory) manifestsNoted() {
	s.mu.Lock()
	gens := s.wantGens
	s.wantGens = nil
	s.mu.Unlock()
	for _, g := range gens {
		if err := s.manifest(s.h.ctx, g); err != nil {
			s.h.logger.Warn("recording a generation's manifest in the serve history", zap.String("generation", g.id), zap.Error(err))
			s.mu.Lock()
			delete(s.gens, g.id)
			s.latest.CompareAndSwap(g, nil)
			s.riding.CompareAndSwap(g, nil)
			s.mu.Unlock()
		}
		s.pending.Done()
	}
}

// drop counts a version the queue had no room for, and forgets it, so a
// later rendering of it is queued again.
func (s *serveHistory) drop(v *servedVersion) {
	s.queued.Add(-int64(len(v.page)))
	s.mu.Lock()
	delete(s.seen, v.versionKey)
	s.mu.Unlock()
	s.h.metrics.history.WithLabelValues(s.h.Name, "dropped").Inc()
}

// run records queued versions until close or the handler's context ends.
func (s *serveHistory) run() {
	defer close(s.done)
	for {
		select {
		case <-s.wake:
			s.manifestsNoted()
		case v := <-s.queue:
			s.queued.Add(-int64(len(v.page)))
			result := s.record(v)
			s.h.metrics.history.WithLabelValues(s.h.Name, result).Inc()
			s.pending.Done()
		case <-s.stop:
			return
		case <-s.h.ctx.Done():
			return
		}
	}
}

// wait returns once every version queued so far is recorded (tests).
func (s *serveHistory) wait() { s.pending.Wait() }

// close stops the worker and waits for the version it is recording, if
// any; versions still queued are not recorded. Pages served afterwards
// are not queued, and a worker not started yet never starts (a request
// racing close would otherwise start it after close returned).
func (s *serveHistory) close() {
	if s == nil {
		return
	}
	s.closed.Store(true)
	s.stopped.Do(func() { close(s.stop) })
	s.start.Do(func() { close(s.done) })
	<-s.done
}

// record stores one version and returns the result it is counted as:
// recorded, known (stored already, by this instance or another), full
// (history.MaxRecords reached), invalid or failed.
func (s *serveHistory) record(v *servedVersion) string {
	ctx := s.h.ctx
	rec := v.record()
	if err := rec.Validate(); err != nil {
		return "invalid"
	}
	key := history.RecordKey(&rec)
	if s.st.exists(ctx, key) {
		return "known"
	}
	if s.count(ctx) >= history.MaxRecords {
		return "full"
	}
	for _, g := range []*generation{v.g, v.ride} {
		if err := s.manifest(ctx, g); err != nil {
			return s.failed(v, err)
		}
	}
	if err := history.Add(ctx, s.st, rec); err != nil {
		return s.failed(v, err)
	}
	s.total++
	s.prune(ctx, history.PathDir(rec.URL))
	return "recorded"
}

// record is v as a history record.
func (v *servedVersion) record() history.Record {
	sums := history.SumsOf(v.page)
	rec := history.Record{Digest: sums.SHA1, SHA256: sums.SHA256, URL: servedURL(v.key), Time: v.at.UTC(), Blocks: map[string][]string{}}
	if v.manifest {
		rec.Manifest = v.g.id
	}
	add := func(g *generation, idx []int) {
		for _, i := range idx {
			rec.Blocks[g.id] = append(rec.Blocks[g.id], g.blocks[i].ref.String())
		}
	}
	add(v.g, v.cur)
	if v.ride != nil {
		add(v.ride, v.old)
	}
	return rec
}

// failed logs a version storage did not take, and forgets it.
func (s *serveHistory) failed(v *servedVersion, err error) string {
	s.h.logger.Warn("recording a page version in the serve history", zap.String("path", v.key), zap.Error(err))
	s.mu.Lock()
	delete(s.seen, v.versionKey)
	s.mu.Unlock()
	return "failed"
}

// manifest stores g's signed manifest, once per generation and instance.
func (s *serveHistory) manifest(ctx context.Context, g *generation) error {
	if g == nil || s.manifests[g.id] {
		return nil
	}
	if err := storeManifest(ctx, s.st, g); err != nil {
		return err
	}
	s.manifests[g.id] = true
	return nil
}

// storeManifest stores g's signed manifest in the history st, unless it
// is there already.
func storeManifest(ctx context.Context, st history.Store, g *generation) error {
	env, err := g.src.load(ctx, "generations/"+g.id+"/manifest", manifest.MaxEnvelope)
	if err != nil {
		return err
	}
	return history.AddManifest(ctx, st, g.id, env)
}

// count returns the records in storage, counted once (shared storage
// makes it approximate: each instance counts what it adds and prunes).
func (s *serveHistory) count(ctx context.Context) int {
	if s.total >= 0 {
		return s.total
	}
	s.total = 0
	dirs, _ := s.st.List(ctx, "records")
	for _, d := range dirs {
		keys, _ := s.st.List(ctx, d)
		s.total += len(keys)
	}
	return s.total
}

// prune deletes the oldest versions of a page beyond historyPerPath.
func (s *serveHistory) prune(ctx context.Context, dir string) {
	keys, err := s.st.List(ctx, dir)
	if err != nil || len(keys) <= historyPerPath {
		return
	}
	type version struct {
		key string
		at  time.Time
	}
	vs := make([]version, 0, len(keys))
	for _, k := range keys {
		info, err := s.st.stat(ctx, k)
		if err == nil {
			vs = append(vs, version{k, info.Modified})
		}
	}
	slices.SortFunc(vs, func(a, b version) int { return cmp.Or(a.at.Compare(b.at), strings.Compare(a.key, b.key)) })
	for _, v := range vs[:max(0, len(vs)-historyPerPath)] {
		if s.st.delete(ctx, v.key) == nil {
			s.total--
		}
	}
}

// servedURL is a placement key as a record's URL: the path escaped as in
// a request line, then the query, if any, as it came.
func servedURL(key string) string {
	p, q, hasQuery := strings.Cut(key, "?")
	u := (&url.URL{Path: p}).EscapedPath()
	if hasQuery {
		u += "?" + q
	}
	return u
}
