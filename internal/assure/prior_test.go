package assure

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// alpha0, beta0 are the default fixed prior's weights: 30/127 captures in
// 30 days.
const alpha0, beta0 = 30.0 / 127, 30.0

func TestFixedPrior(t *testing.T) {
	p := FixedPrior(127*Day, 30*Day)
	if math.Abs(p.Mean-1.0/127) > 1e-15 || math.Abs(p.Weight()-30) > 1e-9 {
		t.Errorf("FixedPrior(127 d, 30 d) = %+v (weight %v), want mean 1/127, weight 30", p, p.Weight())
	}
	// A page never observed keeps the prior mean; one observed for a
	// year keeps 365/395 of its own rate.
	if got := p.Shrink(0, 0); math.Abs(got-1.0/127) > 1e-15 {
		t.Errorf("no observation: %v, want 1/127", got)
	}
	if got, want := p.Shrink(12, 365*Day), (12+alpha0)/(365+beta0); math.Abs(got-want) > 1e-15 {
		t.Errorf("a year: %v, want %v", got, want)
	}
	for _, z := range []Prior{FixedPrior(0, Day), FixedPrior(Day, 0), FixedPrior(-Day, Day)} {
		if z != (Prior{}) || z.Weight() != 0 {
			t.Errorf("degenerate FixedPrior = %+v, want zero", z)
		}
	}
	if w := (Prior{Mean: 1}).Weight(); !math.IsInf(w, 1) {
		t.Errorf("prior without spread weighs %v, want +Inf", w)
	}
}

// TestFitPriorBase: a pool whose every page was observed for a minute and
// captured once has no information about the rate beyond "not never": the
// fixed prior keeps the pool's mean at each page's own posterior,
// (1 + α₀)/(w + β₀), instead of a capture a minute, and caps its weight at
// the pool's page-days. With long exposure the data win.
func TestFitPriorBase(t *testing.T) {
	base := FixedPrior(127*Day, 30*Day)
	n := []int{1, 1, 1, 1, 1, 1, 1, 1}
	w := make([]time.Duration, len(n))
	for i := range w {
		w[i] = time.Minute
	}
	raw := FitPrior(n, w, Prior{})
	if raw.Mean < 1000 || raw.Var != 0 {
		t.Fatalf("raw pool %+v: want the absurd one-a-minute rate with full confidence", raw)
	}
	p := FitPrior(n, w, base)
	minute := days(time.Minute)
	if want := (1 + alpha0) / (minute + beta0); math.Abs(p.Mean-want) > 1e-12 {
		t.Errorf("pool mean %v, want %v", p.Mean, want)
	}
	if want := 8 * (minute + beta0); math.Abs(p.Weight()-want) > 1e-6 {
		t.Errorf("pool weight %v days, want capped at %v", p.Weight(), want)
	}
	if got := p.Shrink(1, time.Minute); !(got > 0.04 && got < 0.05) {
		t.Errorf("page rate %v, want about (1 + α₀)/β₀ = 0.041", got)
	}
	// Three identical pages captured 10 times in 100 days: the prior
	// keeps 30/130 of the weight, so the mean is 0.079, not 0.1.
	long := FitPrior([]int{10, 10, 10}, []time.Duration{100 * Day, 100 * Day, 100 * Day}, base)
	if want := (30 + 3*alpha0) / (300 + 3*beta0); math.Abs(long.Mean-want) > 1e-12 || long.Mean < 0.075 {
		t.Errorf("long pool mean %v, want %v", long.Mean, want)
	}
	// Zero-exposure pages carry the base prior alone.
	if z := FitPrior([]int{3}, []time.Duration{0}, base); math.Abs(z.Mean-(3+alpha0)/beta0) > 1e-12 {
		t.Errorf("zero exposure: %+v", z)
	}
}

// freshSite is the reported case: 8 pages, served for a minute, each
// captured once by a wget crawl half a minute ago; one segment of 20
// blocks spread over the pages, any 3 of which rebuild it. Nothing has
// been found archived yet.
func freshSite() Site {
	site := Site{Now: now, Segments: []Segment{{Name: "data", K: 3, M: 17, Stripes: 1}}}
	for i := range 8 {
		p := Page{
			URL:      fmt.Sprintf("https://example.org/f%d", i),
			Depth:    min(i, 2),
			Since:    now.Add(-time.Minute),
			Captures: map[string][]Capture{"wget": {{Time: now.Add(-30*time.Second + time.Duration(i)*time.Second)}}},
		}
		for s := i; s < 20; s += 8 {
			p.Blocks = append(p.Blocks, manifest.BlockRef{Segment: "data", Shard: uint16(s)})
		}
		site.Pages = append(site.Pages, p)
	}
	return site
}

