package assure

import (
	"fmt"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// blockIndex says, for every stripe, which shards are archived and which
// pages carry the others. Only stripes with an archived shard or a live
// carrier are stored; the others can never be rebuilt.
type blockIndex struct {
	segs    []segEntry    // in Site order
	stripes []stripeEntry // stored stripes, segment by segment, by number
}

// segEntry is one segment and its stored stripes.
type segEntry struct {
	Segment
	stripes []int // indexes into blockIndex.stripes, by stripe number
	missing int   // stripes with neither an archived shard nor a carrier
}

// stripeKey names a stripe: segment index and stripe number.
type stripeKey struct{ seg, stripe int }

// stripeEntry is one stripe as the model sees it.
type stripeEntry struct {
	seg, number int
	k           int
	archived    []int // distinct archived shards
	need        int   // k − len(archived); ≤ 0: already recoverable
	carriers    []int // live pages carrying a shard that is not archived
	lists       [][]int
	// shards are, per shard that is neither archived nor uncarried, its
	// carriers (page indexes).
	shards [][]int
}

// possible reports whether the stripe can ever be rebuilt.
func (e *stripeEntry) possible() bool { return len(e.archived)+len(e.shards) >= e.k }

// pending reports whether the stripe is uncertain: not yet rebuildable
// from archived shards but possibly later.
func (e *stripeEntry) pending() bool { return e.need > 0 && e.possible() }

// newBlockIndex indexes the site's blocks; live[u] says whether page u can
// ever be captured (pages that cannot are left out of the carriers).
// A block that names an unknown segment, a stripe or shard out of range is
// an error wrapping ErrInvalid.
func newBlockIndex(site *Site, live []bool) (*blockIndex, error) {
	ix := &blockIndex{}
	segOf := map[string]int{}
	for g, s := range site.Segments {
		segOf[s.Name] = g
		ix.segs = append(ix.segs, segEntry{Segment: s})
	}
	byKey := map[stripeKey]*stripeEntry{}
	entry := func(ref manifest.BlockRef, where string) (*stripeEntry, int, error) {
		g, ok := segOf[ref.Segment]
		if !ok {
			return nil, 0, fmt.Errorf("%w: %s: block %s of an unknown segment", ErrInvalid, where, ref)
		}
		s := ix.segs[g].Segment
		if int64(ref.Stripe) >= int64(s.Stripes) || int(ref.Shard) >= s.K+s.M {
			return nil, 0, fmt.Errorf("%w: %s: block %s out of range (%d stripes, k=%d, m=%d)", ErrInvalid, where, ref, s.Stripes, s.K, s.M)
		}
		k := stripeKey{g, int(ref.Stripe)}
		e := byKey[k]
		if e == nil {
			e = &stripeEntry{seg: g, number: int(ref.Stripe), k: s.K}
			byKey[k] = e
		}
		return e, int(ref.Shard), nil
	}
	for _, name := range sortedKeys(site.Archived) {
		for _, ref := range site.Archived[name] {
			e, shard, err := entry(ref, "archived in "+name)
			if err != nil {
				return nil, err
			}
			if !slices.Contains(e.archived, shard) {
				e.archived = append(e.archived, shard)
			}
		}
	}
	for u, p := range site.Pages {
		for _, ref := range p.Blocks {
			e, shard, err := entry(ref, "page "+p.URL)
			if err != nil {
				return nil, err
			}
			if !live[u] || slices.Contains(e.archived, shard) {
				continue
			}
			if n := len(e.carriers); n == 0 || e.carriers[n-1] != u {
				e.carriers = append(e.carriers, u)
				e.lists = append(e.lists, nil)
			}
			last := &e.lists[len(e.lists)-1]
			if !slices.Contains(*last, shard) {
				*last = append(*last, shard)
			}
		}
	}
	ix.store(byKey)
	return ix, nil
}

// store orders the stripes, fills in need and shards, and counts the
// segments' missing stripes.
func (ix *blockIndex) store(byKey map[stripeKey]*stripeEntry) {
	for _, e := range byKey {
		ix.stripes = append(ix.stripes, *e)
	}
	slices.SortFunc(ix.stripes, func(a, b stripeEntry) int {
		if a.seg != b.seg {
			return a.seg - b.seg
		}
		return a.number - b.number
	})
	for i := range ix.stripes {
		e := &ix.stripes[i]
		e.need = e.k - len(e.archived)
		pos := map[int]int{}
		for c, list := range e.lists {
			for _, s := range list {
				j, ok := pos[s]
				if !ok {
					j = len(e.shards)
					pos[s] = j
					e.shards = append(e.shards, nil)
				}
				e.shards[j] = append(e.shards[j], e.carriers[c])
			}
		}
		ix.segs[e.seg].stripes = append(ix.segs[e.seg].stripes, i)
	}
	for g := range ix.segs {
		ix.segs[g].missing = ix.segs[g].Stripes - len(ix.segs[g].stripes)
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
