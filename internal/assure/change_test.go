package assure

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestBriefChangeRateVectors reproduces BRIEF §5's eq. 5 vectors.
func TestBriefChangeRateVectors(t *testing.T) {
	d := func(n ...int) []time.Duration {
		out := make([]time.Duration, len(n))
		for i, x := range n {
			out[i] = time.Duration(x) * Day
		}
		return out
	}
	got, err := ChangeRate(d(10, 20), d(30, 40))
	if err != nil {
		t.Fatal(err)
	}
	if round(got, 6) != 0.023806 {
		t.Errorf("t_c={10,20}, t_u={30,40}: λ = %.8f, want 0.023806", got)
	}
	// Equal intervals of 7 days, n = 10, m = 3: 3/(e^{7λ} − 1) = 7, so
	// λ = ln(10/7)/7.
	got, err = ChangeRate(d(7, 7, 7), d(7, 7, 7, 7, 7, 7, 7))
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(10.0/7) / 7; round(got, 6) != 0.050954 || math.Abs(got-want) > 1e-12 {
		t.Errorf("equal intervals: λ = %.10f, want %.10f (0.050954)", got, want)
	}
}

// TestChangeRateSpecialCases: seed 001's m = 0 (no change seen: 0) and
// m = n (eq. 5 has no finite root: eq. 4 with X̄ = 0, r̂ = log(2n + 1) per
// interval).
func TestChangeRateSpecialCases(t *testing.T) {
	got, err := ChangeRate(nil, []time.Duration{Day, 2 * Day})
	if err != nil || got != 0 {
		t.Errorf("m = 0: %v, %v; want 0, nil", got, err)
	}
	week := 7 * Day
	got, err = ChangeRate([]time.Duration{week, week, week, week}, nil)
	if want := math.Log(9) / 7; err != nil || math.Abs(got-want) > 1e-15 {
		t.Errorf("m = n = 4 weekly: %v, %v; want %v", got, err, want)
	}
	if got := ChangesPerInterval(10); math.Abs(got-math.Log(21)) > 1e-15 {
		t.Errorf("ChangesPerInterval(10) = %v, want ln 21", got)
	}
	if _, err := ChangeRate(nil, nil); !errors.Is(err, ErrNoIntervals) {
		t.Errorf("no intervals: %v, want ErrNoIntervals", err)
	}
	if _, err := ChangeRate([]time.Duration{0}, []time.Duration{Day}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero interval: %v, want ErrInvalid", err)
	}
}

// TestChangeRateSolvesEq5 checks, on random irregular histories, that the
// estimate is a root of eq. 5 to the solver's precision.
func TestChangeRateSolvesEq5(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		var tc, tu []time.Duration
		m := 1 + rng.IntN(10)
		n := m + 1 + rng.IntN(10)
		for j := range n {
			iv := time.Duration(1 + rng.Int64N(int64(200*Day)))
			if j < m {
				tc = append(tc, iv)
			} else {
				tu = append(tu, iv)
			}
		}
		l, err := ChangeRate(tc, tu)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		var lhs, rhs float64
		for _, x := range tc {
			lhs += days(x) / math.Expm1(l*days(x))
		}
		for _, x := range tu {
			rhs += days(x)
		}
		if math.Abs(lhs-rhs) > 1e-9*rhs {
			t.Errorf("case %d: λ=%v: Σt_c/(e^λt_c−1) = %v, Σt_u = %v", i, l, lhs, rhs)
		}
	}
}

func TestChangeIntervals(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d int) time.Time { return t0.Add(time.Duration(d) * Day) }
	obs := []Capture{
		{Time: at(10), Digest: "B"}, // out of order on purpose
		{Time: at(0), Digest: "A"},
		{Time: at(5), Digest: "A"},
		{Time: at(7), Digest: ""}, // unknown digest: skipped
		{Time: at(10), Digest: "B"},
		{Time: at(20), Digest: "C"}, // interval (10, 20] holds a rotation
		{Time: at(30), Digest: "C"},
	}
	changed, unchanged := ChangeIntervals(obs, []time.Time{at(15)})
	if len(changed) != 1 || changed[0] != 5*Day {
		t.Errorf("changed = %v, want [5 d]", changed)
	}
	if len(unchanged) != 2 || unchanged[0] != 5*Day || unchanged[1] != 10*Day {
		t.Errorf("unchanged = %v, want [5 d, 10 d]", unchanged)
	}
}

// TestPHypo checks the hypoexponential against simulation
// and its limits.
func TestPHypo(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ k, l, d float64 }{{0.1, 0.05, 20}, {0.2, 0.2, 10}, {1, 0.01, 60}, {0.05, 3, 5}} {
		got := pHypo(tc.k, tc.l, tc.d)
		const n = 100000
		hits := 0
		for range n {
			if rng.ExpFloat64()/tc.l+rng.ExpFloat64()/tc.k <= tc.d {
				hits++
			}
		}
		p := float64(hits) / n
		if se := math.Sqrt(p * (1 - p) / n); math.Abs(p-got) > 4*se+1e-4 {
			t.Errorf("κ=%v λ=%v D=%v: %v, simulated %v ± %v", tc.k, tc.l, tc.d, got, p, se)
		}
	}
	if got, want := pHypo(0.1, math.Inf(1), 10), pExp(0.1, 10); got != want {
		t.Errorf("infinite change rate: %v, want pExp %v", got, want)
	}
	if got := pHypo(0.1, 0, 10); got != 0 {
		t.Errorf("no change: %v, want 0", got)
	}
}
