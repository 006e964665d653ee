package status_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestMirrorFileTimesDoNotPredateRecordedVersions: a wget mirror made
// right after the first generation dates its files by the pages'
// Last-Modified, a second before the history records them. The captures
// are dated no earlier than their recorded versions. A mirror is files: it
// counts as it is and captures nothing more, so the forecast is flat and
// the report names it as fixed, and says capture times are file times.
func TestMirrorFileTimesDoNotPredateRecordedVersions(t *testing.T) {
	site := newStatusSite(t, 4)
	g := site.inject(t, statusT1)
	dir := mirror(t, g.pages, statusT1.Add(-time.Second))
	now := statusT1.Add(2 * time.Hour)
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: now, NoLive: true,
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
	if len(a.Fixed) != 1 || len(a.Views) != 1 {
		t.Fatalf("fixed sources %q, views %d; want the mirror named fixed", a.Fixed, len(a.Views))
	}
	if at := a.Views[0].At; at[0].P != at[len(at)-1].P {
		t.Fatalf("a mirror alone forecasts %v now and %v later; files capture nothing more", at[0].P, at[len(at)-1].P)
	}
	notes := strings.Join(rep.Notes, "\n")
	if !strings.Contains(notes, "capture times are the files' modification times") {
		t.Fatalf("notes %q; want the file-times note", notes)
	}
}

// TestIndexAliasIsOneSweep: one crawl that captures "/" and
// "/index.html" (one page) is one sweep, not two.
func TestIndexAliasIsOneSweep(t *testing.T) {
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

// TestModelTimesInJSONAsSeconds: the model is asked for ModelTimes, and
// the JSON carries them as float seconds, round trip exact.
func TestModelTimesInJSONAsSeconds(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	rep := w.status(t, true, "")
	want := status.ModelTimes()
	for _, v := range rep.Assessment.Views {
		if len(v.At) != len(want) {
			t.Fatalf("%s view: %d times, want %d", v.Name, len(v.At), len(want))
		}
		for i, p := range v.At {
			if p.After != want[i] {
				t.Fatalf("%s view: time %d is %v, want %v", v.Name, i, p.After, want[i])
			}
		}
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(`_ns"`)) || !bytes.Contains(raw, []byte(`"after_seconds":604800`)) ||
		!bytes.Contains(raw, []byte(`"age_seconds":`)) || !bytes.Contains(raw, []byte(`"reach_in_seconds":`)) {
		t.Fatalf("JSON durations are not float seconds: %s", raw[:min(len(raw), 400)])
	}
	var back status.Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.RestorePoint.Age != rep.RestorePoint.Age || back.Assessment.Views[0].At[7].After != 7*day ||
		back.Assessment.Views[0].ReachIn != rep.Assessment.Views[0].ReachIn {
		t.Fatalf("round trip: %+v, want %+v", back.RestorePoint, rep.RestorePoint)
	}
}

// TestThinEvidenceIsSaid: five days of captures weigh less than the
// archives' priors (60 days): the report carries the evidence and says it
// is thin; with three months of captures it does not. (Only the root is
// captured: with enough archived, nothing would rest on the prior.)
func TestThinEvidenceIsSaid(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g1.plant(statusT1.Add(day), "", w.g1.names()[:1]...)
	})
	for _, tc := range []struct {
		now  time.Time
		thin bool
	}{{statusT1.Add(5 * day), true}, {statusT1.Add(90 * day), false}} {
		o := w.statusOpts(true, "")
		o.Now = tc.now
		rep := runStatus(t, o)
		e := rep.Assessment.Evidence
		if e == nil || e.PriorDominated != tc.thin || e.MedianExposure <= 0 {
			t.Fatalf("as of %v: evidence %+v; want prior-dominated %v", tc.now, e, tc.thin)
		}
		if got := strings.Contains(strings.Join(rep.Notes, "\n"), "Too little capture history"); got != tc.thin {
			t.Fatalf("as of %v: thin-evidence note %v, want %v: %q", tc.now, got, tc.thin, rep.Notes)
		}
		raw, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(raw, []byte(`"median_exposure_seconds":`)) || bytes.Contains(raw, []byte(`"prior_dominated":true`)) != tc.thin {
			t.Fatalf("as of %v: JSON evidence wrong", tc.now)
		}
	}
}
