package assure

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestNth checks quickselect against sorting, with ties and infinities.
func TestNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for range 2000 {
		xs := make([]float64, 1+rng.IntN(40))
		for i := range xs {
			switch rng.IntN(5) {
			case 0:
				xs[i] = math.Inf(1)
			case 1:
				xs[i] = float64(rng.IntN(3))
			default:
				xs[i] = rng.Float64()
			}
		}
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		i := rng.IntN(len(xs))
		if got := nth(slices.Clone(xs), i); got != sorted[i] {
			t.Fatalf("nth(%v, %d) = %v, want %v", xs, i, got, sorted[i])
		}
	}
}

// TestSweepPlanBatching: a batched sweep plan keeps a page's capture
// rate: the mean time to its first capture stays 1/κ.
func TestSweepPlanBatching(t *testing.T) {
	const horizon, k = 365.0, 0.5
	for _, rate := range []float64{1, 1000} { // 1000/day is batched
		p := newSweepPlan(rate, horizon)
		if rate == 1000 && p.batch <= 1 {
			t.Fatal("expected batching")
		}
		rng := rand.New(rand.NewPCG(15, 16))
		lm := p.logMiss(k)
		var sum float64
		const n = 20000
		for range n {
			p.reset(rng)
			sum += p.at(p.skip(lm, rng))
		}
		if mean := sum / n; math.Abs(mean-1/k) > 0.05 {
			t.Errorf("sweep rate %v: mean first capture %v days, want %v", rate, mean, 1/k)
		}
	}
	p := newSweepPlan(0, horizon)
	p.reset(rand.New(rand.NewPCG(1, 1)))
	if !math.IsInf(p.at(0), 1) || p.firstAfter(3) != 0 {
		t.Error("an archive that never sweeps should give no sweep")
	}
}

// TestIndependentSimulationMatchesExact holds the Independent Monte Carlo
// to the exact curve on a site where both exist, with a digest-based and
// a change-aware archive (which share each page's next visible change).
func TestIndependentSimulationMatchesExact(t *testing.T) {
	site := Site{
		Now:      now,
		Segments: []Segment{{Name: "data", K: 6, M: 4, Stripes: 1}},
		Pages:    oneBlockPages(10, "data", func(int) []Capture { return every(4, 20*Day, Day) }),
	}
	for i := range site.Pages {
		caps := every(12, 7*Day, 2*Day)
		for j := range caps {
			caps[j].Digest = string(rune('a' + j%2 + j%3))
		}
		site.Pages[i].Captures["wb"] = caps
	}
	o, err := Options{ChangeAware: []string{"wb"}, Samples: 20000, At: []time.Duration{5 * Day, 20 * Day, 60 * Day}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	m, err := newModel(&site, o)
	if err != nil {
		t.Fatal(err)
	}
	plans := m.stripePlans()
	exact := m.exactCurve(m.idx.segs[0].stripes, false, plans)
	sim := m.mcCurve(m.simulate(independentModel).genTimes)
	for j := range m.at {
		if se := math.Max(sim.StdErr[j], 1e-4); math.Abs(sim.P[j]-exact.P[j]) > 4*se {
			t.Errorf("at %v d: simulated %v ± %v, exact %v", m.at[j], sim.P[j], sim.StdErr[j], exact.P[j])
		}
	}
	if m.change[0] <= 0 || !m.awareOf[0] {
		t.Fatalf("change-aware archive not modelled: λ=%v", m.change[0])
	}
}
