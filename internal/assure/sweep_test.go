package assure

import (
	"slices"
	"testing"
	"time"
)

func TestFindSweeps(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	h := func(x float64) time.Time { return t0.Add(time.Duration(x * float64(time.Hour))) }
	caps := []PageCapture{
		{0, h(0)}, {1, h(1)}, {2, h(5)}, // one slow sweep: pauses under 6 h
		{0, h(5.5)},            // page 0 again: a new sweep
		{1, h(30)}, {2, h(31)}, // after a long pause: a third
		{-1, h(31)}, // ignored
	}
	got := FindSweeps(caps, 6*time.Hour)
	if len(got) != 3 {
		t.Fatalf("%d sweeps, want 3: %+v", len(got), got)
	}
	for i, w := range [][]int{{0, 1, 2}, {0}, {1, 2}} {
		if !slices.Equal(got[i].Pages, w) {
			t.Errorf("sweep %d pages = %v, want %v", i, got[i].Pages, w)
		}
	}
	if !got[0].Start.Equal(h(0)) || !got[0].End.Equal(h(5)) || !got[2].End.Equal(h(31)) {
		t.Errorf("sweep bounds wrong: %+v", got)
	}
	if FindSweeps(nil, time.Hour) != nil {
		t.Error("no captures should give no sweeps")
	}
}
