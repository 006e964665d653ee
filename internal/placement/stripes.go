package placement

import (
	"cmp"
	"slices"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// keepFixed keeps the blocks of Fixed segments on the pages that carried
// them last time, where those are still carriers with room and hold no
// other block of the same stripe. With first set it keeps only the first
// such page of each block (before new segments are placed); otherwise it
// keeps every further one (after new segments are placed).
func (st *state) keepFixed(first bool) {
	for _, sg := range st.segs {
		for _, r := range sg.prev {
			j, sh := int(r.Stripe), int(r.Shard)
			for _, u := range sg.urls[r] {
				p := st.in.lookup(u)
				if p < 0 || st.pages[p].free < sg.cost || sg.holds(j, p) {
					continue
				}
				st.add(p, sg, j, sh)
				if first {
					break
				}
			}
		}
	}
}

// placeMissingFixed places the blocks of Fixed segments that kept no page
// like those of new segments.
func (st *state) placeMissingFixed() error {
	var missing []int
	for _, sg := range st.segs {
		if !sg.fixed {
			continue
		}
		for j := range sg.held {
			missing = sg.missing(j, missing[:0])
			if len(missing) == 0 {
				continue
			}
			st.markStripe(sg, j)
			if !st.pick(len(missing), sg.cost) {
				return st.segmentError(sg)
			}
			for i, p := range st.picked {
				st.add(p, sg, j, missing[i])
				st.push(p)
			}
		}
	}
	return nil
}

// missing appends to dst the shards of stripe j that have no copy yet.
func (sg *segment) missing(j int, dst []int) []int {
	var have [erasure.MaxShards]bool
	for _, s := range sg.held[j] {
		have[s.shard] = true
	}
	for sh := range sg.params.Shards() {
		if !have[sh] {
			dst = append(dst, sh)
		}
	}
	return dst
}

// planNew chooses the minimum parameters of every new segment against the
// room left after the manifest and the Fixed segments, and the order in
// which they are placed: largest blocks first, then input order.
func (st *state) planNew() error {
	frees := make([]int, len(st.pages))
	for i := range st.pages {
		frees[i] = st.pages[i].free
	}
	slices.Sort(frees)
	total := st.sumBlocks()
	for _, sg := range st.segs {
		if sg.fixed {
			continue
		}
		p, err := st.chooseParams(sg, frees)
		if err != nil {
			return err
		}
		if total += p.TotalShards(); total > MaxBlocks {
			return st.overLimit(sg)
		}
		sg.setParams(p)
		st.order = append(st.order, sg)
	}
	slices.SortStableFunc(st.order, func(a, b *segment) int { return cmp.Compare(b.cost, a.cost) })
	return nil
}

// chooseParams plans a new segment with stripes no wider than the pages
// that could take one of its blocks: it starts from W = min(256, pages)
// and, while fewer than k+m pages have room for a block of the planned
// shard size, plans again with W = that number of pages.
func (st *state) chooseParams(sg *segment, frees []int) (erasure.Params, error) {
	if len(st.pages) < minWidth(st.in.rho) {
		return erasure.Params{}, st.tooFewPages(sg)
	}
	w := min(erasure.MaxShards, len(st.pages))
	for {
		p, ok := planWidth(sg.length, st.z, st.in.rho, w)
		if !ok && w == min(erasure.MaxShards, len(st.pages)) {
			return erasure.Params{}, st.overLimit(sg) // too many stripes
		}
		if !ok {
			return erasure.Params{}, st.segmentError(sg)
		}
		cost := BlockCommentBytes(len(sg.name), p.ShardSize)
		room := len(frees) - sort.SearchInts(frees, cost)
		if room >= p.Shards() {
			return p, nil
		}
		w = room
	}
}

// placeNew puts the k+m blocks of each stripe of each new segment on k+m
// distinct pages, in the order pick prefers them: shard 0 on the best page.
func (st *state) placeNew() error {
	for _, sg := range st.order {
		n := sg.params.Shards()
		for j := range sg.held {
			st.markStripe(sg, j)
			if !st.pick(n, sg.cost) {
				return st.segmentError(sg)
			}
			for sh, p := range st.picked {
				st.add(p, sg, j, sh)
				st.push(p)
			}
		}
	}
	return nil
}

// raise adds parity blocks to new segments while pages have room, in
// rounds: each round tries, for each new segment in placement order, to add
// parity shard k+m to every stripe (each on the best page with room that
// carries no block of that stripe). A segment leaves the rounds when one of
// its stripes finds no such page (that round's additions to it are undone),
// when k+m reaches 256, or when the plan would exceed MaxBlocks.
func (st *state) raise() {
	active := slices.Clone(st.order)
	total := st.sumBlocks()
	for len(active) > 0 {
		next := active[:0]
		for _, sg := range active {
			n := int64(len(sg.held))
			if sg.params.Shards() < erasure.MaxShards && total+n <= MaxBlocks && st.addParity(sg) {
				total += n
				next = append(next, sg)
			}
		}
		active = next
	}
}

// addParity adds shard k+m to every stripe of sg, or nothing.
func (st *state) addParity(sg *segment) bool {
	sh := sg.params.Shards()
	for j := range sg.held {
		st.markStripe(sg, j)
		if !st.pick(1, sg.cost) {
			st.undoParity(sg, j)
			return false
		}
		p := st.picked[0]
		st.add(p, sg, j, sh)
		st.push(p)
	}
	sg.params.M++
	return true
}

// undoParity removes the block that addParity added to stripes [0, n).
// Each is the last block of its stripe and, taken in reverse order, the
// last block of its page.
func (st *state) undoParity(sg *segment, n int) {
	for j := n - 1; j >= 0; j-- {
		held := sg.held[j]
		p := held[len(held)-1].page
		sg.held[j] = held[:len(held)-1]
		pg := &st.pages[p]
		pg.refs = pg.refs[:len(pg.refs)-1]
		pg.free += sg.cost
		st.fix(p)
	}
}
