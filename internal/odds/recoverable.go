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
	sums := make([]float64, len(sets))
	e.each(func(miss []float64, w float64) {
		for _, i := range open {
			p := w
			for j, n := range groups[i].needs {
				p *= math.Pow(n.met(miss, dist), float64(groups[i].counts[j]))
				if p == 0 {
					break
				}
			}
			sums[i] += p
		}
	}, func() { clear(sums) })
	for _, i := range open {
		out[i] = sums[i]
	}
	for i := range out {
		if !(out[i] >= 0) { // NaN too
			out[i] = 0
		}
		out[i] = math.Min(1, out[i])
	}
	return out
}

// each walks every combination of sweep counts, calling f with the page
// classes' miss probabilities and the combination's probability. Past
// MaxLeaves combinations it calls reset and walks again with Epsilon ten
// times larger (coarser, still a lower bound).
func (e *enumeration) each(f func(miss []float64, w float64), reset func()) {
	for e.eps = Epsilon; ; e.eps *= 10 {
		n := 0
		e.aborted = false
		e.walk(0, 1, func(miss []float64, w float64) {
			if n++; n > MaxLeaves {
				e.aborted = true
				return
			}
			f(miss, w)
		})
		if !e.aborted {
			return
		}
		reset()
	}
}

// MaxLeaves bounds the sweep-count combinations one computation
// evaluates: past it the enumeration starts again with Epsilon ten times
// larger (coarser, still a lower bound), so no history, however hostile,
// makes it run without end.
const MaxLeaves = 5_000

// MaxSweepCount is the most sweeps of one archive the enumeration tells
// apart; more are taken as this many (a lower bound).
const MaxSweepCount = 32

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
			at.cap = MaxSweepCount
			if c := math.Ceil(math.Log(capMiss) / math.Log1p(-at.take)); c >= 0 && c < MaxSweepCount {
				at.cap = int(c)
			}
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
	// Too many classes (pages of their own odds each) would make every
	// combination costly: the capture probabilities are rounded down onto
	// a coarser grid until they fit MaxClasses, a lower bound.
	for _, step := range []float64{0, 0.001, 0.01, 0.05, 0.2, 1} {
		if step > 0 {
			for j := range perPage {
				for i := range perPage[j] {
					if b := perPage[j][i].base; b > 0 && b < 1 {
						perPage[j][i].base = roundMissUp(b, step)
					}
				}
			}
		}
		seen := map[string]bool{}
		for _, ks := range perPage {
			seen[fmt.Sprint(ks)] = true
		}
		if len(seen) <= MaxClasses {
			break
		}
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

// MaxClasses bounds the page classes of one computation.
const MaxClasses = 256

// roundMissUp rounds a miss probability up so that the capture
// probability 1 − x falls onto a grid of relative steps (the next lower
// point of (1−step)^i); step 1 takes every capture probability to 0.
func roundMissUp(x, step float64) float64 {
	if step >= 1 {
		return 1
	}
	p := 1 - x
	g := math.Log1p(-step)
	return 1 - math.Exp(math.Ceil(math.Log(p)/g)*g)
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
	if a.weight > 0 && a.span > 0 && a.weight/a.span < 1e9 {
		shape, q := mean/a.span*a.weight, a.span/(a.weight+a.span)
		logp = func(n int) float64 {
			// log Γ(shape+n)/Γ(shape) as a sum: n is at most MaxSweepCount.
			var rising float64
			for i := range n {
				rising += math.Log(shape + float64(i))
			}
			lk, _ := math.Lgamma(float64(n) + 1)
			return rising - lk + shape*math.Log1p(-q) + float64(n)*math.Log(q)
		}
	}
	// Counts too light to tell apart are folded into the fewest sweeps
	// (n = 0, walked last): taking more sweeps as fewer gives a lower
	// bound and loses no mass, and the figure stays non-decreasing in the
	// horizon.
	left, light := 1.0, 0.0
	for n := 0; ; n++ {
		if e.aborted {
			return
		}
		pn, last := 0.0, false
		switch {
		case reach+n >= a.cap:
			pn, last = left, true // the tail, folded into the cap
		default:
			pn = math.Exp(logp(n))
			if w*(left-pn) < e.eps {
				pn, last = left, true // what lies beyond n, folded into n
			}
		}
		left -= pn
		if n > 0 && w*pn < e.eps {
			light += pn
		} else if n > 0 || last {
			counts[l] = reach + n
			e.levels(ai, l-1, reach+n, w*pn, counts, saved, f)
		} else {
			light += pn // n = 0 itself, walked with the light ones below
		}
		if last || left <= 0 {
			break
		}
	}
	if light > 0 && !e.aborted {
		counts[l] = reach
		e.levels(ai, l-1, reach, w*light, counts, saved, f)
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
	e := newEnumeration(m, pages, horizon)
	byClass := make([]float64, len(e.miss))
	e.each(func(miss []float64, w float64) {
		for c, q := range miss {
			byClass[c] += w * (1 - q)
		}
	}, func() { clear(byClass) })
	out := make([]float64, len(pages))
	for i := range pages {
		out[i] = math.Min(1, math.Max(0, byClass[e.class[i]]))
	}
	return out
}
