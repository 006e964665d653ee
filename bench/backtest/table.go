package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/lazarus-preserve/lazarus/bench/internal/calibration"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// report is the backtest's outcome: every world, and the tables per
// kind and over all.
type report struct {
	Kinds   []kindTable `json:"kinds"`
	Overall kindTable   `json:"overall"`
	Worlds  []result    `json:"worlds"`
	Seconds float64     `json:"seconds"`
}

// kindTable is the calibration of one kind's worlds (or all).
type kindTable struct {
	Kind   string `json:"kind"`
	Worlds int    `json:"worlds"`
	// NoForecast counts the worlds status gave no forecast for (the
	// first such world's Error says why); they are left out of the
	// tables.
	NoForecast int            `json:"no_forecast"`
	Horizons   []horizonTable `json:"horizons"`
	// Pages is the calibration of status's per-page capture odds within
	// 30 days (the model's marginals, before any correlation between
	// pages), over every page of every world with a forecast.
	Pages calibration.Table `json:"page_capture"`
	// ByHistory splits the pages by how many captures of them were
	// listed in the year before day 150 (historyEdges): what status's
	// per-page odds rest on.
	ByHistory []historyGroup `json:"page_capture_by_history"`
	// Age is the newest generation's median age at day 150, in days.
	Age float64 `json:"age_median_days"`
	// Now counts the worlds status found recoverable already at day 150.
	Now int `json:"recoverable_now"`
	// What status saw, medians over the worlds with a forecast.
	Observed   float64       `json:"observed_days_median"` // days of history status fitted its model to
	DepthKnown float64       `json:"depth_known_median"`
	PageCount  float64       `json:"pages_median"`
	Archives   []archiveView `json:"archives"`
	// TwoArchives is the calibration, per horizon, of status's chance
	// that at least two archives each hold the newest generation on
	// their own, against recover reading each archive alone; nil for a
	// kind of one archive.
	TwoArchives []calibration.Table `json:"two_archives,omitempty"`
	// Alone is, per archive of the kinds of two or more, the
	// calibration of status's chance that it alone holds the newest
	// generation, per horizon.
	Alone []aloneTable `json:"per_archive,omitempty"`
	// HeldBy sets status's held_by at day 150 against recover reading
	// each archive alone then, over the archives of worlds of two or
	// more.
	HeldBy heldByCheck `json:"held_by"`
	// Inject is the calibration of what inject printed for the newest
	// generation (the prior), per horizon of its outlook.
	Inject []calibration.Table `json:"inject_outlook"`
}

// aloneTable is one archive's calibration on its own.
type aloneTable struct {
	Protocol string              `json:"protocol"`
	Horizons []calibration.Table `json:"horizons"`
}

// heldByCheck counts the archives of worlds of two or more by what
// status's held_by said at day 150 and what recover reading each alone
// did then.
type heldByCheck struct {
	Agreed  int `json:"agreed"`  // named, and restored alone
	Claimed int `json:"claimed"` // named, and not restored alone: a wrong claim
	Missed  int `json:"missed"`  // restored alone, and not named
}

// horizonTable is one horizon's calibration and how often recover
// restored some generation whole.
type horizonTable struct {
	calibration.Table
	AnyRestore float64 `json:"any_restore_point"` // share of worlds with a coherent restore point, maybe older
}

// historyGroup is the pages with From to To captures in the year before
// day 150: status's mean capture odds within 30 days and the share
// captured.
type historyGroup struct {
	From, To  int // To −1: no bound
	Pages     int
	Predicted float64
	Realised  float64
}

// historyEdges are the lower edges of the historyGroups.
var historyEdges = []int{0, 1, 3, 6, 16}

// archiveView sets status's view of one archive (medians over worlds)
// against the truth.
type archiveView struct {
	Protocol    string  `json:"protocol"`
	Crawls      float64 `json:"true_crawls_median"`      // crawls of 2 pages or more in the year before now
	Deep        float64 `json:"true_deep_crawls_median"` // of which reaching the deepest pages
	Sweeps      float64 `json:"status_sweeps_median"`    // sweeps status found in its window
	Rate        float64 `json:"status_rate_median"`      // status's rate of sweeps reaching the root, per day
	TrueRate    float64 `json:"true_rate_median"`        // crawls per day in the year before now
	Pending     float64 `json:"pending_median"`          // captures made by now, listed after
	FutureShare float64 `json:"future_listed_share"`     // worlds where the archive listed a capture made after now within the last horizon
}

