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

// pExp is 1 − e^(−rate·t) for t in days, computed without cancellation.
func pExp(rate, t float64) float64 {
	if rate <= 0 || t <= 0 {
		return 0
	}
	return -math.Expm1(-rate * t)
}
