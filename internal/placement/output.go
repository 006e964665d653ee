package placement

import (
	"bytes"
	"cmp"
	"math"
	"slices"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// plan turns the finished state into a Plan.
func (st *state) plan() *Plan {
	pl := &Plan{
		Params:   make(map[string]erasure.Params, len(st.segs)),
		Pages:    make(map[string][]manifest.BlockRef),
		Old:      make(map[string][]OldRef),
		Coverage: make(map[manifest.BlockRef]int, st.sumBlocks()),
		Bytes:    make(map[string]int),
	}
	for _, sg := range st.segs {
		pl.Params[sg.name] = sg.params
		for j, slots := range sg.held {
			for _, s := range slots {
				pl.Coverage[blockRef(sg.name, j, int(s.shard))]++
			}
		}
	}
	for i := range st.pages {
		st.pagePlan(pl, &st.pages[i])
	}
	pl.Recoverability = math.Exp(st.logRecoverability())
	return pl
}

// pagePlan adds what page p carries to pl.
func (st *state) pagePlan(pl *Plan, p *page) {
	if p.manifest {
		pl.Manifest = append(pl.Manifest, p.url)
	}
	if used := p.capacity - p.free; used > 0 {
		pl.Bytes[p.url] = used
	}
	if len(p.refs) > 0 {
		refs := make([]manifest.BlockRef, len(p.refs))
		for i, r := range p.refs {
			refs[i] = blockRef(st.segs[r.seg].name, int(r.stripe), int(r.shard))
		}
		slices.SortFunc(refs, compareRefs)
		pl.Pages[p.url] = refs
	}
	if len(p.old) > 0 {
		old := make([]OldRef, len(p.old))
		for i, o := range p.old {
			old[i] = st.in.old[o].Ref
		}
		slices.SortFunc(old, func(a, b OldRef) int {
			return cmp.Or(bytes.Compare(a.SegmentID[:], b.SegmentID[:]), compareRefs(a.Block, b.Block))
		})
		pl.Old[p.url] = old
	}
}

func compareRefs(a, b manifest.BlockRef) int {
	return cmp.Or(cmp.Compare(a.Segment, b.Segment), cmp.Compare(a.Stripe, b.Stripe), cmp.Compare(a.Shard, b.Shard))
}
