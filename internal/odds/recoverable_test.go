package odds

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// independent returns a model of one archive without sweeps in which page
// i is captured within horizon with probability ps[i] (one-page captures
// only): BRIEF §5's independent model, the special case its vectors test.
func independent(ps []float64, horizon time.Duration) (*Model, []Page) {
	a := Archive{Name: "a", Sweeps: []float64{0}, OnePage: []float64{0}, PageRate: map[string]float64{}}
	var pages []Page
	for i, p := range ps {
		k := string(rune('a' + i))
		pages = append(pages, Page{Key: k})
		a.PageRate[k] = -math.Log(1-p) / (horizon.Hours() / 24)
	}
	return &Model{Archives: []Archive{a}}, pages
}

func seq(n, copies int) []int {
	var out []int
	for i := range n {
		for range copies {
			out = append(out, i)
		}
	}
	return out
}

func TestRecoverableBriefVectors(t *testing.T) {
	h := 30 * Day
	for _, c := range []struct {
		name   string
		ps     []float64
		copies int
		k      int
		want   float64
	}{
		{"eight pages", []float64{.9, .8, .6, .5, .3, .3, .2, .1}, 1, 4, 0.5624},
		{"two blocks a page", []float64{.9, .8, .6, .5}, 2, 4, 0.9340},
		{"twenty at 0.646", repeat(0.646, 20), 1, 10, 0.9425},
	} {
		m, pages := independent(c.ps, h)
		got := m.Recoverable(pages, []Need{{K: c.k, Pages: seq(len(pages), c.copies)}}, h)
		if math.Abs(got-c.want) > 5e-5 {
			t.Errorf("%s: %.5f, want %.4f", c.name, got, c.want)
		}
	}
	// n = 30, r = 20, κ = 1/30 per day: dwell 30/45/60 days.
	a := Archive{Name: "a", Sweeps: []float64{0}, OnePage: []float64{1.0 / 30}}
	pages := make([]Page, 30)
	for i := range pages {
		pages[i] = Page{Key: string(rune('A' + i))}
	}
	m := &Model{Archives: []Archive{a}}
	for _, c := range []struct {
		days float64
		want float64
	}{{30, 0.426}, {45, 0.947}, {60, 0.9987}} {
		got := m.Recoverable(pages, []Need{{K: 20, Pages: seq(30, 1)}}, time.Duration(c.days*float64(Day)))
		if math.Abs(got-c.want) > 5e-4 {
			t.Errorf("dwell %g days: %.4f, want %.4f", c.days, got, c.want)
		}
	}
}

func repeat(p float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = p
	}
	return out
}

// monteCarlo estimates the joint probability of the needs by drawing
// worlds from the model.
func monteCarlo(m *Model, pages []Page, needs []Need, horizon time.Duration, runs int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	index := map[string]int{}
	for i, p := range pages {
		index[p.Key] = i
	}
	ok := 0
	for range runs {
		got := make([]bool, len(pages))
		for i := range m.Archives {
			a := &m.Archives[i]
			caps, _ := a.Draw(pages, t0, t0.Add(horizon-a.Lag), 0, rng)
			for _, c := range caps {
				got[index[c.Page]] = true
			}
		}
		all := true
		for _, n := range needs {
			have := n.Had
			for _, u := range n.Pages {
				if got[u] {
					have++
				}
			}
			if have < n.K {
				all = false
				break
			}
		}
		if all {
			ok++
		}
	}
	return float64(ok) / float64(runs)
}

// sweepSite is a model of two archives over a site of 40 pages at depths
// 0–3, with depth-nested sweeps, one-page captures, a lag and one page
// beyond the second archive's truncation limit.
func sweepSite() (*Model, []Page) {
	var pages []Page
	for i := range 40 {
		d := 0
		switch {
		case i >= 25:
			d = 3
		case i >= 10:
			d = 2
		case i >= 1:
			d = 1
		}
		pages = append(pages, Page{Key: string(rune('A' + i)), Depth: d, Bytes: 100 << 10})
	}
	pages[5].Bytes = 2 << 20
	m := &Model{Archives: []Archive{
		{Name: "wayback", Sweeps: []float64{0.05, 0.03, 0.02, 0.01}, Take: 0.7, OnePage: []float64{0.02, 0.005, 0.002, 0.001}, Lag: Day},
		{Name: "commoncrawl", Sweeps: []float64{0.03, 0.025, 0.02, 0.015}, Take: 0.5, Lag: 14 * Day, Truncate: 1 << 20},
	}}
	return m, pages
}

