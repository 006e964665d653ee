package odds

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// MaxLevels is the most depth levels the model tells apart; deeper pages
// share the last level.
const MaxLevels = 6

// DefaultWindow is History.Window's default.
const DefaultWindow = 365 * Day

// History is what the archives hold of a site: the input of Fit.
type History struct {
	// Now is when the model is fitted; captures after it do not count.
	Now time.Time
	// Since is when the site's pages were first served (the observation
	// starts there, if later than Now − Window); zero when unknown.
	Since time.Time
	// Window is how much history, ending at Now, the rates are fitted
	// to; defaults to DefaultWindow.
	Window time.Duration
	// Pages are the site's pages with their depths; captures of other
	// pages do not count.
	Pages []Page
	// Archives are the archives to model, by name; archives named only
	// in Captures are modelled too.
	Archives []string
	// Captures are, per archive, its captures of the site's pages.
	Captures map[string][]Capture
	// Blocked are, per archive, the pages its crawler may not capture.
	Blocked map[string][]string
	// Priors override PriorOf for the archives they name.
	Priors map[string]Prior
}

// Fit fits the capture model of each archive to the history: its sweeps
// (FindSweeps), their rates by reach and their take, and the rates of
// one-page captures, each a posterior mean under the archive's prior.
func Fit(h History) *Model {
	names := slices.Clone(h.Archives)
	for name := range h.Captures {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	m := &Model{}
	for _, name := range names {
		p, ok := h.Priors[name]
		if !ok {
			p = PriorOf(name)
		}
		m.Archives = append(m.Archives, fitArchive(h, name, p))
	}
	return m
}

// Levels returns how many depth levels the pages need: one more than
// the deepest known depth, at most MaxLevels.
func Levels(pages []Page) int {
	n := 1
	for _, p := range pages {
		n = max(n, min(p.Depth+1, MaxLevels))
	}
	return n
}

// fitArchive fits one archive's model.
func fitArchive(h History, name string, p Prior) Archive {
	levels := Levels(h.Pages)
	a := FromPrior(name, p, levels)
	a.Blocked = map[string]bool{}
	for _, k := range h.Blocked[name] {
		a.Blocked[k] = true
	}
	window := h.Window
	if window <= 0 {
		window = DefaultWindow
	}
	start := h.Now.Add(-window)
	if h.Since.After(start) {
		start = h.Since
	}
	days := math.Max(0, h.Now.Add(-p.Lag).Sub(start).Hours()/24)
	levelOf := map[string]int{}
	atLevel := make([]int, levels)
	for _, pg := range h.Pages {
		l := level(pg.Depth, levels)
		levelOf[pg.Key] = l
		atLevel[l]++
	}
	var caps []Capture
	for _, c := range h.Captures[name] {
		if _, ok := levelOf[c.Page]; ok && !c.Time.Before(start) && !c.Time.After(h.Now) {
			caps = append(caps, c)
		}
	}
	slices.SortFunc(caps, func(a, b Capture) int { return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Page, b.Page)) })
	sweeps := FindSweeps(caps, len(h.Pages), days, gapOf(p), p.OnePage, p.Weight)
	a.Evidence = Evidence{Days: days, Captures: len(caps), Sweeps: len(sweeps), Prior: days < p.Weight || len(caps) == 0}

	// Sweeps by reach, and their take.
	reach := make([]int, levels) // sweeps reaching depth ≥ d
	var took, inReach float64
	inSweep := map[Capture]bool{}
	for _, s := range sweeps {
		deepest := 0
		for _, k := range s.Pages {
			deepest = max(deepest, levelOf[k])
		}
		for d := 0; d <= deepest; d++ {
			reach[d]++
			inReach += float64(atLevel[d])
		}
		took += float64(len(s.Pages))
	}
	for _, c := range caps {
		// The sweep that started last at or before c (sweeps are in time
		// order and do not overlap).
		i, _ := slices.BinarySearchFunc(sweeps, c.Time, func(s Sweep, t time.Time) int {
			if s.Start.After(t) {
				return 1
			}
			return -1
		})
		if i > 0 {
			s := sweeps[i-1]
			if _, ok := slices.BinarySearch(s.Pages, c.Page); ok && !c.Time.After(s.End) {
				inSweep[c] = true
			}
		}
	}
	if p.Weight <= 0 && days <= 0 {
		return a // nothing observed and no prior weight: the prior's values
	}
	for d := range levels {
		a.Sweeps[d] = (float64(reach[d]) + a.Sweeps[d]*p.Weight) / (days + p.Weight)
	}
	a.SweepWeight = days + p.Weight
	if inReach+p.TakeWeight > 0 {
		a.Take = (took + p.Take*p.TakeWeight) / (inReach + p.TakeWeight)
	}

	// One-page captures: the rest, pooled by depth; pages with three or
	// more keep a rate of their own. They are counted as occasions, as
	// FindSweeps counts its background (a page saved several times in a
	// burst is one occasion).
	own := map[string]int{}
	occ := occasions{}
	for _, c := range caps { // in time order
		if !inSweep[c] && occ.begins(c) {
			own[c.Page]++
		}
	}
	// Each level's pages share a gamma prior, fitted to them by the
	// method of moments on top of the archive's own: mean m, and a weight
	// β = m/τ² (days) from the spread τ² of their rates beyond counting
	// noise, at least the prior's weight and at most the observation's
	// plus it. A page's rate is then the posterior mean (n + mβ)/(T + β),
	// of weight T + β.
	counts := make([][]float64, levels)
	for _, pg := range h.Pages {
		l := levelOf[pg.Key]
		counts[l] = append(counts[l], float64(own[pg.Key]))
	}
	a.OneWeight = make([]float64, levels)
	a.PageRate = map[string]float64{}
	for d := range levels {
		n := float64(len(counts[d]))
		if n == 0 || days <= 0 {
			a.OneWeight[d] = p.Weight
			continue
		}
		var sum float64
		for _, c := range counts[d] {
			sum += c
		}
		m := (sum/n + a.OnePage[d]*p.Weight) / (days + p.Weight)
		var ss float64
		for _, c := range counts[d] {
			ss += (c - m*days) * (c - m*days)
		}
		tau2 := math.Max(0, (ss-m*days*n)/(n*days*days))
		beta := days + p.Weight
		if tau2 > 0 && m > 0 {
			beta = math.Min(beta, math.Max(p.Weight, m/tau2))
		}
		a.OnePage[d] = m
		a.OneWeight[d] = days + beta
		for _, pg := range h.Pages {
			if levelOf[pg.Key] == d {
				a.PageRate[pg.Key] = (float64(own[pg.Key]) + m*beta) / (days + beta)
			}
		}
	}
	return a
}

// gapOf returns the prior's sweep gap, a day when it names none.
func gapOf(p Prior) time.Duration {
	if p.Gap > 0 {
		return p.Gap
	}
	return Day
}
