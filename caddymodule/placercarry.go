package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// maxCarryErrors bounds the unreadable parent records a carry-over skips
// before it gives up: a storage that fails that often is failing.
const maxCarryErrors = 100

// Stable placement across generations. A generation's placement starts
// from its parent's (the generation it replaced): every page keeps the
// blocks it carried at the same positions (segment name, stripe, shard)
// where the new generation has them. A segment the new generation
// carries over unchanged has the same blocks there, byte for byte, so
// such a page carries the same blocks as before; a changed segment's new
// blocks take its old ones' places, and no other. The coverage counts
// come along, so pages first served after the switch continue the
// coverage where the parent left it instead of starting again at the
// first blocks: a crawl that spans switches collects distinct blocks of
// an unchanged segment on every page, as if there had been no switch.

// carryOver starts the placement state of p.g from its parent's, under
// the storage lock, unless it has been started already: the parent's
// records of verified pages (see carry), counted, and its manifest pages.
// Pages first served under the parent after this (by instances not yet
// switched), and unverified pages (a visitor's endless URLs, which cost
// the switch no writes), are carried over as they are first served here
// (see fromParent). It returns the parent's records carried over.
func (p *placer) carryOver(ctx context.Context) (int, error) {
	if p.parent == "" {
		return 0, nil
	}
	p.writing.lock(true)
	defer p.writing.unlock()
	unlock, err := p.lock(ctx)
	if err != nil {
		return 0, err
	}
	defer unlock()
	if _, err := loadLimited(ctx, p.st, p.prefix+"state", maxStateBytes); !errors.Is(err, fs.ErrNotExist) {
		return 0, err // started (or unreadable: the placement goes on as it is)
	}
	parent, err := p.parentState(ctx)
	if parent == nil || err != nil {
		return 0, err
	}
	st := p.newState()
	st.ManifestSet = parent.ManifestSet
	for _, l := range parent.Manifest {
		if p.g.pages[l] == nil && len(st.Manifest) < maxManifestPages {
			st.Manifest = append(st.Manifest, l)
		}
	}
	p.adopt(st) // the manifest pages, for the manifest share of records
	keys, err := p.st.List(ctx, p.parent+"pages", false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	slices.Sort(keys)
	carried, bad := 0, 0
	for _, k := range keys {
		if st.Records >= maxRecords {
			break
		}
		rec, err := p.readRecord(ctx, k)
		if err != nil {
			if bad++; bad > maxCarryErrors {
				return 0, err
			}
			continue
		}
		if p.g.pages[rec.Path] != nil || rec.Unverified {
			continue // the plan names it: counted from the plan; or nothing links to it: carried over if served again
		}
		a := p.carry(rec)
		if a == nil {
			continue
		}
		if err := p.storeRecord(ctx, rec.Path, a); err != nil {
			return 0, err
		}
		st.count(a, +1)
		carried++
	}
	st.Full = st.Records >= maxRecords || slices.Min(st.Counts) >= p.copies
	st.Carried = true
	if err := p.storeState(ctx, st); err != nil {
		return 0, err
	}
	if st.Full {
		return carried, p.becomeFull(ctx)
	}
	return carried, nil
}

// parentState reads the parent's placement state, nil if it has none.
func (p *placer) parentState(ctx context.Context) (*placerState, error) {
	v, err := loadLimited(ctx, p.st, p.parent+"state", maxStateBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	st := &placerState{}
	if err == nil {
		err = decodeState(v, st)
	}
	if err != nil {
		return nil, fmt.Errorf("parent placement: %w", err)
	}
	return st, nil
}

// fromParent returns the parent's record of key carried over (see
// carry), nil if the parent has none.
func (p *placer) fromParent(ctx context.Context, key string) (*assignment, error) {
	if p.parent == "" {
		return nil, nil
	}
	rec, err := p.readRecord(ctx, p.parent+"pages/"+recordHash(key))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	case rec.Path != key:
		return nil, nil // a hash prefix collision: not this page's
	}
	return p.carry(rec), nil
}

// carry turns a parent's page record into one of p.g: the blocks at the
// positions p.g has, in the record's order, while they fit the budget
// (the manifest's share taken off, as for a new record); nil if nothing
// is left. Its since stays the parent's when the page carries exactly the
// same blocks (all of segment versions p.g carries over, none dropped),
// else it is now; it is no earlier than p.parentRode (or now, if that is
// earlier): the page lost the blocks that rode along on it under the
// parent. The record is marked carried: when first served here it may
// take blocks in the room left (see topUp).
func (p *placer) carry(rec *pageRecord) *assignment {
	a := &assignment{manifest: rec.Manifest || p.isManifestPage(rec.Path), since: rec.Since, unverified: rec.Unverified, carried: true}
	budget := p.budget
	if a.manifest {
		budget -= int64(len(p.g.manifest)) + 1
	}
	same := true
	for _, s := range rec.Blocks {
		var ref manifest.BlockRef
		if ref.UnmarshalText([]byte(s)) != nil {
			same = false
			continue
		}
		i, ok := slices.BinarySearchFunc(p.g.blocks, ref, func(b blockFile, r manifest.BlockRef) int { return compareRefs(b.ref, r) })
		size := armoredSize(p.g.blocks[min(i, len(p.g.blocks)-1)].size)
		if !ok || slices.Contains(a.blocks, i) || len(a.blocks) > 0 && size > budget {
			same = false
			continue
		}
		a.blocks = append(a.blocks, i)
		budget -= size
		same = same && !p.producedHere(i)
	}
	if len(a.blocks) == 0 && !a.manifest {
		return nil
	}
	now := p.now().UTC().Truncate(time.Second)
	switch {
	case !same || rec.Manifest != a.manifest || p.parentRode.After(now):
		a.since = now
	case p.parentRode.After(a.since):
		a.since = p.parentRode
	}
	return a
}

// producedHere reports whether block i belongs to a segment version p.g
// made (a changed or new segment), not one it carries over.
func (p *placer) producedHere(i int) bool {
	s, ok := p.g.segments[p.g.blocks[i].ref.Segment]
	return !ok || s.Generation.String() == p.g.id
}

// topUp adds to a carried record the least-covered blocks that fit the
// budget and the page's room beside the blocks it keeps (see
// leastCovered), in the stripes it has no block of; since moves to now
// if it takes any.
func (p *placer) topUp(st *placerState, a *assignment, room int64) {
	before := len(a.blocks)
	p.fillFrom(st, a, room)
	if len(a.blocks) > before {
		a.since = p.now().UTC().Truncate(time.Second)
	}
	a.carried = false
}
