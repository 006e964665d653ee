package assure

import (
	"cmp"
	"math"
	"slices"
)

// maxWeakest is the most stripes SegmentCurve.Weakest lists.
const maxWeakest = 5

// reachTolerance is how precisely (in days: one second) bisection finds
// the time an exact curve reaches the target.
const reachTolerance = 1.0 / 86400

// independentView computes the Independent view: exactly for each segment
// (and the generation) whose uncertain stripes share no live page and have
// exact stripe plans, by Monte Carlo for the others.
func (m *model) independentView() View {
	plans := m.stripePlans()
	segExact := make([]bool, len(m.idx.segs))
	allExact := true
	for g, seg := range m.idx.segs {
		segExact[g] = m.separable(seg.stripes, plans)
		allExact = allExact && segExact[g]
	}
	data, dataMissing := m.dataStripes()
	genExact := m.separable(data, plans)
	var sim *simResult
	if !allExact || !genExact {
		sim = m.simulate(independentModel)
	}
	pagesAt := make([][]float64, len(m.at))
	for j, t := range m.at {
		pagesAt[j] = m.pageProbs(t)
	}
	stripeP := make([][]float64, len(m.idx.stripes))
	for s := range m.idx.stripes {
		if plans[s] != nil || !m.idx.stripes[s].pending() {
			stripeP[s] = m.exactStripeCurve(s, plans[s], pagesAt)
		} else {
			stripeP[s] = hitRates(sim.stripeHits[s], sim.samples)
		}
	}
	var v View
	if genExact {
		v.Generation = m.exactCurve(data, dataMissing, plans)
	} else {
		v.Generation = m.mcCurve(sim.genTimes)
	}
	for g, seg := range m.idx.segs {
		c := SegmentCurve{Name: seg.Name, Listing: seg.Listing, Weakest: m.weakest(g, stripeP)}
		if segExact[g] {
			c.Curve = m.exactCurve(seg.stripes, seg.missing > 0, plans)
		} else {
			c.Curve = m.mcCurve(sim.segTimes[g])
		}
		v.Segments = append(v.Segments, c)
	}
	return v
}

// sweepView computes the Sweep view, always by Monte Carlo.
func (m *model) sweepView() View {
	sim := m.simulate(sweepModel)
	stripeP := make([][]float64, len(m.idx.stripes))
	for s := range stripeP {
		stripeP[s] = hitRates(sim.stripeHits[s], sim.samples)
	}
	v := View{Generation: m.mcCurve(sim.genTimes)}
	for g, seg := range m.idx.segs {
		v.Segments = append(v.Segments, SegmentCurve{Name: seg.Name, Listing: seg.Listing,
			Curve: m.mcCurve(sim.segTimes[g]), Weakest: m.weakest(g, stripeP)})
	}
	return v
}

// dataStripes returns the stored stripes of the data segments and whether
// a data segment has a stripe that is not stored (and so is never rebuilt).
func (m *model) dataStripes() ([]int, bool) {
	var out []int
	missing := false
	for _, seg := range m.idx.segs {
		if !seg.Listing {
			out = append(out, seg.stripes...)
			missing = missing || seg.missing > 0
		}
	}
	return out, missing
}

// stripePlans returns, per stored stripe, its exact plan,
// or nil when the stripe is not pending or the plan is not exact.
func (m *model) stripePlans() []*stripePlan {
	plans := make([]*stripePlan, len(m.idx.stripes))
	for s := range m.idx.stripes {
		e := &m.idx.stripes[s]
		if !e.pending() {
			continue
		}
		if pl := newStripePlan(e.k, e.archived, e.lists); pl.exact {
			plans[s] = pl
		}
	}
	return plans
}

// separable reports whether the stripes' P_rec multiply exactly: every
// pending one has an exact plan and no live page carries shards of two of
// them. (Stripes already rebuilt or never rebuildable are constants.)
func (m *model) separable(stripes []int, plans []*stripePlan) bool {
	owner := map[int]int{}
	for _, s := range stripes {
		e := &m.idx.stripes[s]
		if !e.pending() {
			continue
		}
		if plans[s] == nil {
			return false
		}
		for _, u := range e.carriers {
			if o, ok := owner[u]; ok && o != s {
				return false
			}
			owner[u] = s
		}
	}
	return true
}

