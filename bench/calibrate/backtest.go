package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/odds"
	"github.com/lazarus-preserve/lazarus/internal/placement"
)

// useTruth predicts with the true models instead of fitted ones (--truth):
// what the backtest then measures is the computation, not the fit.
var useTruth bool

// horizons are the horizons the backtest checks.
var horizons = []time.Duration{7 * odds.Day, 30 * odds.Day}

// world is one site's outcome: per horizon, the model's prediction, the
// planner's figure (what inject printed before the capture model), and
// whether it came true.
type world struct {
	predicted []float64
	printed   float64
	realised  []bool
}

// site returns the backtest's site: a root page linking 9 pages, linking
// 15, linking 15 (40 pages at depths 0–3), 20 KB each.
func site() []odds.Page {
	var pages []odds.Page
	for i := range 40 {
		d := 3
		switch {
		case i == 0:
			d = 0
		case i < 10:
			d = 1
		case i < 25:
			d = 2
		}
		pages = append(pages, odds.Page{Key: "/p" + strconv.Itoa(i) + "/", Depth: d, Bytes: 20_000})
	}
	pages[0].Key = "/"
	return pages
}

// plan places a generation of a 1 MB dump and a 200 KB tree with inject's
// default target plan (0.999 with each page kept with probability 1/2,
// light pages) and returns its layout and the planner's figure.
func plan(pages []odds.Page) (odds.Layout, float64, error) {
	var carriers []placement.Carrier
	for _, p := range pages {
		carriers = append(carriers, placement.Carrier{URL: p.Key, Depth: p.Depth, Capacity: 256 << 10})
	}
	segs := []placement.Segment{{Name: "app", Length: 200_000}, {Name: "db", Length: 1_000_000}}
	pl, err := placement.Place(segs, carriers, placement.Options{ManifestBytes: 1500, Target: placement.DefaultTarget, NoSpare: true})
	if err != nil {
		return odds.Layout{}, 0, err
	}
	return pl.Layout(), pl.Recoverability, nil
}

// one draws one world of kind k.
func one(k kind, pages []odds.Page, layout odds.Layout, printed float64, rng *rand.Rand) world {
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	truth := k.archives(rng, pages)
	since := now.Add(-time.Duration(k.history * float64(odds.Day)))
	h := odds.History{Now: now, Since: since, Pages: pages, Archives: []string{"wayback", "commoncrawl"}, Captures: map[string][]odds.Capture{}}
	for i := range truth {
		a := &truth[i]
		caps, _ := a.Draw(pages, since, now, spread(a), rng)
		for _, c := range caps {
			if !c.Time.Add(a.Lag).After(now) { // visible by now
				h.Captures[a.Name] = append(h.Captures[a.Name], c)
			}
		}
	}
	model := odds.Fit(h)
	if useTruth {
		// The truth, with a sweep's spread counted in its lag (the model
		// takes a sweep's captures as made at its start).
		model = &odds.Model{}
		for _, a := range truth {
			a.Lag += spread(&a)
			model.Archives = append(model.Archives, a)
		}
	}
	needs, _ := odds.Needs(pages, layout)
	w := world{printed: printed}
	for _, hz := range horizons {
		w.predicted = append(w.predicted, model.Recoverable(pages, needs, hz))
	}
	// What the archives really capture from now on.
	index := map[string]int{}
	for i, p := range pages {
		index[p.Key] = i
	}
	visible := make([]time.Time, len(pages)) // first visible capture of each page
	for i := range truth {
		a := &truth[i]
		caps, _ := a.Draw(pages, now, now.Add(horizons[len(horizons)-1]), spread(a), rng)
		for _, c := range caps {
			at := c.Time.Add(a.Lag)
			j := index[c.Page]
			if visible[j].IsZero() || at.Before(visible[j]) {
				visible[j] = at
			}
		}
	}
	for _, hz := range horizons {
		ok := true
		for _, n := range needs {
			have := n.Had
			for _, u := range n.Pages {
				if !visible[u].IsZero() && !visible[u].After(now.Add(hz)) {
					have++
				}
			}
			if have < n.K {
				ok = false
				break
			}
		}
		w.realised = append(w.realised, ok)
	}
	return w
}

// spread is how long one of a's sweeps takes to go over the site.
func spread(a *odds.Archive) time.Duration {
	if a.Name == "commoncrawl" {
		return 10 * odds.Day
	}
	return 3 * time.Hour
}

// backtest replays n worlds of kind k, until ctx is done.
func backtest(ctx context.Context, k kind, n int, seed uint64) (kindResult, error) {
	pages := site()
	layout, printed, err := plan(pages)
	if err != nil {
		return kindResult{}, fmt.Errorf("plan: %w", err)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var ws []world
	for range n {
		if err := ctx.Err(); err != nil {
			return kindResult{}, err
		}
		ws = append(ws, one(k, pages, layout, printed, rng))
	}
	return tally(k.name, ws), nil
}
