package assure

import (
	"math"
	"math/rand/v2"
	"sort"
)

// sweepPlan simulates one archive's sweeps of the site in one trial: a
// Poisson process of rate Λ, its times drawn lazily up to the horizon.
// When Λ·horizon exceeds maxSweeps, each simulated sweep stands for a batch
// of b = Λ/Λ' consecutive real ones (Λ' = maxSweeps/horizon) and captures a
// page when any of them would, 1 − (1 − q)^b: the page's rate is kept and
// only the timing within a batch (horizon/maxSweeps, under 20 minutes for a
// year) is coarsened.
type sweepPlan struct {
	rate    float64 // simulated sweeps per day
	batch   float64 // real sweeps per simulated one
	horizon float64
	times   []float64
	done    bool // the last time drawn is past the horizon
	rng     *rand.Rand
}

// newSweepPlan plans an archive of rate sweeps per day.
func newSweepPlan(rate, horizon float64) sweepPlan {
	p := sweepPlan{rate: rate, batch: 1, horizon: horizon}
	if limit := maxSweeps / horizon; rate > limit {
		p.rate, p.batch = limit, rate/limit
	}
	return p
}

// reset starts a new trial.
func (p *sweepPlan) reset(rng *rand.Rand) {
	p.times, p.done, p.rng = p.times[:0], p.rate <= 0, rng
}

// at returns the time of sweep i (0-based), +Inf beyond the horizon.
func (p *sweepPlan) at(i int) float64 {
	for len(p.times) <= i && !p.done {
		p.draw()
	}
	if i < len(p.times) {
		return p.times[i]
	}
	return math.Inf(1)
}

// draw appends the next sweep time.
func (p *sweepPlan) draw() {
	last := 0.0
	if n := len(p.times); n > 0 {
		last = p.times[n-1]
	}
	t := last + p.rng.ExpFloat64()/p.rate
	if t > p.horizon {
		p.done = true
		return
	}
	p.times = append(p.times, t)
}

// firstAfter returns the index of the first sweep after time c.
func (p *sweepPlan) firstAfter(c float64) int {
	for !p.done && (len(p.times) == 0 || p.times[len(p.times)-1] <= c) {
		p.draw()
	}
	return sort.SearchFloat64s(p.times, math.Nextafter(c, math.Inf(1)))
}

// logMiss is the log of the probability that one simulated sweep misses
// a page of rate k: b·log(1 − q) with q = κ/Λ per real sweep; −Inf when
// every sweep captures it.
func (p *sweepPlan) logMiss(k float64) float64 {
	q := k / (p.rate * p.batch)
	if q >= 1 {
		return math.Inf(-1)
	}
	return p.batch * math.Log1p(-q)
}

// skip draws how many sweeps pass before one captures a page whose
// logMiss is lm: geometric.
func (p *sweepPlan) skip(lm float64, rng *rand.Rand) int {
	if math.IsInf(lm, -1) {
		return 0
	}
	if lm >= 0 {
		return math.MaxInt32
	}
	g := math.Floor(math.Log(1-rng.Float64()) / lm)
	if g >= math.MaxInt32 {
		return math.MaxInt32
	}
	return int(g)
}
