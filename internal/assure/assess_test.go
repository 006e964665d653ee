package assure

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

var now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

// every returns n captures, one every step, the last at now − offset.
func every(n int, step, offset time.Duration) []Capture {
	out := make([]Capture, n)
	for i := range out {
		out[i] = Capture{Time: now.Add(-offset - time.Duration(n-1-i)*step), Digest: "same"}
	}
	return out
}

// oneBlockPages makes n pages at depth 1, page i carrying shard i of
// stripe 0 of segment seg, each with caps(i) as its captures by "ia".
func oneBlockPages(n int, seg string, caps func(i int) []Capture) []Page {
	pages := make([]Page, n)
	for i := range pages {
		pages[i] = Page{
			URL:      fmt.Sprintf("https://example.org/p%d", i),
			Depth:    1,
			Blocks:   []manifest.BlockRef{{Segment: seg, Stripe: 0, Shard: uint16(i)}},
			Captures: map[string][]Capture{"ia": caps(i)},
		}
	}
	return pages
}

// TestAssessBriefVectors: 30 pages with one block each, captured every 30
// days (κ̂ = 3/90 d), k = 20: the exact Independent view gives BRIEF §5's
// 0.426/0.947/0.9987 at 30/45/60 days. BRIEF §5 takes κ as given, so the
// fixed prior is off (NoPrior): with it the rate is (3 + α₀)/(90 + β₀),
// see TestPriorFades.
func TestAssessBriefVectors(t *testing.T) {
	site := Site{
		Now:      now,
		Segments: []Segment{{Name: "data", K: 20, M: 10, Stripes: 1}},
		Pages:    oneBlockPages(30, "data", func(int) []Capture { return every(3, 30*Day, Day) }),
	}
	a, err := Assess(site, Options{At: []time.Duration{30 * Day, 45 * Day, 60 * Day}, Samples: 500, NoPrior: true})
	if err != nil {
		t.Fatal(err)
	}
	g := a.Independent.Generation
	if !g.Exact {
		t.Fatal("independent view of one-block pages should be exact")
	}
	for j, want := range []float64{0.426, 0.947, 0.9987} {
		if d := []int{3, 3, 4}[j]; round(g.P[j], d) != want {
			t.Errorf("at %v: P = %.5f, want %v", a.At[j], g.P[j], want)
		}
	}
	if !g.Reached || g.Reach < 45*Day || g.Reach > 60*Day {
		t.Errorf("reach %v (%v), want between 45 and 60 days", g.Reach, g.Reached)
	}
	for _, r := range a.Rates {
		if r.Pooled || r.Captures != 3 || math.Abs(r.Rate-1.0/30) > 1e-12 {
			t.Fatalf("rate %+v, want own rate 1/30", r)
		}
	}
}

// TestAssessArchivedEnough: with k blocks of every stripe already archived
// both views are certain now.
func TestAssessArchivedEnough(t *testing.T) {
	site := Site{
		Now:      now,
		Segments: []Segment{{Name: "data", K: 2, M: 1, Stripes: 2}, {Name: "list", K: 1, M: 1, Stripes: 1, Listing: true}},
		Pages:    oneBlockPages(3, "data", func(int) []Capture { return nil }),
		Archived: map[string][]manifest.BlockRef{
			"ia": {{Segment: "data", Stripe: 0, Shard: 0}, {Segment: "data", Stripe: 1, Shard: 2}, {Segment: "list", Stripe: 0, Shard: 1}},
			"cc": {{Segment: "data", Stripe: 0, Shard: 2}, {Segment: "data", Stripe: 1, Shard: 1}},
		},
	}
	a, err := Assess(site, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]View{"independent": a.Independent, "sweep": a.Sweep} {
		for _, c := range append([]SegmentCurve{{Name: "generation", Curve: v.Generation}}, v.Segments...) {
			for j, p := range c.P {
				if p != 1 || c.StdErr[j] != 0 {
					t.Errorf("%s %s at %v: P = %v ± %v, want 1", name, c.Name, a.At[j], p, c.StdErr[j])
				}
			}
			if !c.Reached || c.Reach != 0 {
				t.Errorf("%s %s: reach %v (%v), want 0", name, c.Name, c.Reach, c.Reached)
			}
			if len(c.Weakest) != 0 {
				t.Errorf("%s %s: weakest %v, want none", name, c.Name, c.Weakest)
			}
		}
	}
}

