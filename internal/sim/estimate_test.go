package sim

import (
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
	// 30 captures in 60 days: page 1 is all but sure to be captured again
	// within the horizon; page 2, never captured before now, is judged by
	// the archive's prior, well below it but not zero.
	if p := got[pageURL(1)]; p < 0.99 || p > 1 {
		t.Errorf("page 1: p = %g, want ≥ 0.99", p)
	}
	if got[pageURL(2)] >= 0.5 || got[pageURL(2)] <= 0 {
		t.Errorf("page 2 (never captured before now): p = %g, page 1 %g; want in (0, 0.5)", got[pageURL(2)], got[pageURL(1)])
	}
	// The same history gives the same figures.
	again, _ := learnedCapture(s, caps, 0, 60)
	for u, p := range got {
		if again[u] != p {
			t.Fatalf("%s: %g then %g", u, p, again[u])
		}
	}
}
