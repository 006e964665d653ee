package assure

import (
	"math"
	"slices"
	"time"
)

// Prior is a gamma distribution of capture rates across a pool of pages
// (one archive, pages at about the same depth), fitted by FitPrior.
type Prior struct {
	Mean float64 // μ, the pool's capture rate, per day
	Var  float64 // τ², the variance of true rates between pages, per day²
}

// FitPrior fits a Prior to a pool by the method of moments. Page i has
// counts[i] captures in exposures[i]. If its true rate κ_i is drawn from the
// prior and its count is Poisson(κ_i·w_i), then E[n_i] = μ·w_i and
// E[(n_i − μ·w_i)²] = μ·w_i + τ²·w_i², so
//
//	μ̂ = Σn_i / Σw_i,   τ̂² = max(0, (Σ(n_i − μ̂·w_i)² − μ̂·Σw_i) / Σw_i²).
//
// The Poisson part (μ·w_i) is subtracted so that counting noise is not
// mistaken for differences between pages. Pages with zero exposure do not
// count; with no exposure at all the prior is zero.
func FitPrior(counts []int, exposures []time.Duration) Prior {
	var sn, sw, sw2 float64
	for i, n := range counts {
		w := days(exposures[i])
		if w <= 0 {
			continue
		}
		sn += float64(n)
		sw += w
		sw2 += w * w
	}
	if sw == 0 {
		return Prior{}
	}
	mu := sn / sw
	var ss float64
	for i, n := range counts {
		w := days(exposures[i])
		if w <= 0 {
			continue
		}
		dev := float64(n) - mu*w
		ss += dev * dev
	}
	return Prior{Mean: mu, Var: math.Max(0, (ss-mu*sw)/sw2)}
}

// Shrink returns the posterior mean rate (per day) of a page with n
// captures in exposure w under the prior, Gamma(α, β) with α = μ²/τ² and
// β = μ/τ² (mean μ, variance τ²):
//
//	κ̃ = (n + α) / (w + β).
//
// β is the prior's weight in days of observation: a page observed for w
// days keeps w/(w + β) of its own rate κ̂ = n/w and takes the rest from μ,
// so new pages (small w) borrow almost everything and long-observed pages
// little, and the pool's spread τ² decides how much borrowing is warranted
// (τ² = 0: the pages look alike, κ̃ = μ). This is the standard conjugate
// (gamma–Poisson) empirical Bayes estimator; it is never negative and never
// claims "never captured" for a page merely because it is new.
func (p Prior) Shrink(n int, exposure time.Duration) float64 {
	w := days(exposure)
	switch {
	case p.Mean <= 0:
		if w <= 0 {
			return 0
		}
		return float64(n) / w
	case p.Var <= 0:
		return p.Mean
	}
	beta := p.Mean / p.Var
	alpha := p.Mean * beta
	return (float64(n) + alpha) / (math.Max(0, w) + beta)
}

// poolMembers returns, for each depth present, the indices of the pages in
// its pool: the pages at that depth, widened to depths d±1, d±2, … until
// the pool holds at least minPages pages (or every page). Deeper pages are
// crawled less, so the pool stays as close to the depth as it can. The
// widening jumps straight to the next depth present, so sparse or huge
// depths cost nothing extra.
func poolMembers(depths []int, minPages int) map[int][]int {
	pools := map[int][]int{}
	dist := make([]int, len(depths))
	for _, d := range depths {
		if _, ok := pools[d]; ok {
			continue
		}
		for i, dd := range depths {
			dist[i] = max(dd-d, d-dd)
		}
		sorted := slices.Clone(dist)
		slices.Sort(sorted)
		reach := sorted[min(max(minPages, 1), len(sorted))-1]
		members := []int{}
		for i, x := range dist {
			if x <= reach {
				members = append(members, i)
			}
		}
		pools[d] = members
	}
	return pools
}
