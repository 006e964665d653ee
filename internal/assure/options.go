package assure

import (
	"fmt"
	"slices"
	"time"
)

// Options tunes Assess. The zero value is ready to use; every field
// documents its default. Negative or out-of-range values are errors.
type Options struct {
	// Window is how much capture history, ending at Site.Now, the rates
	// are estimated from. Defaults to 90 days.
	Window time.Duration
	// SweepGap is the longest pause inside one sweep (FindSweeps).
	// Defaults to 6 hours.
	SweepGap time.Duration
	// MinCaptures: a page with fewer captures than this by an archive
	// (counted once per sweep) takes its rate from its depth pool (Prior.
	// Shrink); others keep their own rate, κ̂ = N/w shrunk toward the
	// fixed prior by PriorDays/(w + PriorDays) (exactly N/w, checkable
	// against the archive's listing, with NoPrior). The same threshold
	// applies to change rates. Defaults to 3.
	MinCaptures int
	// MinPoolPages is the fewest pages a depth pool may have before it
	// takes in neighbouring depths. Defaults to 3.
	MinPoolPages int
	// At are the times after Site.Now at which P_rec is reported, each
	// at most Horizon. Defaults to now, 7 days and 30 days.
	At []time.Duration
	// Target is the P_rec whose reaching time is reported. Defaults to
	// 0.99.
	Target float64
	// Horizon is how far ahead the model looks; not reaching Target by
	// then is reported as never. Defaults to 365 days.
	Horizon time.Duration
	// Samples is the number of Monte Carlo trials per view. The standard
	// error of a probability p is sqrt(p(1−p)/Samples): 0.0016 at p = 0.99
	// and 0.0079 at p = 0.5 with the default. Defaults to 4000; at most
	// MaxSamples.
	Samples int
	// Seed seeds the Monte Carlo (every value, 0 included, is a valid
	// seed). Defaults to 0.
	Seed uint64
	// ChangeAware names the archives that keep a new copy of a page only
	// after a visible change (see the package documentation). Defaults to
	// none: archives store whatever they capture, as digest-based archives
	// (Internet Archive, Common Crawl, WARC files) do.
	ChangeAware []string
	// PriorInterval is the mean time between captures under the fixed
	// prior of capture rates (and of sweep rates): the rate the model
	// assumes for a page, or an archive's visits, until the captures say
	// otherwise. Defaults to 127 days: seed 001 measured the median
	// interval between Internet Archive captures of 80% of scholars'
	// homepages at 20–127 days; the slow end is the conservative choice
	// (a slower rate gives a lower P_rec), and deeper pages and less
	// known sites are captured less often than homepages of people
	// Google Scholar lists.
	PriorInterval time.Duration
	// PriorDays is the fixed prior's weight, as a length of observation:
	// a page observed for w keeps w/(w + PriorDays) of its own rate and
	// takes the rest from the prior, so the prior dominates while the
	// capture history is shorter than PriorDays and fades as it grows (a
	// quarter of the weight left after 90 days, 8% after a year).
	// Defaults to 30 days.
	PriorDays time.Duration
	// NoPrior drops the fixed prior: pages with at least MinCaptures keep
	// κ̂ = N/w, depth pools and sweep rates are estimated from the
	// captures alone. Those raw rates are what a user can check against
	// an archive's listing and reproduce textbook figures (BRIEF §5), but
	// they are absurd for a short history: one capture a minute after
	// the pages went up reads as a rate of one per minute.
	NoPrior bool
}

// prior returns the fixed prior of capture and sweep rates: the zero
// Prior when NoPrior.
func (o Options) prior() Prior {
	if o.NoPrior {
		return Prior{}
	}
	return FixedPrior(o.PriorInterval, o.PriorDays)
}

// DefaultSamples is Options.Samples' default.
const DefaultSamples = 4000

// MaxSamples is the largest Options.Samples accepted.
const MaxSamples = 10_000_000

// withDefaults validates o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Window < 0 || o.SweepGap < 0 || o.PriorInterval < 0 || o.PriorDays < 0 || o.Horizon < 0 || o.MinCaptures < 0 ||
		o.MinPoolPages < 0 || o.Samples < 0 || o.Samples > MaxSamples || !(o.Target >= 0 && o.Target <= 1) {
		return o, fmt.Errorf("%w: options out of range: %+v", ErrInvalid, o)
	}
	o.Window = or(o.Window, 90*Day)
	o.SweepGap = or(o.SweepGap, 6*time.Hour)
	o.MinCaptures = or(o.MinCaptures, 3)
	o.MinPoolPages = or(o.MinPoolPages, 3)
	o.Target = or(o.Target, 0.99)
	o.Horizon = or(o.Horizon, 365*Day)
	o.Samples = or(o.Samples, DefaultSamples)
	o.PriorInterval = or(o.PriorInterval, 127*Day)
	o.PriorDays = or(o.PriorDays, 30*Day)
	if o.At == nil {
		o.At = []time.Duration{0, 7 * Day, 30 * Day}
	}
	o.At = slices.Clone(o.At)
	for _, t := range o.At {
		if t < 0 || t > o.Horizon {
			return o, fmt.Errorf("%w: time %v is not within the horizon %v", ErrInvalid, t, o.Horizon)
		}
	}
	return o, nil
}

// or returns v, or def when v is the zero value.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
