package sim

import (
	"math"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/odds"
)

// estimateHorizon is H, the days over which the lazarus plan counts on a
// page being captured.
const estimateHorizon = 30.0

// archiveName names the simulated archive (the Wayback Machine's prior).
const archiveName = "ia"

// epoch is day 0 of the simulation, as the model takes times.
var epoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// dayTime converts a simulated day to a time.
func dayTime(d float64) time.Time {
	return epoch.Add(time.Duration(math.Round(d * float64(odds.Day))))
}

// learnedCapture returns what status would tell the placement at day now
// about each page: the capture model (odds, as status fits it) fitted to
// the archive's captures since start (the pages have been served since
// then) up to now, and each page's probability of a capture within
// estimateHorizon days under it. caps must be sorted by time. They are the
// archive's own captures: those made on the site's requests are left out
// (the capture tool knows which it asked for), so that the plans are the
// same with requests on and off. Before any capture has been seen it
// returns nil: placement then takes its default probability.
func learnedCapture(s *site, caps []capture, start, now float64) (map[string]float64, error) {
	pages := make([]odds.Page, len(s.pages))
	for u, p := range s.pages {
		pages[u] = odds.Page{Key: p.url, Depth: p.depth}
	}
	var seen []odds.Capture
	for _, c := range caps {
		if c.t > now {
			break
		}
		if c.t >= start {
			seen = append(seen, odds.Capture{Page: s.pages[c.page].url, Time: dayTime(c.t)})
		}
	}
	if len(seen) == 0 {
		return nil, nil
	}
	m := odds.Fit(odds.History{Now: dayTime(now), Since: dayTime(start), Pages: pages,
		Captures: map[string][]odds.Capture{archiveName: seen}})
	ps := m.Captured(pages, time.Duration(estimateHorizon*float64(odds.Day)))
	out := make(map[string]float64, len(s.pages))
	for i, p := range pages {
		out[p.Key] = ps[i]
	}
	return out, nil
}