// TestAssessNeverCaptured: carriers that no archive has captured in the
// window (and no page captured in the window to borrow a rate from). Raw
// rates (NoPrior) give P = 0 forever, "never"; with the fixed prior 90
// days without a capture give a small rate, (0 + α₀)/(90 + β₀) pooled, so
// P stays small and the target is still never reached within a year.
func TestAssessNeverCaptured(t *testing.T) {
	pages := oneBlockPages(5, "data", func(int) []Capture { return nil })
	pages = append(pages, Page{URL: "https://example.org/", Captures: map[string][]Capture{"ia": every(3, Day, 200*Day)}})
	site := Site{Now: now, Segments: []Segment{{Name: "data", K: 3, M: 2, Stripes: 1}}, Pages: pages}
	for _, noPrior := range []bool{true, false} {
		a, err := Assess(site, Options{Samples: 300, NoPrior: noPrior})
		if err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]Curve{"independent": a.Independent.Generation, "sweep": a.Sweep.Generation} {
			for j, p := range c.P {
				if noPrior && p != 0 || !noPrior && !(p < 0.15) {
					t.Errorf("NoPrior %v: %s at %v: P = %v, want 0 (NoPrior) or small", noPrior, name, a.At[j], p)
				}
			}
			if c.Reached {
				t.Errorf("NoPrior %v: %s: reached in %v, want never", noPrior, name, c.Reach)
			}
		}
		if w := a.Sweep.Segments[0].Weakest; !reflect.DeepEqual(w, []int{0}) {
			t.Errorf("NoPrior %v: weakest = %v, want [0]", noPrior, w)
		}
	}
}

// sweptSite is a correlated history: every 10 days the archive captures
// all 30 pages within an hour (9 sweeps in 90 days), k = 20 of 30.
func sweptSite() Site {
	return Site{
		Now:      now,
		Segments: []Segment{{Name: "data", K: 20, M: 10, Stripes: 1}},
		Pages: oneBlockPages(30, "data", func(i int) []Capture {
			return every(9, 10*Day, Day+time.Duration(i)*time.Minute)
		}),
	}
}

// TestSweepBelowIndependent: on a history where the archive captures the
// whole site in each visit, the Sweep view is well below the Independent
// one at high P, and reaches the target later. Why: both views give each
// page the same capture rate, so the expected number of captured blocks
// is the same; but in sweeps the pages are captured together, which
// widens the spread of that number (here to all-or-nothing). When P_rec is
// high the mean lies above k, and a wider spread puts more mass below k.
// The Sweep view here is exactly P(a sweep by t) = 1 − e^(−Λt), with Λ the
// posterior mean of 9 sweeps in 90 days under the fixed prior,
// (9 + 30/127)/(90 + 30) ≈ 0.077 (0.1 without the prior).
func TestSweepBelowIndependent(t *testing.T) {
	a, err := Assess(sweptSite(), Options{At: []time.Duration{30 * Day, 45 * Day}, Samples: 4000})
	if err != nil {
		t.Fatal(err)
	}
	ind, sw := a.Independent.Generation, a.Sweep.Generation
	lambda := (9 + 30.0/127) / (90 + 30)
	if e := a.Evidence.Sweeps; len(e) != 1 || e[0].Sweeps != 9 || math.Abs(e[0].Rate-lambda) > 1e-12 {
		t.Fatalf("sweeps %+v, want 9 sweeps, Λ = %v", e, lambda)
	}
	for j, at := range a.At {
		if !(ind.P[j] > 0.99 && sw.P[j] < ind.P[j]-4*sw.StdErr[j]) {
			t.Errorf("at %v: independent %v, sweep %v ± %v: want sweep clearly lower", at, ind.P[j], sw.P[j], sw.StdErr[j])
		}
		want := -math.Expm1(-lambda * days(at))
		if math.Abs(sw.P[j]-want) > 4*sw.StdErr[j] {
			t.Errorf("at %v: sweep %v ± %v, want 1 − e^(−Λt) = %v", at, sw.P[j], sw.StdErr[j], want)
		}
	}
	if !ind.Reached || !sw.Reached || sw.Reach <= ind.Reach {
		t.Errorf("reach: independent %v, sweep %v; want sweep later", ind.Reach, sw.Reach)
	}
}