// TestRecoverableOneNeedMatchesSimulation: with one need the enumeration
// is exact, so it agrees with a Monte Carlo of the same model.
func TestRecoverableOneNeedMatchesSimulation(t *testing.T) {
	m, pages := sweepSite()
	for _, k := range []int{5, 15, 30} {
		need := []Need{{K: k, Pages: seq(len(pages), 1)}}
		for _, h := range []time.Duration{7 * Day, 30 * Day, 90 * Day} {
			got := m.Recoverable(pages, need, h)
			mc := monteCarlo(m, pages, need, h, 6000, uint64(k))
			se := math.Sqrt(mc*(1-mc)/6000) + 1e-4
			if math.Abs(got-mc) > 4*se {
				t.Errorf("k=%d within %v: %.4f, simulation %.4f ± %.4f", k, h, got, mc, se)
			}
		}
	}
}

// TestRecoverableIsALowerBound: with needs sharing pages the product over
// needs is a lower bound, never above a Monte Carlo of the same model.
func TestRecoverableIsALowerBound(t *testing.T) {
	m, pages := sweepSite()
	var needs []Need
	for s := range 6 {
		var ps []int
		for i := range 12 {
			ps = append(ps, (s*5+i*3)%len(pages))
		}
		needs = append(needs, Need{K: 6, Pages: ps})
	}
	for _, h := range []time.Duration{7 * Day, 30 * Day, 90 * Day} {
		got := m.Recoverable(pages, needs, h)
		mc := monteCarlo(m, pages, needs, h, 6000, 7)
		se := math.Sqrt(mc*(1-mc)/6000) + 1e-4
		if got > mc+4*se {
			t.Errorf("within %v: %.4f above the simulation's %.4f ± %.4f", h, got, mc, se)
		}
		if got < mc-0.15 {
			t.Errorf("within %v: %.4f far below the simulation's %.4f: the bound is too loose to be useful", h, got, mc)
		}
	}
}

// TestRecoverableDeterministic: the same model and plan give the same
// number, to the last bit.
func TestRecoverableDeterministic(t *testing.T) {
	m, pages := sweepSite()
	need := []Need{{K: 10, Pages: seq(len(pages), 1)}, {K: 3, Pages: []int{0, 1, 2, 3, 4, 5}, Had: 1}}
	first := m.Recoverable(pages, need, 30*Day)
	for range 20 {
		if got := m.Recoverable(pages, need, 30*Day); got != first {
			t.Fatalf("%v then %v", first, got)
		}
	}
}

// TestRecoverableEdges: needs already met give 1, needs that cannot be met
// 0, and a truncated or blocked page counts for nothing.
func TestRecoverableEdges(t *testing.T) {
	m, pages := sweepSite()
	if got := m.Recoverable(pages, []Need{{K: 2, Pages: []int{0}, Had: 2}}, Day); got != 1 {
		t.Errorf("met need: %v", got)
	}
	if got := m.Recoverable(pages, []Need{{K: 3, Pages: []int{0}, Had: 1}}, 365*Day); got != 0 {
		t.Errorf("need of more shards than exist: %v", got)
	}
	// Page 5 (2 MiB) is beyond commoncrawl's limit; without wayback it
	// can never be kept.
	cc := &Model{Archives: m.Archives[1:]}
	if got := cc.Recoverable(pages, []Need{{K: 1, Pages: []int{5}}}, 365*Day); got != 0 {
		t.Errorf("truncated page kept with probability %v", got)
	}
	wb := m.Archives[0]
	wb.Blocked = map[string]bool{pages[0].Key: true}
	if got := (&Model{Archives: []Archive{wb}}).Recoverable(pages, []Need{{K: 1, Pages: []int{0}}}, 365*Day); got != 0 {
		t.Errorf("blocked page kept with probability %v", got)
	}
	// Within the ingest lag nothing new is visible.
	if got := m.Recoverable(pages, []Need{{K: 1, Pages: []int{0}}}, 12*time.Hour); got != 0 {
		t.Errorf("within the lag: %v", got)
	}
}

