package sim

import (
	"math"
	"slices"
)

// followDays is how long after Config.Days captures are still simulated,
// so that the last generation is followed for the longest horizon
// reported (+30 days).
const followDays = 30

// horizons are the days after publication at which P_rec is reported.
var horizons = [3]float64{1, 7, 30}

// binsPerDay is the resolution of the recovery-point clock: the newest
// recoverable generation is looked up every hour.
const binsPerDay = 24

// tally accumulates one cell's figures (a policy, requests on or off, a
// rotation) over runs. Runs are added in run order, so the figures do
// not depend on how many run at once.
type tally struct {
	runs        int
	gens        int                // generations followed
	recAt       [len(horizons)]int // generations recoverable by each horizon
	toSafe      []float64          // days from publication to recoverable, +Inf never
	firstSafe   []float64          // per run: day the first generation is recoverable
	age         []int64            // histogram of recovery-point age, hourly bins
	ticks       int64              // clock ticks
	none        int64              // ticks with no recoverable generation
	unsafeDrops int                // drops with nothing recoverable to fall back on
	genBytes    float64            // sum of generations' added bytes
	peak        []float64          // per run: most bytes on all pages at once
	pageMax     int                // most bytes on one page at once, any run
	requests    int                // capture requests made
}

// add tallies one run: its generations, their layouts and outcomes, and
// the day the accounting stopped.
func (t *tally) add(c *Config, gens []genInput, outs []outcome, end float64) {
	t.runs++
	first := math.Inf(1)
	for i, g := range gens {
		o := outs[i]
		d := o.safe - g.at
		t.gens++
		for h, x := range horizons {
			if d <= x {
				t.recAt[h]++
			}
		}
		t.toSafe = append(t.toSafe, d)
		first = min(first, o.safe)
		t.genBytes += float64(g.l.total())
		t.requests += o.requests
		if unsafeDrop(i, outs, end) {
			t.unsafeDrops++
		}
	}
	t.firstSafe = append(t.firstSafe, first)
	t.clock(c, gens, outs)
	t.bytes(gens, outs)
}

// unsafeDrop reports whether generation i left the pages while neither it
// nor any newer generation was recoverable: the moment make-before-break
// exists to prevent.
func unsafeDrop(i int, outs []outcome, end float64) bool {
	d := outs[i].drop
	if d >= end || outs[i].safe <= d {
		return false
	}
	for _, o := range outs[i+1:] {
		if o.safe <= d {
			return false
		}
	}
	return true
}

// clock samples, every hour of [0, Days), the age of the newest
// recoverable generation (the recovery point), or that there is none.
func (t *tally) clock(c *Config, gens []genInput, outs []outcome) {
	n := int(math.Ceil(c.Days * binsPerDay))
	if len(t.age) == 0 {
		t.age = make([]int64, n+1)
	}
	for i := range n {
		now := (float64(i) + 0.5) / binsPerDay
		t.ticks++
		newest := -1
		for g := range gens {
			if outs[g].safe <= now {
				newest = g
			}
		}
		if newest < 0 {
			t.none++
			continue
		}
		bin := min(len(t.age)-1, int((now-gens[newest].at)*binsPerDay))
		t.age[bin]++
	}
}

// bytes finds the most bytes the pages carry at once, in all and on one
// page: right after a publication, since drops only remove bytes.
func (t *tally) bytes(gens []genInput, outs []outcome) {
	peak := 0.0
	if len(gens) == 0 {
		t.peak = append(t.peak, 0)
		return
	}
	per := make([]int, len(gens[0].l.bytes))
	for _, g := range gens {
		clear(per)
		var all int64
		for h, o := range outs {
			if gens[h].at <= g.at && g.at < o.drop {
				all += gens[h].l.total()
				for u, b := range gens[h].l.bytes {
					per[u] += b
				}
			}
		}
		peak = max(peak, float64(all))
		t.pageMax = max(t.pageMax, slices.Max(per))
	}
	t.peak = append(t.peak, peak)
}

// merge adds another tally of later runs.
func (t *tally) merge(o *tally) {
	t.runs += o.runs
	t.gens += o.gens
	for h := range t.recAt {
		t.recAt[h] += o.recAt[h]
	}
	t.toSafe = append(t.toSafe, o.toSafe...)
	t.firstSafe = append(t.firstSafe, o.firstSafe...)
	if len(t.age) < len(o.age) {
		t.age = append(t.age, make([]int64, len(o.age)-len(t.age))...)
	}
	for i, n := range o.age {
		t.age[i] += n
	}
	t.ticks += o.ticks
	t.none += o.none
	t.unsafeDrops += o.unsafeDrops
	t.genBytes += o.genBytes
	t.peak = append(t.peak, o.peak...)
	t.pageMax = max(t.pageMax, o.pageMax)
	t.requests += o.requests
}

// quantile returns the q-quantile of xs by nearest rank (+Inf counts as
// the largest value); NaN for no values. It sorts xs.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	i := max(0, int(math.Ceil(q*float64(len(xs))))-1)
	return xs[i]
}

// histQuantile returns the q-quantile, in days, of the hourly histogram
// (the middle of its bin); NaN when it is empty.
func histQuantile(hist []int64, q float64) float64 {
	var total int64
	for _, n := range hist {
		total += n
	}
	if total == 0 {
		return math.NaN()
	}
	rank := int64(math.Ceil(q * float64(total)))
	var seen int64
	for i, n := range hist {
		seen += n
		if seen >= max(1, rank) {
			return (float64(i) + 0.5) / binsPerDay
		}
	}
	return (float64(len(hist)) - 0.5) / binsPerDay
}
