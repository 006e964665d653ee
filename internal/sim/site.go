package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Seed 001 (Jayawardana et al., "Modeling Updates of Scholarly Webpages
// Using Archived Data", 2020, §III-A): "the median crawl interval of 80% of
// author homepages were between 20–127 days" at the Internet Archive. The
// simulator reads that as the 10th and 90th percentiles of a log-normal
// distribution of a site's root-page capture interval: median
// √(20·127) ≈ 50.4 days, σ = ln(127/20)/(2·1.2816) ≈ 0.72.
const (
	seedIntervalLow  = 20.0  // days, 10th percentile
	seedIntervalHigh = 127.0 // days, 90th percentile
	normal90         = 1.2815515655446004
)

// sweepLength is how long a sweep takes, in days: its captures fall
// uniformly within it ("many pages within a day").
const sweepLength = 1.0

// page is one page of the simulated site.
type page struct {
	url    string
	depth  int
	rate   float64 // κ: captures per day, sweeps included
	solo   float64 // captures per day outside sweeps
	sweepP float64 // probability that a sweep captures the page
}

// site is one simulated site and its archive's habits.
type site struct {
	pages     []page
	sweepRate float64 // sweeps per day
}

// depthOf returns page i's depth on a site of n pages: the root, then 5%
// of the pages (at least one) one hop away, 35% two hops, the rest three.
// Depths never decrease with i, so index order is placement's page order
// (depth, then URL).
func depthOf(i, n int) int {
	d1 := max(1, n/20)
	switch {
	case i == 0:
		return 0
	case i <= d1:
		return 1
	case i <= d1+n*35/100:
		return 2
	}
	return 3
}

// pageURL names page i; the names sort like the indexes.
func pageURL(i int) string {
	if i == 0 {
		return "/"
	}
	return fmt.Sprintf("/p/%04d/", i)
}

// newSite draws a site: the root's capture interval from seed 001's
// distribution, each other page's from it times DepthFactor per hop times
// a log-normal spread of σ = Skew; then splits each rate between sweeps
// and captures of its own.
func newSite(c *Config, rng *rand.Rand) *site {
	mu := (math.Log(seedIntervalLow) + math.Log(seedIntervalHigh)) / 2
	sigma := (math.Log(seedIntervalHigh) - math.Log(seedIntervalLow)) / (2 * normal90)
	root := math.Exp(mu + sigma*rng.NormFloat64())
	s := &site{pages: make([]page, c.Pages), sweepRate: 1 / c.SweepEvery}
	for i := range s.pages {
		d := depthOf(i, c.Pages)
		interval := root
		if i > 0 {
			interval *= math.Pow(c.DepthFactor, float64(d)) * math.Exp(c.Skew*rng.NormFloat64())
		}
		p := page{url: pageURL(i), depth: d, rate: 1 / interval}
		p.sweepP = min(1, c.SweepShare*p.rate/s.sweepRate)
		p.solo = max(0, p.rate-p.sweepP*s.sweepRate)
		s.pages[i] = p
	}
	return s
}
