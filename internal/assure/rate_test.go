package assure

import (
	"fmt"
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
		p := PCaptured(CaptureRate(1, 30*Day), time.Duration(tc.dwell)*Day)
		ps, cs := make([]float64, 30), make([]int, 30)
		for i := range ps {
			ps[i], cs[i] = p, 1
		}
		if got := RecoverProb(ps, cs, 20); round(got, tc.decimals) != tc.want {
			t.Errorf("dwell %d d: P_rec = %.6f, want %v", tc.dwell, got, tc.want)
		}
	}
}

func TestCaptureRate(t *testing.T) {
	if got := CaptureRate(9, 90*Day); got != 0.1 {
		t.Errorf("CaptureRate(9, 90 d) = %v, want 0.1", got)
	}
	if got := CaptureRate(3, 0); got != 0 {
		t.Errorf("CaptureRate with no window = %v, want 0", got)
	}
	if got, want := PCaptured(0.1, 10*Day), 1-math.Exp(-1); math.Abs(got-want) > 1e-15 {
		t.Errorf("PCaptured(0.1, 10 d) = %v, want %v", got, want)
	}
	for _, bad := range []struct {
		rate  float64
		dwell time.Duration
	}{{0, Day}, {-1, Day}, {1, 0}, {1, -Day}} {
		if got := PCaptured(bad.rate, bad.dwell); got != 0 {
			t.Errorf("PCaptured(%v, %v) = %v, want 0", bad.rate, bad.dwell, got)
		}
	}
}

func TestCombineArchives(t *testing.T) {
	for _, tc := range []struct {
		p    []float64
		want float64
	}{{nil, 0}, {[]float64{0.5}, 0.5}, {[]float64{0.5, 0.5}, 0.75}, {[]float64{0.9, 0.8, 0}, 0.98}} {
		if got := CombineArchives(tc.p...); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("CombineArchives(%v) = %v, want %v", tc.p, got, tc.want)
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

func ExamplePCaptured() {
	// A page captured 6 times in 90 days, over a 30-day dwell, by two
	// archives with the same rate.
	p := PCaptured(CaptureRate(6, 90*Day), 30*Day)
	fmt.Printf("%.3f %.3f\n", p, CombineArchives(p, p))
	// Output: 0.865 0.982
}
