package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
)

// smallConfig is a fast configuration: a small site, a small backup,
// generations every 10 days so that rotation matters.
func smallConfig() Config {
	c := DefaultConfig()
	c.Pages, c.Runs, c.Days, c.ChangeEvery, c.Backup = 40, 6, 60, 10, 96<<10
	return c
}

func TestRunDeterministic(t *testing.T) {
	c := smallConfig()
	c.Workers = 1
	a, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	c.Workers = 3
	b, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	b.Config.Workers = 1
	if !reflect.DeepEqual(a, b) {
		t.Errorf("same seed, different reports with 1 and 3 workers:\n%+v\n%+v", a.Cells[0], b.Cells[0])
	}
	c.Seed++
	d, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Cells, d.Cells) {
		t.Error("seeds 1 and 2 gave the same figures: the seed is not used")
	}
	if got, want := len(a.Cells), 2*2*len(Policies()); got != want {
		t.Errorf("%d cells, want %d", got, want)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, smallConfig()); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: got %v, want context.Canceled", err)
	}
}

func TestRunInvalid(t *testing.T) {
	c := smallConfig()
	c.Pages = 1
	if _, err := Run(context.Background(), c); !errors.Is(err, ErrInvalid) {
		t.Errorf("one page: got %v, want ErrInvalid", err)
	}
}

// runParts returns run r's site captures and layouts.
func runParts(t *testing.T, c *Config, r int) ([]capture, [numPolicies][]genInput) {
	t.Helper()
	rng := stream(c, r, streamSite)
	s := newSite(c, rng)
	natural := naturalCaptures(s, -c.History, c.Days+followDays, rng)
	gens, _, err := layouts(c, r, s, natural)
	if err != nil {
		t.Fatal(err)
	}
	return natural, gens
}

func TestEqualBytes(t *testing.T) {
	c := smallConfig()
	for r := range 4 {
		_, gens := runParts(t, &c, r)
		for g := range gens[Lazarus] {
			want := gens[Lazarus][g].l.total()
			for _, p := range []Policy{RoundRobin, Random} {
				if got := gens[p][g].l.total(); got != want {
					t.Errorf("run %d generation %d: %s adds %d bytes, lazarus %d", r, g, p, got, want)
				}
			}
			all := gens[AllPages][g].l
			got := all.total()
			// All-pages rounds k up, which can leave up to 1/k of the
			// blocks' bytes unused, never more than lazarus's bytes.
			slack := float64(want) / float64(all.params[0].K)
			if got > want || float64(got) < float64(want)-slack-float64(all.params[0].Stripes()*all.params[0].Shards()*8) {
				t.Errorf("run %d generation %d: all-pages adds %d bytes, lazarus %d (k = %d)", r, g, got, want, all.params[0].K)
			}
			for u, b := range all.pages {
				if len(b) == 0 && all.params[0].Shards() == len(all.pages) {
					t.Errorf("run %d generation %d: all-pages left page %d empty", r, g, u)
				}
			}
		}
	}
}

func TestMakeBeforeBreakNeverUnsafe(t *testing.T) {
	c := smallConfig()
	bbmUnsafe := 0
	for r := range c.Runs {
		natural, gens := runParts(t, &c, r)
		end := c.Days + followDays
		for _, p := range Policies() {
			for _, rot := range []Rotation{MakeBeforeBreak, BreakBeforeMake} {
				outs := account(gens[p], natural, ledgerOptions{rotation: rot, check: c.Check, end: end}, nil)
				for h, o := range outs {
					if rot == BreakBeforeMake {
						if unsafeDrop(h, outs, end) {
							bbmUnsafe++
						}
						continue
					}
					if o.drop >= end {
						continue
					}
					// Dropped: some newer generation must have been
					// recoverable by then.
					ok := false
					for _, n := range outs[h+1:] {
						ok = ok || n.safe <= o.drop
					}
					if !ok {
						t.Errorf("run %d %s: generation %d dropped on day %g with nothing newer recoverable", r, p, h, o.drop)
					}
				}
			}
		}
	}
	// The check above must have had something to catch.
	if bbmUnsafe == 0 {
		t.Error("break-before-make never dropped an unsafe generation: the test site is too easy")
	}
}

func TestReportFigures(t *testing.T) {
	rep, err := Run(context.Background(), smallConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range rep.Cells {
		if !(x.PRec1 <= x.PRec7 && x.PRec7 <= x.PRec30 && x.PRec30 <= 1) {
			t.Errorf("%s %v %s: P_rec not rising with time: %g %g %g", x.Policy, x.Requests, x.Rotation, x.PRec1, x.PRec7, x.PRec30)
		}
		if x.Rotation == MakeBeforeBreak.String() && x.UnsafeDrops != 0 {
			t.Errorf("%s %v: %d unsafe drops under make-before-break", x.Policy, x.Requests, x.UnsafeDrops)
		}
		if x.Generations != rep.Config.Runs*len(rep.Config.generations()) {
			t.Errorf("%s: %d generations followed", x.Policy, x.Generations)
		}
		if !x.Requests && x.RequestsPerGeneration != 0 {
			t.Errorf("%s: requests made with requests off", x.Policy)
		}
		if x.Requests && x.RequestsPerGeneration == 0 {
			t.Errorf("%s: no requests made with requests on", x.Policy)
		}
		if x.NoRecoverable < 0 || x.NoRecoverable > 1 || math.IsNaN(x.NoRecoverable) {
			t.Errorf("%s: no-recoverable share %g", x.Policy, x.NoRecoverable)
		}
	}
	// The plans' bytes are the lazarus cells' bytes; the first plan has
	// no history to learn from.
	if len(rep.Plans) != len(rep.Config.generations()) || rep.Plans[0].Learned != 0 {
		t.Fatalf("plans %+v", rep.Plans)
	}
	var ratio float64
	for _, p := range rep.Plans {
		ratio += p.BytesRatio / float64(len(rep.Plans))
		if p.Planned <= 0 || p.Planned > 1 || p.Recoverable30 < 0 || p.Recoverable30 > 1 {
			t.Errorf("plan %+v", p)
		}
	}
	if laz := rep.find(Lazarus, false, MakeBeforeBreak); math.Abs(ratio*float64(rep.Config.Backup)-laz.GenerationBytes) > 1e-6*laz.GenerationBytes {
		t.Errorf("plans add %g× the backup, the lazarus cell %g bytes", ratio, laz.GenerationBytes)
	}
	if laz := rep.find(Lazarus, false, MakeBeforeBreak); math.Abs(laz.PRec30-meanRec30(rep.Plans)) > 1e-9 {
		t.Errorf("plans' P+30d %g, the lazarus cell's %g", meanRec30(rep.Plans), laz.PRec30)
	}
	if rep.Goals.UnsafeDropsBreakBeforeMake == 0 {
		t.Error("no unsafe drops under break-before-make on a site that changes every 10 days")
	}
}

// meanRec30 is the mean of the plans' Recoverable30.
func meanRec30(ps []PlanStats) float64 {
	var m float64
	for _, p := range ps {
		m += p.Recoverable30 / float64(len(ps))
	}
	return m
}
