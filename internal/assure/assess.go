package assure

import "time"

// Assessment is the outcome of Assess: how likely the newest generation and
// each of its segments are to be recoverable from the archives, at each of
// the times At after Site.Now, in two views.
type Assessment struct {
	// At are the times after Site.Now the curves are reported at
	// (Options.At, defaults filled in).
	At []time.Duration
	// Target is the probability whose reaching time Curve.Reach gives.
	Target float64
	// Independent assumes every page is captured by every archive
	// independently of the others (BRIEF §5). It is optimistic: archives
	// sweep a site, so its captures are positively correlated.
	Independent View
	// Sweep assumes each archive visits the site in sweeps, each sweep
	// capturing a page with the probability that gives it the same
	// marginal rate as in Independent. It is the realistic view.
	Sweep View
	// Rates are the capture rates the model used, one per page and
	// archive named in some page's Captures, pages in Site order and
	// archives by name within a page.
	Rates []PageRate
	// Evidence is what the rates rest on; when Evidence.PriorDominated
	// the figures mostly reflect the fixed prior, not this site's
	// captures.
	Evidence Evidence
}

// View is one model's answer: for the generation (all data segments) and
// for each segment in Site order.
type View struct {
	Generation Curve
	Segments   []SegmentCurve
}

// SegmentCurve is the recoverability of one segment.
type SegmentCurve struct {
	Name    string
	Listing bool // the listing segment, not part of Generation
	Curve
	// Weakest are the indexes of the segment's least likely stripes,
	// lowest probability at the last of At first (ties: lowest at the
	// earlier times, then by index); at most 5, only stripes below 1 at
	// some reported time.
	Weakest []int
}

// Curve is P_rec over time.
type Curve struct {
	// P is the probability of recoverability at each of At.
	P []float64
	// StdErr is the standard error of each P: sqrt(P(1−P)/Samples) when
	// estimated by Monte Carlo, 0 when Exact.
	StdErr []float64
	// Exact reports that P was computed exactly (Independent view only,
	// when the stripes involved share no page that can still contribute).
	Exact bool
	// Reach is the time from Site.Now until P first reaches Target: 0 if
	// it already has; meaningful only when Reached.
	Reach time.Duration
	// Reached is false when P does not reach Target within
	// Options.Horizon ("never").
	Reached bool
}

// PageRate is the capture rate the model uses for one page in one archive.
type PageRate struct {
	URL     string
	Depth   int
	Archive string
	// Captures is how many captures of the page by the archive fell in the
	// observation window (after Options.Window before Site.Now and after
	// Page.Since).
	Captures int
	// Exposure is the length of the page's observation window.
	Exposure time.Duration
	// Rate is the capture rate used, per day: the posterior mean under
	// the fixed prior, (Captures + α₀)/(Exposure + β₀) with β₀ =
	// Options.PriorDays and α₀ = β₀/Options.PriorInterval (Captures over
	// Exposure with Options.NoPrior), or, when Pooled, the depth pool's
	// shrunk estimate.
	Rate float64
	// Pooled reports that the page had fewer than Options.MinCaptures
	// captures and borrowed its rate from its depth pool (Prior.Shrink).
	Pooled bool
	// Change is the page's rate of visible changes, per day, used only for
	// archives named in Options.ChangeAware (0 otherwise, and when the
	// page shows no visible change).
	Change float64
}

// Assess estimates, for the newest generation described by site, the
// probability that the archives hold enough blocks to rebuild each segment
// and the generation, now and at each Options.At, in the Independent and
// Sweep views, and the time until each reaches Options.Target. It is pure
// computation, deterministic for a given Options.Seed. Bad input (see Site
// and Options) gives an error wrapping ErrInvalid.
func Assess(site Site, opts Options) (*Assessment, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := site.validate(); err != nil {
		return nil, err
	}
	m, err := newModel(&site, o)
	if err != nil {
		return nil, err
	}
	return &Assessment{
		At:          o.At,
		Target:      o.Target,
		Independent: m.independentView(),
		Sweep:       m.sweepView(),
		Rates:       m.rates,
		Evidence:    m.evidence,
	}, nil
}
