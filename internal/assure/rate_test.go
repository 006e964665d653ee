package assure

import (
	"math"
	"testing"
	"time"
)

// round returns x rounded to the given number of decimals.
func round(x float64, decimals int) float64 {
	s := math.Pow(10, float64(decimals))
	return math.Round(x*s) / s
}

// TestBriefDwellVectors reproduces BRIEF §5: n = 30 pages with one block
// each, r = 20, κ = 1/30 per day; after 30/45/60 days P_rec is
// 0.426/0.947/0.9987.
func TestBriefDwellVectors(t *testing.T) {
	for _, tc := range []struct {
		dwell    int
		want     float64
		decimals int
	}{{30, 0.426, 3}, {45, 0.947, 3}, {60, 0.9987, 4}} {
		p := pExp(Prior{}.Shrink(1, 30*Day), float64(tc.dwell))
		ps, cs := make([]float64, 30), make([]int, 30)
		for i := range ps {
			ps[i], cs[i] = p, 1
		}
		if got := recoverProb(ps, cs, 20); round(got, tc.decimals) != tc.want {
			t.Errorf("dwell %d d: P_rec = %.6f, want %v", tc.dwell, got, tc.want)
		}
	}
}

// TestRawRate: without a prior a rate is κ̂ = N/w (BRIEF §5), 0 with no
// window; P(captured within t) is 1 − e^(−κt), 0 for no rate or time.
func TestRawRate(t *testing.T) {
	if got := (Prior{}).Shrink(9, 90*Day); got != 0.1 {
		t.Errorf("raw rate of 9 captures in 90 d = %v, want 0.1", got)
	}
	if got := (Prior{}).Shrink(3, 0); got != 0 {
		t.Errorf("raw rate with no window = %v, want 0", got)
	}
	if got, want := pExp(0.1, 10), 1-math.Exp(-1); math.Abs(got-want) > 1e-15 {
		t.Errorf("pExp(0.1, 10) = %v, want %v", got, want)
	}
	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {1, 0}, {1, -1}} {
		if got := pExp(bad[0], bad[1]); got != 0 {
			t.Errorf("pExp(%v, %v) = %v, want 0", bad[0], bad[1], got)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		days float64
		want time.Duration
	}{{0, 0}, {1, Day}, {0.5, 12 * time.Hour}, {1e300, time.Duration(math.MaxInt64)}} {
		if got := duration(tc.days); got != tc.want {
			t.Errorf("duration(%v) = %v, want %v", tc.days, got, tc.want)
		}
	}
}
