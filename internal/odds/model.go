package odds

import (
	"math"
	"time"
)

// Day is the unit of every rate in this package: rates are events per day.
const Day = 24 * time.Hour

// Page is a carrier page as the model sees it.
type Page struct {
	Key   string // the page's URL path, as "/about/"
	Depth int    // link hops from the root page (0); negative when unknown, taken as the deepest level
	Bytes int64  // the page's size with its blocks, for truncation limits; 0 when unknown
}

// Archive is one archive's fitted capture model of one site.
type Archive struct {
	Name string
	// Sweeps is λ_d, the rate per day of sweeps that reach depth ≥ d, for
	// d = 0 … len−1, non-increasing; pages deeper than the last level
	// take the last.
	Sweeps []float64
	// SweepWeight is how many days of evidence the sweep rates rest on
	// (observation plus the prior's weight): their uncertainty, as the
	// weight β of a gamma posterior, makes sweep counts negative binomial
	// instead of Poisson. Zero means the rates are known exactly.
	SweepWeight float64
	// Take is ρ, the probability that a sweep takes a page within its
	// reach.
	Take float64
	// OnePage is μ by depth (the pooled rate of one-page captures, per
	// day), the last entry for deeper pages; PageRate overrides it for
	// pages with captures enough of their own.
	OnePage  []float64
	PageRate map[string]float64
	// OneWeight is, by depth level, how many days of evidence the
	// one-page rates rest on (the weight β of their gamma posterior, so a
	// page's chance of a one-page capture within t days is
	// 1 − (β/(β+t))^(μβ)); zero or missing means exactly known rates.
	OneWeight []float64
	// Lag is how long a capture takes to become visible.
	Lag time.Duration
	// Truncate is the most bytes of a page the archive keeps; 0 for no
	// limit. A page with Bytes above it counts for nothing here.
	Truncate int64
	// Blocked are the pages this archive's crawler may not capture.
	Blocked map[string]bool
	// Evidence is what the fit rests on.
	Evidence Evidence
}

// Evidence is what one archive's fitted model rests on.
type Evidence struct {
	Days     float64 // days of observation (exposure of the site)
	Captures int     // captures of the site's pages seen
	Sweeps   int     // sweeps found among them
	// Prior reports that the prior outweighs the observation: fewer days
	// observed than the prior weighs, or no capture at all.
	Prior bool
}

// Model is the capture model of a site: one Archive per archive.
type Model struct {
	Archives []Archive
}

// level returns the depth level of d among n levels.
func level(d, n int) int {
	if d < 0 || d >= n {
		return n - 1
	}
	return d
}

// onePage returns μ for page p.
func (a *Archive) onePage(p Page) float64 {
	if r, ok := a.PageRate[p.Key]; ok {
		return r
	}
	if len(a.OnePage) == 0 {
		return 0
	}
	return a.OnePage[level(p.Depth, len(a.OnePage))]
}

// oneMiss returns the probability that page p gets no one-page capture
// in t days.
func (a *Archive) oneMiss(p Page, t float64) float64 {
	mu := a.onePage(p)
	if l := level(p.Depth, max(1, len(a.OnePage))); l < len(a.OneWeight) && a.OneWeight[l] > 0 {
		b := a.OneWeight[l]
		return math.Pow(b/(b+t), mu*b)
	}
	return math.Exp(-mu * t)
}

// counts reports whether the archive can keep page p at all.
func (a *Archive) counts(p Page) bool {
	if a.Blocked[p.Key] {
		return false
	}
	return a.Truncate <= 0 || p.Bytes <= a.Truncate
}

// effective returns the horizon left once the ingest lag has passed, in
// days: captures later than that are not visible by the horizon.
func (a *Archive) effective(horizon time.Duration) float64 {
	return math.Max(0, (horizon-a.Lag).Hours()/24)
}