// TestAssessDeterministic: equal Seeds give equal assessments, however
// many goroutines run the simulation.
func TestAssessDeterministic(t *testing.T) {
	site := hubSite()
	o := Options{Seed: 42, Samples: 1000}
	a, err := Assess(site, o)
	if err != nil {
		t.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(1)
	b, err := Assess(site, o)
	runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different results:\n%+v\n%+v", a, b)
	}
	if a.Independent.Generation.Exact {
		t.Error("hub site's generation should need Monte Carlo")
	}
	o.Seed = 43
	c, err := Assess(site, o)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Sweep, c.Sweep) {
		t.Error("different seeds gave identical simulations")
	}
}

// hubSite has 6 pages each carrying blocks of two segments' stripes, so
// the generation is not a product over stripes.
func hubSite() Site {
	site := Site{Now: now, Segments: []Segment{{Name: "a", K: 2, M: 1, Stripes: 1}, {Name: "b", K: 2, M: 1, Stripes: 1}}}
	for i := range 6 {
		site.Pages = append(site.Pages, Page{
			URL:   fmt.Sprintf("https://example.org/h%d", i),
			Depth: i % 2,
			Blocks: []manifest.BlockRef{
				{Segment: "a", Shard: uint16(i % 3)},
				{Segment: "b", Shard: uint16((i + 1) % 3)},
			},
			Captures: map[string][]Capture{"ia": every(1+i, 9*Day, time.Duration(i)*time.Hour)},
		})
	}
	return site
}

// TestAssessMonteCarloMatchesBruteForce: on the hub site the generation's
// Independent Monte Carlo agrees with enumerating every capture pattern of
// the 6 pages, within 4 standard errors.
func TestAssessMonteCarloMatchesBruteForce(t *testing.T) {
	site := hubSite()
	a, err := Assess(site, Options{Samples: 20000, At: []time.Duration{3 * Day, 20 * Day}})
	if err != nil {
		t.Fatal(err)
	}
	for j, at := range a.At {
		p := make([]float64, len(site.Pages))
		for u := range p {
			p[u] = pExp(a.Rates[u].Rate, days(at))
		}
		var want float64
		for mask := range 1 << len(p) {
			w := 1.0
			have := map[manifest.BlockRef]bool{}
			for u := range p {
				if mask&(1<<u) == 0 {
					w *= 1 - p[u]
					continue
				}
				w *= p[u]
				for _, b := range site.Pages[u].Blocks {
					have[b] = true
				}
			}
			na, nb := 0, 0
			for b := range have {
				if b.Segment == "a" {
					na++
				} else {
					nb++
				}
			}
			if na >= 2 && nb >= 2 {
				want += w
			}
		}
		g := a.Independent.Generation
		if math.Abs(g.P[j]-want) > 4*math.Max(g.StdErr[j], 1e-4) {
			t.Errorf("at %v: Monte Carlo %v ± %v, enumeration %v", at, g.P[j], g.StdErr[j], want)
		}
		// Each segment alone is one stripe: exact.
		for _, s := range a.Independent.Segments {
			if !s.Exact {
				t.Errorf("segment %s should be exact", s.Name)
			}
			if s.P[j] < g.P[j]-4*g.StdErr[j] {
				t.Errorf("segment %s P %v below the generation's %v", s.Name, s.P[j], g.P[j])
			}
		}
	}
}

