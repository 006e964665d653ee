package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

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
//
// The switch itself reads the parent's state and writes the new one,
// once, whatever the number of pages (startCarry): the parent's coverage
// comes along as pending (placerState.Pending). A page first served
// afterwards carries its parent's record over then (fromParent), and the
// parent's records are copied meanwhile in the background (copyParent),
// a turn at a time, so that no request waits for the whole copy: the
// copy is needed because the parent's placement is deleted two switches
// on (Handler.prunePlacement), and a page not served before then would
// lose its blocks with it.

// startCarry starts the placement state of p.g from its parent's, under
// the storage lock, unless it has been started already: the parent's
// manifest pages, and the coverage its records give, mapped onto p.g's
// blocks (placerState.Pending; parent is the parent generation, nil if
// not loaded: then none). It reads the parent's state and writes p.g's,
// once: the records themselves are carried over as their pages are
// first served, and copied meanwhile by copyParent. It is what a switch
// costs the request that makes it.
func (p *placer) startCarry(ctx context.Context, parent *generation) error {
	if p.parent == "" {
		return nil
	}
	p.writing.lock(true)
	defer p.writing.unlock()
	unlock, err := p.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if st, err := p.peekState(ctx); st != nil || err != nil {
		return err // started (or unreadable: the placement goes on as it is)
	}
	pst, err := p.parentState(ctx)
	if pst == nil || err != nil {
		return err
	}
	st := p.newState()
	st.ManifestSet = pst.ManifestSet
	for _, l := range pst.Manifest {
		if p.g.pages[l] == nil && len(st.Manifest) < maxManifestPages {
			st.Manifest = append(st.Manifest, l)
		}
	}
	st.Copying, st.Pending = true, p.pendingFrom(parent, pst)
	return p.storeState(ctx, st)
}

// pendingFrom is the coverage of parent's records mapped onto p.g's
// blocks: the verified records carrying each block of parent (its
// counts, less its planned pages, plus its own records not copied yet)
// at the place p.g has the block; nil if parent is not p.g's parent or
// its state does not fit it.
func (p *placer) pendingFrom(parent *generation, pst *placerState) []int {
	if parent == nil || parent.id != p.g.previous || len(pst.Counts) != len(parent.blocks) {
		return nil
	}
	planned := make([]int, len(parent.blocks))
	for _, idx := range parent.pages {
		for _, j := range idx {
			planned[j]++
		}
	}
	out := make([]int, len(p.g.blocks))
	for j, b := range parent.blocks {
		i, ok := slices.BinarySearchFunc(p.g.blocks, b.ref, func(x blockFile, r manifest.BlockRef) int { return compareRefs(x.ref, r) })
		if !ok {
			continue
		}
		n := pst.Counts[j] - planned[j]
		if len(pst.Pending) == len(pst.Counts) {
			n += pst.Pending[j]
		}
		out[i] = max(0, n)
	}
	return out
}

// copyChunk bounds how long a copy holds the placement locks at a time;
// a request of this instance waiting for them ends the turn after the
// record being copied.
const copyChunk = time.Second

// copyParent copies the parent's records of verified pages into p.g's
// placement (see carry), marked carried and counted, while the state
// says a copy is under way (placerState.Copying): in key order, a turn
// at a time under the locks, resuming where any instance left off. A
// page that has a record here already (served first) is left as it is;
// unverified records (a visitor's endless URLs, which cost the switch no
// writes) are carried over only if served again. When every record is
// copied, the state is marked Carried. It returns the records it copied.
// One copy runs here at a time: a turn gives way to requests waiting
// for the placement, and two copies would give way to each other after
// every record.
func (p *placer) copyParent(ctx context.Context) (int, error) {
	if p.parent == "" {
		return 0, nil
	}
	select {
	case p.copier <- struct{}{}:
		defer func() { <-p.copier }()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if st, err := p.peekState(ctx); err != nil || st == nil || !st.Copying {
		return 0, err
	}
	keys, err := p.st.List(ctx, p.parent+"pages", false)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	slices.Sort(keys)
	copied := 0
	for {
		n, done, err := p.copyTurn(ctx, keys)
		copied += n
		if err != nil || done {
			return copied, err
		}
	}
}

// peekState reads the stored state without starting one, nil if none.
func (p *placer) peekState(ctx context.Context) (*placerState, error) {
	return readState(ctx, p.st, p.prefix)
}

// parentState reads the parent's placement state, nil if it has none.
func (p *placer) parentState(ctx context.Context) (*placerState, error) {
	st, err := readState(ctx, p.st, p.parent)
	if err != nil {
		return nil, fmt.Errorf("parent placement: %w", err)
	}
	return st, nil
}

// copyTurn copies records of keys (the parent's, sorted) past the
// state's CopiedTo for at most copyChunk, or until a request waits for
// the placement, and stores the state; done when the copy is over. An
// unreadable record (see unreadable) is skipped: it would fail again on
// every attempt, and stop the copy short of the state it ends in.
func (p *placer) copyTurn(ctx context.Context, keys []string) (int, bool, error) {
	p.writing.lock(false)
	defer p.writing.unlock()
	unlock, err := p.lock(ctx)
	if err != nil {
		return 0, false, err
	}
	defer unlock()
	st, err := p.loadState(ctx)
	if err != nil || !st.Copying {
		return 0, true, err
	}
	i := sort.Search(len(keys), func(i int) bool { return path.Base(keys[i]) > st.CopiedTo })
	start, copied := time.Now(), 0
	for n := 0; i < len(keys) && st.Records < maxRecords; i, n = i+1, n+1 {
		if err := ctx.Err(); err != nil {
			return 0, false, err
		}
		if n > 0 && (time.Since(start) > copyChunk || p.writing.waiting() > 0) {
			break
		}
		ok, err := p.copyRecord(ctx, st, keys[i])
		if err != nil && !unreadable(err) {
			return 0, false, err
		}
		if ok {
			copied++
		}
		st.CopiedTo = path.Base(keys[i])
	}
	done := i >= len(keys) || st.Records >= maxRecords
	if done {
		st.Copying, st.Pending, st.CopiedTo, st.Carried = false, nil, "", true
	}
	st.Full = st.full(p.copies)
	if err := p.storeState(ctx, st); err != nil {
		return 0, false, err
	}
	if st.Full {
		return copied, done, p.becomeFull(ctx)
	}
	return copied, done, nil
}

// copyRecord copies the parent's record at key into st's placement
// unless the page has a record here (carried over when it was served;
// one marked carried is what a copy that could not store its progress
// left, uncounted: copied again). It reports whether it copied.
func (p *placer) copyRecord(ctx context.Context, st *placerState, key string) (bool, error) {
	hash := path.Base(key)
	own, err := p.readRecord(ctx, p.prefix+"pages/"+hash)
	switch {
	case err == nil && !own.Carried:
		return false, nil
	case err != nil && !errors.Is(err, fs.ErrNotExist) && !unreadable(err):
		return false, err
	}
	rec, err := p.readRecord(ctx, key)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case recordHash(rec.Path) != hash:
		return false, fmt.Errorf("%w: %s holds %q", errUnreadableRecord, key, rec.Path)
	case rec.Unverified:
		return false, nil // nothing links to it: carried over if served again
	}
	p.uncarry(st, rec)
	if p.g.pages[rec.Path] != nil {
		return false, nil // the plan names it: counted from the plan
	}
	a := p.carry(rec)
	if a == nil {
		return false, nil
	}
	if err := p.storeRecord(ctx, rec.Path, a); err != nil {
		return false, err
	}
	st.count(a, +1)
	return true, nil
}

