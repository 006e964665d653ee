package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// horizons are the horizons the backtest checks, after now.
var horizons = []time.Duration{7 * day, 30 * day}

// The world's calendar: generations at days 0, 50, and 100 to 148 (each
// at a random time of its day), status run at day 150. With the
// third always at day 100, established sites were nearly all recoverable
// by day 150 already (a forecast of 1, trivially right); drawing its day
// spreads its age at day 150 from 1 to 50 days.
var (
	generationDays = []float64{0, 50, 100}
	lastSpread     = 49.0
	nowDay         = 150.0
)

// keyPair is the keys every world's site uses.
type keyPair struct {
	Owner, Server []byte
}

// result is one world's outcome.
type result struct {
	Kind  string `json:"kind"`
	World int    `json:"world"`
	// Predicted is status's forecast, per horizon: P(the newest
	// generation is recoverable within it), nil if status gave none
	// (Error says why).
	Predicted []float64 `json:"predicted,omitempty"`
	// Restored is, per horizon, whether the real recover, run on what
	// the archives list by then, restored the newest generation exactly.
	Restored []bool `json:"restored"`
	// Any is, per horizon, whether recover restored some generation
	// whole (a coherent restore point, maybe an older one).
	Any []bool `json:"any_restore_point"`
	// Now reports whether status found the newest generation
	// recoverable already at day 150.
	Now bool `json:"recoverable_now"`
	// Age is the newest generation's age at day 150, in days.
	Age float64 `json:"age_days"`
	// PageOdds are, per page status modelled, its probability that some
	// archive captures the page within 30 days (listed by then:
	// Assessment.Capture) and whether one did.
	PageOdds []pageOdds `json:"page_odds,omitempty"`
	// What status saw.
	Pages      int      `json:"pages"`
	Carriers   int      `json:"carriers"`
	DepthKnown int      `json:"depth_known"`
	Survives   int      `json:"survives_loss_of"`
	Fitted     []fitted `json:"fitted,omitempty"`
	// Observed is how many days of history status fitted its model to
	// (Evidence.MedianExposure).
	Observed float64 `json:"observed_days"`
	// The truth of the world, per archive.
	Truth []truth `json:"truth"`
	// Alone are the world's archives one at a time, in a world of two
	// or more: what status forecast of each alone and what recover from
	// each alone restored.
	Alone []alone `json:"alone,omitempty"`
	// TwoArchives is status's chance, per horizon, that at least two
	// archives each hold the newest generation on their own
	// (Assessment.TwoArchives); nil with one archive.
	TwoArchives []float64 `json:"two_archives,omitempty"`
	// Inject is what inject printed for the newest generation when it
	// made it, and what came of it.
	Inject []injectOdds `json:"inject_outlook,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// alone is one archive of a world of two or more, on its own.
type alone struct {
	Protocol string `json:"protocol"`
	// Predicted is status's chance, per horizon, that this archive
	// alone holds the newest generation (Assessment.PerArchive); nil
	// if status gave none.
	Predicted []float64 `json:"predicted,omitempty"`
	// Restored is, per horizon, whether the real recover reading this
	// archive alone restored the newest generation exactly.
	Restored []bool `json:"restored"`
	// HeldNow says that status named the archive among those holding
	// the newest generation on their own at day 150 (Generation.HeldBy);
	// RestoredNow that recover reading it alone restored it then.
	HeldNow     bool `json:"held_by_now"`
	RestoredNow bool `json:"restored_now"`
}

// injectOdds is inject's printed chance that the generation is
// recoverable within Days days of its inject (the capture model's prior:
// inject reads no history), and whether the real recover, on what the
// archives listed that long after, restored it exactly.
type injectOdds struct {
	Days     int     `json:"days"`
	P        float64 `json:"p"`
	Restored bool    `json:"restored"`
}

// pageOdds is one page's forecast capture and what came.
type pageOdds struct {
	URL  string  `json:"url"`
	P    float64 `json:"p"`
	Came bool    `json:"captured"`
	// Shares is the page's true rate of share events (one-page captures
	// come in bursts of them), per day, all archives together; Year the
	// captures of it listed by now that were made in the year before.
	Shares float64 `json:"share_rate"`
	Year   int     `json:"captures_year"`
}

// fitted is status's fitted view of one archive, named by its source's
// kind ("wayback", "commoncrawl", "pywb").
type fitted struct {
	Archive string  `json:"archive"`
	Sweeps  int     `json:"sweeps"`
	Rate    float64 `json:"per_day"`
}

// truth is what one archive of the world really did in the year before
// now, and after.
type truth struct {
	Protocol string `json:"protocol"`
	Crawls   int    `json:"crawls"`      // crawls (sweeps) that took 2 pages or more in the year before now, listed by then
	Deep     int    `json:"deep_crawls"` // of which reached the deepest pages
	Captures int    `json:"captures"`    // captures made in the year before now, listed by then
	Pending  int    `json:"pending"`     // captures made by now, listed after now
	Future   int    `json:"future"`      // captures made after now and listed within the last horizon
}

// drawWorld draws a world's site, its server side, the day t0 the
// backtest's clock starts from, the site's launch and its generations'
// publication times, in that order from rng (every mode of the backtest
// draws the same worlds from the same seed).
func drawWorld(rng *rand.Rand, k kind) (st *site, ss *serverSide, t0, launch time.Time, at []time.Time) {
	st = newSite(rng)
	ss = newServerSide(rng, st)
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	t0 = start.Add(days(rng.Float64() * 365))
	launch = t0.Add(-k.Age(rng))
	for j, d := range generationDays {
		if j == len(generationDays)-1 {
			d += math.Floor(rng.Float64() * lastSpread)
		}
		at = append(at, t0.Add(days(d+rng.Float64())))
	}
	return st, ss, t0, launch, at
}

// runWorld builds world number i of kind k and backtests status on it.
func runWorld(ctx context.Context, k kind, ki, i int, seed uint64, keys keyPair, tmp string, client source.Doer) (result, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(ki)<<32|uint64(i)))
	res := result{Kind: k.Name, World: i}
	st, ss, t0, launch, at := drawWorld(rng, k)
	now := t0.Add(days(nowDay))
	end := now.Add(horizons[len(horizons)-1] + time.Hour)

	w, err := newWorldDir(tmp)
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(w.root)
	if err := st.write(w.site, rng); err != nil {
		return res, err
	}
	gens, srv, err := publish(ctx, w, st, ss, launch, at, keys.Server, func() { ss.change(rng) })
	if err != nil {
		return res, err
	}
	newest := gens[len(gens)-1]
	res.Age = now.Sub(newest.At).Hours() / 24

	archives := k.Archives(rng, st, launch, t0)
	caps := make([][]capture, len(archives))
	for j, a := range archives {
		caps[j] = a.captures(rng, srv, launch, end)
		res.Truth = append(res.Truth, truthOf(a, caps[j], st, now))
	}

	// Status, as of now, on what the archives list by now.
	srcs, stop, err := serveAll(archives, caps, now, client)
	if err != nil {
		return res, err
	}
	rep, err := status.Run(ctx, status.Options{SiteURL: siteURL, Sources: srcs, ServerKey: keys.Server, Now: now, NoLive: true,
		History: []history.Store{history.Dir(filepath.Join(w.state, injector.HistoryDir))}})
	if err != nil {
		stop()
		return res, fmt.Errorf("status: %w", err)
	}
	if len(archives) > 1 {
		// Each archive alone, now: what status's held_by says.
		res.Alone = make([]alone, len(archives))
		for j, src := range srcs {
			res.Alone[j] = alone{Protocol: archives[j].Protocol, HeldNow: heldBy(rep, newest.ID, src.Name())}
			ok, _, err := restore(ctx, srcs[j:j+1], keys.Owner, filepath.Join(w.root, "alone"), w.root, newest)
			if err != nil {
				stop()
				return res, err
			}
			res.Alone[j].RestoredNow = ok
		}
	}
	stop()
	res.Now = rep.Outcome() == status.NewestRecoverable && rep.Newest == newest.ID
	if a := rep.Assessment; a == nil || a.Generation != newest.ID || a.Error != "" || len(a.Views) == 0 {
		res.Error = assessmentProblem(rep, newest.ID)
	} else {
		res.Pages, res.Carriers, res.DepthKnown, res.Survives = a.Pages, a.Carriers, a.DepthKnown, a.Survives
		if a.Evidence != nil {
			res.Observed = a.Evidence.MedianExposure.Hours() / 24
			for _, s := range a.Evidence.Sweeps {
				name, _, _ := strings.Cut(s.Archive, "=") // "pywb=URL": the port changes from run to run
				res.Fitted = append(res.Fitted, fitted{Archive: name, Sweeps: s.Sweeps, Rate: s.Rate})
			}
		}
		res.PageOdds = pageOutcomes(a.Capture, archives, caps, now)
		var missing bool
		if res.Predicted, missing = probabilitiesAt(a.Views[0].At); missing {
			res.Error = "status gave no probability at some horizon"
		}
		if len(res.Alone) > 0 {
			res.TwoArchives, _ = probabilitiesAt(a.TwoArchives)
			for j, src := range srcs {
				for _, o := range a.PerArchive {
					if o.Archive == src.Name() {
						res.Alone[j].Predicted, _ = probabilitiesAt(o.At)
					}
				}
			}
		}
	}

	// The real recover on what the archives list by each horizon.
	for hi, h := range horizons {
		srcs, stop, err := serveAll(archives, caps, now.Add(h), client)
		if err != nil {
			return res, err
		}
		ok, whole, err := restore(ctx, srcs, keys.Owner, filepath.Join(w.root, fmt.Sprintf("out%d", hi)), w.root, newest)
		for j := range res.Alone {
			if err != nil {
				break
			}
			var one bool
			one, _, err = restore(ctx, srcs[j:j+1], keys.Owner, filepath.Join(w.root, "alone"), w.root, newest)
			res.Alone[j].Restored = append(res.Alone[j].Restored, one)
		}
		stop()
		if err != nil {
			return res, err
		}
		res.Restored = append(res.Restored, ok)
		res.Any = append(res.Any, whole)
	}

	// What inject printed of the newest generation, against recover
	// that long after the inject.
	for _, c := range newest.Outlook {
		srcs, stop, err := serveAll(archives, caps, newest.At.Add(time.Duration(c.Days)*day), client)
		if err != nil {
			return res, err
		}
		ok, _, err := restore(ctx, srcs, keys.Owner, filepath.Join(w.root, "inject"), w.root, newest)
		stop()
		if err != nil {
			return res, err
		}
		res.Inject = append(res.Inject, injectOdds{Days: c.Days, P: c.Probability, Restored: ok})
	}
	return res, nil
}

// heldBy reports whether status named source among those holding
// generation gen on their own (Generation.HeldBy).
func heldBy(rep *status.Report, gen, source string) bool {
	for _, g := range rep.Generations {
		if g.ID == gen {
			for _, h := range g.HeldBy {
				if h.Source == source {
					return true
				}
			}
		}
	}
	return false
}

// pageOutcomes pairs status's capture odds of each page (within
// status.CaptureHorizon, listed by then) with whether some archive
// captured the page after now and listed it by then, pages in order.
func pageOutcomes(odds map[string]float64, archives []archive, caps [][]capture, now time.Time) []pageOdds {
	came, year, shares := map[string]bool{}, map[string]int{}, map[string]float64{}
	by := now.Add(status.CaptureHorizon)
	for j, cs := range caps {
		for _, s := range archives[j].Sharers {
			for u, r := range s.Rates {
				shares[u] += r
			}
		}
		for _, c := range cs {
			if c.Time.After(now) && !c.Visible.After(by) {
				came[c.URL] = true
			}
			if !c.Visible.After(now) && c.Time.After(now.Add(-365*day)) {
				year[c.URL]++
			}
		}
	}
	out := make([]pageOdds, 0, len(odds))
	for u, p := range odds {
		out = append(out, pageOdds{URL: u, P: p, Came: came[u], Shares: shares[u], Year: year[u]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL < out[j].URL })
	return out
}

// assessmentProblem says why status gave no forecast for the newest
// generation.
func assessmentProblem(rep *status.Report, newest string) string {
	a := rep.Assessment
	switch {
	case a == nil:
		return fmt.Sprintf("status made no assessment (newest generation seen %q)", rep.Newest)
	case a.Generation != newest:
		return fmt.Sprintf("status assessed generation %s, not the newest, %s", a.Generation, newest)
	case a.Error != "":
		return "status: " + a.Error
	}
	return "status's assessment has no view"
}

// probabilitiesAt returns the probabilities listed at the horizons; nil
// and missing true if some horizon is not listed.
func probabilitiesAt(ps []status.Probability) (out []float64, missing bool) {
	for _, h := range horizons {
		i := slices.IndexFunc(ps, func(p status.Probability) bool { return p.After == h })
		if i < 0 {
			return nil, true
		}
		out = append(out, ps[i].P)
	}
	return out, false
}

// restore runs the real recover into out and reports whether it
// restored the newest generation exactly (every file byte for byte) and
// whether it restored some generation whole.
func restore(ctx context.Context, srcs []source.Source, owner []byte, out, tmp string, newest generation) (exact, whole bool, err error) {
	defer os.RemoveAll(out)
	got, err := restoreInto(ctx, srcs, owner, out, tmp)
	switch {
	case err != nil:
		return false, false, err
	case got == "":
		return false, false, nil
	case got != newest.ID:
		return false, true, nil
	}
	for name, want := range newest.Files {
		got, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, want) {
			return false, true, nil
		}
	}
	return true, true, nil
}

// restoreInto runs the real recover into out and returns the generation
// it restored whole, "" if none.
func restoreInto(ctx context.Context, srcs []source.Source, owner []byte, out, tmp string) (string, error) {
	o := lzrecover.DefaultOptions()
	o.OwnerKey, o.Out, o.TempDir, o.SiteURL, o.Sources = owner, out, tmp, siteURL, srcs
	rep, err := lzrecover.Run(ctx, o)
	switch {
	case errors.Is(err, lzrecover.ErrNothingFound), errors.Is(err, lzrecover.ErrPartial):
	case err != nil:
		return "", fmt.Errorf("recover: %w", err)
	}
	if rep == nil {
		return "", nil
	}
	return rep.Generation, nil
}

// serveAll starts a loopback archive per world archive holding the
// captures it lists by t, each speaking its archive's protocol, and
// returns them as sources, and a function that stops them.
func serveAll(archives []archive, caps [][]capture, t time.Time, client source.Doer) ([]source.Source, func(), error) {
	var srvs []*archivetest.Server
	stop := func() {
		for _, s := range srvs {
			s.Close()
		}
	}
	var srcs []source.Source
	for j, a := range archives {
		var held []archivetest.Capture
		for _, c := range caps[j] {
			if !c.Visible.After(t) {
				held = append(held, archivetest.Capture{URL: "https://example.org" + c.URL, Time: c.Time, Body: c.Body, Crawl: c.Crawl})
			}
		}
		cfg := archivetest.Config{}
		if a.Protocol == "pywb" {
			cfg.Pywb = &archivetest.PywbConfig{Coll: "web"}
		}
		srv, err := archivetest.New(held, cfg)
		if err != nil {
			stop()
			return nil, nil, err
		}
		srvs = append(srvs, srv)
		var spec string
		switch a.Protocol {
		case "wayback":
			spec = "wayback=" + srv.URL
		case "commoncrawl":
			spec = "commoncrawl=" + srv.URL + "," + srv.URL
		case "pywb":
			spec = "pywb=" + srv.URL + "/web/cdx"
		}
		src, err := source.ParseArchive(spec, client)
		if err != nil {
			stop()
			return nil, nil, err
		}
		srcs = append(srcs, src)
	}
	return srcs, stop, nil
}

// truthOf summarises what archive a did in the year before now.
func truthOf(a archive, caps []capture, st *site, now time.Time) truth {
	t := truth{Protocol: a.Protocol}
	deepest := 0
	for _, p := range st.Pages {
		deepest = max(deepest, p.Depth)
	}
	depth := map[string]int{}
	for _, p := range st.Pages {
		depth[p.URL] = p.Depth
	}
	since := now.Add(-365 * day)
	crawls := map[int]map[string]bool{} // crawl → pages taken
	for _, c := range caps {
		switch {
		case c.Time.After(now):
			if !c.Visible.After(now.Add(horizons[len(horizons)-1])) {
				t.Future++
			}
			continue
		case c.Visible.After(now):
			t.Pending++
			continue
		case c.Time.Before(since):
			continue
		}
		t.Captures++
		if c.Sweep > 0 {
			if crawls[c.Sweep] == nil {
				crawls[c.Sweep] = map[string]bool{}
			}
			crawls[c.Sweep][c.URL] = true
		}
	}
	for _, pages := range crawls {
		if len(pages) < 2 {
			continue // one page: a sweep no one can tell from a one-page capture
		}
		t.Crawls++
		for u := range pages {
			if depth[u] == deepest {
				t.Deep++
				break
			}
		}
	}
	return t
}
