package status

import (
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// ModelTimes are the times after Now at which Status asks the
// model for P_rec when Options.Assess.At is nil: now, 1 and 6
// hours, 1, 2, 3, 5, 7, 10, 14, 21 and 30 days (ModelView.At holds
// one probability per time, in this order). The HTML page charts them
// all; the text output and the page's outlook table show now, 7 and 30
// days, and the time P_rec reaches the target.
func ModelTimes() []time.Duration {
	const day = 24 * time.Hour
	return []time.Duration{0, time.Hour, 6 * time.Hour, day, 2 * day, 3 * day, 5 * day, 7 * day, 10 * day, 14 * day, 21 * day, 30 * day}
}

// Evidence is what the capture model rests on (odds.Evidence): how long
// the site has been observed, the sweeps each archive showed, and whether
// the archives' priors outweigh them.
type Evidence struct {
	// ShortestExposure and MedianExposure are the shortest and the median
	// of the pages' observation windows (JSON: float seconds).
	ShortestExposure time.Duration `json:"shortest_exposure_seconds"`
	MedianExposure   time.Duration `json:"median_exposure_seconds"`
	// Sweeps are, per archive, the sweeps found (bursts against the
	// background of one-page captures) and the rate of sweeps reaching
	// the root the model uses.
	Sweeps []Sweeps `json:"sweeps,omitempty"`
	// PriorInterval and PriorWeight are the first archive's prior: a
	// sweep reaching the root every PriorInterval, weighing as much as
	// PriorWeight of observation (JSON: float seconds).
	PriorInterval time.Duration `json:"prior_interval_seconds"`
	PriorWeight   time.Duration `json:"prior_weight_seconds"`
	// PriorDominated reports that every archive has observed the site
	// for less than its prior weighs, or captured none of it: the
	// figures mostly reflect the prior (what a typical site would
	// expect), not what these archives have shown.
	PriorDominated bool `json:"prior_dominated"`
}

// Sweeps is what one archive's captures show about its sweeps.
type Sweeps struct {
	Archive string  `json:"archive"`
	Sweeps  int     `json:"sweeps"`  // sweeps seen in the model's window; under 2 say little
	Rate    float64 `json:"per_day"` // the sweep rate used, per day
}

// thinEvidenceNote is the note of an assessment whose estimates the
// prior dominates, "" if it is not.
func thinEvidenceNote(a *Assessment) string {
	if a == nil || a.Evidence == nil || !a.Evidence.PriorDominated || (a.Carriers > 0 && a.Survives >= a.Carriers) {
		return "" // enough history, or the archives hold enough already: nothing rests on the prior now
	}
	e := a.Evidence
	return fmt.Sprintf("Too little capture history to estimate: the archives have observed the site for %s, less than the %s "+
		"their priors weigh (a sweep every %s), so the probabilities are mostly the model's prior, what a typical site would expect, not what these archives have shown.",
		humane.Duration(e.MedianExposure), humane.Duration(e.PriorWeight), humane.Duration(e.PriorInterval))
}