// TestAssessPoolsNewPages: a page with no capture borrows its depth's rate.
func TestAssessPoolsNewPages(t *testing.T) {
	pages := oneBlockPages(4, "data", func(i int) []Capture {
		if i == 3 {
			return nil
		}
		return every(6, 15*Day, Day)
	})
	pages[3].Since = now.Add(-5 * Day) // new: little exposure
	site := Site{Now: now, Segments: []Segment{{Name: "data", K: 2, M: 2, Stripes: 1}}, Pages: pages}
	a, err := Assess(site, Options{Samples: 100})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Rates[3]
	own := a.Rates[0].Rate
	if !r.Pooled || r.Captures != 0 || !(r.Rate > 0.5*own && r.Rate <= own) {
		t.Errorf("new page rate %+v, want pooled near %v", r, own)
	}
	if a.Rates[0].Pooled {
		t.Errorf("well-captured page pooled: %+v", a.Rates[0])
	}
}

// TestAssessChangeAware: an archive that ignores comment-only changes never
// stores blocks of a page that does not change visibly, unless the page
// carries the notice.
func TestAssessChangeAware(t *testing.T) {
	site := Site{
		Now:      now,
		Segments: []Segment{{Name: "data", K: 2, M: 1, Stripes: 1}},
		Pages:    oneBlockPages(3, "data", func(int) []Capture { return every(10, 9*Day, Day) }),
	}
	o := Options{ChangeAware: []string{"ia"}, Samples: 500}
	a, err := Assess(site, o)
	if err != nil {
		t.Fatal(err)
	}
	if g := a.Independent.Generation; g.Reached || g.P[2] != 0 {
		t.Errorf("unchanging pages, change-aware archive: %+v, want never", g)
	}
	for i := range site.Pages {
		site.Pages[i].Notice = true
	}
	b, err := Assess(site, o)
	if err != nil {
		t.Fatal(err)
	}
	if g := b.Independent.Generation; !g.Reached || !(g.P[2] > 0.9) {
		t.Errorf("with the notice: %+v, want likely by 30 days", g)
	}
	// Pages changing visibly every capture: stored after the next change.
	for i := range site.Pages {
		site.Pages[i].Notice = false
		for j := range site.Pages[i].Captures["ia"] {
			site.Pages[i].Captures["ia"][j].Digest = fmt.Sprint(j % 2)
		}
	}
	c, err := Assess(site, o)
	if err != nil {
		t.Fatal(err)
	}
	gi, gs := c.Independent.Generation, c.Sweep.Generation
	if !(gi.P[2] > 0 && gi.P[2] < b.Independent.Generation.P[2]) {
		t.Errorf("changing pages: %v, want between 0 and the notice's %v", gi.P[2], b.Independent.Generation.P[2])
	}
	if c.Rates[0].Change <= 0 {
		t.Errorf("change rate %v, want positive", c.Rates[0].Change)
	}
	if gs.P[2] > gi.P[2]+4*gs.StdErr[2] {
		t.Errorf("sweep %v above independent %v", gs.P[2], gi.P[2])
	}
}

