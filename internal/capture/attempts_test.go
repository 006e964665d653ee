package capture

import (
	"testing"
	"time"
)

// TestAttemptsWithinRetrySchedule: a page is asked for again retry after
// a failure, the pause doubling, as far as the wait reaches and at most
// attempts times.
func TestAttemptsWithinRetrySchedule(t *testing.T) {
	m := time.Minute
	for _, c := range []struct {
		wait, retry    time.Duration
		attempts, want int
	}{
		{0, 10 * m, 3, 1},
		{9 * m, 10 * m, 3, 1},
		{20 * m, 10 * m, 3, 2},
		{time.Hour, 10 * m, 3, 3}, // at 0, 10 and 30 minutes
		{24 * time.Hour, 10 * m, 5, 5},
		{150 * m, 10 * m, 9, 5}, // 0, 10, 30, 70, 150
	} {
		if got := AttemptsWithin(c.wait, c.retry, c.attempts); got != c.want {
			t.Errorf("wait %v, retry %v, attempts %d: %d, want %d", c.wait, c.retry, c.attempts, got, c.want)
		}
	}
}
