package placement

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/erasure"
)

// A target plan (Options.Target) spends the fewest bytes that reach the
// target recoverability under the capture model, and no more: the page
// budget is a cap, not something to fill. The failure budget 1 − target
// is shared by the manifest and the segments in proportion to their size
// (a union bound; see share), and each new segment, largest first, takes
// the cheapest parameters whose stripes fit the pages left (see options);
// if the placed plan still
// falls short (pages with room were not the best ones), parity is added
// where it buys the most recoverability per byte.

// option is one way to code a new segment: its parameters, the bytes its
// blocks add to pages and the failure the model gives it.
type option struct {
	params erasure.Params
	cost   int   // bytes per block
	bytes  int64 // all its blocks
	fail   float64
	meets  bool
}

// placeTarget chooses and places the new segments of a target plan.
func (st *state) placeTarget() error {
	var news []*segment
	for _, sg := range st.segs {
		if !sg.fixed {
			news = append(news, sg)
		}
	}
	slices.SortStableFunc(news, func(a, b *segment) int { return cmp.Compare(b.length, a.length) })
	total := st.sumBlocks()
	for _, sg := range news {
		frees := st.frees()
		if len(frees) == 0 {
			return st.tooFewPages(sg)
		}
		o, ok := st.choose(sg, frees, MaxBlocks-total)
		if !ok {
			sg.held = nil
			return st.segmentError(sg)
		}
		total += o.params.TotalShards()
		st.order = append(st.order, sg)
	}
	st.reach()
	return nil
}

// maxTrials bounds the options a segment tries placing before settling
// for the best one tried.
const maxTrials = 24

// choose places sg with the first option (best first) that, once placed,
// meets its share of the failure budget by the exact model: the options'
// estimates assume every stripe gets the most kept pages, which is true
// when pages are alike but not when the few most kept pages run out of
// room. Failing that, it keeps the option tried that came closest (least
// failure, then fewest bytes), for reach to top up.
func (st *state) choose(sg *segment, frees []int, blocks int64) (option, bool) {
	share := st.share(sg.length)
	goal := math.Log1p(-share)
	var best option
	bestLog, tried := math.Inf(-1), 0
	for _, o := range st.options(sg, share, frees) {
		if o.params.TotalShards() > blocks || !fitsBlocks(frees, o) {
			continue
		}
		sg.setParams(o.params)
		if !st.placeStripes(sg) {
			st.unplace(sg)
			continue
		}
		l := st.logSegment(sg)
		if l >= goal {
			return o, true
		}
		if tried == 0 || l > bestLog || l == bestLog && o.bytes < best.bytes {
			best, bestLog = o, l
		}
		st.unplace(sg)
		if tried++; tried >= maxTrials {
			break
		}
	}
	if tried == 0 {
		return option{}, false
	}
	sg.setParams(best.params)
	if !st.placeStripes(sg) { // it was placed before, on the same pages
		st.unplace(sg)
		return option{}, false
	}
	return best, true
}

// share is the failure a part of the generation of the given bytes (a
// segment's length, or the manifest's comment) may have: the failure
// budget 1 − target split in proportion to size. Making a part ten times
// more reliable costs bytes in proportion to its size (one more copy of
// the manifest, parity of a segment), so this split spends the fewest
// bytes in all: a small listing segment gets a tight share that costs
// little, the large segment the rest.
func (st *state) share(bytes int64) float64 {
	total := float64(st.in.mbyte)
	for _, sg := range st.segs {
		total += float64(max(sg.length, 1))
	}
	return (1 - st.in.target) * float64(max(bytes, 1)) / total
}

// frees returns the free bytes of every page, ascending.
func (st *state) frees() []int {
	out := make([]int, len(st.pages))
	for i := range st.pages {
		out[i] = st.pages[i].free
	}
	slices.Sort(out)
	return out
}

