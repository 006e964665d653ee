package humane

import (
	"math"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "under a minute"},
		{59 * time.Second, "under a minute"},
		{time.Minute, "1 minute"},
		{66 * time.Second, "1 minute"},
		{90 * time.Second, "1 minute"},
		{74 * time.Minute, "1 hour 14 minutes"},
		{90 * time.Minute, "1 hour 30 minutes"},
		{2 * time.Hour, "2 hours"},
		{5*time.Hour + 10*time.Minute, "5 hours 10 minutes"},
		{day, "1 day"},
		{3 * day, "3 days"},
		{40*day + 5*time.Hour + 7*time.Minute, "40 days 5 hours"},
		{-3 * time.Hour, "-3 hours"},
		{math.MinInt64, "-106751 days 23 hours"}, // −MinInt64 overflows; no endless recursion
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0, "store"), "0 stores"}, {Count(1, "store"), "1 store"}, {Count(2, "store"), "2 stores"},
		{Count(1, "entry", "entries"), "1 entry"}, {Count(3, "entry", "entries"), "3 entries"}, {Count(-1, "block"), "-1 blocks"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 2048: "2.0 KiB", 5 << 20: "5.0 MiB", 17 << 20: "17 MiB", 3 << 30: "3.0 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
