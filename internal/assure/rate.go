package assure

import (
	"math"
	"time"
)

// Day is the unit of every rate in this package: rates are events per day.
const Day = 24 * time.Hour

// days converts d to (fractional) days.
func days(d time.Duration) float64 { return float64(d) / float64(Day) }

// duration converts fractional days to a Duration, saturating at the
// largest Duration.
func duration(days float64) time.Duration {
	ns := days * float64(Day)
	if ns >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(math.Round(ns))
}

// CaptureRate returns κ̂ = n / w, the captures per day observed when n
// captures fall in a window of length w. It returns 0 when w ≤ 0.
func CaptureRate(n int, window time.Duration) float64 {
	if window <= 0 {
		return 0
	}
	return float64(n) / days(window)
}

// PCaptured returns the probability that a page captured as a Poisson
// process of the given rate (per day) is captured at least once within
// dwell: 1 − e^(−κ·D). It returns 0 for a non-positive rate or dwell.
func PCaptured(rate float64, dwell time.Duration) float64 {
	return pExp(rate, days(dwell))
}

// pExp is 1 − e^(−rate·t) for t in days, computed without cancellation.
func pExp(rate, t float64) float64 {
	if rate <= 0 || t <= 0 {
		return 0
	}
	return -math.Expm1(-rate * t)
}

// CombineArchives returns the probability that at least one of several
// independent archives captures a page, given each archive's probability:
// 1 − Π(1 − p_a). With no archives it returns 0.
func CombineArchives(p ...float64) float64 {
	miss := 1.0
	for _, pa := range p {
		miss *= 1 - pa
	}
	return 1 - miss
}
