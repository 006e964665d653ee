package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"time"
)

// This file is the backtest's world: how archives capture the site, as
// mechanisms (crawlers that walk the served HTML, people who share
// pages), written apart from the capture model under test (package
// internal/odds) and never calling it. Every number is cited where it is
// set (kinds.go); this file only has the mechanisms.

// day is a day.
const day = 24 * time.Hour

// capture is one archived copy of one page.
type capture struct {
	URL     string    // the page's path
	Time    time.Time // when it was fetched: the capture's timestamp
	Visible time.Time // when the archive lists and replays it
	Body    []byte    // exactly what the site served then (cut at a truncation limit)
	Crawl   string    // the Common Crawl collection, for a Common Crawl capture
	Sweep   int       // the crawl that made it (numbered from 1 per archive), 0 for a one-page capture
	Limit   int       // the truncation limit Body was cut at, 0 for none
}

// sweeper is a crawler that sweeps the site now and then: crawls come as
// a renewal process (intervals log-normal around a median, not a Poisson
// process), each a breadth-first walk from the root page that follows the
// links in the HTML the site serves at each fetch, down to a depth limit
// drawn per crawl, up to a page budget drawn per crawl, one page per
// politeness delay (so a crawl takes minutes and may straddle a
// generation switch), some fetches failing (then the page is not
// captured and its links are not followed). A crawl's captures become
// visible together, after an ingest lag.
type sweeper struct {
	First    time.Time // the first crawl (the crawler finds the site)
	Median   float64   // median days between crawls
	Sigma    float64   // log-spread of the intervals
	Depths   []float64 // probability of each depth limit 0, 1, …; the rest: no limit
	Budget   [2]float64
	Delay    [2]time.Duration // politeness delay between fetches, uniform
	Fail     float64          // probability that a fetch fails
	LagHours float64          // median ingest lag, hours (log-normal)
	LagSigma float64
}

// crawls runs the sweeper's crawls from First until end.
func (c sweeper) crawls(rng *rand.Rand, srv served, end time.Time) []capture {
	var out []capture
	n := 0
	for t := c.First; t.Before(end); t = t.Add(days(logNormal(rng, c.Median, c.Sigma))) {
		n++
		limit := pick(rng, c.Depths)
		if limit == len(c.Depths) {
			limit = math.MaxInt
		}
		budget := int(logUniform(rng, c.Budget[0], c.Budget[1]))
		lag := hours(logNormal(rng, c.LagHours, c.LagSigma))
		for _, cp := range c.crawl(rng, srv, t, limit, budget) {
			cp.Visible, cp.Sweep = cp.Time.Add(lag), n
			out = append(out, cp)
		}
	}
	return out
}

// crawl walks the site from its root breadth first from start.
func (c sweeper) crawl(rng *rand.Rand, srv served, start time.Time, limit, budget int) []capture {
	type item struct {
		url   string
		depth int
	}
	queue := []item{{"/", 0}}
	seen := map[string]bool{"/": true}
	t := start
	var out []capture
	for fetched := 0; len(queue) > 0 && fetched < budget; {
		it := queue[0]
		queue = queue[1:]
		t = t.Add(c.Delay[0] + time.Duration(rng.Float64()*float64(c.Delay[1]-c.Delay[0])))
		body := srv.at(it.url, t)
		if body == nil {
			continue
		}
		fetched++
		if rng.Float64() < c.Fail {
			continue
		}
		out = append(out, capture{URL: it.url, Time: t, Body: body})
		if it.depth >= limit {
			continue
		}
		for _, l := range links(body) {
			if !seen[l] {
				seen[l] = true
				queue = append(queue, item{l, it.depth + 1})
			}
		}
	}
	return out
}

// linkRE finds the site links of the pages the backtest writes.
var linkRE = regexp.MustCompile(`<a href="(/[^"]*)"`)

