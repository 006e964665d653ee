package status_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
)

// Regression tests for a new user's second trial of lazarus status, one
// per item (numbered as in the trial's findings).

// TestStatusN4LiveCarriersUnknown: without a history, the live site
// serves generation 2, which no archive holds: which pages carry it is
// unknown, so there is no outlook (not a forecast of 0% forever).
func TestStatusN4LiveCarriersUnknown(t *testing.T) {
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
	if rep := runStatus(t, o); rep.Assessment == nil || rep.Assessment.Reason != "" || len(rep.Assessment.Views) != 2 {
		t.Fatalf("with the history: assessment %+v", rep.Assessment)
	}
}

// TestStatusN5MirrorFileTimes: a wget mirror made right after the
// first generation dates its files by the pages' Last-Modified, a second
// before the history records them. The captures are dated no earlier
// than their recorded versions, so the pages count as observed for the
// two hours since, not the model's whole window: too little history,
// the prior dominates, as for a WARC of the same crawl. The report says
// capture times are file times.
func TestStatusN5MirrorFileTimes(t *testing.T) {
	site := newStatusSite(t, 4)
	g := site.inject(t, statusT1)
	dir := mirror(t, g.pages, statusT1.Add(-time.Second))
	now := statusT1.Add(2 * time.Hour)
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.server.Marshal(), Now: now, NoLive: true,
		Sources: []source.Source{source.DirSource{Dir: dir}}, History: []history.Store{site.hist}, SpotChecks: status.NoSpotChecks}
	rep := runStatus(t, o)
	for _, c := range rep.Captures {
		if c.Time.Before(statusT1) {
			t.Errorf("capture %s dated %v, before its recorded version (%v)", c.URL, c.Time, statusT1)
		}
	}
	a := rep.Assessment
	if a == nil || a.Evidence == nil {
		t.Fatalf("assessment %+v", a)
	}
	if e := a.Evidence; e.MedianExposure > now.Sub(statusT1) || !e.PriorDominated {
		t.Fatalf("median exposure %v, prior dominated %v; want at most %v and the prior dominating", e.MedianExposure, e.PriorDominated, now.Sub(statusT1))
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "Too little capture history") || !strings.Contains(notes, "capture times are the files' modification times") {
		t.Fatalf("notes %q; want the thin-evidence note and the file-times note", notes)
	}
}

// TestStatusN6AliasOneSweep: one crawl that captures "/" and
// "/index.html" (one page) is one sweep, not two.
func TestStatusN6AliasOneSweep(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		at := statusT2.Add(day)
		w.wayback = w.g2.plant(at, "", w.g2.names()...)
		w.wayback = append(w.wayback, archivetest.Capture{URL: "https://example.org/index.html", Time: at.Add(time.Minute),
			Body: w.g2.pages["https://example.org/"]})
	})
	rep := w.status(t, true, "")
	a := rep.Assessment
	if a == nil || a.Evidence == nil {
		t.Fatalf("assessment %+v", a)
	}
	for _, s := range a.Evidence.Sweeps {
		if s.Archive == "wayback" && s.Sweeps != 1 {
			t.Fatalf("wayback: %d sweeps for one crawl (with / and /index.html)", s.Sweeps)
		}
	}
	// The report's page timeline still shows both captures.
	for _, p := range rep.Pages {
		if p.URL == "/" && len(p.Captures["wayback"]) != 2 {
			t.Fatalf("root page captures %v; want both listed", p.Captures["wayback"])
		}
	}
}

// TestStatusN10AsOfBeforeAnyGeneration: an audit as of a time before
// the first generation says none had been made yet (the cause), not that
// the archives hold none.
func TestStatusN10AsOfBeforeAnyGeneration(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	o := w.statusOpts(true, "")
	o.Now = statusT1.Add(-day)
	rep := runStatus(t, o)
	c := rep.Cause
	if rep.Outcome() != status.NothingRecoverable || !rep.AsOf || c == nil || c.Kind != status.CauseNoneYet ||
		!strings.Contains(c.Message, "no generation had been made yet as of "+o.Now.Format(time.RFC3339)) ||
		!strings.Contains(c.Message, statusT1.Format(time.RFC3339)) {
		t.Fatalf("as of %v: outcome %v, as of %v, cause %+v", o.Now, rep.Outcome(), rep.AsOf, c)
	}
	// As of a time after the first generation: no such cause.
	o.Now = statusNow
	if rep := runStatus(t, o); rep.Cause != nil {
		t.Fatalf("as of %v: cause %+v", o.Now, rep.Cause)
	}
}
