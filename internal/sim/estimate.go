package sim

import (
	"fmt"
	"math"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/assure"
)

// estimateHorizon is H, the days over which the lazarus plan counts on a
// page being captured: p = 1 − e^(−κ̂·H).
const estimateHorizon = 30.0

// archiveName names the simulated archive in assure's input.
const archiveName = "ia"

// epoch is day 0 of the simulation, as assure takes times.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// dayTime converts a simulated day to a time.
func dayTime(d float64) time.Time {
	return epoch.Add(time.Duration(math.Round(d * float64(assure.Day))))
}

// learnedCapture returns what status would tell the placement at day now
// about each page: p = 1 − e^(−κ̂·H), κ̂ the capture rate assure estimates
// (as `lazarus status` does: the fixed prior, depth pooling) from the
// archive's captures since start (the pages have been served since then)
// up to now. caps must be sorted by time. They are the archive's own
// captures: those made on the site's requests are left out (the capture
// tool knows which it asked for), so that the plans are the same with
// requests on and off. Before any capture has been seen it returns nil:
// placement then takes its default probability.
func learnedCapture(s *site, caps []capture, start, now float64) (map[string]float64, error) {
	pages := make([]assure.Page, len(s.pages))
	for u, p := range s.pages {
		pages[u] = assure.Page{URL: p.url, Depth: p.depth, Since: dayTime(start), Captures: map[string][]assure.Capture{}}
	}
	seen := 0
	for _, c := range caps {
		if c.t > now {
			break
		}
		if c.t >= start {
			pages[c.page].Captures[archiveName] = append(pages[c.page].Captures[archiveName], assure.Capture{Time: dayTime(c.t)})
			seen++
		}
	}
	if seen == 0 {
		return nil, nil
	}
	// The placeholder segment has no blocks on any page: only the rates
	// are wanted, and the Monte Carlo has nothing to simulate.
	site := assure.Site{Now: dayTime(now), Pages: pages, Segments: []assure.Segment{{Name: "rates", K: 1, Stripes: 1}}}
	a, err := assure.Assess(site, assure.Options{Samples: 1, At: []time.Duration{0}, Horizon: assure.Day})
	if err != nil {
		return nil, fmt.Errorf("estimating capture rates: %w", err)
	}
	out := make(map[string]float64, len(s.pages))
	for _, r := range a.Rates {
		out[r.URL] = -math.Expm1(-r.Rate * estimateHorizon)
	}
	return out, nil
}