// pageProbs returns every page's probability of being stored within t days.
func (m *model) pageProbs(t float64) []float64 {
	p := make([]float64, m.pages)
	for u := range p {
		p[u] = m.pageP(u, t)
	}
	return p
}

// stripeExact is stripe s's P_rec given the pages' probabilities.
func (m *model) stripeExact(s int, plan *stripePlan, pages []float64) float64 {
	e := &m.idx.stripes[s]
	switch {
	case e.need <= 0:
		return 1
	case !e.possible():
		return 0
	}
	p := make([]float64, len(e.carriers))
	for i, u := range e.carriers {
		p[i] = pages[u]
	}
	return plan.eval(p)
}

// exactStripeCurve is stripe s's exact P_rec at each reported time, given
// the pages' probabilities at each.
func (m *model) exactStripeCurve(s int, plan *stripePlan, pagesAt [][]float64) []float64 {
	out := make([]float64, len(m.at))
	for j, pages := range pagesAt {
		out[j] = m.stripeExact(s, plan, pages)
	}
	return out
}

// exactCurve is the product of the stripes' exact P_rec (0 when a stripe
// is missing), with the time to reach the target found by bisection (P
// only grows with time).
func (m *model) exactCurve(stripes []int, missing bool, plans []*stripePlan) Curve {
	prob := func(t float64) float64 {
		if missing {
			return 0
		}
		pages := m.pageProbs(t)
		p := 1.0
		for _, s := range stripes {
			p *= m.stripeExact(s, plans[s], pages)
		}
		return p
	}
	c := Curve{Exact: true, StdErr: make([]float64, len(m.at))}
	for _, t := range m.at {
		c.P = append(c.P, prob(t))
	}
	target := m.o.Target
	switch {
	case prob(0) >= target:
		c.Reached = true
	case prob(m.horizon) >= target:
		lo, hi := 0.0, m.horizon
		for hi-lo > reachTolerance {
			mid := (lo + hi) / 2
			if prob(mid) >= target {
				hi = mid
			} else {
				lo = mid
			}
		}
		c.Reach, c.Reached = duration(hi), true
	}
	return c
}

// mcCurve is the empirical curve of simulated times: P at each reported
// time, and the time by which a Target share of the trials succeeded.
func (m *model) mcCurve(times []float64) Curve {
	n := float64(len(times))
	c := Curve{}
	for _, at := range m.at {
		hits := 0
		for _, t := range times {
			if t <= at {
				hits++
			}
		}
		p := float64(hits) / n
		c.P = append(c.P, p)
		c.StdErr = append(c.StdErr, math.Sqrt(p*(1-p)/n))
	}
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	i := int(math.Ceil(m.o.Target*n-1e-9)) - 1
	i = min(max(i, 0), len(sorted)-1)
	if t := sorted[i]; t <= m.horizon {
		c.Reach, c.Reached = duration(t), true
	}
	return c
}

// hitRates turns per-time hit counts into probabilities.
func hitRates(hits []int, samples int) []float64 {
	out := make([]float64, len(hits))
	for j, h := range hits {
		out[j] = float64(h) / float64(samples)
	}
	return out
}

// weakest lists segment g's least likely stripes (see SegmentCurve).
func (m *model) weakest(g int, stripeP [][]float64) []int {
	type cand struct {
		number int
		p      []float64
	}
	var cands []cand
	seg := m.idx.segs[g]
	zero := make([]float64, len(m.at))
	present := map[int]bool{}
	for _, s := range seg.stripes {
		n := m.idx.stripes[s].number
		present[n] = true
		if slices.ContainsFunc(stripeP[s], func(p float64) bool { return p < 1 }) {
			cands = append(cands, cand{n, stripeP[s]})
		}
	}
	for n, found := 0, 0; n < seg.Stripes && found < maxWeakest; n++ {
		if !present[n] {
			cands = append(cands, cand{n, zero})
			found++
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		for j := len(m.at) - 1; j >= 0; j-- {
			if c := cmp.Compare(a.p[j], b.p[j]); c != 0 {
				return c
			}
		}
		return a.number - b.number
	})
	out := []int{}
	for _, c := range cands[:min(len(cands), maxWeakest)] {
		out = append(out, c.number)
	}
	return out
}