// options lists the ways to code sg, best first: those whose failure is
// at most eps by fewest bytes, then (when none reaches it) the others by
// least failure. For each k (data blocks per stripe, up to the pages
// available) the stripes T start at the fewest the block budget allows
// and double while the blocks shrink to fit more pages; the width n is
// the fewest pages whose stripes meet their share of eps.
func (st *state) options(sg *segment, eps float64, frees []int) []option {
	maxW := min(erasure.MaxShards, len(frees))
	var t widths = st.tails(maxW)
	if !st.uniform() {
		t = st.slots()
	}
	var out []option
	for k := 1; k <= maxW; k++ {
		for stripes := stripesFor(sg.length, k, st.z); ; stripes *= 2 {
			size := int(ceilDiv(sg.length, stripes*int64(k)))
			cost := BlockCommentBytes(len(sg.name), size)
			w := min(maxW, len(frees)-sort.SearchInts(frees, cost))
			if w >= k {
				if o, ok := newOption(sg.length, k, size, cost, w, eps, t); ok {
					out = append(out, o)
				}
			}
			if w >= maxW || size <= 64 || stripes > math.MaxUint32/2 {
				break
			}
		}
	}
	slices.SortStableFunc(out, func(a, b option) int {
		switch {
		case a.meets != b.meets:
			if a.meets {
				return -1
			}
			return 1
		case a.meets:
			return cmp.Or(cmp.Compare(a.bytes, b.bytes), cmp.Compare(a.fail, b.fail))
		}
		return cmp.Or(cmp.Compare(a.fail, b.fail), cmp.Compare(a.bytes, b.bytes))
	})
	return out
}

// newOption codes length bytes in stripes of k blocks of size bytes (cost
// bytes on a page each), as wide as the stripes' share of eps needs and
// at most w blocks; false when the format refuses the parameters.
func newOption(length int64, k, size, cost, w int, eps float64, t widths) (option, bool) {
	p, err := erasure.NewParams(length, k, 0, size)
	if err != nil {
		return option{}, false
	}
	stripes := p.Stripes()
	n, stripeFail, ok := t.width(k, w, stripeShare(eps, int64(stripes)), stripes, cost)
	if p, err = erasure.NewParams(length, k, n-k, size); err != nil {
		return option{}, false
	}
	fail := -math.Expm1(float64(stripes) * math.Log1p(-stripeFail))
	return option{params: p, cost: cost, bytes: int64(stripes) * int64(n) * int64(cost), fail: fail, meets: ok}, true
}

// uniform reports whether every page has the same keep probability (the
// default): then any pages are as good as any others.
func (st *state) uniform() bool {
	for _, p := range st.in.capture {
		if p != st.in.capture[0] {
			return false
		}
	}
	return true
}

// stripesFor returns the fewest stripes of k blocks of at most z bytes
// that hold length bytes.
func stripesFor(length int64, k, z int) int64 {
	return ceilDiv(length, int64(k)*int64(z))
}

// tails returns the stripe failure table over the pages' keep
// probabilities.
func (st *state) tails(width int) *tails {
	return newTails(st.in.capture, width)
}

// fitsBlocks reports whether the pages' free bytes can take o's blocks at
// one block per stripe per page: Σ min(T, ⌊free/cost⌋) ≥ T·n.
func fitsBlocks(frees []int, o option) bool {
	stripes, n := int64(o.params.Stripes()), int64(o.params.Shards())
	var room int64
	for i := len(frees) - 1; i >= 0 && frees[i] >= o.cost; i-- {
		room += min(stripes, int64(frees[i]/o.cost))
		if room >= stripes*n {
			return true
		}
	}
	return false
}

