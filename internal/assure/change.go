package assure

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// ErrNoIntervals is returned by ChangeRate when there is no interval to
// learn from: the change rate is unknown, not zero.
var ErrNoIntervals = errors.New("no observation intervals")

// ChangeRate estimates the change rate λ (changes per day) of a page
// observed at irregular times, by the maximum-likelihood estimator of
// seed 001 (Jayawardana et al., eq. 5): the root of
//
//	Σ t_c / (e^(λ·t_c) − 1) = Σ t_u
//
// where t_c are the intervals between consecutive observations in which a
// change was detected and t_u those without one. For 1 ≤ m < n (m = len
// changed, n = m + len unchanged) the root is unique: the left side falls
// from +∞ to 0 as λ grows. It is bracketed in closed form (x/(e^x − 1) lies
// between 1 − x/2 and 1) and found by Brent's method in log λ to a relative
// 1e-12. With m = 0 the estimate is 0. With m = n eq. 5 has no finite root
// and the estimator falls back to seed 001's eq. 4 for regular accesses,
// r̂ = −log(0.5/(n + 0.5)) changes per interval, divided by the mean
// interval to give a rate (exact for equal intervals).
//
// Intervals must be positive. With no interval at all it returns 0 and
// ErrNoIntervals.
func ChangeRate(changed, unchanged []time.Duration) (float64, error) {
	if err := positive(changed); err != nil {
		return 0, err
	}
	if err := positive(unchanged); err != nil {
		return 0, err
	}
	m, n := len(changed), len(changed)+len(unchanged)
	switch {
	case n == 0:
		return 0, ErrNoIntervals
	case m == 0:
		return 0, nil
	case m == n:
		return ChangesPerInterval(n) / (sumDays(changed) / float64(n)), nil
	}
	return solveEq5(toDays(changed), sumDays(unchanged))
}

// ChangesPerInterval is seed 001's eq. 4 with every access showing a
// change (X̄ = 0): r̂ = −log(0.5/(n + 0.5)) = log(2n + 1), the estimated
// changes per access interval after n accesses that all saw a change.
func ChangesPerInterval(n int) float64 {
	return -math.Log(0.5 / (float64(n) + 0.5))
}

// solveEq5 solves eq. 5 for 1 ≤ m < n, tc in days, su = Σ t_u > 0.
func solveEq5(tc []float64, su float64) (float64, error) {
	var sc float64
	for _, t := range tc {
		sc += t
	}
	m := float64(len(tc))
	g := func(x float64) float64 {
		lambda := math.Exp(x)
		var s float64
		for _, t := range tc {
			s += t / math.Expm1(lambda*t)
		}
		return s - su
	}
	// g ≥ m/λ − Σt_c/2 − Σt_u > 0 at lo; g ≤ m/λ − Σt_u < 0 at hi.
	lo := m / (2 * (su + sc))
	hi := 2 * m / su
	x, err := brent(g, math.Log(lo), math.Log(hi), 1e-12, 200)
	if err != nil {
		return 0, fmt.Errorf("solving eq. 5: %w", err)
	}
	return math.Exp(x), nil
}

// ChangeIntervals splits a page's observations into the intervals with a
// change (consecutive digests differ) and without, for ChangeRate.
// Observations without a digest are skipped; two observations at the same
// instant make no interval. An interval (t_i, t_{i+1}] containing one of
// the exclude times (when the site itself rotated the page's blocks) is
// left out: that change says nothing about how often the page changes
// visibly. Listings must not be collapsed by digest.
func ChangeIntervals(obs []Capture, exclude []time.Time) (changed, unchanged []time.Duration) {
	seq := make([]Capture, 0, len(obs))
	for _, o := range obs {
		if o.Digest != "" {
			seq = append(seq, o)
		}
	}
	slices.SortStableFunc(seq, func(a, b Capture) int { return a.Time.Compare(b.Time) })
	for i := 1; i < len(seq); i++ {
		prev, cur := seq[i-1], seq[i]
		if !cur.Time.After(prev.Time) || containsTime(exclude, prev.Time, cur.Time) {
			continue
		}
		if cur.Digest != prev.Digest {
			changed = append(changed, cur.Time.Sub(prev.Time))
		} else {
			unchanged = append(unchanged, cur.Time.Sub(prev.Time))
		}
	}
	return changed, unchanged
}

// containsTime reports whether some t in ts lies in (from, to].
func containsTime(ts []time.Time, from, to time.Time) bool {
	for _, t := range ts {
		if t.After(from) && !t.After(to) {
			return true
		}
	}
	return false
}

// pHypo is the probability that an archive which keeps a new
// copy of a page only after a visible change has stored the page's newest
// blocks within t days: the page must first change visibly (λ = l per
// day) and then be captured (κ = k per day). The waiting time is the
// sum of two exponentials (hypoexponential):
//
//	1 − (κ·e^(−λt) − λ·e^(−κt)) / (κ − λ),   or 1 − e^(−κt)(1 + κt) if κ = λ.
//
// An infinite change rate (the blocks' change is itself visible) gives
// 1 − e^(−κt) (pExp); a zero rate of either gives 0.
func pHypo(k, l, t float64) float64 {
	switch {
	case math.IsInf(l, 1):
		return pExp(k, t)
	case k <= 0 || l <= 0 || t <= 0:
		return 0
	case math.Abs(k-l) <= 1e-9*math.Max(k, l):
		x := k * t
		return -math.Expm1(-x) - x*math.Exp(-x)
	}
	// 1 − (k e^{−lt} − l e^{−kt})/(k − l), rearranged to avoid cancellation
	// when both exponentials are near 1.
	p := (k*(-math.Expm1(-l*t)) - l*(-math.Expm1(-k*t))) / (k - l)
	return math.Min(1, math.Max(0, p))
}

// positive checks that every interval is positive.
func positive(ts []time.Duration) error {
	for _, t := range ts {
		if t <= 0 {
			return fmt.Errorf("%w: interval %v is not positive", ErrInvalid, t)
		}
	}
	return nil
}

// toDays converts intervals to days.
func toDays(ts []time.Duration) []float64 {
	out := make([]float64, len(ts))
	for i, t := range ts {
		out[i] = days(t)
	}
	return out
}

// sumDays is the total of ts in days.
func sumDays(ts []time.Duration) float64 {
	var s float64
	for _, t := range ts {
		s += days(t)
	}
	return s
}
