package caddymodule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/caddyserver/certmagic"
)

// The placement of a generation in storage, under the placer's prefix
// (lazarus/NAME/placement/GENERATION/):
//
//	state      placerState as JSON
//	pages/HEX  pageRecord as JSON, HEX = the first 32 hex digits of SHA-256(path)
//	lock       the storage lock every change is made under

// placerState is the shared state of a generation's placement.
type placerState struct {
	// Counts are the verified pages carrying each block, in the order of
	// generation.blocks (planned pages count).
	Counts []int `json:"counts"`
	// UnverifiedCounts are the unverified pages carrying each block.
	UnverifiedCounts []int `json:"unverified_counts,omitempty"`
	// Records and UnverifiedRecords count the page records of each kind.
	Records           int `json:"records"`
	UnverifiedRecords int `json:"unverified_records,omitempty"`
	// Full is set once every block has Copies verified carriers or
	// maxRecords verified pages have records.
	Full        bool     `json:"full"`
	Manifest    []string `json:"manifest"`
	ManifestSet bool     `json:"manifest_set"`
	// Site and KeyID are the site URL and signer key id (hex) of the
	// generation's manifest: a handler prunes only the placement of its
	// own site and key (see Handler.prunePlacement).
	Site  string `json:"site,omitempty"`
	KeyID string `json:"key_id,omitempty"`
	// Carried is set once the copy of the parent's records completed
	// (see placer.copyParent): the records marked carried are counted. A
	// state with neither Carried nor Copying (a copy by an earlier
	// version that failed half way) counts none of them until served.
	Carried bool `json:"carried,omitempty"`
	// Copying is set while the parent's records are being copied: those
	// whose hash is CopiedTo or before are copied (and counted, if
	// marked carried); Pending are the verified carriers of each block
	// among the parent's records not carried over yet, from its state
	// when the copy started (an estimate: records it makes later are
	// not in it). Coverage is Counts plus Pending; the state is not
	// Full while copying.
	Copying  bool   `json:"copying,omitempty"`
	CopiedTo string `json:"copied_to,omitempty"`
	Pending  []int  `json:"pending,omitempty"`
}

// carriers is the coverage of block i: its verified carriers, with
// those pending (see Pending).
func (st *placerState) carriers(i int) int {
	if st.Pending != nil {
		return st.Counts[i] + st.Pending[i]
	}
	return st.Counts[i]
}

// coverage is carriers of every block.
func (st *placerState) coverage() []int {
	out := make([]int, len(st.Counts))
	for i := range out {
		out[i] = st.carriers(i)
	}
	return out
}

// full reports whether new pages need no records: every block has
// copies verified carriers, or maxRecords verified pages have records;
// never while the parent's records are being copied (pages they name
// must not get table entries).
func (st *placerState) full(copies int) bool {
	return !st.Copying && (st.Records >= maxRecords || slices.Min(st.Counts) >= copies)
}

// countsCarried reports whether the carried record of key is counted:
// copied by a copy that completed, or that stored its progress past it.
func (st *placerState) countsCarried(key string) bool {
	return st.Carried || st.Copying && recordHash(key) <= st.CopiedTo
}

// count adds n (+1 or -1) records of a to the state.
func (st *placerState) count(a *assignment, n int) {
	counts, records := st.Counts, &st.Records
	if a.unverified {
		counts, records = st.UnverifiedCounts, &st.UnverifiedRecords
	}
	for _, i := range a.blocks {
		counts[i] += n
	}
	*records += n
}

// pageRecord is one page's assignment in storage.
type pageRecord struct {
	Path       string    `json:"path"`
	Blocks     []string  `json:"blocks"`
	Manifest   bool      `json:"manifest"`
	Since      time.Time `json:"since"`
	Unverified bool      `json:"unverified,omitempty"`
	// Carried marks a record carried over from the parent generation's
	// placement and not yet served under this one (see placer.carry).
	Carried bool `json:"carried,omitempty"`
}

