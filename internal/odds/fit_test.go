package odds

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// plantedSite returns a site of n pages (root, then a quarter each at
// depths 1, 2, 3 and the rest at 3).
func plantedSite(n int) []Page {
	var pages []Page
	for i := range n {
		d := min(3, 4*i/n+min(i, 1))
		pages = append(pages, Page{Key: "/p" + string(rune('A'+i%26)) + string(rune('a'+i/26)), Depth: d})
	}
	return pages
}

// plantedHistory draws days of history of a true archive over pages.
func plantedHistory(truth Archive, pages []Page, days float64, seed uint64) (History, []Sweep) {
	rng := rand.New(rand.NewPCG(seed, 2))
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	from := now.Add(-time.Duration(days * float64(Day)))
	caps, sweeps := truth.Draw(pages, from, now, 3*time.Hour, rng)
	return History{Now: now, Since: from, Pages: pages, Captures: map[string][]Capture{truth.Name: caps}}, sweeps
}

// TestFindSweepsOnPlantedHistories: on histories drawn with known sweeps
// and a background of one-page captures, the detector finds the sweeps
// that took at least three pages (precision and recall ≥ 0.9), where
// clustering by a 6-hour gap alone chains isolated captures into many.
func TestFindSweepsOnPlantedHistories(t *testing.T) {
	pages := plantedSite(40)
	var found, truePos, real, matched int
	var gapOnly int
	for seed := range uint64(20) {
		truth := Archive{Name: "wayback", Sweeps: []float64{1.0 / 30, 1.0 / 45, 1.0 / 60, 1.0 / 90}, Take: 0.7,
			OnePage: []float64{0.2, 0.05, 0.03, 0.02}}
		h, planted := plantedHistory(truth, pages, 180, seed)
		caps := h.Captures["wayback"]
		got := FindSweeps(caps, len(pages), 180, Wayback.Gap, Wayback.OnePage, Wayback.Weight)
		for _, p := range planted {
			if len(p.Pages) < 3 {
				continue
			}
			real++
			for _, s := range got {
				if !s.End.Before(p.Start) && !s.Start.After(p.End) {
					matched++
					break
				}
			}
		}
		for _, s := range got {
			found++
			for _, p := range planted {
				if len(p.Pages) >= 3 && !s.End.Before(p.Start) && !s.Start.After(p.End) {
					truePos++
					break
				}
			}
		}
		for _, c := range clusterCaptures(caps, 6*time.Hour) {
			if len(c.Pages) >= 2 {
				gapOnly++ // what clustering by a 6-hour gap alone calls sweeps
			}
		}
	}
	precision, recall := float64(truePos)/float64(found), float64(matched)/float64(real)
	t.Logf("planted %d sweeps of ≥ 3 pages; found %d, precision %.2f, recall %.2f; clusters of 2 pages or more by a 6-hour gap alone: %d", real, found, precision, recall, gapOnly)
	if precision < 0.9 || recall < 0.9 {
		t.Errorf("precision %.2f, recall %.2f; want ≥ 0.9 each", precision, recall)
	}
}

// TestFitRecoversPlantedRates: a year of history drawn from a known model
// is fitted back to it: λ_0 and ρ within a third, one-page rates of the
// root within a half.
func TestFitRecoversPlantedRates(t *testing.T) {
	pages := plantedSite(40)
	truth := Archive{Name: "wayback", Sweeps: []float64{1.0 / 20, 1.0 / 30, 1.0 / 40, 1.0 / 60}, Take: 0.8,
		OnePage: []float64{0.1, 0.01, 0.005, 0.002}}
	var lambda, take, root float64
	const worlds = 10
	for seed := range uint64(worlds) {
		h, _ := plantedHistory(truth, pages, 365, seed)
		a := Fit(h).Archives[0]
		lambda += a.Sweeps[0] / worlds
		take += a.Take / worlds
		root += a.onePage(pages[0]) / worlds
		if a.Evidence.Prior {
			t.Errorf("a year of history is said to be mostly prior: %+v", a.Evidence)
		}
	}
	if math.Abs(lambda/truth.Sweeps[0]-1) > 1.0/3 || math.Abs(take/truth.Take-1) > 1.0/3 || math.Abs(root/truth.OnePage[0]-1) > 0.5 {
		t.Errorf("fitted λ0 %.4f (true %.4f), ρ %.2f (true %.2f), root μ %.4f (true %.4f)",
			lambda, truth.Sweeps[0], take, truth.Take, root, truth.OnePage[0])
	}
}

