package caddymodule

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
)

// Limits of the live placement state.
const (
	// tableSize is the number of distinct block sets pages get once every
	// block has enough carriers.
	tableSize = 256
	// maxRecords bounds the pages a generation remembers; beyond it every
	// new page gets a table entry.
	maxRecords = 50000
	// maxManifestPages bounds the pages linked from the root that carry
	// the manifest.
	maxManifestPages = 32
	maxRecordBytes   = 64 << 10
	maxStateBytes    = 16 << 20
)

// assignment is what one page carries of a generation.
type assignment struct {
	blocks   []int     // indices into generation.blocks, in comment order
	manifest bool      // the manifest comment too
	since    time.Time // when the page got these blocks
}

// placer assigns blocks to the pages a generation's plan does not name, as
// they are first served. The first time a path is seen it gets the
// least-covered blocks (ties: by shard, then segment, then stripe, so one
// page holds one block of many stripes rather than many of one) up to the
// page budget, and keeps them: the assignment is a record in storage, so
// every Caddy instance sharing the storage serves the same blocks on the
// same URL. Once every block has Copies carriers (or maxRecords pages have
// records), new paths get one of tableSize fixed block sets chosen by a
// hash of the path, which needs no state: an endless URL space costs
// nothing.
//
// Storage layout under prefix (lazarus/NAME/placement/GENERATION/):
//
//	state                       {"counts": [...], "records": N, "full": bool, "manifest": [...], "manifest_set": bool}
//	pages/HEX                   {"path": ..., "blocks": ["seg/stripe/shard"...], "manifest": bool, "since": time}
//
// where HEX is the first 32 hex digits of SHA-256(path). Records and the
// state change only under the storage lock named prefix+"lock".
type placer struct {
	st     certmagic.Storage
	prefix string
	g      *generation
	budget int64
	copies int
	now    func() time.Time
	order  []int // block indices, least-covered tie order
	rank   []int // position of each block in order

	// writing serializes changes to the shared state (and the storage
	// reads they depend on); mu guards the fields below it, and is never
	// held across storage I/O, so pages already known are answered while
	// a new page's record is being made.
	writing  sync.Mutex
	mu       sync.RWMutex
	known    map[string]*assignment
	missed   map[string]bool // paths without a record, asked with create false
	full     bool
	manifest map[string]bool
	manSet   bool
	onChange func(counts []int) // told the coverage whenever the state is read or written
}

// placerState is the shared state of a generation's placement.
type placerState struct {
	Counts      []int    `json:"counts"`
	Records     int      `json:"records"`
	Full        bool     `json:"full"`
	Manifest    []string `json:"manifest"`
	ManifestSet bool     `json:"manifest_set"`
}

// pageRecord is one page's assignment in storage.
type pageRecord struct {
	Path     string    `json:"path"`
	Blocks   []string  `json:"blocks"`
	Manifest bool      `json:"manifest"`
	Since    time.Time `json:"since"`
}

func newPlacer(st certmagic.Storage, prefix string, g *generation, budget int64, copies int, now func() time.Time) *placer {
	p := &placer{st: st, prefix: prefix, g: g, budget: budget, copies: copies, now: now, known: map[string]*assignment{}, missed: map[string]bool{}, manifest: map[string]bool{}}
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
	return p
}

// assign returns what the page at key carries. With create false (the
// previous generation riding along) no new record is made: an unknown page
// gets its table entry.
func (p *placer) assign(ctx context.Context, key string, create bool) (*assignment, error) {
	if idx, ok := p.g.pages[key]; ok {
		return &assignment{blocks: idx, manifest: p.g.manifestOn[key], since: p.g.time}, nil
	}
	if a, done := p.cached(key); done {
		return a, nil
	}
	if a, err := p.loadRecord(ctx, key); err != nil || a != nil {
		return a, err
	}
	if !create {
		p.mu.Lock()
		if len(p.missed) >= maxRecords {
			clear(p.missed)
		}
		p.missed[key] = true
		p.mu.Unlock()
		return p.table(key), nil
	}
	p.writing.Lock()
	defer p.writing.Unlock()
	if a, done := p.cached(key); done { // made while we waited
		return a, nil
	}
	return p.create(ctx, key)
}

// cached answers from memory: a known record, or the table once full (or
// for a path already found to have no record). done is false when storage
// must be asked.
func (p *placer) cached(key string) (a *assignment, done bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if a, ok := p.known[key]; ok {
		return a, true
	}
	if p.full && !p.manifestPage(key) || p.missed[key] {
		return p.table(key), true
	}
	return nil, false
}

// manifestPage reports whether key carries the manifest. The caller holds
// p.mu.
func (p *placer) manifestPage(key string) bool {
	return key == "/" || p.g.manifestOn[key] || p.manifest[key]
}

// create makes the record of a new page under the storage lock.
func (p *placer) create(ctx context.Context, key string) (*assignment, error) {
	unlock, err := p.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	st, err := p.loadState(ctx)
	if err != nil {
		return nil, err
	}
	if a, err := p.loadRecord(ctx, key); err != nil || a != nil { // another instance was first
		return a, err
	}
	p.mu.RLock()
	manifest := p.manifestPage(key)
	p.mu.RUnlock()
	if st.Full && !manifest {
		return p.table(key), p.becomeFull(ctx)
	}
	a := p.leastCovered(st.Counts, manifest)
	if err := p.storeRecord(ctx, key, a); err != nil {
		return nil, err
	}
	for _, i := range a.blocks {
		st.Counts[i]++
	}
	st.Records++
	st.Full = st.Records >= maxRecords || slices.Min(st.Counts) >= p.copies
	if err := p.storeState(ctx, st); err != nil {
		return nil, err
	}
	p.remember(key, a)
	if st.Full {
		return a, p.becomeFull(ctx)
	}
	return a, nil
}

