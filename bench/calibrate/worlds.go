package main

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/odds"
)

// kind is a kind of world: how its archives capture sites, and how much
// history they have when the generation is published.
type kind struct {
	name    string
	history float64 // days of history before the generation
	// archives draws the true models of a world's archives over levels
	// depth levels and its pages.
	archives func(rng *rand.Rand, pages []odds.Page) []odds.Archive
}

// logUniform draws from lo to hi, uniform in log.
func logUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// nested returns rates for 4 levels, λ_0 shrinking by share per hop.
func nested(l0, share float64) []float64 {
	out := make([]float64, 4)
	for d := range out {
		out[d] = l0 * math.Pow(share, float64(d))
	}
	return out
}

// skewed gives every page its own one-page rate: its depth's rate times a
// log-normal factor of σ = 1.
func skewed(rng *rand.Rand, pages []odds.Page, byDepth []float64) map[string]float64 {
	out := map[string]float64{}
	for _, p := range pages {
		out[p.Key] = byDepth[min(p.Depth, len(byDepth)-1)] * math.Exp(rng.NormFloat64())
	}
	return out
}

// wayback and commonCrawl are the two archives of most kinds, with the
// kind's sweeps; commonCrawl sweeps at its own rate, lags two to four
// weeks and takes half the pages in reach.
func wayback(rng *rand.Rand, pages []odds.Page, sweeps []float64, take float64, onePage []float64) odds.Archive {
	a := odds.Archive{Name: "wayback", Sweeps: sweeps, Take: take, OnePage: onePage,
		Lag: time.Duration(logUniform(rng, 2, 72) * float64(time.Hour))}
	if onePage != nil {
		a.PageRate = skewed(rng, pages, onePage)
	}
	return a
}

func commonCrawl(rng *rand.Rand, share float64) odds.Archive {
	return odds.Archive{Name: "commoncrawl", Sweeps: nested(logUniform(rng, 1.0/365, 1.0/30), share),
		Take: 0.3 + 0.4*rng.Float64(), Lag: time.Duration(logUniform(rng, 7, 30) * float64(odds.Day)), Truncate: 5 << 20}
}

// kinds are the world kinds the backtest replays.
var kinds = []kind{
	{"independent", 365, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		r := logUniform(rng, 1.0/200, 1.0/10)
		return []odds.Archive{wayback(rng, pages, []float64{0, 0, 0, 0}, 0, []float64{r, r / 2, r / 4, r / 8})}
	}},
	{"whole-site sweeps", 365, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		l := logUniform(rng, 1.0/200, 1.0/10)
		return []odds.Archive{wayback(rng, pages, []float64{l, l, l, l}, 1, []float64{1.0 / 400, 0, 0, 0})}
	}},
	{"nested sweeps, share 0.5", 365, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		return []odds.Archive{
			wayback(rng, pages, nested(logUniform(rng, 1.0/200, 1.0/10), 0.5), 0.6+0.35*rng.Float64(), []float64{1.0 / 200, 1.0 / 800, 1.0 / 3000, 0}),
			commonCrawl(rng, 0.5)}
	}},
	{"nested sweeps, share 0.9", 365, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		return []odds.Archive{
			wayback(rng, pages, nested(logUniform(rng, 1.0/200, 1.0/10), 0.9), 0.6+0.35*rng.Float64(), []float64{1.0 / 200, 1.0 / 800, 1.0 / 3000, 0}),
			commonCrawl(rng, 0.9)}
	}},
	{"pages alike within a depth", 365, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		return []odds.Archive{wayback(rng, pages, nested(logUniform(rng, 1.0/200, 1.0/10), 0.7), 1, nil)}
	}},
	{"long history (2 years)", 730, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		return []odds.Archive{
			wayback(rng, pages, nested(logUniform(rng, 1.0/365, 1.0/10), 0.7), 0.5+0.45*rng.Float64(), []float64{1.0 / 100, 1.0 / 400, 1.0 / 1000, 0}),
			commonCrawl(rng, 0.7)}
	}},
	{"new site (3 days)", 3, func(rng *rand.Rand, pages []odds.Page) []odds.Archive {
		// Some new sites are found soon, many not for months.
		return []odds.Archive{
			wayback(rng, pages, nested(logUniform(rng, 1.0/1000, 1.0/20), 0.6), 0.5+0.45*rng.Float64(), []float64{1.0 / 365, 1.0 / 2000, 0, 0}),
			commonCrawl(rng, 0.7)}
	}},
}
