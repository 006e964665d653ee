package caddymodule

import (
	"cmp"
	"container/heap"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
)

// Limits of the live placement state.
const (
	// maxRecords bounds the verified pages a generation gives records;
	// beyond it every new page gets a table entry.
	maxRecords = 50000
	// maxUnverified bounds the records of pages no verified page links
	// to (see linkSet); beyond it such pages get table entries.
	maxUnverified = 10000
	// maxManifestPages bounds the pages linked from the root that carry
	// the manifest; maxManifestPagesLight without Handler.Fill: with the
	// root, 13 copies, each kept with probability 1/2, fail together less
	// than once in 8,000 (the manifest's share of a 0.999 target).
	maxManifestPages      = 32
	maxManifestPagesLight = 12
	maxRecordBytes        = 64 << 10
	maxStateBytes         = 16 << 20
)

// assignment is what one page carries of a generation.
type assignment struct {
	blocks     []int     // indices into generation.blocks, in comment order
	manifest   bool      // the manifest comment too
	since      time.Time // when the page got these blocks
	unverified bool      // a record not counted toward coverage (yet)
	carried    bool      // carried over from the parent generation, not yet served here (see carry)
}

// placeRequest is a page asking what it carries.
type placeRequest struct {
	key string
	// create makes a record for a page that has none; false only looks
	// (the previous generation riding along): an unknown page gets its
	// table entry.
	create bool
	// verified says the page counts toward coverage: "/", a planned page
	// or one a verified page links to (Handler.verified).
	verified bool
	// room is the most bytes of comments the page can take under
	// MaxPageBytes; a new record holds no more, so only blocks a page
	// really carries are counted.
	room int64
}

// placer assigns blocks to the pages a generation's plan does not name, as
// they are first served. The first time a path is seen it gets the
// least-covered blocks (ties: by shard, then segment, then stripe, so one
// page holds one block of many stripes rather than many of one) up to the
// page budget and the room the page has, and keeps them: the assignment is
// a record in storage, so every Caddy instance sharing the storage serves
// the same blocks on the same URL.
//
// Only verified pages (placeRequest.verified) count toward coverage:
// pages nothing on the site links to (any URL a catch-all route answers)
// get records too, but at most maxUnverified of them, counted apart, so
// they can neither use up the records nor make the state full. A record
// made unverified is counted once a verified request for it comes. Once
// every block has Copies verified carriers (or maxRecords verified pages
// have records), new paths get one of the table's fixed block sets chosen
// by a hash of the path, which needs no state: an endless URL space
// costs nothing. The table has enough entries for every block to be in
// Copies of them (see tableSize).
//
// Storage layout under prefix (lazarus/NAME/placement/GENERATION/): see
// placerstore.go. Records and the state change only under the storage
// lock named prefix+"lock".
type placer struct {
	st     certmagic.Storage
	prefix string
	parent string // the parent generation's placement prefix, "" for none (see startCarry)
	// parentRode is until when pages served under the parent may have
	// carried blocks of the generation before it riding along (see
	// Handler.parentRode): a carried record changes no earlier.
	parentRode    time.Time
	g             *generation
	budget        int64
	copies        int
	light         bool // not Handler.Fill: one block per stripe per page, only blocks still short of copies, no table
	now           func() time.Time
	order         []int // block indices, least-covered tie order
	rank          []int // position of each block in order
	tableLen      int   // entries of the fixed table
	maxUnverified int   // records of unverified pages made at most (maxUnverified)

	// writing serializes changes to the shared state (and the storage
	// reads they depend on), verified pages first; mu guards the fields
	// below it, and is never held across storage I/O, so pages already
	// known are answered while a new page's record is being made.
	writing        *prioLock
	copier         chan struct{} // held by the copy of the parent's records under way here (see copyParent)
	mu             sync.RWMutex
	known          map[string]*assignment
	missed         map[string]bool // paths without a record, asked with create false
	full           bool
	unverifiedFull bool // maxUnverified records made
	manifest       map[string]bool
	manSet         bool
	onChange       func(counts []int) // told the coverage whenever the state is read or written
}