// TestRecoverableHostileModelEnds: a model fitted to a lying history
// (huge sweep rates that take almost nothing, NaN and infinite values)
// still gives a probability in [0, 1], after a bounded enumeration.
func TestRecoverableHostileModelEnds(t *testing.T) {
	var pages []Page
	for i := range 60 {
		pages = append(pages, Page{Key: string(rune('A' + i)), Depth: i % MaxLevels})
	}
	hostile := Archive{Name: "liar", Sweeps: []float64{1e5, 1e4, 1e3, 100, 10, 1}, Take: 1e-4,
		OnePage: []float64{math.NaN(), math.Inf(1), -1, 0, 1e9, 0}, SweepWeight: 1e-9}
	nan := Archive{Name: "nan", Sweeps: []float64{math.NaN(), math.Inf(1), 5, 5, 5, 5}, Take: math.NaN(), Lag: -Day}
	m := &Model{Archives: []Archive{hostile, nan, hostile}}
	needs := []Need{{K: 30, Pages: seq(60, 1)}, {K: 1, Pages: []int{0, 1}}}
	for _, h := range []time.Duration{time.Hour, 30 * Day, 3650 * Day} {
		p := m.Recoverable(pages, needs, h)
		if !(p >= 0 && p <= 1) {
			t.Fatalf("within %v: %v", h, p)
		}
	}
}

// manyRatesModel is a model in which every page has its own one-page rate
// in each of narch archives, with six depth levels of busy sweeps that
// take little: many classes and many sweep-count combinations.
func manyRatesModel(npages, narch int) (*Model, []Page) {
	var pages []Page
	for i := range npages {
		pages = append(pages, Page{Key: fmt.Sprint("/p/", i), Depth: i % 6})
	}
	m := &Model{}
	for a := range narch {
		ar := Archive{Name: fmt.Sprint("a", a), Sweeps: []float64{1.2, 1.0, 0.8, 0.6, 0.4, 0.2}, Take: 0.05,
			OnePage: []float64{0.01}, PageRate: map[string]float64{}, SweepWeight: 400}
		for i, p := range pages {
			ar.PageRate[p.Key] = 1e-4 * float64(i+1+a)
		}
		m.Archives = append(m.Archives, ar)
	}
	return m, pages
}

// TestRecoverableBoundedOnManyClasses: pages each of their own odds in
// three busy archives are rounded into at most MaxClasses classes, and
// the sweep counts into at most MaxLeaves combinations, so the figure
// comes in one bounded pass.
func TestRecoverableBoundedOnManyClasses(t *testing.T) {
	m, pages := manyRatesModel(10000, 3)
	e := newEnumeration(m, pages, 30*Day)
	if len(e.miss) > MaxClasses {
		t.Fatalf("%d classes, more than %d", len(e.miss), MaxClasses)
	}
	p := m.Recoverable(pages, []Need{{K: 10, Pages: seq(40, 1)}}, 30*Day)
	if !(p >= 0 && p <= 1) {
		t.Fatalf("probability %v", p)
	}
}

// TestRecoverableNonDecreasingInHorizon: counts too light to tell apart
// are folded into fewer sweeps, never dropped, so a longer horizon never
// gives a lower figure, even when the enumeration is coarsened.
func TestRecoverableNonDecreasingInHorizon(t *testing.T) {
	m, pages := manyRatesModel(60, 3)
	need := []Need{{K: 1, Pages: []int{0}}}
	prev := 0.0
	for _, d := range []int{7, 14, 30, 60, 90, 180, 365} {
		p := m.Recoverable(pages, need, time.Duration(d)*Day)
		if p < prev-1e-9 {
			t.Errorf("within %d days %.6f, less than %.6f before", d, p, prev)
		}
		prev = max(prev, p)
	}
}

// TestRecoverableTinyTakeNoPanic: a take too small for log(1 − take) to
// tell from 0 is taken as many sweeps told apart, not a negative count.
func TestRecoverableTinyTakeNoPanic(t *testing.T) {
	m := &Model{Archives: []Archive{{Name: "a", Sweeps: []float64{1}, Take: 1e-17}}}
	if p := m.Recoverable([]Page{{Key: "/"}}, []Need{{K: 1, Pages: []int{0}}}, 30*Day); !(p >= 0 && p <= 1) {
		t.Fatalf("probability %v", p)
	}
}

// TestCapturedAgreesWithRecoverable: a page's capture probability is the
// one-shard need on it.
func TestCapturedAgreesWithRecoverable(t *testing.T) {
	m, pages := sweepSite()
	got := m.Captured(pages, 30*Day)
	for _, i := range []int{0, 5, 12, 30} {
		want := m.Recoverable(pages, []Need{{K: 1, Pages: []int{i}}}, 30*Day)
		if math.Abs(got[i]-want) > 1e-9 {
			t.Errorf("page %d: captured %v, need of one shard %v", i, got[i], want)
		}
	}
}
