package odds

import "time"

// Prior is what the model assumes of an archive before the site's history
// says otherwise, and how much that assumption weighs.
type Prior struct {
	// Sweep is λ_0, the rate of sweeps reaching the root, per day;
	// DepthDecay multiplies it per link hop (deeper reach is rarer).
	Sweep      float64
	DepthDecay float64
	// Take is ρ's prior mean, weighing as much as TakeWeight pages seen
	// in reach of a sweep.
	Take       float64
	TakeWeight float64
	// OnePage is μ at the root, per day; OnePageDecay multiplies it per
	// hop.
	OnePage      float64
	OnePageDecay float64
	// Weight is how many days of observation the rate priors weigh as.
	Weight float64
	// Gap is the longest pause inside one of the archive's sweeps, for
	// the burst detector.
	Gap time.Duration
	// Lag is the ingest lag.
	Lag time.Duration
	// Truncate is the most bytes of a page the archive keeps (0: no
	// limit).
	Truncate int64
}

// Priors for the archives Lazarus reads, by the names its sources use.
var (
	// Wayback is the Internet Archive's Wayback Machine: a sweep reaching
	// the root every 120 days (the slow end of seed 001's 20–127-day
	// median capture intervals of established pages; seed 004 saw new
	// sites go uncaptured for 90 days), each hop 0.6 times as often
	// (deep links poorly archived: Alkwai et al.; −0.042 recovery per hop,
	// seed 004 §VII), taking 70% of the pages in reach; one-page captures
	// once a year at the root, halving per hop; visible within three days
	// (crawls reach the index in hours to days; Save Page Now at once).
	Wayback = Prior{Sweep: 1.0 / 120, DepthDecay: 0.6, Take: 0.7, TakeWeight: 10,
		OnePage: 1.0 / 365, OnePageDecay: 0.5, Weight: 60, Gap: 24 * time.Hour, Lag: 3 * Day}
	// CommonCrawl crawls monthly, about 56 pages per host (so a small
	// site is in some crawls, not all: a sweep every 60 days, 0.8 per
	// hop, taking half the pages in reach), takes no one-page captures,
	// publishes a crawl weeks after it starts (a crawl takes about two
	// weeks, its index follows: 30 days from capture to listing), and
	// truncates records at 5 MiB (1 MiB before February 2025).
	CommonCrawl = Prior{Sweep: 1.0 / 60, DepthDecay: 0.8, Take: 0.5, TakeWeight: 10,
		Weight: 60, Gap: 7 * Day, Lag: 30 * Day, Truncate: 5 << 20}
	// Other is any other archive: a sweep reaching the root once a year.
	Other = Prior{Sweep: 1.0 / 365, DepthDecay: 0.6, Take: 0.7, TakeWeight: 10,
		OnePage: 1.0 / 730, OnePageDecay: 0.5, Weight: 60, Gap: 24 * time.Hour, Lag: 3 * Day}
)

// PriorOf returns the prior of the archive named name ("wayback",
// "commoncrawl", anything else).
func PriorOf(name string) Prior {
	switch name {
	case "wayback", "ia", "internetarchive":
		return Wayback
	case "commoncrawl", "cc":
		return CommonCrawl
	}
	return Other
}

// FromPrior returns the model of an archive with no history at all: the
// prior itself, over levels depth levels.
func FromPrior(name string, p Prior, levels int) Archive {
	a := Archive{Name: name, Take: p.Take, Lag: p.Lag, Truncate: p.Truncate, Evidence: Evidence{Prior: true}}
	s, o := p.Sweep, p.OnePage
	for range max(1, levels) {
		a.Sweeps = append(a.Sweeps, s)
		a.OnePage = append(a.OnePage, o)
		s *= p.DepthDecay
		o *= p.OnePageDecay
	}
	return a
}
