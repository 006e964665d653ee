package assure

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// model is what Assess knows about a site once rates, change rates and
// sweeps are estimated and blocks indexed. Times are in days from
// Site.Now.
type model struct {
	o        Options
	pages    int       // len(Site.Pages)
	horizon  float64   // Options.Horizon in days
	at       []float64 // Options.At in days
	archives []string  // archives with captures, by name
	aware    []bool    // per archive: named in Options.ChangeAware
	// kappa[a][u] is page u's capture rate by archive a, per day.
	kappa [][]float64
	// change[u] is page u's rate of visible changes, per day; it matters
	// only where awareOf[u].
	change []float64
	// awareOf[u]: some change-aware archive captures page u and the page
	// has no notice, so those archives store its blocks only after its
	// next visible change.
	awareOf []bool
	// sweepRate[a] is Λ_a, archive a's sweeps per day, at least every
	// kappa[a][u] so that q = κ/Λ ≤ 1.
	sweepRate []float64
	// sweeps[a] is how many sweeps of archive a were seen in the window.
	sweeps   []int
	rates    []PageRate
	evidence Evidence
	idx      *blockIndex
}

// newModel estimates the model of a validated site.
func newModel(site *Site, o Options) (*model, error) {
	m := &model{o: o, pages: len(site.Pages), horizon: days(o.Horizon)}
	for _, t := range o.At {
		m.at = append(m.at, days(t))
	}
	m.archives = archiveNames(site)
	for _, a := range m.archives {
		m.aware = append(m.aware, slices.Contains(o.ChangeAware, a))
	}
	obs := m.observe(site)
	m.estimateRates(site, obs)
	if err := m.estimateChanges(site, obs); err != nil {
		return nil, err
	}
	m.estimateSweeps(obs)
	m.evidence = m.weighEvidence(obs)
	live := make([]bool, len(site.Pages))
	for u := range site.Pages {
		live[u] = m.pageP(u, m.horizon) > 0
	}
	idx, err := newBlockIndex(site, live)
	if err != nil {
		return nil, err
	}
	m.idx = idx
	return m, nil
}

// archiveNames returns the names of the archives with captures, sorted.
func archiveNames(site *Site) []string {
	var names []string
	for _, p := range site.Pages {
		for a := range p.Captures {
			if !slices.Contains(names, a) {
				names = append(names, a)
			}
		}
	}
	slices.Sort(names)
	return names
}

// observations are the captures that fall in each page's observation
// window: caps[a][u], and exposure[u], the window's length.
type observations struct {
	caps     [][][]Capture
	exposure []time.Duration
}

// observe selects, for each page, the captures within its window: from
// Options.Window before Site.Now (or Page.Since, if later) to Site.Now.
func (m *model) observe(site *Site) observations {
	obs := observations{caps: make([][][]Capture, len(m.archives)), exposure: make([]time.Duration, len(site.Pages))}
	start := site.Now.Add(-m.o.Window)
	for u, p := range site.Pages {
		from := start
		if p.Since.After(from) {
			from = p.Since
		}
		obs.exposure[u] = max(0, site.Now.Sub(from))
		for a, name := range m.archives {
			if obs.caps[a] == nil {
				obs.caps[a] = make([][]Capture, len(site.Pages))
			}
			for _, c := range p.Captures[name] {
				if !c.Time.Before(from) && !c.Time.After(site.Now) {
					obs.caps[a][u] = append(obs.caps[a][u], c)
				}
			}
		}
	}
	return obs
}

// estimateRates sets kappa and rates. A page with at least MinCaptures
// captures takes the posterior mean under the fixed prior (Options.prior),
// (n + α₀)/(w + β₀), which is κ̂ = N/w without it; the others take their
// depth pool's shrunk estimate, the pool's prior fitted on top of the
// fixed one (FitPrior).
func (m *model) estimateRates(site *Site, obs observations) {
	depths := make([]int, len(site.Pages))
	for u, p := range site.Pages {
		depths[u] = p.Depth
	}
	pools := poolMembers(depths, m.o.MinPoolPages)
	base := m.o.prior()
	m.kappa = make([][]float64, len(m.archives))
	for a, name := range m.archives {
		counts := make([]int, len(site.Pages))
		for u := range site.Pages {
			counts[u] = len(obs.caps[a][u])
		}
		priors := map[int]Prior{}
		for d, members := range pools {
			n, w := make([]int, len(members)), make([]time.Duration, len(members))
			for i, u := range members {
				n[i], w[i] = counts[u], obs.exposure[u]
			}
			priors[d] = FitPrior(n, w, base)
		}
		m.kappa[a] = make([]float64, len(site.Pages))
		for u, p := range site.Pages {
			r := PageRate{URL: p.URL, Depth: p.Depth, Archive: name, Captures: counts[u], Exposure: obs.exposure[u]}
			if counts[u] < m.o.MinCaptures || obs.exposure[u] <= 0 {
				r.Rate, r.Pooled = priors[p.Depth].Shrink(counts[u], obs.exposure[u]), true
			} else {
				r.Rate = base.Shrink(counts[u], obs.exposure[u])
			}
			m.kappa[a][u] = r.Rate
			m.rates = append(m.rates, r)
		}
	}
	// Rates in page order, archives by name within a page.
	m.rates = byPage(m.rates, len(site.Pages), len(m.archives))
}

