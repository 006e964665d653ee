package main

import (
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/capture"
)

// TestCapturePlanMarginCapped: a --margin beyond the parity of some
// stripes is not printed as if it applied to them; the line says how many
// need all their blocks instead.
func TestCapturePlanMarginCapped(t *testing.T) {
	rep := &capture.Report{
		Site: "https://example.org/", Generation: "g", Time: time.Unix(0, 0).UTC(), Margin: 5,
		Stripes: []capture.Stripe{
			{Segment: "app", K: 2, Need: 7, Archived: 7}, // 2 + 5 fits
			{Segment: "db", K: 2, Need: 4, Archived: 1},  // only 4 blocks exist
			{Segment: "db", K: 2, Need: 4, Archived: 4},
		},
	}
	var b strings.Builder
	printCapturePlan(&b, rep, "dry run")
	if want := "2 of 3 stripes archived with k + 5 blocks (all of theirs for 2 with fewer parity blocks)"; !strings.Contains(b.String(), want) {
		t.Fatalf("plan line:\n%s\nwant it to contain %q", b.String(), want)
	}
	rep.Margin = 2
	b.Reset()
	printCapturePlan(&b, rep, "dry run")
	if strings.Contains(b.String(), "all of theirs") {
		t.Fatalf("margin within every stripe's parity, yet:\n%s", b.String())
	}
}