// placeStripes puts the k+m blocks of each stripe of sg on distinct
// pages, the stripes taking pages in turns: shard 0 of every stripe, then
// shard 1 in the reverse order of stripes, and so on (a snake), each on
// the best page left that holds none of its stripe. So every stripe gets
// a like mix of the most and the less kept pages, rather than the first
// stripes all the best ones and the last the rest (the estimate in
// slots assumes this). It reports false when a block finds no page.
func (st *state) placeStripes(sg *segment) bool {
	n, stripes := sg.params.Shards(), len(sg.held)
	for sh := range n {
		for i := range stripes {
			j := i
			if sh%2 == 1 {
				j = stripes - 1 - i
			}
			st.markStripe(sg, j)
			if !st.pick(1, sg.cost) {
				return false
			}
			p := st.picked[0]
			st.add(p, sg, j, sh)
			st.push(p)
		}
	}
	return true
}

// unplace removes every block of sg, placed last, from its pages: on each
// page its blocks are the last ones added.
func (st *state) unplace(sg *segment) {
	for j := range sg.held {
		for _, s := range sg.held[j] {
			pg := &st.pages[s.page]
			pg.refs = pg.refs[:len(pg.refs)-1]
			pg.free += sg.cost
			st.fix(s.page)
		}
		sg.held[j] = nil
	}
}

// reach adds parity to new segments while the plan falls short of the
// target, each time to the segment whose added blocks raise the
// recoverability most per byte, until it is reached or no segment can
// take another parity block on every stripe.
func (st *state) reach() {
	goal := math.Log(st.in.target)
	total := st.sumBlocks()
	logs := make([]float64, len(st.segs)) // each segment's log-probability, kept current
	sum := st.logManifest()
	for i, sg := range st.segs {
		logs[i] = st.logSegment(sg)
		sum += logs[i]
	}
	full := map[*segment]bool{} // segments that can take no more parity
	for sum < goal {
		var best *segment
		bestGain, bestLog := 0.0, 0.0
		for _, sg := range st.order {
			n := int64(len(sg.held))
			if full[sg] || sg.params.Shards() >= erasure.MaxShards || total+n > MaxBlocks {
				continue
			}
			if !st.addParity(sg) {
				full[sg] = true
				continue
			}
			after := st.logSegment(sg)
			gain := (after - logs[sg.index]) / float64(n*int64(sg.cost))
			st.undoParity(sg, len(sg.held))
			sg.params.M--
			if gain > bestGain {
				best, bestGain, bestLog = sg, gain, after
			}
		}
		if best == nil || !st.addParity(best) {
			return
		}
		total += int64(len(best.held))
		sum += bestLog - logs[best.index]
		logs[best.index] = bestLog
	}
}

// logRecoverability is the log-probability, under the capture model,
// that the archives keep a manifest copy and k blocks of every stripe of
// every segment.
func (st *state) logRecoverability() float64 {
	l := st.logManifest()
	for _, sg := range st.segs {
		l += st.logSegment(sg)
	}
	return l
}

// logManifest is the log-probability that some manifest carrier is kept.
func (st *state) logManifest() float64 {
	miss := 1.0
	for i := range st.pages {
		if st.pages[i].manifest {
			miss *= 1 - st.in.capture[i]
		}
	}
	return math.Log1p(-miss)
}

// logSegment is the log-probability that every stripe of sg keeps k
// blocks. A block on several pages (replicas) is kept if one of them is;
// the pages of one stripe are distinct, so its blocks are independent.
func (st *state) logSegment(sg *segment) float64 {
	if sg.held == nil {
		return 0
	}
	w := sg.params.Shards()
	miss := make([]float64, w)
	ps := make([]float64, 0, w)
	dist := make([]float64, sg.params.K)
	var l float64
	for _, slots := range sg.held {
		for i := range miss {
			miss[i] = 1
		}
		for _, s := range slots {
			miss[s.shard] *= 1 - st.in.capture[s.page]
		}
		ps = ps[:0]
		for _, m := range miss {
			ps = append(ps, 1-m)
		}
		l += logKept(failure(ps, sg.params.K, dist))
		if math.IsInf(l, -1) {
			return l
		}
	}
	return l
}