// byPage reorders rates built archive by archive into page order.
func byPage(rates []PageRate, pages, archives int) []PageRate {
	out := make([]PageRate, 0, len(rates))
	for u := range pages {
		for a := range archives {
			out = append(out, rates[a*pages+u])
		}
	}
	return out
}

// estimateChanges sets change and awareOf. A page's change rate is
// ChangeRate over its intervals in every archive's captures (digests are
// compared within one archive only), excluding intervals that contain a
// rotation; a page with fewer than MinCaptures intervals takes the rate of
// its depth pool's intervals taken together (the MLE of a common rate). A
// page with no interval anywhere in its pool gets 0: no visible change is
// known, so change-aware archives are not expected to store it.
func (m *model) estimateChanges(site *Site, obs observations) error {
	m.change = make([]float64, len(site.Pages))
	m.awareOf = make([]bool, len(site.Pages))
	need := false
	for u, p := range site.Pages {
		for a := range m.archives {
			if m.aware[a] && !p.Notice && m.kappa[a][u] > 0 {
				m.awareOf[u], need = true, true
			}
		}
	}
	if !need {
		return nil
	}
	changed := make([][]time.Duration, len(site.Pages))
	unchanged := make([][]time.Duration, len(site.Pages))
	depths := make([]int, len(site.Pages))
	for u, p := range site.Pages {
		depths[u] = p.Depth
		for a := range m.archives {
			c, n := ChangeIntervals(obs.caps[a][u], site.Rotations)
			changed[u] = append(changed[u], c...)
			unchanged[u] = append(unchanged[u], n...)
		}
	}
	pools := poolMembers(depths, m.o.MinPoolPages)
	pooled := map[int]float64{}
	for u, p := range site.Pages {
		if !m.awareOf[u] {
			continue
		}
		if len(changed[u])+len(unchanged[u]) >= max(1, m.o.MinCaptures) {
			r, err := ChangeRate(changed[u], unchanged[u])
			if err != nil {
				return fmt.Errorf("change rate of %q: %w", p.URL, err)
			}
			m.change[u] = r
			continue
		}
		r, ok := pooled[p.Depth]
		if !ok {
			var c, n []time.Duration
			for _, v := range pools[p.Depth] {
				c, n = append(c, changed[v]...), append(n, unchanged[v]...)
			}
			var err error
			r, err = ChangeRate(c, n)
			if err != nil && !errors.Is(err, ErrNoIntervals) {
				return fmt.Errorf("change rate of depth %d: %w", p.Depth, err)
			}
			pooled[p.Depth] = r
		}
		m.change[u] = r
	}
	for i := range m.rates {
		m.rates[i].Change = m.change[i/len(m.archives)]
	}
	return nil
}

// estimateSweeps sets sweepRate and sweeps: the sweeps FindSweeps finds in
// each archive's captures, S in the longest page exposure T, give the
// posterior mean (S + α₀)/(T + β₀) under the fixed prior (S/T without it),
// raised to the largest page rate where a page's rate exceeds it. One
// sweep in a short window is no evidence of a high sweep rate: it moves
// the rate from the prior's α₀/β₀ to (1 + α₀)/β₀, not to one per window.
func (m *model) estimateSweeps(obs observations) {
	var span time.Duration
	for _, w := range obs.exposure {
		span = max(span, w)
	}
	base := m.o.prior()
	m.sweepRate = make([]float64, len(m.archives))
	m.sweeps = make([]int, len(m.archives))
	for a := range m.archives {
		var caps []PageCapture
		for u, cs := range obs.caps[a] {
			for _, c := range cs {
				caps = append(caps, PageCapture{Page: u, Time: c.Time})
			}
		}
		m.sweeps[a] = len(FindSweeps(caps, m.o.SweepGap))
		r := base.Shrink(m.sweeps[a], span)
		for _, k := range m.kappa[a] {
			r = math.Max(r, k)
		}
		m.sweepRate[a] = r
	}
}

// pageP is the probability that page u's blocks are stored in some archive
// within t days in the Independent view: digest-based archives store at
// their first capture, change-aware ones (sharing the page's next visible
// change) at their first capture after it.
func (m *model) pageP(u int, t float64) float64 {
	logMiss, awareRate := 0.0, 0.0
	for a := range m.archives {
		k := m.kappa[a][u]
		if m.aware[a] && m.awareOf[u] {
			awareRate += k
			continue
		}
		logMiss -= k * t
	}
	// 1 − e^logMiss·(1 − p_aware), without cancellation for small p.
	p := -math.Expm1(logMiss)
	if awareRate > 0 {
		p += math.Exp(logMiss) * pHypo(awareRate, m.change[u], t)
	}
	return p
}
