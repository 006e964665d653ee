package odds

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"
)

// Epsilon is the probability below which more sweeps of one level are not
// told apart from fewer: a Poisson tail lighter than it is folded into the
// last count enumerated, so results stay lower bounds and no mass is lost.
const Epsilon = 1e-7

// capMiss is how unlikely more sweeps must make it that a page within
// their reach is missed before their count stops being told apart: counts
// above the cap are taken as the cap, which gives a lower bound.
const capMiss = 1e-3

// Need is what one stripe (or the manifest) needs: K distinct shards,
// shard i on page Pages[i] (an index into the pages), Had of them already
// archived. A page may carry several shards of a need; a shard kept on
// several pages is given once, on its best page (a lower bound).
type Need struct {
	K     int
	Pages []int
	Had   int
}

// Recoverable returns a lower bound on the probability that, within
// horizon from now, the archives hold K shards of every need, counting
// captures from now on that are visible by the horizon (and the shards
// already had). See the package documentation for the model and why the
// bound holds.
func (m *Model) Recoverable(pages []Page, needs []Need, horizon time.Duration) float64 {
	return m.RecoverableAll(pages, [][]Need{needs}, horizon)[0]
}

// RecoverableAll is Recoverable for several sets of needs (a generation's
// segments, say) at once, from one enumeration.
func (m *Model) RecoverableAll(pages []Page, sets [][]Need, horizon time.Duration) []float64 {
	e := newEnumeration(m, pages, horizon)
	out := make([]float64, len(sets))
	type set struct {
		needs  []groupedNeed
		counts []int // how many needs have each signature
	}
	var open []int
	groups := make([]set, len(sets))
	width := 0
	for i, needs := range sets {
		out[i] = 1
		bySig := map[string]int{}
		for _, n := range needs {
			if n.Had >= n.K {
				continue
			}
			if n.Had+len(n.Pages) < n.K {
				out[i] = 0
				groups[i] = set{}
				break
			}
			g := groupNeed(n, e.class)
			if j, ok := bySig[g.sig]; ok {
				groups[i].counts[j]++
				continue
			}
			bySig[g.sig] = len(groups[i].needs)
			groups[i].needs = append(groups[i].needs, g)
			groups[i].counts = append(groups[i].counts, 1)
			width = max(width, g.want)
		}
		if out[i] == 1 && len(groups[i].needs) > 0 {
			out[i] = 0
			open = append(open, i)
		}
	}
	if len(open) == 0 {
		return out
	}
	dist := make([]float64, width+1)
	for _, l := range e.leaves() {
		for _, i := range open {
			p := l.w
			for j, n := range groups[i].needs {
				p *= math.Pow(n.met(l.miss, dist), float64(groups[i].counts[j]))
				if p == 0 {
					break
				}
			}
			out[i] += p
		}
	}
	for i := range out {
		out[i] = math.Min(1, math.Max(0, out[i]))
	}
	return out
}

// leaf is one combination of sweep counts: its probability and each page
// class's probability of not being captured given it.
type leaf struct {
	w    float64
	miss []float64
}

// leaves enumerates the combinations, most probable first, dropping the
// least probable ones once they weigh less than LeafMass together (their
// mass counts as failure: a lower bound).
func (e *enumeration) leaves() []leaf {
	var out []leaf
	for e.eps = Epsilon; ; e.eps *= 10 {
		out, e.aborted = out[:0], false
		e.walk(0, 1, func(miss []float64, w float64) {
			if len(out) >= MaxLeaves {
				e.aborted = true
				return
			}
			out = append(out, leaf{w: w, miss: slices.Clone(miss)})
		})
		if !e.aborted {
			break
		}
	}
	slices.SortStableFunc(out, func(a, b leaf) int { return cmp.Compare(b.w, a.w) })
	var tail float64
	n := len(out)
	for n > 0 && tail+out[n-1].w < LeafMass {
		tail += out[n-1].w
		n--
	}
	return out[:n]
}

// MaxLeaves bounds the sweep-count combinations one computation
// evaluates: past it the enumeration starts again with Epsilon ten times
// larger (coarser, still a lower bound), so no history, however hostile,
// makes it run without end.
const MaxLeaves = 50_000

// MaxSweepCount is the most sweeps of one archive the enumeration tells
// apart; more are taken as this many (a lower bound).
const MaxSweepCount = 32

// LeafMass is the most probability mass of the least likely sweep-count
// combinations that is counted as failure instead of computed.
const LeafMass = 1e-6

