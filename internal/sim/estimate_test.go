package sim

import (
	"math"
	"testing"
)

func TestLearnedCapture(t *testing.T) {
	c := DefaultConfig()
	c.Pages = 10
	s := newSite(&c, stream(&c, 0, streamSite))
	// Before any capture: nil, placement's default.
	if got, err := learnedCapture(s, nil, 0, 30); got != nil || err != nil {
		t.Fatalf("no captures: got %v, %v; want nil", got, err)
	}
	// Page 1 captured every 2 days for 60 days; nothing else.
	var caps []capture
	for d := 1.0; d <= 60; d += 2 {
		caps = append(caps, capture{t: d, page: 1})
	}
	caps = append(caps, capture{t: 100, page: 2}) // after now: not counted
	got, err := learnedCapture(s, caps, 0, 60)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != c.Pages {
		t.Fatalf("%d pages estimated, want %d", len(got), c.Pages)
	}
	// 30 captures in 60 days under the fixed prior (1/127 a day, weighing
	// 30 days): κ = (30 + 30/127)/(60 + 30) ≈ 0.336 a day.
	want := -math.Expm1(-(30 + 30.0/127) / 90 * estimateHorizon)
	if p := got[pageURL(1)]; math.Abs(p-want) > 1e-9 {
		t.Errorf("page 1: p = %g, want %g", p, want)
	}
	if got[pageURL(2)] >= got[pageURL(1)] || got[pageURL(2)] <= 0 {
		t.Errorf("page 2 (never captured before now): p = %g, page 1 %g", got[pageURL(2)], got[pageURL(1)])
	}
}