func newPlacer(st certmagic.Storage, prefix string, g *generation, budget int64, copies int, light bool, now func() time.Time) *placer {
	p := &placer{st: st, prefix: prefix, g: g, budget: budget, copies: copies, light: light, now: now,
		writing: newPrioLock(), copier: make(chan struct{}, 1), known: map[string]*assignment{}, missed: map[string]bool{}, manifest: map[string]bool{}}
	p.order = make([]int, len(g.blocks))
	for i := range p.order {
		p.order[i] = i
	}
	slices.SortFunc(p.order, func(a, b int) int {
		ra, rb := g.blocks[a].ref, g.blocks[b].ref
		return cmp.Or(cmp.Compare(ra.Shard, rb.Shard), cmp.Compare(ra.Segment, rb.Segment), cmp.Compare(ra.Stripe, rb.Stripe))
	})
	p.rank = make([]int, len(g.blocks))
	for pos, i := range p.order {
		p.rank[i] = pos
	}
	p.tableLen, p.maxUnverified = tableSize(g, budget, copies), maxUnverified
	return p
}

// tableSize is the number of fixed block sets: enough that each block is
// in copies of them. An entry holds at least b = ⌊budget / largest
// armored block⌋ consecutive blocks of the tie order (at least 1, at most
// all n), and entries start every n/T blocks, so T = ⌈copies·n/b⌉ entries
// cover every block copies times. It depends only on the generation and the options,
// so every instance agrees.
func tableSize(g *generation, budget int64, copies int) int {
	largest := int64(1)
	for _, b := range g.blocks {
		largest = max(largest, armoredSize(b.size))
	}
	per := min(max(1, budget/largest), int64(max(1, len(g.blocks)))) // an entry holds each block once at most
	n := int64(len(g.blocks)) * int64(max(1, copies))
	return int(max(1, (n+per-1)/per))
}

// assign returns what the page q.key carries.
func (p *placer) assign(ctx context.Context, q placeRequest) (*assignment, error) {
	if idx, ok := p.g.pages[q.key]; ok {
		return &assignment{blocks: idx, manifest: p.g.manifestOn[q.key], since: p.g.time}, nil
	}
	q.verified = q.verified || p.isManifestPage(q.key)
	if a, done := p.cached(q); done {
		return a, nil
	}
	a, err := p.loadRecord(ctx, q.key)
	switch {
	case err != nil:
		return nil, err
	case a != nil && !p.stale(q, a):
		return a, nil
	case a == nil && !q.create:
		p.miss(q.key)
		return p.table(q.key), nil
	case a == nil && p.tableOnly(q):
		return p.table(q.key), nil
	}
	p.writing.lock(q.verified)
	defer p.writing.unlock()
	if a, done := p.cached(q); done { // made while we waited
		return a, nil
	}
	return p.create(ctx, q)
}

// isManifestPage reports whether key carries the manifest.
func (p *placer) isManifestPage(key string) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.manifestPage(key)
}

// manifestPage reports whether key carries the manifest. The caller holds
// p.mu.
func (p *placer) manifestPage(key string) bool {
	return key == "/" || p.g.manifestOn[key] || p.manifest[key]
}

// cached answers from memory: a known record, or the table once full (or
// for a path already found to have no record, when only looking). done is
// false when storage must be asked, or a record must be counted.
func (p *placer) cached(q placeRequest) (a *assignment, done bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if a, ok := p.known[q.key]; ok {
		return a, !p.staleLocked(q, a)
	}
	if p.full && !p.manifestPage(q.key) || !q.create && p.missed[q.key] {
		return p.table(q.key), true
	}
	return nil, false
}

// stale reports whether q changes the record a: an unverified record
// the verified q makes a count, or a carried one now served here.
func (p *placer) stale(q placeRequest, a *assignment) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.staleLocked(q, a)
}

func (p *placer) staleLocked(q placeRequest, a *assignment) bool {
	return (a.unverified && q.verified || a.carried) && q.create && !p.full
}

// tableOnly reports whether an unverified page without a record gets its
// table entry because maxUnverified records were made (as last seen).
func (p *placer) tableOnly(q placeRequest) bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return !q.verified && p.unverifiedFull
}

// miss remembers that a path looked up with create false has no record.
func (p *placer) miss(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.missed) >= maxRecords {
		clear(p.missed)
	}
	p.missed[key] = true
}

