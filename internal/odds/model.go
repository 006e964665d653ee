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
	// Take is ρ, the probability that a sweep takes a page within its
	// reach.
	Take float64
	// OnePage is μ by depth (the pooled rate of one-page captures, per
	// day), the last entry for deeper pages; PageRate overrides it for
	// pages with captures enough of their own.
	OnePage  []float64
	PageRate map[string]float64
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