// links returns the site paths a page links to, in page order.
func links(body []byte) []string {
	var out []string
	for _, m := range linkRE.FindAllSubmatch(body, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// sharer is people naming pages to an archive (Save Page Now, a link in
// a post an archive follows): share events come to each page at its own
// rate (its popularity), each bringing a burst of captures within a day
// (several people save a shared page), visible after a short lag.
type sharer struct {
	Rates    map[string]float64 // share events per day, by page
	Burst    float64            // mean extra captures per share event (Poisson)
	MaxBurst int                // most captures of one page in a day
	LagHours float64            // median lag, hours (log-normal, σ 1)
}

// captures draws the sharer's captures from from until end.
func (s sharer) captures(rng *rand.Rand, srv served, from, end time.Time) []capture {
	var out []capture
	urls := make([]string, 0, len(s.Rates))
	for u := range s.Rates {
		urls = append(urls, u)
	}
	sort.Strings(urls) // the draws must not follow map order
	span := end.Sub(from).Hours() / 24
	for _, u := range urls {
		r := s.Rates[u]
		if r <= 0 {
			continue
		}
		for t := rng.ExpFloat64() / r; t < span; t += rng.ExpFloat64() / r {
			share := from.Add(days(t))
			n := min(1+poisson(rng, s.Burst), s.MaxBurst)
			for range n {
				at := share.Add(time.Duration(rng.Float64() * float64(day)))
				body := srv.at(u, at)
				if body == nil {
					continue
				}
				out = append(out, capture{URL: u, Time: at, Visible: at.Add(hours(logNormal(rng, s.LagHours, 1))), Body: body})
			}
		}
	}
	return out
}

// commonCrawler is Common Crawl: a crawl every one to two months, each
// fetching up to a per-host budget of the site's pages in link order
// (breadth first from the root, as discovered) over the crawl's weeks,
// published weeks after the crawl ends, records cut at the truncation
// limit of their time.
type commonCrawler struct {
	First      time.Time
	Every      [2]float64 // days between crawl starts, uniform
	Span       float64    // days a crawl lasts
	BudgetMean float64    // mean pages per host and crawl
	BudgetSig  float64    // log-spread of the budget (hosts differ by rank)
	Lag        [2]float64 // days from a crawl's end to its index, uniform
	Fail       float64
	// Cut is when the truncation limit rose from Before to After.
	Cut           time.Time
	Before, After int
}

// crawls runs the crawls from First until end.
func (c commonCrawler) crawls(rng *rand.Rand, srv served, end time.Time) []capture {
	var out []capture
	n := 0
	for t := c.First; t.Before(end); t = t.Add(days(c.Every[0] + rng.Float64()*(c.Every[1]-c.Every[0]))) {
		n++
		// A log-normal of mean BudgetMean: median BudgetMean·e^(−σ²/2).
		budget := int(math.Round(logNormal(rng, c.BudgetMean*math.Exp(-c.BudgetSig*c.BudgetSig/2), c.BudgetSig)))
		published := t.Add(days(c.Span + c.Lag[0] + rng.Float64()*(c.Lag[1]-c.Lag[0])))
		year, week := t.ISOWeek()
		crawl := fmt.Sprintf("CC-MAIN-%d-%02d", year, week)
		for i, u := range linkOrder(srv, t) {
			if i >= budget {
				break
			}
			at := t.Add(days(rng.Float64() * c.Span))
			body := srv.at(u, at)
			if body == nil || rng.Float64() < c.Fail {
				continue
			}
			limit := c.After
			if at.Before(c.Cut) {
				limit = c.Before
			}
			if len(body) > limit {
				body = body[:limit]
			}
			out = append(out, capture{URL: u, Time: at, Visible: published, Body: body, Crawl: crawl, Sweep: n, Limit: limit})
		}
	}
	return out
}

// linkOrder returns the site's pages breadth first from the root by the
// links served at t.
func linkOrder(srv served, t time.Time) []string {
	order := []string{"/"}
	seen := map[string]bool{"/": true}
	for i := 0; i < len(order); i++ {
		body := srv.at(order[i], t)
		for _, l := range links(body) {
			if !seen[l] {
				seen[l] = true
				order = append(order, l)
			}
		}
	}
	return order
}

// pick draws an index with the given probabilities, len(ps) with the
// rest.
func pick(rng *rand.Rand, ps []float64) int {
	x := rng.Float64()
	for i, p := range ps {
		if x < p {
			return i
		}
		x -= p
	}
	return len(ps)
}

// poisson draws a Poisson count of mean m (small m).
func poisson(rng *rand.Rand, m float64) int {
	if m <= 0 {
		return 0
	}
	l, k, p := math.Exp(-m), 0, 1.0
	for {
		p *= rng.Float64()
		if p < l {
			return k
		}
		k++
	}
}

func days(d float64) time.Duration  { return time.Duration(d * float64(day)) }
func hours(h float64) time.Duration { return time.Duration(h * float64(time.Hour)) }
