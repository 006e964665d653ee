package placement

import (
	"cmp"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// ref is one block of this generation on a page.
type ref struct {
	seg    int32 // index into state.segs
	shard  uint16
	stripe uint32
}

// slot is one copy of a block of a stripe: the page and the shard index.
type slot struct {
	page  int32
	shard uint16
}

// page is a carrier during planning.
type page struct {
	url      string
	depth    int
	capacity int
	free     int    // bytes still available
	level    int32  // index of the page's depth among the distinct depths
	hpos     int32  // position in its level's heap, -1 when not in it
	mark     uint64 // equals state.stamp when the page is excluded from a pick
	manifest bool
	refs     []ref   // blocks of this generation
	old      []int32 // indexes into input.old
}

// segment is a segment during planning.
type segment struct {
	name   string
	index  int // position in Place's input
	fixed  bool
	length int64
	params erasure.Params
	cost   int                 // bytes one of its blocks adds to a page
	prev   []manifest.BlockRef // keys of Segment.Previous by stripe, shard
	urls   map[manifest.BlockRef][]string
	held   [][]slot // per stripe: every copy placed so far
}

// state is one planning attempt with a given block budget.
type state struct {
	in     *input
	z      int
	pages  []page
	heaps  [][]int32  // per depth level: pages by most free bytes, then URL
	segs   []*segment // input order
	order  []*segment // new segments in placement order
	stamp  uint64
	picked []int32
	aside  []int32
}

func newState(in *input, z int) *state {
	st := &state{in: in, z: z, pages: slices.Clone(in.pages)}
	levels := st.levels()
	for i := range st.pages {
		p := &st.pages[i]
		p.free, p.level, p.hpos = p.capacity, levels[i], -1
	}
	st.heaps = make([][]int32, slices.Max(append(levels, 0))+1)
	st.segs = make([]*segment, len(in.segs))
	for i, s := range in.segs {
		st.segs[i] = newSegment(i, s)
	}
	return st
}

func newSegment(index int, s Segment) *segment {
	sg := &segment{name: s.Name, index: index, length: s.Length, fixed: s.Fixed != nil}
	if !sg.fixed {
		return sg
	}
	sg.setParams(*s.Fixed)
	sg.urls = s.Previous
	for r := range s.Previous {
		sg.prev = append(sg.prev, r)
	}
	slices.SortFunc(sg.prev, func(a, b manifest.BlockRef) int {
		return cmp.Or(cmp.Compare(a.Stripe, b.Stripe), cmp.Compare(a.Shard, b.Shard))
	})
	return sg
}

func (sg *segment) setParams(p erasure.Params) {
	sg.params = p
	sg.cost = BlockCommentBytes(len(sg.name), p.ShardSize)
	sg.held = make([][]slot, p.Stripes())
}

// levels returns each page's level, the order in which picks try pages:
// by depth (shallowest first) in a redundancy plan; by keep probability
// (most kept first) in a target plan, where depth only breaks ties of
// free bytes (through the page order), so that blocks spread evenly over
// pages the model values alike.
func (st *state) levels() []int32 {
	out := make([]int32, len(st.pages))
	if st.in.target == 0 {
		level := int32(-1)
		for i := range st.pages {
			if i == 0 || st.pages[i].depth != st.pages[i-1].depth {
				level++
			}
			out[i] = level
		}
		return out
	}
	ps := slices.Clone(st.in.capture)
	slices.SortFunc(ps, func(a, b float64) int { return cmp.Compare(b, a) })
	ps = slices.Compact(ps)
	for i, p := range st.in.capture {
		l, _ := slices.BinarySearchFunc(ps, p, func(a, b float64) int { return cmp.Compare(b, a) })
		out[i] = int32(l)
	}
	return out
}

// holds reports whether page p carries a block of stripe j of sg.
func (sg *segment) holds(j int, p int32) bool {
	for _, s := range sg.held[j] {
		if s.page == p {
			return true
		}
	}
	return false
}

// add puts shard sh of stripe j of sg on page p.
func (st *state) add(p int32, sg *segment, j, sh int) {
	pg := &st.pages[p]
	pg.refs = append(pg.refs, ref{seg: int32(sg.index), shard: uint16(sh), stripe: uint32(j)})
	sg.held[j] = append(sg.held[j], slot{page: p, shard: uint16(sh)})
	st.consume(p, sg.cost)
}

// consume takes n bytes of page p's room.
func (st *state) consume(p int32, n int) {
	st.pages[p].free -= n
	if st.pages[p].hpos >= 0 {
		st.fix(p)
	}
}

// markStripe starts a new pick that excludes the pages holding stripe j of
// sg.
func (st *state) markStripe(sg *segment, j int) {
	st.stamp++
	for _, s := range sg.held[j] {
		st.pages[s.page].mark = st.stamp
	}
}

// placeManifest puts the manifest on the root and on every depth-1 page
// with room for it; in a target plan, on the root and then on as few
// further pages as reach the manifest's share of the failure budget:
// depth-1 pages first, the most kept first, then deeper ones.
func (st *state) placeManifest() error {
	if st.in.target > 0 {
		return st.placeManifestTarget()
	}
	for i := range st.pages {
		p := &st.pages[i]
		if p.depth > 1 {
			break
		}
		if p.free >= st.in.mbyte {
			p.free -= st.in.mbyte
			p.manifest = true
		} else if p.depth == 0 {
			return st.manifestError()
		}
	}
	return nil
}

// sumBlocks returns the blocks of every segment whose parameters are set.
func (st *state) sumBlocks() int64 {
	var n int64
	for _, sg := range st.segs {
		if sg.held != nil {
			n += sg.params.TotalShards()
		}
	}
	return n
}

func (st *state) placeManifestTarget() error {
	if st.pages[0].free < st.in.mbyte {
		return st.manifestError()
	}
	order := make([]int, 0, len(st.pages))
	for i := 1; i < len(st.pages); i++ {
		order = append(order, i)
	}
	shallow := func(i int) int { return min(st.pages[i].depth, 2) }
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(shallow(a), shallow(b)), cmp.Compare(st.in.capture[b], st.in.capture[a]))
	})
	miss, goal := 1.0, st.share(int64(st.in.mbyte))
	for _, i := range append([]int{0}, order...) {
		if miss <= goal {
			break
		}
		if p := &st.pages[i]; p.free >= st.in.mbyte {
			p.free -= st.in.mbyte
			p.manifest = true
			miss *= 1 - st.in.capture[i]
		}
	}
	return nil
}