// enumeration walks the combinations of sweep counts of every archive,
// keeping for each page class the probability that no archive has
// captured its pages. Pages fall in one class when every archive sees them
// at the same level with the same one-page odds (pooled by depth, so a big
// site has few classes beyond its busiest pages).
type enumeration struct {
	eps     float64   // the current Epsilon (raised when MaxLeaves is passed)
	aborted bool      // the walk passed MaxLeaves
	class   []int     // per page, its class
	miss    []float64 // per class, P(not captured) given the counts so far
	archs   []archiveTerms
	scratch [][]float64
}

// archiveTerms is one archive's part of the enumeration.
type archiveTerms struct {
	levels int
	mean   []float64 // expected sweeps reaching exactly level l
	weight float64   // days of evidence behind the rates (0: exact, Poisson counts)
	span   float64   // the horizon left after the lag, in days
	take   float64
	cap    int       // sweep counts beyond this are taken as it (a lower bound)
	pow    []float64 // (1 − take)^n for n ≤ cap
	base   []float64 // per class, P(no one-page capture); −1 when the archive cannot keep it
	level  []int     // per class, its level
}

func newEnumeration(m *Model, pages []Page, horizon time.Duration) *enumeration {
	e := &enumeration{class: make([]int, len(pages))}
	type key struct {
		a     int
		level int
		base  float64
	}
	perPage := make([][]key, len(pages))
	for i := range m.Archives {
		a := &m.Archives[i]
		t := a.effective(horizon)
		n := max(1, len(a.Sweeps))
		at := archiveTerms{levels: n, take: sane(a.Take, 1), weight: sane(a.SweepWeight, math.MaxFloat64), span: t}
		for l := range n {
			next := 0.0
			if l+1 < len(a.Sweeps) {
				next = a.Sweeps[l+1]
			}
			rate := 0.0
			if l < len(a.Sweeps) {
				rate = a.Sweeps[l]
			}
			at.mean = append(at.mean, sane((rate-next)*t, 1e6))
		}
		switch {
		case at.take >= 1:
			at.cap = 1
		case at.take <= 0:
			at.cap = 0
		default:
			at.cap = min(MaxSweepCount, int(math.Ceil(math.Log(capMiss)/math.Log(1-at.take))))
		}
		at.pow = make([]float64, at.cap+1)
		for c := range at.pow {
			at.pow[c] = math.Pow(1-at.take, float64(c))
		}
		for j, p := range pages {
			k := key{a: i, level: level(p.Depth, n), base: -1}
			if a.counts(p) {
				k.base = 1 - sane(1-a.oneMiss(p, t), 1)
			}
			perPage[j] = append(perPage[j], k)
		}
		e.archs = append(e.archs, at)
	}
	ids := map[string]int{}
	for j, ks := range perPage {
		sig := fmt.Sprint(ks)
		id, ok := ids[sig]
		if !ok {
			id = len(ids)
			ids[sig] = id
			for i, k := range ks {
				e.archs[i].base = append(e.archs[i].base, k.base)
				e.archs[i].level = append(e.archs[i].level, k.level)
			}
		}
		e.class[j] = id
	}
	e.miss = make([]float64, len(ids))
	for i := range e.miss {
		e.miss[i] = 1
	}
	e.scratch = make([][]float64, len(e.archs)+1)
	return e
}

// sane keeps a model value in [0, hi]: NaN and negative values become 0
// (no sweeps, no capture: a lower bound), larger ones hi.
func sane(x, hi float64) float64 {
	if !(x > 0) {
		return 0
	}
	return math.Min(x, hi)
}

// walk enumerates archive ai's sweep counts (and the following archives'),
// calling f with the classes' miss probabilities and the combination's
// probability w.
func (e *enumeration) walk(ai int, w float64, f func(miss []float64, w float64)) {
	if ai == len(e.archs) {
		f(e.miss, w)
		return
	}
	a := &e.archs[ai]
	saved := e.scratch[ai]
	if saved == nil {
		saved = make([]float64, len(e.miss))
		e.scratch[ai] = saved
	}
	copy(saved, e.miss)
	counts := make([]int, a.levels) // cumulative: sweeps reaching ≥ l
	e.levels(ai, a.levels-1, 0, w, counts, saved, f)
	copy(e.miss, saved)
}

