package assure_test

import (
	"fmt"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/assure"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

func ExampleAssess() {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	site := assure.Site{
		Now:      now,
		Segments: []assure.Segment{{Name: "data", K: 3, M: 2, Stripes: 1}},
		// One block already found in the Wayback Machine.
		Archived: map[string][]manifest.BlockRef{"ia": {{Segment: "data", Shard: 4}}},
	}
	for i := range 4 {
		// Four pages with one block each, captured every 20 days, a day
		// apart (so each capture is a sweep of its own).
		var caps []assure.Capture
		for d := 1; d < 90; d += 20 {
			caps = append(caps, assure.Capture{Time: now.Add(-time.Duration(d+i) * assure.Day)})
		}
		site.Pages = append(site.Pages, assure.Page{
			URL:      fmt.Sprintf("https://example.org/%d", i),
			Depth:    1,
			Blocks:   []manifest.BlockRef{{Segment: "data", Shard: uint16(i)}},
			Captures: map[string][]assure.Capture{"ia": caps},
		})
	}
	a, err := assure.Assess(site, assure.Options{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := a.Independent.Generation
	fmt.Printf("independent (exact %v): now %.2f, 7 d %.2f, 30 d %.2f; 99%% in %.0f days\n",
		g.Exact, g.P[0], g.P[1], g.P[2], g.Reach.Hours()/24)
	e := a.Evidence
	fmt.Printf("rate %.4f/day; median exposure %.0f days, %d sweeps; prior dominated: %v\n",
		a.Rates[0].Rate, e.MedianExposure.Hours()/24, e.Sweeps[0].Sweeps, e.PriorDominated)
	// Output:
	// independent (exact true): now 0.00, 7 d 0.28, 30 d 0.94; 99% in 45 days
	// rate 0.0436/day; median exposure 90 days, 20 sweeps; prior dominated: false
}