// leastCovered picks blocks for a new page: fewest carriers first, while
// they fit the budget (the manifest's share taken off), at least one.
func (p *placer) leastCovered(counts []int, manifest bool) *assignment {
	cand := slices.Clone(p.order)
	slices.SortStableFunc(cand, func(a, b int) int { return cmp.Compare(counts[a], counts[b]) })
	room := p.budget
	if manifest {
		room -= int64(len(p.g.manifest)) + 1
	}
	a := &assignment{manifest: manifest, since: p.now().UTC().Truncate(time.Second)}
	for _, i := range cand {
		size := armoredSize(p.g.blocks[i].size)
		if len(a.blocks) > 0 && size > room {
			break
		}
		a.blocks = append(a.blocks, i)
		room -= size
	}
	return a
}

// table returns the fixed block set of key's table entry: consecutive
// blocks of the tie order, starting at the entry's share of it, while
// they fit the budget. It depends only on the generation and key.
func (p *placer) table(key string) *assignment {
	h := sha256.Sum256([]byte(p.g.id + "\x00" + key))
	t := binary.BigEndian.Uint64(h[:8]) % tableSize
	n := len(p.order)
	at := int(t * uint64(n) / tableSize)
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
	p.writing.Lock()
	defer p.writing.Unlock()
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
	for _, l := range links {
		if len(st.Manifest) < maxManifestPages && l != "/" && p.g.pages[l] == nil {
			st.Manifest = append(st.Manifest, l)
		}
	}
	if err := p.storeState(ctx, st); err != nil {
		return err
	}
	p.adopt(st)
	return nil
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
	p.writing.Lock()
	defer p.writing.Unlock()
	_, err := p.loadState(ctx)
	return err
}

// loadState reads the shared state, or starts it: counts from the plan.
// The caller holds p.writing.
func (p *placer) loadState(ctx context.Context) (*placerState, error) {
	v, err := p.st.Load(ctx, p.prefix+"state")
	st := &placerState{}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		st.Counts = make([]int, len(p.g.blocks))
		for _, idx := range p.g.pages {
			for _, i := range idx {
				st.Counts[i]++
			}
		}
	case err != nil:
		return nil, err
	case len(v) > maxStateBytes:
		return nil, fmt.Errorf("placement state: %d bytes", len(v))
	default:
		if err := json.Unmarshal(v, st); err != nil {
			return nil, fmt.Errorf("placement state: %w", err)
		}
		if len(st.Counts) != len(p.g.blocks) {
			return nil, fmt.Errorf("placement state: %d counts for %d blocks", len(st.Counts), len(p.g.blocks))
		}
	}
	p.adopt(st)
	return st, nil
}

// adopt takes what an instance caches from the shared state.
func (p *placer) adopt(st *placerState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.manSet = st.ManifestSet
	for _, l := range st.Manifest {
		p.manifest[l] = true
	}
	if p.onChange != nil {
		p.onChange(st.Counts)
	}
}

func (p *placer) storeState(ctx context.Context, st *placerState) error {
	v, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := p.st.Store(ctx, p.prefix+"state", v); err != nil {
		return err
	}
	p.adopt(st)
	return nil
}

func (p *placer) recordKey(path string) string {
	h := sha256.Sum256([]byte(path))
	return p.prefix + "pages/" + hex.EncodeToString(h[:16])
}

// loadRecord returns the stored assignment of key, nil if none.
func (p *placer) loadRecord(ctx context.Context, key string) (*assignment, error) {
	rec, err := p.readRecord(ctx, p.recordKey(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if rec.Path != key { // a SHA-256 prefix collision: treat as unknown
		return nil, fmt.Errorf("placement record for %q holds %q", key, rec.Path)
	}
	a, err := p.resolve(rec)
	if err != nil {
		return nil, err
	}
	p.remember(key, a)
	return a, nil
}

func (p *placer) readRecord(ctx context.Context, skey string) (*pageRecord, error) {
	v, err := p.st.Load(ctx, skey)
	if err != nil {
		return nil, err
	}
	if len(v) > maxRecordBytes {
		return nil, fmt.Errorf("placement record %s: %d bytes", skey, len(v))
	}
	rec := &pageRecord{}
	if err := json.Unmarshal(v, rec); err != nil {
		return nil, fmt.Errorf("placement record %s: %w", skey, err)
	}
	return rec, nil
}

func (p *placer) resolve(rec *pageRecord) (*assignment, error) {
	idx, err := p.g.resolve(rec.Blocks)
	if err != nil {
		return nil, fmt.Errorf("placement record for %q: %w", rec.Path, err)
	}
	return &assignment{blocks: idx, manifest: rec.Manifest, since: rec.Since}, nil
}

func (p *placer) storeRecord(ctx context.Context, key string, a *assignment) error {
	rec := pageRecord{Path: key, Manifest: a.manifest, Since: a.since}
	for _, i := range a.blocks {
		rec.Blocks = append(rec.Blocks, p.g.blocks[i].ref.String())
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return p.st.Store(ctx, p.recordKey(key), v)
}

// lock takes the storage lock of the generation's placement.
func (p *placer) lock(ctx context.Context) (func(), error) {
	name := p.prefix + "lock"
	if err := p.st.Lock(ctx, name); err != nil {
		return nil, fmt.Errorf("placement lock: %w", err)
	}
	return func() { p.st.Unlock(context.WithoutCancel(ctx), name) }, nil
}