// tally makes the tables.
func (r *report) tally() {
	r.Kinds, r.Overall = byKind(r.Worlds, func(w result) string { return w.Kind }, tallyKind)
}

// byKind tallies worlds kind by kind, in kinds' order, and all of them
// together ("all kinds").
func byKind[W, T any](worlds []W, kindOf func(W) string, tally func(name string, ws []W) T) (perKind []T, overall T) {
	for _, k := range kinds {
		var ws []W
		for _, w := range worlds {
			if kindOf(w) == k.Name {
				ws = append(ws, w)
			}
		}
		perKind = append(perKind, tally(k.Name, ws))
	}
	return perKind, tally("all kinds", worlds)
}

// tallyKind makes the table of worlds ws.
func tallyKind(name string, ws []result) kindTable {
	t := kindTable{Kind: name, Worlds: len(ws)}
	for hi, h := range horizons {
		var fs []calibration.Forecast
		anyRestore := 0.0
		for _, w := range ws {
			if w.Any[hi] {
				anyRestore++
			}
			if w.Predicted == nil {
				continue
			}
			fs = append(fs, calibration.Forecast{P: w.Predicted[hi], Came: w.Restored[hi]})
		}
		ht := horizonTable{Table: calibration.Tally(int(h/day), fs)}
		if len(ws) > 0 {
			ht.AnyRestore = anyRestore / float64(len(ws))
		}
		t.Horizons = append(t.Horizons, ht)
	}
	var depth, pages, ages, observed []float64
	var pageFs []calibration.Forecast
	groups := make([]historyGroup, len(historyEdges))
	for i, e := range historyEdges {
		groups[i].From, groups[i].To = e, -1
		if i+1 < len(historyEdges) {
			groups[i].To = historyEdges[i+1] - 1
		}
	}
	views := map[string]*struct {
		crawls, deep, sweeps, rate, trueRate, pending []float64
		future, n                                     int
	}{}
	var protocols []string
	for _, w := range ws {
		if w.Now {
			t.Now++
		}
		if w.Predicted == nil {
			t.NoForecast++
			continue
		}
		ages = append(ages, w.Age)
		observed = append(observed, w.Observed)
		for _, p := range w.PageOdds {
			pageFs = append(pageFs, calibration.Forecast{P: p.P, Came: p.Came})
			i := len(historyEdges) - 1
			for i > 0 && p.Year < historyEdges[i] {
				i--
			}
			g := &groups[i]
			g.Pages++
			g.Predicted += p.P
			if p.Came {
				g.Realised++
			}
		}
		depth = append(depth, float64(w.DepthKnown))
		pages = append(pages, float64(w.Pages))
		for _, tr := range w.Truth {
			v := views[tr.Protocol]
			if v == nil {
				v = &struct {
					crawls, deep, sweeps, rate, trueRate, pending []float64
					future, n                                     int
				}{}
				views[tr.Protocol] = v
				protocols = append(protocols, tr.Protocol)
			}
			v.n++
			v.crawls = append(v.crawls, float64(tr.Crawls))
			v.deep = append(v.deep, float64(tr.Deep))
			v.trueRate = append(v.trueRate, float64(tr.Crawls)/365)
			v.pending = append(v.pending, float64(tr.Pending))
			if tr.Future > 0 {
				v.future++
			}
			if f, ok := fittedFor(tr.Protocol, w.Fitted); ok {
				v.sweeps = append(v.sweeps, float64(f.Sweeps))
				v.rate = append(v.rate, f.Rate)
			}
		}
	}
	t.DepthKnown, t.PageCount, t.Age, t.Observed = median(depth), median(pages), median(ages), median(observed)
	t.Pages = calibration.Tally(int(status.CaptureHorizon/day), pageFs)
	for _, g := range groups {
		if g.Pages > 0 {
			g.Predicted /= float64(g.Pages)
			g.Realised /= float64(g.Pages)
			t.ByHistory = append(t.ByHistory, g)
		}
	}
	t.TwoArchives, t.Alone, t.HeldBy = tallyAlone(ws)
	t.Inject = tallyInject(ws)
	slices.Sort(protocols)
	for _, p := range protocols {
		v := views[p]
		t.Archives = append(t.Archives, archiveView{Protocol: p, Crawls: median(v.crawls), Deep: median(v.deep), Sweeps: median(v.sweeps),
			Rate: median(v.rate), TrueRate: median(v.trueRate), Pending: median(v.pending), FutureShare: float64(v.future) / float64(v.n)})
	}
	return t
}