// TestAssessWeakest: the stripe with fewest carriers is the weakest; a
// stripe nobody carries comes first.
func TestAssessWeakest(t *testing.T) {
	site := Site{Now: now, Segments: []Segment{{Name: "data", K: 2, M: 2, Stripes: 4}}}
	carriers := map[int]int{0: 4, 1: 2, 2: 3} // stripe 3: none
	for stripe, n := range carriers {
		for shard := range n {
			site.Pages = append(site.Pages, Page{
				URL:      fmt.Sprintf("https://example.org/s%d/%d", stripe, shard),
				Blocks:   []manifest.BlockRef{{Segment: "data", Stripe: uint32(stripe), Shard: uint16(shard)}},
				Captures: map[string][]Capture{"ia": every(3, 30*Day, Day)},
			})
		}
	}
	a, err := Assess(site, Options{Samples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if w := a.Independent.Segments[0].Weakest; !reflect.DeepEqual(w, []int{3, 1, 2, 0}) {
		t.Errorf("weakest = %v, want [3 1 2 0]", w)
	}
	if a.Independent.Generation.Reached || a.Independent.Generation.P[2] != 0 {
		t.Errorf("a stripe without carriers: %+v, want never", a.Independent.Generation)
	}
}

func TestAssessInvalid(t *testing.T) {
	good := func() Site { return sweptSite() }
	ref := func(seg string, stripe uint32, shard uint16) []manifest.BlockRef {
		return []manifest.BlockRef{{Segment: seg, Stripe: stripe, Shard: shard}}
	}
	cases := map[string]func(s *Site, o *Options){
		"zero now":          func(s *Site, o *Options) { s.Now = time.Time{} },
		"no segments":       func(s *Site, o *Options) { s.Segments = nil },
		"only listing":      func(s *Site, o *Options) { s.Segments[0].Listing = true },
		"k = 0":             func(s *Site, o *Options) { s.Segments[0].K = 0 },
		"negative m":        func(s *Site, o *Options) { s.Segments[0].M = -1 },
		"no stripes":        func(s *Site, o *Options) { s.Segments[0].Stripes = 0 },
		"segment twice":     func(s *Site, o *Options) { s.Segments = append(s.Segments, s.Segments[0]) },
		"page twice":        func(s *Site, o *Options) { s.Pages[1].URL = s.Pages[0].URL },
		"empty URL":         func(s *Site, o *Options) { s.Pages[0].URL = "" },
		"negative depth":    func(s *Site, o *Options) { s.Pages[0].Depth = -1 },
		"unknown segment":   func(s *Site, o *Options) { s.Pages[0].Blocks = ref("nope", 0, 0) },
		"stripe too high":   func(s *Site, o *Options) { s.Pages[0].Blocks = ref("data", 1, 0) },
		"shard too high":    func(s *Site, o *Options) { s.Pages[0].Blocks = ref("data", 0, 30) },
		"archived too high": func(s *Site, o *Options) { s.Archived = map[string][]manifest.BlockRef{"ia": ref("data", 0, 99)} },
		"unnamed archive":   func(s *Site, o *Options) { s.Pages[0].Captures[""] = nil },
		"unnamed archived":  func(s *Site, o *Options) { s.Archived = map[string][]manifest.BlockRef{"": nil} },
		"negative samples":  func(s *Site, o *Options) { o.Samples = -1 },
		"too many samples":  func(s *Site, o *Options) { o.Samples = MaxSamples + 1 },
		"target above 1":    func(s *Site, o *Options) { o.Target = 1.5 },
		"target NaN":        func(s *Site, o *Options) { o.Target = math.NaN() },
		"at past horizon":   func(s *Site, o *Options) { o.At = []time.Duration{400 * Day} },
		"negative at":       func(s *Site, o *Options) { o.At = []time.Duration{-Day} },
		"negative window":   func(s *Site, o *Options) { o.Window = -Day },
		"negative prior":    func(s *Site, o *Options) { o.PriorDays = -Day },
		"negative interval": func(s *Site, o *Options) { o.PriorInterval = -Day },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			s, o := good(), Options{Samples: 10}
			damage(&s, &o)
			a, err := Assess(s, o)
			if !errors.Is(err, ErrInvalid) || a != nil {
				t.Errorf("got %v, %v; want ErrInvalid", a, err)
			}
		})
	}
}
