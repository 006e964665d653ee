package assure

import (
	"slices"
	"time"
)

// Evidence is what an Assessment's rates rest on: how long the pages have
// been observed, how many sweeps of each archive were seen, and whether
// the fixed prior (Options.PriorInterval, Options.PriorDays) outweighs the
// captures. Status should show it beside the figures and, when
// PriorDominated, say that there is too little capture history to estimate
// and the figures mostly reflect the prior: P_rec then says what a typical
// site would expect, not what this site's archives have shown.
type Evidence struct {
	// ShortestExposure and MedianExposure are the shortest and the median
	// (the lower middle one for an even count) of the pages' observation
	// windows: from Options.Window before Site.Now, or Page.Since when
	// later, to Site.Now. 0 with no pages.
	ShortestExposure, MedianExposure time.Duration
	// Sweeps are, per archive with captures (by name), the sweeps seen in
	// the window and the sweep rate used. Fewer than 2 sweeps say nothing
	// about how often the archive comes back: its sweep rate is then
	// mostly the prior's.
	Sweeps []ArchiveSweeps
	// PriorInterval and PriorDays are the fixed prior used: mean time
	// between captures and weight. Both 0 with Options.NoPrior.
	PriorInterval, PriorDays time.Duration
	// PriorDominated reports that the median page has been observed for
	// less than PriorDays, so the fixed prior carries more than half the
	// weight of a typical page's rate. Never set with Options.NoPrior.
	PriorDominated bool
}

// ArchiveSweeps is what one archive's captures show about its sweeps.
type ArchiveSweeps struct {
	Archive string
	// Sweeps is how many sweeps (FindSweeps) fell in the window.
	Sweeps int
	// Rate is Λ, the sweep rate the Sweep view used, per day.
	Rate float64
}

// weighEvidence summarises what the estimates of m rest on.
func (m *model) weighEvidence(obs observations) Evidence {
	var e Evidence
	if w := slices.Sorted(slices.Values(obs.exposure)); len(w) > 0 {
		e.ShortestExposure, e.MedianExposure = w[0], w[(len(w)-1)/2]
	}
	for a, name := range m.archives {
		e.Sweeps = append(e.Sweeps, ArchiveSweeps{Archive: name, Sweeps: m.sweeps[a], Rate: m.sweepRate[a]})
	}
	if !m.o.NoPrior {
		e.PriorInterval, e.PriorDays = m.o.PriorInterval, m.o.PriorDays
		e.PriorDominated = e.MedianExposure < m.o.PriorDays
	}
	return e
}