// TestFitNewSiteIsThePrior: a site served for three days with no capture
// is judged by the archive's prior, said to be so, and its odds of being
// kept within 30 days are far below one half.
func TestFitNewSiteIsThePrior(t *testing.T) {
	pages := plantedSite(40)
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	m := Fit(History{Now: now, Since: now.Add(-3 * Day), Pages: pages, Archives: []string{"wayback", "commoncrawl"}})
	for _, a := range m.Archives {
		if !a.Evidence.Prior {
			t.Errorf("%s: no history but not said to be the prior: %+v", a.Name, a.Evidence)
		}
	}
	p := m.Recoverable(pages, []Need{{K: 10, Pages: seq(len(pages), 1)}}, 30*Day)
	if p > 0.5 {
		t.Errorf("a new site's odds within 30 days: %.3f, want well below 1/2", p)
	}
	t.Logf("new site, k = 10 of 40 pages, within 30 days: %.3f", p)
}

// TestFitDepthNested: λ_d never increases with depth, whatever the
// history.
func TestFitDepthNested(t *testing.T) {
	pages := plantedSite(40)
	truth := Archive{Name: "x", Sweeps: []float64{0.1, 0.1, 0.01, 0.001}, Take: 0.5, OnePage: []float64{0.5, 0.5, 0.5, 0.5}}
	for seed := range uint64(5) {
		h, _ := plantedHistory(truth, pages, 200, seed)
		a := Fit(h).Archives[0]
		for d := 1; d < len(a.Sweeps); d++ {
			if a.Sweeps[d] > a.Sweeps[d-1] {
				t.Fatalf("λ %v increases with depth", a.Sweeps)
			}
		}
	}
}

// TestPoissonTailLargeMean: the tail of a Poisson with a mean past where
// e^(−mean) underflows is computed, so bursts on big sites are still
// found.
func TestPoissonTailLargeMean(t *testing.T) {
	if p := poissonTail(800, 2000); p > 1e-100 {
		t.Errorf("P(Poisson(800) ≥ 2000) = %v", p)
	}
	if p := poissonTail(800, 700); p != 1 {
		t.Errorf("P(Poisson(800) ≥ 700) = %v, want 1 (below the mean)", p)
	}
	if got, want := poissonTail(2, 5), 1-math.Exp(-2)*(1+2+2+4.0/3+2.0/3); math.Abs(got-want) > 1e-12 {
		t.Errorf("P(Poisson(2) ≥ 5) = %v, want %v", got, want)
	}
}

// TestFitCountsBurstsAsOccasions: a page saved five times within an hour
// on each of three days has the rate of three occasions, not fifteen
// captures: what the forecast needs is the chance of at least one.
func TestFitCountsBurstsAsOccasions(t *testing.T) {
	pages := plantedSite(40)
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	h := History{Now: now, Since: now.Add(-300 * Day), Pages: pages, Archives: []string{"wayback"}, Captures: map[string][]Capture{}}
	page := pages[len(pages)-1].Key
	burst := func(day int) []Capture {
		var out []Capture
		for i := range 5 {
			out = append(out, Capture{Page: page, Time: now.Add(-time.Duration(day)*Day + time.Duration(i)*10*time.Minute)})
		}
		return out
	}
	for _, day := range []int{250, 150, 50} {
		h.Captures["wayback"] = append(h.Captures["wayback"], burst(day)...)
	}
	bursts := Fit(h).Archives[0].PageRate[page]
	h.Captures["wayback"] = []Capture{{Page: page, Time: now.Add(-250 * Day)}, {Page: page, Time: now.Add(-150 * Day)}, {Page: page, Time: now.Add(-50 * Day)}}
	single := Fit(h).Archives[0].PageRate[page]
	if math.Abs(bursts-single) > 1e-12 {
		t.Errorf("three bursts of five captures: rate %.5f/day; three single captures: %.5f/day", bursts, single)
	}
}

// TestFindSweepsBehindABurstyRoot: a root page saved ten times within an
// hour every day is one occasion a day in the background, not ten, so a
// crawl of eight other pages in an hour still stands out as a sweep (ten
// captures a day would make eight pages in a day and a half likely).
func TestFindSweepsBehindABurstyRoot(t *testing.T) {
	pages := plantedSite(40)
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var caps []Capture
	for d := range 300 {
		for i := range 10 {
			caps = append(caps, Capture{Page: pages[0].Key, Time: now.Add(-time.Duration(d)*Day + time.Duration(i)*5*time.Minute)})
		}
	}
	crawl := now.Add(-100*Day + 12*time.Hour)
	for i := 1; i <= 8; i++ {
		caps = append(caps, Capture{Page: pages[i].Key, Time: crawl.Add(time.Duration(i) * 5 * time.Minute)})
	}
	sweeps := FindSweeps(caps, len(pages), 300, Wayback.Gap, Wayback.OnePage, Wayback.Weight)
	if len(sweeps) != 1 || len(sweeps[0].Pages) < 8 || sweeps[0].End.Before(crawl) {
		t.Fatalf("sweeps %+v, want the crawl of 8 pages", sweeps)
	}
}