// levels enumerates the sweeps reaching exactly level l (deepest first),
// given reach sweeps reaching deeper, and then the next archive.
func (e *enumeration) levels(ai, l, reach int, w float64, counts []int, saved []float64, f func([]float64, float64)) {
	a := &e.archs[ai]
	if l < 0 {
		for j := range e.miss {
			if a.base[j] < 0 {
				e.miss[j] = saved[j]
				continue
			}
			e.miss[j] = saved[j] * a.base[j] * a.pow[min(a.cap, counts[a.level[j]])]
		}
		e.walk(ai+1, w, f)
		return
	}
	mean := a.mean[l]
	if reach >= a.cap {
		// More sweeps change nothing: one branch.
		for k := l; k >= 0; k-- {
			counts[k] = reach
		}
		e.levels(ai, -1, reach, w, counts, saved, f)
		return
	}
	if mean == 0 {
		counts[l] = reach
		e.levels(ai, l-1, reach, w, counts, saved, f)
		return
	}
	// Sweeps of exactly this reach: Poisson(mean) when the rate is known,
	// else negative binomial (a gamma posterior of weight β days mixed
	// over the Poisson, shape νβ, success t/(β+t)). Probabilities are
	// taken in logs, so a large mean does not underflow.
	logp := func(n int) float64 {
		k := float64(n)
		lk, _ := math.Lgamma(k + 1)
		return -mean + k*math.Log(mean) - lk
	}
	if a.weight > 0 && a.span > 0 {
		shape, q := mean/a.span*a.weight, a.span/(a.weight+a.span)
		ls, _ := math.Lgamma(shape)
		logp = func(n int) float64 {
			k := float64(n)
			lsk, _ := math.Lgamma(shape + k)
			lk, _ := math.Lgamma(k + 1)
			return lsk - ls - lk + shape*math.Log1p(-q) + k*math.Log(q)
		}
	}
	left := 1.0
	for n := 0; ; n++ {
		counts[l] = reach + n
		if reach+n >= a.cap {
			// The tail, folded into the cap: taking more sweeps as fewer
			// gives a lower bound.
			if w*left >= e.eps {
				e.levels(ai, l-1, reach+n, w*left, counts, saved, f)
			}
			return
		}
		pn := math.Exp(logp(n))
		if w*(left-pn) < e.eps {
			// What lies beyond n weighs too little to tell apart: folded
			// into n, a lower bound that loses no mass.
			e.levels(ai, l-1, reach+n, w*left, counts, saved, f)
			return
		}
		if w*pn >= e.eps { // else dropped: its mass counts as failure
			e.levels(ai, l-1, reach+n, w*pn, counts, saved, f)
		}
		left -= pn
		if e.aborted {
			return
		}
	}
}

// groupedNeed is a need as its pages' classes and the shards each page
// carries, in order (the same sums every run).
type groupedNeed struct {
	sig    string // equal for needs of equal odds
	want   int
	pages  []int // per page of the need, its class
	shards []int // per page of the need, its shards
}

func groupNeed(n Need, class []int) groupedNeed {
	g := groupedNeed{want: n.K - n.Had}
	// Shards per page, then each page as its class and shard count.
	pages := slices.Clone(n.Pages)
	slices.Sort(pages)
	type entry struct{ class, shards int }
	var es []entry
	for i := 0; i < len(pages); {
		u, c := pages[i], 0
		for ; i < len(pages) && pages[i] == u; i++ {
			c++
		}
		es = append(es, entry{class[u], c})
	}
	slices.SortFunc(es, func(a, b entry) int { return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.shards, b.shards)) })
	for _, x := range es {
		g.pages, g.shards = append(g.pages, x.class), append(g.shards, x.shards)
	}
	g.sig = fmt.Sprint(g.want, g.pages, g.shards)
	return g
}

// met returns the probability that the need gets its shards, given each
// page's probability of not being captured: BRIEF §5's capped DP,
// S ← min(want, S + c_u) with probability 1 − miss_u. dist is scratch of
// at least want+1 entries.
func (g groupedNeed) met(miss, dist []float64) float64 {
	if g.want <= 0 {
		return 1
	}
	dist = dist[:g.want+1]
	clear(dist)
	dist[0] = 1
	for i, u := range g.pages {
		p := 1 - miss[u]
		if p <= 0 {
			continue
		}
		c := g.shards[i]
		for s := g.want - 1; s >= 0; s-- {
			if dist[s] == 0 {
				continue
			}
			to := min(g.want, s+c)
			dist[to] += dist[s] * p
			dist[s] *= 1 - p
		}
	}
	return dist[g.want]
}

// Captured returns, for each page, a lower bound on the probability that
// some archive captures it within horizon (and lists the capture by then):
// the per-page figure planners take.
func (m *Model) Captured(pages []Page, horizon time.Duration) []float64 {
	sets := make([][]Need, len(pages))
	for i := range pages {
		sets[i] = []Need{{K: 1, Pages: []int{i}}}
	}
	return m.RecoverableAll(pages, sets, horizon)
}
