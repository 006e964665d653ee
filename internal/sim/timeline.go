package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// capture is one capture of a page by the archive, at day t.
type capture struct {
	t    float64
	page int
}

// compareCaptures orders captures by time, then page.
func compareCaptures(a, b capture) int {
	return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.page, b.page))
}

// naturalCaptures draws the archive's own captures of the site's pages in
// [from, to): each page's Poisson process of rate solo, and sweeps (a
// Poisson process of rate sweepRate) each capturing page u with
// probability sweepP, at a uniform time within sweepLength of its start.
// They do not depend on what the pages carry, so every policy of a run
// sees the same ones.
func naturalCaptures(s *site, from, to float64, rng *rand.Rand) []capture {
	var out []capture
	for u, p := range s.pages {
		if p.solo <= 0 {
			continue
		}
		for t := from + rng.ExpFloat64()/p.solo; t < to; t += rng.ExpFloat64() / p.solo {
			out = append(out, capture{t: t, page: u})
		}
	}
	if s.sweepRate > 0 {
		for start := from + rng.ExpFloat64()/s.sweepRate; start < to; start += rng.ExpFloat64() / s.sweepRate {
			for u, p := range s.pages {
				if p.sweepP > 0 && rng.Float64() < p.sweepP {
					if t := start + sweepLength*rng.Float64(); t < to {
						out = append(out, capture{t: t, page: u})
					}
				}
			}
		}
	}
	slices.SortFunc(out, compareCaptures)
	return out
}