// loadState reads the shared state, or starts it: counts from the plan.
// The caller holds p.writing.
func (p *placer) loadState(ctx context.Context) (*placerState, error) {
	st, err := readState(ctx, p.st, p.prefix)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = p.newState()
	}
	if st.UnverifiedCounts == nil { // none yet, or a state made before they were counted
		st.UnverifiedCounts = make([]int, len(p.g.blocks))
	}
	if len(st.Counts) != len(p.g.blocks) || len(st.UnverifiedCounts) != len(p.g.blocks) || st.Pending != nil && len(st.Pending) != len(p.g.blocks) {
		return nil, fmt.Errorf("placement state: %d, %d and %d counts for %d blocks", len(st.Counts), len(st.UnverifiedCounts), len(st.Pending), len(p.g.blocks))
	}
	p.adopt(st)
	return st, nil
}

// newState is the state of a placement not started: counts from the plan.
func (p *placer) newState() *placerState {
	st := &placerState{Counts: make([]int, len(p.g.blocks)), UnverifiedCounts: make([]int, len(p.g.blocks)), Site: p.g.site, KeyID: p.g.keyID}
	for _, idx := range p.g.pages {
		for _, i := range idx {
			st.Counts[i]++
		}
	}
	return st
}

// readState reads the placement state stored under prefix, nil if there
// is none.
func readState(ctx context.Context, st certmagic.Storage, prefix string) (*placerState, error) {
	v, err := loadLimited(ctx, st, prefix+"state", maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	s := &placerState{}
	if err == nil {
		err = decodeState(v, s)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

// decodeState reads a stored state v into st.
func decodeState(v []byte, st *placerState) error {
	if len(v) > maxStateBytes {
		return fmt.Errorf("placement state: %d bytes", len(v))
	}
	if err := json.Unmarshal(v, st); err != nil {
		return fmt.Errorf("placement state: %w", err)
	}
	return nil
}

// adopt takes what an instance caches from the shared state.
func (p *placer) adopt(st *placerState) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.manSet = st.ManifestSet
	p.unverifiedFull = st.UnverifiedRecords >= p.maxUnverified
	for _, l := range st.Manifest {
		p.manifest[l] = true
	}
	if p.onChange != nil {
		p.onChange(st.coverage())
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
	return p.prefix + "pages/" + recordHash(path)
}

// recordHash names the record of path: the first 32 hex digits of
// SHA-256(path).
func recordHash(path string) string {
	h := sha256.Sum256([]byte(path))
	return hex.EncodeToString(h[:16])
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
	v, err := loadLimited(ctx, p.st, skey, maxRecordBytes)
	if err != nil {
		return nil, err
	}
	if len(v) > maxRecordBytes {
		return nil, fmt.Errorf("%w %s: %d bytes", errUnreadableRecord, skey, len(v))
	}
	rec := &pageRecord{}
	if err := json.Unmarshal(v, rec); err != nil {
		return nil, fmt.Errorf("%w %s: %v", errUnreadableRecord, skey, err)
	}
	return rec, nil
}

// errUnreadableRecord is a stored record that is not one: not JSON, too
// large, or stored under another path's name.
var errUnreadableRecord = errors.New("unreadable placement record")

// unreadable reports whether err is a record's fault, not the storage's.
func unreadable(err error) bool {
	return errors.Is(err, errUnreadableRecord) || errors.Is(err, errTooLarge)
}

func (p *placer) resolve(rec *pageRecord) (*assignment, error) {
	idx, err := p.g.resolve(rec.Blocks)
	if err != nil {
		return nil, fmt.Errorf("placement record for %q: %w", rec.Path, err)
	}
	return &assignment{blocks: idx, manifest: rec.Manifest, since: rec.Since, unverified: rec.Unverified, carried: rec.Carried}, nil
}

func (p *placer) storeRecord(ctx context.Context, key string, a *assignment) error {
	rec := pageRecord{Path: key, Manifest: a.manifest, Since: a.since, Unverified: a.unverified, Carried: a.carried}
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