// create makes the record of a new page (its parent's carried over, if
// the parent generation has one, else least-covered blocks), counts an
// unverified one now verified, or tops up a carried one, under the
// storage lock. The caller holds p.writing.
func (p *placer) create(ctx context.Context, q placeRequest) (*assignment, error) {
	unlock, err := p.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := p.loadState(ctx)
	if err != nil {
		return nil, err
	}
	a, err := p.loadRecord(ctx, q.key) // another instance may have been first
	switch {
	case err != nil:
		return nil, err
	case a != nil && (a.unverified && q.verified || a.carried) && !st.Full:
		return p.update(ctx, st, q, a)
	case a != nil:
		return a, nil
	}
	manifest := p.isManifestPage(q.key)
	switch {
	case st.Full && !manifest:
		return p.table(q.key), p.becomeFull(ctx)
	case !q.verified && st.UnverifiedRecords >= p.maxUnverified:
		return p.table(q.key), nil
	}
	if a, err = p.fromParent(ctx, st, q.key); err != nil {
		return nil, err
	}
	if a != nil {
		p.topUp(st, a, q.room)
	} else if a = p.leastCovered(st, manifest, q.room); a == nil {
		return nil, errPageTooLarge
	}
	a.unverified = !q.verified
	if err := p.storeRecord(ctx, q.key, a); err != nil {
		return nil, err
	}
	return a, p.commit(ctx, st, q.key, a)
}

// update counts the unverified record a as verified if q is, and tops
// it up if it was carried over. A carried record is counted in st only
// if the copy counted it (placerState.countsCarried); one it did not (a
// turn of the copy that stored the record but not its progress) is
// still pending: it leaves Pending as a page carried over when served
// does (see fromParent).
func (p *placer) update(ctx context.Context, st *placerState, q placeRequest, a *assignment) (*assignment, error) {
	v := *a
	v.blocks = slices.Clone(a.blocks)
	switch {
	case !a.carried || st.countsCarried(q.key):
		st.count(a, -1)
	case st.Pending != nil:
		rec, err := p.parentRecord(ctx, q.key)
		if err != nil && !unreadable(err) {
			return nil, err
		}
		if rec != nil {
			p.unpend(st, rec)
		}
	}
	v.unverified = v.unverified && !q.verified
	if v.carried {
		p.topUp(st, &v, q.room)
	}
	if err := p.storeRecord(ctx, q.key, &v); err != nil {
		return nil, err
	}
	return &v, p.commit(ctx, st, q.key, &v)
}

// commit counts the record a of key in st, stores the state and
// remembers a; once every block has Copies verified carriers the state is
// full.
func (p *placer) commit(ctx context.Context, st *placerState, key string, a *assignment) error {
	st.count(a, +1)
	st.Full = st.full(p.copies)
	if err := p.storeState(ctx, st); err != nil {
		return err
	}
	p.remember(key, a)
	if st.Full {
		return p.becomeFull(ctx)
	}
	return nil
}

// leastCovered picks blocks for a new page: fewest verified carriers
// first, then fewest unverified ones, then the tie order, while they fit
// the budget (at least one) and the page's room (strictly), the
// manifest's share taken off both. It is nil when nothing fits the room.
// The blocks come off a heap, so a record costs O(n + k log n) for k
// blocks of n, not a sort of all n.
func (p *placer) leastCovered(st *placerState, manifest bool, room int64) *assignment {
	a := &assignment{manifest: manifest, since: p.now().UTC().Truncate(time.Second)}
	if !p.fillFrom(st, a, room) || len(a.blocks) == 0 && !manifest {
		return nil
	}
	return a
}

// fillFrom adds to a, beside the blocks it holds, least-covered blocks of
// stripes it has no block of (see leastCovered), while they fit the
// budget (at least one block in all) and room. It reports whether the
// blocks a holds and the manifest's share fit room at all.
func (p *placer) fillFrom(st *placerState, a *assignment, room int64) bool {
	budget := p.budget
	if a.manifest {
		share := int64(len(p.g.manifest)) + 1
		budget, room = budget-share, room-share
	}
	stripes := map[stripeKey]bool{}
	for _, i := range a.blocks {
		size := armoredSize(p.g.blocks[i].size)
		budget, room = budget-size, room-size
		stripes[stripeKey{p.g.blocks[i].ref.Segment, p.g.blocks[i].ref.Stripe}] = true
	}
	if room < 0 {
		return false
	}
	cand := &coverageHeap{idx: slices.Clone(p.order), st: st, rank: p.rank}
	heap.Init(cand)
	for cand.Len() > 0 {
		i := heap.Pop(cand).(int)
		ref := p.g.blocks[i].ref
		if p.light && st.carriers(i) >= p.copies {
			break // the rest have their carriers too: the heap yields fewest first
		}
		if stripes[stripeKey{ref.Segment, ref.Stripe}] && (p.light || slices.Contains(a.blocks, i)) {
			continue
		}
		size := armoredSize(p.g.blocks[i].size)
		if size > room || len(a.blocks) > 0 && size > budget {
			break
		}
		a.blocks = append(a.blocks, i)
		stripes[stripeKey{ref.Segment, ref.Stripe}] = true
		budget, room = budget-size, room-size
	}
	return true
}

