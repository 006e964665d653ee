package odds

import (
	"math"
	"math/rand/v2"
	"time"
)

// Draw draws the captures archive a makes of pages between from and to,
// as the model says it does: sweeps of each reach at their rates (each
// taking the pages in reach with probability Take, over Spread from its
// start) and one-page captures. It returns the captures and the sweeps
// (the truth a detector is tested against). Blocked and truncated pages
// are never captured. It is how backtests and tests build worlds.
func (a *Archive) Draw(pages []Page, from, to time.Time, spread time.Duration, rng *rand.Rand) ([]Capture, []Sweep) {
	span := to.Sub(from).Hours() / 24
	if span <= 0 {
		return nil, nil
	}
	levels := max(1, len(a.Sweeps))
	var caps []Capture
	var sweeps []Sweep
	for l := range levels {
		next := 0.0
		if l+1 < len(a.Sweeps) {
			next = a.Sweeps[l+1]
		}
		rate := 0.0
		if l < len(a.Sweeps) {
			rate = a.Sweeps[l]
		}
		for _, t := range poissonTimes(math.Max(0, rate-next), span, rng) {
			start := from.Add(time.Duration(t * float64(Day)))
			s := Sweep{Start: start, End: start}
			for _, p := range pages {
				if level(p.Depth, levels) > l || !a.counts(p) || rng.Float64() >= a.Take {
					continue
				}
				at := start.Add(time.Duration(rng.Float64() * float64(spread)))
				if at.After(to) {
					continue
				}
				caps = append(caps, Capture{Page: p.Key, Time: at})
				s.Pages = append(s.Pages, p.Key)
				if at.After(s.End) {
					s.End = at
				}
			}
			if len(s.Pages) > 0 {
				sweeps = append(sweeps, s)
			}
		}
	}
	for _, p := range pages {
		if !a.counts(p) {
			continue
		}
		for _, t := range poissonTimes(a.onePage(p), span, rng) {
			caps = append(caps, Capture{Page: p.Key, Time: from.Add(time.Duration(t * float64(Day)))})
		}
	}
	return caps, sweeps
}

// poissonTimes draws the event times, in days from 0, of a Poisson process
// of rate per day over span days.
func poissonTimes(rate, span float64, rng *rand.Rand) []float64 {
	if rate <= 0 {
		return nil
	}
	var out []float64
	for t := rng.ExpFloat64() / rate; t < span; t += rng.ExpFloat64() / rate {
		out = append(out, t)
	}
	return out
}
