package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestPrintStatusWording: the text summary words durations as people do
// (not rounded to the hour), shows now, 7 and 30 days of the model's
// dense times, pluralises, says what recover does with a generation
// whose manifest is not archived, and names the cause when the archives
// are not to blame.
func TestPrintStatusWording(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	var at []status.Probability
	for _, d := range status.ModelTimes() {
		at = append(at, status.Probability{After: d, P: 0.5})
	}
	r := &status.Report{Site: "https://example.org/", Now: now, Newest: "g2",
		Sources:      []status.SourceReport{{Name: "wayback", Captures: 1, Known: 1}},
		RestorePoint: &status.RestorePoint{Generation: "g1", Time: now.Add(-90 * time.Second), Age: 90 * time.Second},
		Generations: []status.Generation{
			{ID: "g2", Time: now, SegmentsRebuildable: true, Short: []string{"segments rebuildable, but its manifest is in no archived capture"},
				Segments: []status.Segment{{Name: "app", K: 1, Stripes: 1, Complete: 1, PerStripe: []status.Stripe{{Need: 1, Combined: 8}}}}},
		},
		Assessment: &status.Assessment{Generation: "g2", Target: 0.99, Pages: 1, Carriers: 1, DepthKnown: 0,
			Views: []status.ModelView{{Name: "sweep", At: at, Reached: true, ReachIn: 66 * time.Second}}},
		Problems: make([]string, 7)}
	var out bytes.Buffer
	printStatus(&out, r)
	text := out.String()
	for _, want := range []string{
		"Restore point: generation g1 of 2026-11-25T14:58:30Z, 1 minute old",
		"wayback        1 capture: 1 known",
		"segment app          1/1 stripe with k=1 block;",
		"Generation g2 of 2026-11-25T15:00:00Z: segments rebuildable, but its manifest is in no archived capture: lazarus recover restores the segments (exit 3), without the generation's listing check\n",
		"(1 page, 1 carrier; link depth unknown for 1, modelled at the deepest level; any 0 of its carriers may go uncaptured)",
		"now 50.0%, +7d 50.0%, +30d 50.0%; reaches 99% by 1 minute\n",
		"… 2 more problems",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, bad := range []string{"0s old", "+1d", "+6h", "short: segments rebuildable", "1 stores", "1 blocks"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q in:\n%s", bad, text)
		}
	}
	r.RestorePoint, r.Generations, r.Assessment = nil, nil, nil
	r.Cause = &status.Cause{Kind: status.CauseWrongKey, Message: "found 3 Lazarus blocks or manifests, but none signed by this key"}
	out.Reset()
	printStatus(&out, r)
	if !strings.Contains(out.String(), "Restore point: none, and not for what the archives hold: found 3 Lazarus blocks") {
		t.Errorf("the cause is not named:\n%s", out.String())
	}
}

// TestPrintStatusNewestUnconfirmed: when neither a history nor the live
// site said which generation is current, the restore point is "the
// newest archived", not "the newest".
func TestPrintStatusNewestUnconfirmed(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	r := &status.Report{Site: "https://example.org/", Now: now, Newest: "g1", NewestUnconfirmed: true,
		RestorePoint: &status.RestorePoint{Generation: "g1", Time: now.Add(-time.Hour), Age: time.Hour, Newest: true}}
	var out bytes.Buffer
	printStatus(&out, r)
	if want := "1 hour old, the newest archived (the live site was not read: a newer one may exist)"; !strings.Contains(out.String(), want) {
		t.Fatalf("summary:\n%s\nwant %q", out.String(), want)
	}
	r.NewestUnconfirmed = false
	out.Reset()
	printStatus(&out, r)
	if !strings.Contains(out.String(), "1 hour old, the newest\n") {
		t.Fatalf("summary:\n%s\nwant the newest", out.String())
	}
}

// TestPrintStatusOutlookUnavailableAndStripeCounts: the outlook of a
// generation known only from the live site is unavailable, said so; a
// stripe's blocks read "8 (1 needed)", followed by each source's count
// when there are two.
func TestPrintStatusOutlookUnavailableAndStripeCounts(t *testing.T) {
	now := time.Date(2026, 11, 25, 15, 0, 0, 0, time.UTC)
	r := &status.Report{Site: "https://example.org/", Now: now, Newest: "g2", Live: "g2",
		Sources: []status.SourceReport{{Name: "dir=crawl1", Captures: 8, Known: 8}},
		Generations: []status.Generation{{ID: "g1", Time: now, Recoverable: true, SegmentsRebuildable: true, ManifestArchived: true,
			Segments: []status.Segment{{Name: "app", K: 1, Stripes: 1, Complete: 1,
				PerStripe: []status.Stripe{{Need: 1, Combined: 8, Have: map[string]int{"dir=crawl1": 8}}}}}}},
		Assessment: &status.Assessment{Generation: "g2", Reason: status.AssessCarriersUnknown,
			Error: "which pages carry generation g2 is unknown without the serve history"}}
	var out bytes.Buffer
	printStatus(&out, r)
	text := out.String()
	for _, want := range []string{"weakest stripe 0: 8 (1 needed)\n",
		"Outlook unavailable: which pages carry generation g2 is unknown without the serve history\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, bad := range []string{"8 of 1", "never reaches", "model could not run"} {
		if strings.Contains(text, bad) {
			t.Errorf("%q in:\n%s", bad, text)
		}
	}
	// Two sources: each one's count follows.
	r.Generations[0].Segments[0].PerStripe[0].Have = map[string]int{"wayback": 3, "commoncrawl": 5}
	out.Reset()
	printStatus(&out, r)
	if !strings.Contains(out.String(), "weakest stripe 0: 8 (1 needed): commoncrawl 5, wayback 3\n") {
		t.Errorf("per-source counts missing:\n%s", out.String())
	}
}