// stripeKey names one stripe of a generation.
type stripeKey struct {
	segment string
	stripe  uint32
}

// coverageHeap orders block indices by verified carriers (with those
// pending: see placerState.carriers), unverified carriers, then position
// in the tie order.
type coverageHeap struct {
	idx  []int
	st   *placerState
	rank []int
}

func (h *coverageHeap) Len() int { return len(h.idx) }

func (h *coverageHeap) Less(x, y int) bool {
	a, b := h.idx[x], h.idx[y]
	return cmp.Or(cmp.Compare(h.st.carriers(a), h.st.carriers(b)), cmp.Compare(h.st.UnverifiedCounts[a], h.st.UnverifiedCounts[b]),
		cmp.Compare(h.rank[a], h.rank[b])) < 0
}

func (h *coverageHeap) Swap(x, y int) { h.idx[x], h.idx[y] = h.idx[y], h.idx[x] }

func (h *coverageHeap) Push(v any) { h.idx = append(h.idx, v.(int)) }

func (h *coverageHeap) Pop() any {
	v := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return v
}

// table returns the fixed block set of key's table entry: consecutive
// blocks of the tie order, starting at the entry's share of it, while
// they fit the budget. It depends only on the generation's blocks, the
// options and key, not on the generation's id: a page keeps its entry
// across generations whose blocks are laid out alike. Without Handler.Fill there is no table: a page without a
// record carries nothing.
func (p *placer) table(key string) *assignment {
	if p.light {
		return &assignment{since: p.g.time}
	}
	h := sha256.Sum256([]byte(key))
	t := binary.BigEndian.Uint64(h[:8]) % uint64(p.tableLen)
	return p.tableEntry(int(t * uint64(len(p.order)) / uint64(p.tableLen)))
}

// tableEntry is the table entry starting at position at of the tie order.
func (p *placer) tableEntry(at int) *assignment {
	n := len(p.order)
	a := &assignment{since: p.g.time}
	room := p.budget
	for j := range n {
		i := p.order[(at+j)%n]
		size := armoredSize(p.g.blocks[i].size)
		if j > 0 && size > room {
			break
		}
		a.blocks = append(a.blocks, i)
		room -= size
	}
	return a
}

// noteRoot records the pages the root links to as manifest carriers, once
// per generation and only while records are still being made.
func (p *placer) noteRoot(ctx context.Context, links []string) error {
	p.mu.RLock()
	done := p.manSet || p.full
	p.mu.RUnlock()
	if done {
		return nil
	}
	p.writing.lock(true)
	defer p.writing.unlock()
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := p.loadState(ctx)
	if err != nil || st.ManifestSet || st.Full {
		return err
	}
	st.ManifestSet = true
	most := maxManifestPages
	if p.light {
		most = maxManifestPagesLight
	}
	for _, l := range links {
		if len(st.Manifest) < most && l != "/" && p.g.pages[l] == nil {
			st.Manifest = append(st.Manifest, l)
		}
	}
	return p.storeState(ctx, st)
}

// becomeFull loads every record: from now on they and the table answer
// every path without storage.
func (p *placer) becomeFull(ctx context.Context) error {
	keys, err := p.st.List(ctx, p.prefix+"pages", false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	known := map[string]*assignment{}
	for _, k := range keys {
		rec, err := p.readRecord(ctx, k)
		if err != nil {
			return err
		}
		if a, err := p.resolve(rec); err == nil {
			known[rec.Path] = a
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	maps.Copy(p.known, known)
	p.full = true
	return nil
}

// remember keeps an assignment read or made.
func (p *placer) remember(key string, a *assignment) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.known[key] = a
}

// refresh reads the shared state (the manifest pages, the coverage).
func (p *placer) refresh(ctx context.Context) error {
	p.writing.lock(true)
	defer p.writing.unlock()
	_, err := p.loadState(ctx)
	return err
}
