package sim

import (
	"math"
	"testing"
)

func TestTallyClock(t *testing.T) {
	// Days 2: generation 0 (day 0) recoverable on day 0.5, generation 1
	// (day 1) on day 1.25. Hours before day 0.5 have none (12 of 48);
	// the recovery point's age rises from 0.5 to 1.25 days, then from
	// 0.25 to 1.
	c := DefaultConfig()
	c.Days = 2
	l := stripeLayout(t, 3, 2, 1, 0)
	gens := []genInput{{at: 0, l: l}, {at: 1, l: l}}
	outs := []outcome{{safe: 0.5, drop: 1.25}, {safe: 1.25, drop: math.Inf(1)}}
	var tl tally
	tl.add(&c, gens, outs, 32)
	if tl.ticks != 48 || tl.none != 12 {
		t.Errorf("%d ticks, %d with none; want 48 and 12", tl.ticks, tl.none)
	}
	if tl.recAt != [3]int{2, 2, 2} || tl.toSafe[0] != 0.5 || tl.toSafe[1] != 0.25 || tl.firstSafe[0] != 0.5 {
		t.Errorf("recAt %v, toSafe %v, firstSafe %v", tl.recAt, tl.toSafe, tl.firstSafe)
	}
	// Both generations are on the pages on day 1.
	if want := 2 * float64(l.total()); tl.peak[0] != want || tl.pageMax != 2*l.bytes[0] {
		t.Errorf("peak %g, page max %d; want %g and %d", tl.peak[0], tl.pageMax, want, 2*l.bytes[0])
	}
	// Ages: 18 hourly ticks from 0.52 to 1.23 days, 18 from 0.27 to 0.98:
	// 6 below 0.5, then two per hour, so the 18th is in hour 17.
	if got, want := histQuantile(tl.age, 0.5), 17.5/binsPerDay; got != want {
		t.Errorf("median recovery-point age %g days, want %g", got, want)
	}
}

func TestQuantiles(t *testing.T) {
	inf := math.Inf(1)
	if got := quantile([]float64{3, 1, inf, 2}, 0.5); got != 2 {
		t.Errorf("median of 1 2 3 ∞ = %g, want 2 (nearest rank)", got)
	}
	if got := quantile([]float64{inf, inf, 1}, 0.5); !math.IsInf(got, 1) {
		t.Errorf("median of 1 ∞ ∞ = %g, want ∞", got)
	}
	if !math.IsNaN(quantile(nil, 0.5)) || !math.IsNaN(histQuantile(make([]int64, 3), 0.5)) {
		t.Error("quantile of nothing is not NaN")
	}
	if got := histQuantile([]int64{0, 10, 0, 10}, 0.95); got != 3.5/binsPerDay {
		t.Errorf("histogram p95 %g, want %g", got, 3.5/binsPerDay)
	}
}
