package odds

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Capture is one archived copy of one of the site's pages.
type Capture struct {
	Page string // the page's key (Page.Key)
	Time time.Time
}

// Sweep is a burst of one archive's captures of the site: a crawl.
type Sweep struct {
	Start, End time.Time
	Pages      []string // distinct pages taken, sorted
}

// SweepSignificance is the burst detector's threshold: a cluster of
// captures is a sweep when the background of one-page captures would take
// as many distinct pages in its span with a probability below this.
const SweepSignificance = 1e-3

// FindSweeps finds the sweeps among one archive's captures of a site of
// pages pages observed for days days: clusters of captures with no pause
// longer than gap that took more distinct pages than the background rate
// of one-page captures makes likely. The background rate is estimated from
// the occasions outside sweeps (a page's captures within a day of the
// first are one: see occasions; with the prior rate prior per page per
// day, weighing weight days), and the clusters judged again, until no
// cluster changes side. A cluster of fewer than two distinct pages is never a
// sweep.
func FindSweeps(caps []Capture, pages int, days float64, gap time.Duration, prior, weight float64) []Sweep {
	clusters := clusterCaptures(caps, gap)
	if len(clusters) == 0 || pages <= 0 {
		return nil
	}
	sweep := make([]bool, len(clusters))
	for range 8 {
		var bg int
		for i, c := range clusters {
			if !sweep[i] {
				bg += c.occasions
			}
		}
		// One-page captures per page per day, the site's background.
		rate := (float64(bg)/float64(pages) + prior*weight) / (math.Max(days, 0) + weight)
		changed := false
		for i, c := range clusters {
			span := c.End.Sub(c.Start).Hours()/24 + gap.Hours()/24
			mean := rate * span * float64(pages)
			is := len(c.Pages) >= 2 && poissonTail(mean, len(c.Pages)) < SweepSignificance
			if is != sweep[i] {
				sweep[i], changed = is, true
			}
		}
		if !changed {
			break
		}
	}
	var out []Sweep
	for i, c := range clusters {
		if sweep[i] {
			out = append(out, c.Sweep)
		}
	}
	return out
}

// cluster is a run of captures with no pause longer than the gap.
type cluster struct {
	Sweep
	occasions int // its captures that began an occasion of their page
}

// occasion is how long after the capture that began an occasion of a
// page a further capture of it belongs to the same occasion (a page
// shared and saved several times in a burst): what the model needs is
// the chance of at least one capture within a horizon, not how many.
const occasion = 24 * time.Hour

// occasions is, per page, when its last occasion began, for captures
// taken in time order.
type occasions map[string]time.Time

// begins reports whether capture c begins an occasion of its page (none
// began less than a day before it), and if so records it.
func (o occasions) begins(c Capture) bool {
	if t, ok := o[c.Page]; ok && c.Time.Sub(t) < occasion {
		return false
	}
	o[c.Page] = c.Time
	return true
}

// clusterCaptures groups captures (in time order) into clusters: a new one
// starts after a pause longer than gap, or at a page the cluster already
// took (a crawl takes a page once; an archive that captures the root every
// few hours must not chain its whole history into one cluster).
func clusterCaptures(caps []Capture, gap time.Duration) []cluster {
	sorted := slices.Clone(caps)
	slices.SortFunc(sorted, func(a, b Capture) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Page, b.Page))
	})
	var out []cluster
	seen := map[string]bool{}
	occ := occasions{}
	for _, c := range sorted {
		n := len(out)
		if n == 0 || c.Time.Sub(out[n-1].End) > gap || seen[c.Page] {
			out = append(out, cluster{Sweep: Sweep{Start: c.Time}})
			clear(seen)
			n++
		}
		cl := &out[n-1]
		cl.End = c.Time
		if occ.begins(c) {
			cl.occasions++
		}
		if !seen[c.Page] {
			seen[c.Page] = true
			cl.Pages = append(cl.Pages, c.Page)
		}
	}
	for i := range out {
		slices.Sort(out[i].Pages)
	}
	return out
}

// poissonTail returns P(X ≥ k) for X ~ Poisson(mean), summed from k
// upward in logs, so a large mean neither underflows nor reads as 1. At or
// below the mean the tail is at least about one half: it returns 1 there
// (the detector only asks whether it is tiny).
func poissonTail(mean float64, k int) float64 {
	switch {
	case k <= 0:
		return 1
	case !(mean > 0):
		return 0
	case float64(k) <= mean:
		return 1
	}
	lk, _ := math.Lgamma(float64(k) + 1)
	logTerm := -mean + float64(k)*math.Log(mean) - lk // log P(X = k)
	sum := 0.0
	for i := k; ; i++ {
		t := math.Exp(logTerm)
		sum += t
		if t < sum*1e-12 || i > k+100000 {
			break
		}
		logTerm += math.Log(mean / float64(i+1))
	}
	return math.Min(1, sum)
}
