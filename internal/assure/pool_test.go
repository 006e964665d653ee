package assure

import (
	"math"
	"testing"
	"time"
)

func TestFitPrior(t *testing.T) {
	// Identical pages: all spread is Poisson noise, so τ² = 0.
	p := FitPrior([]int{10, 10, 10}, []time.Duration{100 * Day, 100 * Day, 100 * Day}, Prior{})
	if p.Mean != 0.1 || p.Var != 0 {
		t.Errorf("identical pages: %+v, want mean 0.1, var 0", p)
	}
	// Pages that differ far more than Poisson noise allows.
	p = FitPrior([]int{0, 100, 50}, []time.Duration{100 * Day, 100 * Day, 100 * Day}, Prior{})
	if p.Mean != 0.5 || !(p.Var > 0.1) {
		t.Errorf("differing pages: %+v, want mean 0.5 and a large variance", p)
	}
	if p := FitPrior([]int{3}, []time.Duration{0}, Prior{}); p != (Prior{}) {
		t.Errorf("no exposure: %+v, want zero prior", p)
	}
}

// TestShrinkTowardDepth: a page never captured borrows its depth pool's
// rate instead of claiming "never"; more observation weighs its own count
// more; a page with plenty of captures stays near its own rate.
func TestShrinkTowardDepth(t *testing.T) {
	prior := FitPrior([]int{5, 10, 15, 20}, []time.Duration{50 * Day, 50 * Day, 50 * Day, 50 * Day}, Prior{})
	short := prior.Shrink(0, 2*Day)
	long := prior.Shrink(0, 200*Day)
	if !(short > 0 && short <= prior.Mean && math.Abs(short-prior.Mean) < 0.5*prior.Mean) {
		t.Errorf("new page: %v, want near the pool's %v", short, prior.Mean)
	}
	if !(long > 0 && long < short) {
		t.Errorf("long-observed uncaptured page: %v, want below %v and above 0", long, short)
	}
	busy := prior.Shrink(100, 100*Day)
	if !(busy > prior.Mean && busy <= 1) {
		t.Errorf("busy page: %v, want between the pool's %v and its own 1", busy, prior.Mean)
	}
	if got := (Prior{}).Shrink(4, 8*Day); got != 0.5 {
		t.Errorf("empty prior: %v, want own rate 0.5", got)
	}
	if got := (Prior{Mean: 0.3}).Shrink(0, 8*Day); got != 0.3 {
		t.Errorf("prior without spread: %v, want its mean", got)
	}
}

func TestPoolMembers(t *testing.T) {
	pools := poolMembers([]int{0, 1, 1, 1, 4}, 3)
	if got := pools[1]; len(got) != 3 {
		t.Errorf("depth 1 pool = %v, want its 3 pages", got)
	}
	if got := pools[0]; len(got) != 4 {
		t.Errorf("depth 0 pool = %v, want widened to depths 0–1 (4 pages)", got)
	}
	if got := pools[4]; len(got) != 4 {
		t.Errorf("depth 4 pool = %v, want widened to depths 1–4 (4 pages)", got)
	}
}
