package assure

import (
	"math"
	"slices"
	"time"
)

// Prior is a gamma distribution of capture rates, by its mean and
// variance: the fixed prior (FixedPrior) or the one fitted to a depth pool
// (FitPrior). As Gamma(α, β), β = Mean/Var is its weight in days of
// observation and α = Mean·β its weight in captures.
type Prior struct {
	Mean float64 // μ, the pool's capture rate, per day
	Var  float64 // τ², the variance of true rates between pages, per day²
}

// FixedPrior returns the gamma prior of mean rate 1/interval (one capture
// per interval) that weighs as much as weight of observation: β = weight in
// days, α = β/interval. It is zero (no prior) when interval or weight is
// not positive.
func FixedPrior(interval, weight time.Duration) Prior {
	if interval <= 0 || weight <= 0 {
		return Prior{}
	}
	mean := 1 / days(interval)
	return Prior{Mean: mean, Var: mean / days(weight)}
}

// Weight returns β = Mean/Var, the prior's weight in days of observation:
// 0 for the zero prior, +Inf for a prior without spread.
func (p Prior) Weight() float64 {
	switch {
	case p.Mean <= 0:
		return 0
	case p.Var <= 0:
		return math.Inf(1)
	}
	return p.Mean / p.Var
}

// FitPrior fits a Prior to a pool by the method of moments, each page
// carrying the fixed prior base (the zero Prior for none). Page i has
// counts[i] captures in exposures[i]. If its true rate κ_i is drawn from
// the pool's prior and its count is Poisson(κ_i·w_i), then E[n_i] = μ·w_i
// and E[(n_i − μ·w_i)²] = μ·w_i + τ²·w_i², so without a base prior
//
//	μ̂ = Σn_i / Σw_i,   τ̂² = max(0, (Σ(n_i − μ̂·w_i)² − μ̂·Σw_i) / Σw_i²).
//
// The Poisson part (μ·w_i) is subtracted so that counting noise is not
// mistaken for differences between pages. Pages with zero exposure do not
// count; with no exposure at all the prior is zero.
//
// With a base prior Gamma(α₀, β₀), every page brings the base's α₀
// captures in β₀ days, and the pool cannot claim to know more than it has
// seen:
//
//	μ̄ = Σ(n_i + α₀) / Σ(w_i + β₀),   Var = max(τ̂², μ̄ / Σ(w_i + β₀)),
//
// so the pool's mean is the base's mean until the pool has seen enough
// page-days to outweigh it, and the pool's weight β = μ̄/Var is at most its
// pages' exposures plus the base's weight per page. Without that cap a
// pool whose pages were all observed for a minute, each captured once,
// would claim a rate of one capture per minute with full confidence (τ̂²
// = 0: the pages look alike), which is the failure this guards against.
// Pages of any exposure count, each with at least the base's weight.
func FitPrior(counts []int, exposures []time.Duration, base Prior) Prior {
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
	var fit Prior
	if sw > 0 {
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
		fit = Prior{Mean: mu, Var: math.Max(0, (ss-mu*sw)/sw2)}
	}
	b0 := base.Weight()
	if b0 <= 0 || math.IsInf(b0, 1) {
		return fit
	}
	a0 := base.Mean * b0
	var tn, tw float64
	for i, n := range counts {
		tn += float64(n) + a0
		tw += math.Max(0, days(exposures[i])) + b0
	}
	if tw <= 0 {
		return fit
	}
	mean := tn / tw
	return Prior{Mean: mean, Var: math.Max(fit.Var, mean/tw)}
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
// claims "never captured" for a page merely because it is new. The zero
// prior gives κ̂ = n/w (0 when w ≤ 0).
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