// fromParent returns the parent's record of key carried over (see
// carry), nil if the parent has none; while the parent's records are
// being copied, the coverage it gave is no longer pending (see unpend).
func (p *placer) fromParent(ctx context.Context, st *placerState, key string) (*assignment, error) {
	rec, err := p.parentRecord(ctx, key)
	if rec == nil || err != nil {
		return nil, err
	}
	p.unpend(st, rec)
	return p.carry(rec), nil
}

// parentRecord reads the parent's record of key, nil if it has none.
func (p *placer) parentRecord(ctx context.Context, key string) (*pageRecord, error) {
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
	return rec, nil
}

// unpend takes the parent's record rec of a page now counted here off
// the coverage pending, unless the copy counted it already (see
// uncarry).
func (p *placer) unpend(st *placerState, rec *pageRecord) {
	if !rec.Unverified && recordHash(rec.Path) > st.CopiedTo {
		p.uncarry(st, rec)
	}
}

// uncarry takes the parent's record rec, now carried over or left out,
// off the coverage pending while the parent's records are copied (see
// placerState.Pending): it was counted there if it was verified when
// the copy started.
func (p *placer) uncarry(st *placerState, rec *pageRecord) {
	if st.Pending == nil {
		return
	}
	idx, _ := p.places(rec)
	for _, i := range idx {
		st.Pending[i] = max(0, st.Pending[i]-1)
	}
}

// places returns the blocks of p.g at the places (segment, stripe,
// shard) rec names, in its order, once each, and whether it names no
// other place.
func (p *placer) places(rec *pageRecord) ([]int, bool) {
	var idx []int
	all := true
	for _, s := range rec.Blocks {
		var ref manifest.BlockRef
		if ref.UnmarshalText([]byte(s)) != nil {
			all = false
			continue
		}
		i, ok := slices.BinarySearchFunc(p.g.blocks, ref, func(b blockFile, r manifest.BlockRef) int { return compareRefs(b.ref, r) })
		if !ok || slices.Contains(idx, i) {
			all = false
			continue
		}
		idx = append(idx, i)
	}
	return idx, all
}

// carry turns a parent's page record into one of p.g: the blocks at the
// positions p.g has (see places), in the record's order, while they fit
// the budget (the manifest's share taken off, as for a new record); nil
// if nothing is left. Its since stays the parent's when the page carries
// exactly the same blocks (all of segment versions p.g carries over,
// none dropped), else it is now; it is no earlier than p.parentRode (or
// now, if that is earlier): the page lost the blocks that rode along on
// it under the parent. The record is marked carried: when first served
// here it may take blocks in the room left (see topUp).
func (p *placer) carry(rec *pageRecord) *assignment {
	a := &assignment{manifest: rec.Manifest || p.isManifestPage(rec.Path), since: rec.Since, unverified: rec.Unverified, carried: true}
	budget := p.budget
	if a.manifest {
		budget -= int64(len(p.g.manifest)) + 1
	}
	idx, same := p.places(rec)
	for _, i := range idx {
		size := armoredSize(p.g.blocks[i].size)
		if len(a.blocks) > 0 && size > budget {
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