// tallyAlone makes the tables of worlds ws of two archives or more:
// two_archives and each archive alone per horizon (worlds with a
// forecast), held_by against recover (every world).
func tallyAlone(ws []result) ([]calibration.Table, []aloneTable, heldByCheck) {
	var held heldByCheck
	two := make([][]calibration.Forecast, len(horizons))
	each := map[string][][]calibration.Forecast{}
	var protocols []string
	for _, w := range ws {
		for _, a := range w.Alone {
			switch {
			case a.HeldNow && a.RestoredNow:
				held.Agreed++
			case a.HeldNow:
				held.Claimed++
			case a.RestoredNow:
				held.Missed++
			}
		}
		if w.Predicted == nil || len(w.Alone) < 2 {
			continue
		}
		for hi := range horizons {
			n := 0
			for _, a := range w.Alone {
				if a.Restored[hi] {
					n++
				}
			}
			if w.TwoArchives != nil {
				two[hi] = append(two[hi], calibration.Forecast{P: w.TwoArchives[hi], Came: n >= 2})
			}
			for _, a := range w.Alone {
				if a.Predicted == nil {
					continue
				}
				if each[a.Protocol] == nil {
					each[a.Protocol] = make([][]calibration.Forecast, len(horizons))
					protocols = append(protocols, a.Protocol)
				}
				each[a.Protocol][hi] = append(each[a.Protocol][hi], calibration.Forecast{P: a.Predicted[hi], Came: a.Restored[hi]})
			}
		}
	}
	var twoTables []calibration.Table
	for hi, h := range horizons {
		if len(two[hi]) > 0 {
			twoTables = append(twoTables, calibration.Tally(int(h/day), two[hi]))
		}
	}
	slices.Sort(protocols)
	var alone []aloneTable
	for _, p := range protocols {
		at := aloneTable{Protocol: p}
		for hi, h := range horizons {
			at.Horizons = append(at.Horizons, calibration.Tally(int(h/day), each[p][hi]))
		}
		alone = append(alone, at)
	}
	return twoTables, alone, held
}

// tallyInject makes the tables of inject's outlook of the newest
// generation, per horizon of it, over worlds ws.
func tallyInject(ws []result) []calibration.Table {
	var days []int
	byDays := map[int][]calibration.Forecast{}
	for _, w := range ws {
		for _, o := range w.Inject {
			if byDays[o.Days] == nil {
				days = append(days, o.Days)
			}
			byDays[o.Days] = append(byDays[o.Days], calibration.Forecast{P: o.P, Came: o.Restored})
		}
	}
	slices.Sort(days)
	var out []calibration.Table
	for _, d := range days {
		out = append(out, calibration.Tally(d, byDays[d]))
	}
	return out
}

// fittedFor returns status's view of the archive speaking protocol.
func fittedFor(protocol string, fs []fitted) (fitted, bool) {
	for _, f := range fs {
		if f.Archive == protocol {
			return f, true
		}
	}
	return fitted{}, false
}

// median returns the median of xs, 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// print writes the tables.
func (r *report) print(w io.Writer) {
	for _, t := range append(slices.Clone(r.Kinds), r.Overall) {
		t.print(w)
	}
	var named []calibration.Named
	for _, t := range append(slices.Clone(r.Kinds), r.Overall) {
		for _, h := range t.Horizons {
			named = append(named, calibration.Named{Name: fmt.Sprintf("%s within %d days", t.Kind, h.Days), Table: h.Table})
		}
		for _, h := range t.TwoArchives {
			named = append(named, calibration.Named{Name: fmt.Sprintf("%s, two archives within %d days", t.Kind, h.Days), Table: h})
		}
		for _, a := range t.Alone {
			for _, h := range a.Horizons {
				named = append(named, calibration.Named{Name: fmt.Sprintf("%s, %s alone within %d days", t.Kind, a.Protocol, h.Days), Table: h})
			}
		}
		for _, h := range t.Inject {
			named = append(named, calibration.Named{Name: fmt.Sprintf("%s, inject's outlook within %s", t.Kind, humane.Count(h.Days, "day")), Table: h})
		}
	}
	calibration.WriteVerdict(w, named)
	fmt.Fprintf(w, "\n%d worlds in %.0f s\n", len(r.Worlds), r.Seconds)
}

