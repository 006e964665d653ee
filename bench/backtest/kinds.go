package main

import (
	"math"
	"math/rand/v2"
	"sort"
	"time"
)

// archive is one archive of a world: the protocol it answers in, and
// the mechanisms that fill it.
type archive struct {
	Protocol string // "wayback", "commoncrawl" or "pywb"
	Sweepers []sweeper
	Sharers  []sharer
	Common   []commonCrawler
}

// captures runs the archive's mechanisms over the site from launch until
// end, oldest capture first.
func (a archive) captures(rng *rand.Rand, srv served, launch, end time.Time) []capture {
	var out []capture
	crawls := 0 // crawls numbered so far: each crawler's are numbered after the last's
	add := func(cs []capture) {
		n := 0
		for _, c := range cs {
			if c.Sweep > 0 {
				n = max(n, c.Sweep)
				c.Sweep += crawls
			}
			out = append(out, c)
		}
		crawls += n
	}
	for _, s := range a.Sweepers {
		add(s.crawls(rng, srv, end))
	}
	for _, s := range a.Sharers {
		add(s.captures(rng, srv, launch, end))
	}
	for _, c := range a.Common {
		add(c.crawls(rng, srv, end))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// kind is a kind of world: how long the site lived before its first
// generation, and its archives.
type kind struct {
	Name string
	// Age draws how long the site was served (without blocks) before
	// the first generation.
	Age func(rng *rand.Rand) time.Duration
	// Archives draws the world's archives of a site launched at launch
	// whose first generation is at t0 (now is t0 + 150 days).
	Archives func(rng *rand.Rand, st *site, launch, t0 time.Time) []archive
}

// The published figures the worlds are built from (BRIEF §6 and the
// seeds in ../shared/seeds/):
//
//   - seed 001 (Jayawardana et al.): the median capture interval of 80% of
//     author homepages in the Internet Archive is between 20 and 127 days,
//     and IA's crawl records have irregular intervals;
//   - seed 004 (McCown, §III–IV): the Internet Archive did not capture 4
//     new test sites in 90 days; its holdings lagged 6–12 months, later
//     about 3 months; §VII: recovery falls about 0.042 per link hop, path
//     depth > 3 52% against 61%;
//   - Alkwai, Nelson and Weigle (JCDL 2015, TOIS 2017): archived pages sit
//     near the top of sites, deep links are poorly archived;
//   - Ainsworth et al. (JCDL 2011): 35–90% of URIs have a memento, only
//     14.6–31.3% are captured more than monthly;
//   - the UK Web Archive (and Archive-It partners): frequent shallow
//     crawls, rare deep ones (the annual domain crawl);
//   - Save Page Now 2: at most 10 captures of a URL a day;
//     SalahEldeen and Nelson (TPDL 2012): 20% of shared URLs archived
//     after a year;
//   - Common Crawl: about 2.6 bn pages of 47.5 M hosts a month (≈ 56 pages
//     per host), crawls every month or two published weeks after they
//     end, records truncated at 1 MiB until February 2025, 5 MiB since;
//   - Heritrix's politeness: delay factor 5, minimum 3 s, maximum 30 s
//     between fetches of a host.

// waybackMedian draws a site's median days between Wayback crawls:
// log-normal with its 10th and 90th percentiles at 20 and 127 days
// (seed 001's 80% of homepages).
func waybackMedian(rng *rand.Rand) float64 {
	const z90 = 1.2816 // the standard normal's 90th percentile
	return logNormal(rng, math.Sqrt(20*127), math.Log(127.0/20)/(2*z90))
}

// waybackSweeper is the Internet Archive's crawler over a site: crawls
// around the site's median interval (seed 001), irregular (log-normal
// intervals of σ 0.7: seed 001 finds IA's crawl records irregular),
// reaching deeper rarely (depths: Alkwai et al., seed 004 §VII), a page
// budget of 20–500 pages, Heritrix's politeness (3–60 s between fetches,
// queue rotation included), 3% of fetches failing, and an ingest lag of
// hours to days (median 24 h; the 2007 lag of months, seed 004, is long
// gone for crawls).
func waybackSweeper(rng *rand.Rand, first time.Time, depths []float64) sweeper {
	return sweeper{First: first, Median: waybackMedian(rng), Sigma: 0.7, Depths: depths,
		Budget: [2]float64{20, 500}, Delay: [2]time.Duration{3 * time.Second, time.Minute}, Fail: 0.03, LagHours: 24, LagSigma: 1}
}

// wayback is the Wayback Machine over a site: its crawler (first crawl at
// first, depth limits depths) and Save Page Now (share rates root for the
// root page and others for the base of the rest, bursts of 1 + Poisson(burst)).
func wayback(rng *rand.Rand, st *site, first time.Time, depths []float64, root, others, burst float64) archive {
	return archive{Protocol: "wayback", Sweepers: []sweeper{waybackSweeper(rng, first, depths)},
		Sharers: []sharer{saves(shares(rng, st, root, others), burst)}}
}

// found is when the crawler of an established site first came: within
// 120 days of its launch (long before the backtest's year, whatever it is).
func found(rng *rand.Rand, launch time.Time) time.Time { return launch.Add(days(rng.Float64() * 120)) }

// waybackEstablished is the Wayback Machine over an established site:
// its crawler found the site soon after launch, crawls to the usual
// depths, and people save each page at one rate, log-uniform from once a
// year to once in 20 days, a save and one more on average each time.
func waybackEstablished(rng *rand.Rand, st *site, launch time.Time) archive {
	first := found(rng, launch)
	r := logUniform(rng, 1.0/365, 1.0/20)
	return wayback(rng, st, first, depthsUsual, r, r, 1)
}

// depthsUsual are the probabilities of a Wayback crawl's depth limits of
// 0, 1 and 2 hops (the rest, 0.2: none), shallow common and deep rare.
var depthsUsual = []float64{0.3, 0.3, 0.2}

// shares draws the site's share rates: rootRate for the root page;
// another page base × 0.1 × a Pareto(α 1.2) popularity, halved per hop
// below the first, at most rootRate (the root is named most: pages near
// the top are archived most, Alkwai et al.).
func shares(rng *rand.Rand, st *site, rootRate, base float64) map[string]float64 {
	out := map[string]float64{}
	for _, p := range st.Pages {
		if p.Depth == 0 {
			out[p.URL] = rootRate
			continue
		}
		pareto := math.Pow(1-rng.Float64(), -1/1.2)
		out[p.URL] = math.Min(rootRate, base*0.1*pareto*math.Pow(0.5, float64(p.Depth-1)))
	}
	return out
}

// saves is Save Page Now over the site: share events at rates, each a
// burst of 1 + Poisson(burst) captures within a day, at most 10 (SPN2's
// daily limit per URL), listed within about an hour.
func saves(rates map[string]float64, burst float64) sharer {
	return sharer{Rates: rates, Burst: burst, MaxBurst: 10, LagHours: 1}
}

// commonCrawl is Common Crawl over a site: a crawl every 30–60 days
// lasting two weeks, a per-host budget of 56 pages on average (2.6 bn
// pages / 47.5 M hosts) spread log-normally (σ 1: hosts differ by rank),
// published 2–6 weeks after the crawl ends, 3% of fetches failing,
// records cut at 1 MiB before February 2025 and 5 MiB since.
func commonCrawl(rng *rand.Rand, launch time.Time) commonCrawler {
	return commonCrawler{First: launch.Add(days(rng.Float64() * 60)), Every: [2]float64{30, 60}, Span: 14,
		BudgetMean: 56, BudgetSig: 1, Lag: [2]float64{14, 42}, Fail: 0.03,
		Cut: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC), Before: 1 << 20, After: 5 << 20}
}

// established draws the age of a site that has long been served: one to
// three years.
func established(rng *rand.Rand) time.Duration { return days(365 + rng.Float64()*730) }

// kinds are the world kinds the backtest replays.
var kinds = []kind{
	{
		// The Wayback Machine alone, on an established site: sweeps at
		// the site's own pace, Save Page Now on popular pages.
		Name: "wayback",
		Age:  established,
		Archives: func(rng *rand.Rand, st *site, launch, t0 time.Time) []archive {
			return []archive{waybackEstablished(rng, st, launch)}
		},
	},
	{
		// The same with Common Crawl too.
		Name: "wayback + commoncrawl",
		Age:  established,
		Archives: func(rng *rand.Rand, st *site, launch, t0 time.Time) []archive {
			return []archive{waybackEstablished(rng, st, launch), {Protocol: "commoncrawl", Common: []commonCrawler{commonCrawl(rng, launch)}}}
		},
	},
	{
		// A new site the Wayback Machine has not crawled by now (seed
		// 004: new sites uncaptured for months): its first crawl comes
		// a log-normal time after launch (median 180 days, σ 0.7),
		// drawn again until it falls after now; a few people save its
		// pages meanwhile.
		Name: "new site, first crawl not yet",
		Age:  func(*rand.Rand) time.Duration { return 0 },
		Archives: func(rng *rand.Rand, st *site, launch, t0 time.Time) []archive {
			now := t0.Add(days(nowDay))
			first := launch.Add(days(logNormal(rng, 180, 0.7)))
			for !first.After(now) {
				first = launch.Add(days(logNormal(rng, 180, 0.7)))
			}
			r := logUniform(rng, 1.0/1000, 1.0/100)
			return []archive{wayback(rng, st, first, depthsUsual, r, r, 1)}
		},
	},
	{
		// A popular root page (saved every 12 hours to 7 days, in
		// bursts), its other pages no more than elsewhere, and crawls
		// that rarely go deep.
		Name: "popular root, rare deep crawls",
		Age:  established,
		Archives: func(rng *rand.Rand, st *site, launch, t0 time.Time) []archive {
			first := found(rng, launch)
			root, others := logUniform(rng, 1.0/7, 2), logUniform(rng, 1.0/365, 1.0/20)
			return []archive{wayback(rng, st, first, []float64{0.45, 0.35, 0.12}, root, others, 2)}
		},
	},
	{
		// A national library's archive (the UK Web Archive) answering as
		// pywb: frequent, regular shallow crawls (every 7–30 days, root
		// or one hop) and an annual deep domain crawl; no Save Page Now.
		Name: "frequent shallow, rare deep (pywb)",
		Age:  established,
		Archives: func(rng *rand.Rand, st *site, launch, t0 time.Time) []archive {
			shallow := sweeper{First: launch.Add(days(rng.Float64() * 30)), Median: logUniform(rng, 7, 30), Sigma: 0.3,
				Depths: []float64{0.3, 0.7}, Budget: [2]float64{10, 100}, Delay: [2]time.Duration{3 * time.Second, time.Minute},
				Fail: 0.03, LagHours: 48, LagSigma: 1}
			deep := sweeper{First: launch.Add(days(rng.Float64() * 365)), Median: 365, Sigma: 0.15,
				Depths: nil, Budget: [2]float64{1000, 10000}, Delay: [2]time.Duration{3 * time.Second, time.Minute},
				Fail: 0.03, LagHours: 48, LagSigma: 1}
			return []archive{{Protocol: "pywb", Sweepers: []sweeper{shallow, deep}}}
		},
	},
}
