package status_test

import (
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestLiveSiteShowsNewerGeneration: without a history, only generation 1
// is archived while the live site serves generation 2: status reads the
// live root page once, takes generation 2 as the newest and exits 3.
// When the live root cannot be read, or without the live check
// (--no-live), generation 1 is the newest only as far as status can see:
// the report says so (NewestUnconfirmed) and a note says a newer
// generation may exist.
func TestLiveSiteShowsNewerGeneration(t *testing.T) {
	w, o, n := liveNewerWorld(t)
	rep := runStatus(t, o)
	if rep.Newest != w.g2.id || rep.Live != w.g2.id || rep.Outcome() != status.OlderRecoverable || *n != 1 || rep.NewestUnconfirmed {
		t.Fatalf("live serves %s: newest %s, live %q, restore point %+v, %d live requests; want generation 2 newest, exit 3, 1 request",
			w.g2.id, rep.Newest, rep.Live, rep.RestorePoint, *n)
	}
	if rep.RestorePoint.Generation != w.g1.id {
		t.Fatalf("restore point %+v, want generation 1", rep.RestorePoint)
	}
	// A live site that cannot be read is a note, not an error.
	o.Client = liveDoer{pages: map[string][]byte{}, n: n}
	rep = runStatus(t, o)
	if rep.Newest != w.g1.id || !rep.NewestUnconfirmed || !strings.Contains(strings.Join(rep.Notes, " "), "a newer generation may exist") {
		t.Fatalf("unreadable live site: newest %s, notes %q", rep.Newest, rep.Notes)
	}
	o.NoLive = true
	rep = runStatus(t, o)
	if *n != 2 || !rep.NewestUnconfirmed || !strings.Contains(strings.Join(rep.Notes, " "), "a newer generation may exist") {
		t.Fatalf("--no-live: %d live requests, notes %q", *n-2, rep.Notes)
	}
}

// TestLiveOnlyGenerationHasNoOutlook: without a history, the live site
// serves generation 2, which no archive holds: which pages carry it is
// unknown, so there is no outlook (not a forecast of 0% forever).
func TestLiveOnlyGenerationHasNoOutlook(t *testing.T) {
	w, o, _ := liveNewerWorld(t)
	rep := runStatus(t, o)
	a := rep.Assessment
	if rep.Live != w.g2.id || a == nil {
		t.Fatalf("live %q, assessment %+v; want generation 2 from the live site", rep.Live, a)
	}
	want := "which pages carry generation " + w.g2.id + " is unknown without the serve history"
	if a.Reason != status.AssessCarriersUnknown || a.Error != want || len(a.Views) != 0 || a.Evidence != nil {
		t.Fatalf("assessment %+v; want no views and reason %q: %q", a, status.AssessCarriersUnknown, want)
	}
	for _, note := range rep.Notes {
		if strings.Contains(note, "Too little capture history") || strings.Contains(note, "sweep view") {
			t.Errorf("note about a model that did not run: %q", note)
		}
	}
	// With the history, the same generation is modelled.
	o.History = []history.Store{w.site.hist}
	if rep := runStatus(t, o); rep.Assessment == nil || rep.Assessment.Reason != "" || len(rep.Assessment.Views) != 1 {
		t.Fatalf("with the history: assessment %+v", rep.Assessment)
	}
}