// print writes one kind's tables.
func (t kindTable) print(w io.Writer) {
	fmt.Fprintf(w, "\n%s (%d worlds", t.Kind, t.Worlds)
	if t.NoForecast > 0 {
		fmt.Fprintf(w, "; %d without a forecast, left out", t.NoForecast)
	}
	fmt.Fprintf(w, "; newest generation recoverable at day 150 in %d)\n", t.Now)
	for _, h := range t.Horizons {
		fmt.Fprintf(w, "  within %d days: predicted %.3f, realised %.3f (some restore point: %.3f); Brier %.3f; bins above by > 0.05: %d, of them beyond chance: %d\n",
			h.Days, h.Predicted, h.Realised, h.AnyRestore, h.Brier, h.Above, h.OverConfident)
		h.WriteBins(w, "    ", "worlds")
	}
	fmt.Fprintf(w, "  each page captured within %d days (status's per-page odds, %d pages): predicted %.3f, realised %.3f; Brier %.3f\n",
		t.Pages.Days, t.Pages.Worlds, t.Pages.Predicted, t.Pages.Realised, t.Pages.Brier)
	t.Pages.WriteBins(w, "    ", "pages")
	var parts []string
	for _, g := range t.ByHistory {
		span := fmt.Sprintf("%d–%d", g.From, g.To)
		switch {
		case g.To < 0:
			span = fmt.Sprintf("%d+", g.From)
		case g.From == g.To:
			span = fmt.Sprint(g.From)
		}
		parts = append(parts, fmt.Sprintf("%s: %d pages, %.2f predicted, %.2f realised", span, g.Pages, g.Predicted, g.Realised))
	}
	fmt.Fprintf(w, "    by captures listed in the year before: %s\n", strings.Join(parts, "; "))
	fmt.Fprintf(w, "  status saw (medians): %.0f pages, depth known for %.0f, %.0f days of history fitted; the newest generation %.0f days old\n",
		t.PageCount, t.DepthKnown, t.Observed, t.Age)
	for _, a := range t.Archives {
		fmt.Fprintf(w, "  %s: %.0f crawls of 2 pages or more in the year before day 150 (%.4f/day; %.0f reaching the deepest pages); status found %.0f sweeps in its history, used %.4f/day; captures pending at day 150: %.0f; new captures listed within 30 days in %.0f%% of worlds\n",
			a.Protocol, a.Crawls, a.TrueRate, a.Deep, a.Sweeps, a.Rate, a.Pending, 100*a.FutureShare)
	}
	for _, h := range t.TwoArchives {
		fmt.Fprintf(w, "  at least two archives each holding it alone (status's two_archives) within %d days: predicted %.3f, realised %.3f; Brier %.3f\n",
			h.Days, h.Predicted, h.Realised, h.Brier)
		h.WriteBins(w, "    ", "worlds")
	}
	for _, a := range t.Alone {
		for _, h := range a.Horizons {
			fmt.Fprintf(w, "  %s alone (status's per-archive chance) within %d days: predicted %.3f, realised %.3f; Brier %.3f\n",
				a.Protocol, h.Days, h.Predicted, h.Realised, h.Brier)
			h.WriteBins(w, "    ", "worlds")
		}
	}
	if h := t.HeldBy; h != (heldByCheck{}) {
		fmt.Fprintf(w, "  held_by at day 150 against recover reading each archive alone: %d named and restored, %d named and not restored, %d restored and not named\n",
			h.Agreed, h.Claimed, h.Missed)
	}
	for _, h := range t.Inject {
		fmt.Fprintf(w, "  inject's outlook of the newest generation (the prior) within %s of its inject: predicted %.3f, realised %.3f; Brier %.3f\n",
			humane.Count(h.Days, "day"), h.Predicted, h.Realised, h.Brier)
		h.WriteBins(w, "    ", "worlds")
	}
}
