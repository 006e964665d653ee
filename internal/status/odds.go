package status

import (
	"cmp"
	"slices"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/odds"
)

// ModelOptions tune the capture model status fits to the archives'
// history (package odds).
type ModelOptions struct {
	// At are the times after Now at which P_rec is reported; nil asks
	// for ModelTimes.
	At []time.Duration
	// Target is the P_rec whose reaching time is reported; defaults to
	// 0.99.
	Target float64
	// Window is how much history the model is fitted to; defaults to
	// odds.DefaultWindow.
	Window time.Duration
	// Priors override the archives' priors (odds.PriorOf), by source
	// name.
	Priors map[string]odds.Prior
}

// ReachHorizon is how far the model looks for Target to be reached.
const ReachHorizon = 365 * odds.Day

// reachTimes are the times at which the model looks for Target to be
// reached, beyond ModelTimes: "not within ReachHorizon" past the last.
var reachTimes = []time.Duration{45 * odds.Day, 60 * odds.Day, 90 * odds.Day, 120 * odds.Day, 180 * odds.Day, 270 * odds.Day, ReachHorizon}

// modelInput is what status knows of the newest generation for the model.
type modelInput struct {
	pages       []odds.Page
	since       time.Time
	archives    []string
	captures    map[string][]odds.Capture
	blocks      map[string][]manifest.BlockRef // page → blocks it carries
	k           map[string]int
	stripes     map[string]int
	listing     []string // listing segments: reported on their own
	manifest    []string
	manifestHad bool
	had         map[manifest.BlockRef]bool
	per         perArchive // what each source alone holds
}

// model fits the capture model to the history and fills the
// assessment's view, evidence and capture probabilities. Its numbers are
// computed, not sampled: the same history gives the same figures.
func (r *statusRun) model(in modelInput, out *Assessment) {
	o := r.o.Model
	at := o.At
	if at == nil {
		at = ModelTimes()
	}
	out.Target = o.Target
	if out.Target <= 0 || out.Target >= 1 {
		out.Target = 0.99
	}
	m := odds.Fit(odds.History{Now: r.o.Now, Since: in.since, Window: o.Window, Pages: in.pages,
		Archives: in.archives, Captures: in.captures, Priors: o.Priors})
	needs, bySeg := odds.Needs(in.pages, odds.Layout{Blocks: in.blocks, K: in.k, Stripes: in.stripes, Manifest: in.manifest,
		Had: in.had, ManifestHad: in.manifestHad})
	// Sets: the generation (the manifest and every data segment), then
	// each segment, listing segments included.
	var names []string
	for name := range bySeg {
		names = append(names, name)
	}
	slices.Sort(names)
	gen := []odds.Need{needs[0]}
	sets := [][]odds.Need{nil}
	for _, name := range names {
		var seg []odds.Need
		for _, i := range bySeg[name] {
			seg = append(seg, needs[i])
		}
		if !slices.Contains(in.listing, name) {
			gen = append(gen, seg...)
		}
		sets = append(sets, seg)
	}
	sets[0] = gen
	times := append(slices.Clone(at), reachTimes...)
	curves := make([][]float64, len(sets))
	for _, t := range times {
		for i, p := range m.RecoverableAll(in.pages, sets, t) {
			// The true figure never falls as the horizon grows, so an
			// earlier lower bound is one later too.
			if n := len(curves[i]); n > 0 && times[n-1] <= t {
				p = max(p, curves[i][n-1])
			}
			curves[i] = append(curves[i], p)
		}
	}
	reach := func(c []float64) (bool, time.Duration) {
		for i, p := range c {
			if p >= out.Target {
				return true, times[i]
			}
		}
		return false, 0
	}
	view := ModelView{Name: ModelViewName, Exact: true, At: probabilityList(at, curves[0])}
	view.Reached, view.ReachIn = reach(curves[0])
	for i, name := range names {
		s := SegmentOutlook{Name: name, Listing: slices.Contains(in.listing, name), At: probabilityList(at, curves[i+1])}
		s.Reached, s.ReachIn = reach(curves[i+1])
		s.Weakest = weakest(m, in.pages, needs, bySeg[name])
		view.Segments = append(view.Segments, s)
	}
	out.Views = []ModelView{view}
	out.Survives = min(odds.Tolerance(gen), out.Carriers)
	if allMet(gen) {
		out.Survives = out.Carriers // the archives hold enough already
	}
	out.Evidence = modelEvidence(m)
	out.Capture = captureOdds(m, in.pages)
	twoArchives(m, in, in.per, at, out)
	seen := map[string]bool{}
	for _, cs := range in.captures {
		for _, c := range cs {
			seen[c.Page] = true
		}
	}
	for _, p := range in.pages {
		if !seen[p.Key] {
			out.Pooled++
		}
	}
}

// allMet reports whether every need has its shards already.
func allMet(needs []odds.Need) bool {
	for _, n := range needs {
		if n.Had < n.K {
			return false
		}
	}
	return true
}

// ModelViewName is the name of the capture model's view (ModelView.Name).
const ModelViewName = "model"

// probabilityList pairs times with probabilities.
func probabilityList(at []time.Duration, ps []float64) []Probability {
	out := make([]Probability, 0, len(at))
	for i, d := range at {
		out = append(out, Probability{After: d, P: finite(ps[i])})
	}
	return out
}

// weakest returns the indexes (within the segment) of its least likely
// stripes within CaptureHorizon, at most 5, least likely first.
func weakest(m *odds.Model, pages []odds.Page, needs []odds.Need, idx []int) []int {
	if len(idx) <= 1 {
		return nil
	}
	sets := make([][]odds.Need, len(idx))
	for i, j := range idx {
		sets[i] = []odds.Need{needs[j]}
	}
	ps := m.RecoverableAll(pages, sets, CaptureHorizon)
	order := make([]int, len(idx))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	return order[:min(5, len(order))]
}

// captureOdds gives each page the model's probability that some archive
// captures it within CaptureHorizon (and the capture is listed by then):
// what inject --status plans the next generation with.
func captureOdds(m *odds.Model, pages []odds.Page) map[string]float64 {
	ps := m.Captured(pages, CaptureHorizon)
	out := make(map[string]float64, len(pages))
	for i, p := range pages {
		out[p.Key] = finite(ps[i])
	}
	return out
}

// modelEvidence says what the fitted model rests on.
func modelEvidence(m *odds.Model) *Evidence {
	out := &Evidence{PriorDominated: len(m.Archives) > 0}
	var days []float64
	for _, a := range m.Archives {
		days = append(days, a.Evidence.Days)
		rate := 0.0
		if len(a.Sweeps) > 0 {
			rate = a.Sweeps[0]
		}
		out.Sweeps = append(out.Sweeps, Sweeps{Archive: a.Name, Sweeps: a.Evidence.Sweeps, Rate: finite(rate)})
		out.PriorDominated = out.PriorDominated && a.Evidence.Prior
		p := odds.PriorOf(a.Name)
		if out.PriorWeight == 0 {
			out.PriorWeight = time.Duration(p.Weight * float64(odds.Day))
			if p.Sweep > 0 {
				out.PriorInterval = time.Duration(float64(odds.Day) / p.Sweep)
			}
		}
	}
	if len(days) > 0 {
		slices.Sort(days)
		out.ShortestExposure = time.Duration(days[0] * float64(odds.Day))
		out.MedianExposure = time.Duration(days[len(days)/2] * float64(odds.Day))
	}
	return out
}