// TestAssessFreshCrawl: one capture per page a minute after the pages went
// up is no evidence of frequent captures. Raw rates (NoPrior) claim a
// capture a minute and certainty within a week; with the fixed prior each
// page's rate is (1 + α₀)/β₀ ≈ 1/24 per day, so at +7 d the Independent
// view gives about 0.81 (a page with 3 blocks suffices: 1 − P(at most one
// 2-block page captured)) and the Sweep view, where the one archive
// captures all pages in one visit, about 1 − e^(−7Λ) ≈ 0.27; the target is
// weeks away (or never), and Evidence says the figures rest on the prior.
func TestAssessFreshCrawl(t *testing.T) {
	raw, err := Assess(freshSite(), Options{Samples: 2000, NoPrior: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := raw.Independent.Generation.P[1]; p < 0.99 {
		t.Fatalf("NoPrior: +7 d P = %v; the test no longer shows the failure it guards against", p)
	}
	if raw.Evidence.PriorDominated || raw.Evidence.PriorDays != 0 {
		t.Errorf("NoPrior evidence %+v: want no prior", raw.Evidence)
	}
	a, err := Assess(freshSite(), Options{Samples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Curve{"independent": a.Independent.Generation, "sweep": a.Sweep.Generation} {
		if p, most := c.P[1], map[string]float64{"independent": 0.9, "sweep": 0.4}[name]; !(p < most) {
			t.Errorf("%s: P(+7 d) = %v, want well below 0.99", name, p)
		}
		if c.Reached && c.Reach < 14*Day {
			t.Errorf("%s: reaches 99%% in %v, want weeks or never", name, c.Reach)
		}
	}
	for _, r := range a.Rates {
		if r.Exposure != time.Minute || !(r.Rate > 0.03 && r.Rate < 0.06) {
			t.Errorf("rate %+v: want exposure 1 min, about (1 + α₀)/β₀ = 0.041 per day", r)
		}
	}
	e := a.Evidence
	if !e.PriorDominated || e.MedianExposure != time.Minute || e.ShortestExposure != time.Minute ||
		e.PriorDays != 30*Day || e.PriorInterval != 127*Day {
		t.Errorf("evidence %+v: want prior dominated, exposures of a minute", e)
	}
	if len(e.Sweeps) != 1 || e.Sweeps[0].Archive != "wget" || e.Sweeps[0].Sweeps != 1 || !(e.Sweeps[0].Rate < 0.06) {
		t.Errorf("sweeps %+v: want one wget sweep and a sweep rate near the prior's, not one a minute", e.Sweeps)
	}
}

// TestPriorFades: a year of captures every 30 days, observed over a year,
// estimates ≈ 1/30 per day (the prior keeps 30/395 of the weight), and the
// evidence is not prior dominated; over the default 90-day window the
// prior keeps a quarter, (3 + α₀)/(90 + β₀).
func TestPriorFades(t *testing.T) {
	site := Site{
		Now:      now,
		Segments: []Segment{{Name: "data", K: 2, M: 2, Stripes: 1}},
		Pages:    oneBlockPages(4, "data", func(int) []Capture { return every(13, 30*Day, 12*time.Hour) }),
	}
	a, err := Assess(site, Options{Window: 365 * Day, Samples: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Rates {
		if r.Captures != 13 || r.Pooled || math.Abs(r.Rate-1.0/30) > 0.1/30 {
			t.Errorf("rate %+v, want own rate within 10%% of 1/30", r)
		}
	}
	e := a.Evidence
	if e.PriorDominated || e.MedianExposure != 365*Day {
		t.Errorf("evidence %+v, want a year, not prior dominated", e)
	}
	if s := e.Sweeps[0]; s.Sweeps != 13 || math.Abs(s.Rate-1.0/30) > 0.1/30 {
		t.Errorf("sweeps %+v, want 13 and Λ within 10%% of 1/30", s)
	}
	b, err := Assess(site, Options{Samples: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.Rates[0].Rate, (3+alpha0)/(90+beta0); math.Abs(got-want) > 1e-12 {
		t.Errorf("90-day window: rate %v, want %v", got, want)
	}
}
