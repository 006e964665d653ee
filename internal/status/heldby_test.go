package status_test

import (
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestHeldBySourcesAlone: generation 1 is whole in the Wayback from day
// 1 and in Common Crawl from day 3; generation 2 only in the Wayback,
// whose root (with the manifest) it captured on day 1 and every page on
// day 2. Each generation names the sources holding it on their own, with
// the time of the capture that completed it there (the manifest alone
// does not).
func TestHeldBySourcesAlone(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.wayback, w.g1.plant(statusT1.Add(day), "", w.g1.names()...)...)
		w.cc = append(w.cc, w.g1.plant(statusT1.Add(3*day), archivetest.DefaultCrawl, w.g1.names()...)...)
		w.wayback = append(w.wayback, w.g2.plant(statusT2.Add(day), "", "")...)
		w.wayback = append(w.wayback, w.g2.plant(statusT2.Add(2*day), "", w.g2.names()...)...)
		w.cc = append(w.cc, w.g2.plant(statusT2.Add(3*day), archivetest.DefaultCrawl, "p1.html")...)
	})
	rep := w.status(t, true, "")
	want := map[string][]status.SourceHold{
		w.g1.id: {{Source: "wayback", Since: statusT1.Add(day)}, {Source: "commoncrawl", Since: statusT1.Add(3 * day)}},
		w.g2.id: {{Source: "wayback", Since: statusT2.Add(2 * day)}},
	}
	for _, g := range rep.Generations {
		got := g.HeldBy
		if len(got) != len(want[g.ID]) {
			t.Fatalf("generation %s held by %+v, want %+v", g.ID[:8], got, want[g.ID])
		}
		for i := range got {
			if got[i].Source != want[g.ID][i].Source || !got[i].Since.Equal(want[g.ID][i].Since) {
				t.Errorf("generation %s: %+v, want %+v", g.ID[:8], got[i], want[g.ID][i])
			}
		}
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id {
		t.Fatalf("restore point %+v", rp)
	}
}

// TestTwoArchivesOutlook: generation 2 is whole in both archives, so
// each one's own chance and the chance of two are 1 from now on; with
// Common Crawl holding one page only, the Wayback's is 1, Common
// Crawl's below, and two archives no likelier than Common Crawl alone.
func TestTwoArchivesOutlook(t *testing.T) {
	both := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		w.cc = w.g2.plant(statusT2.Add(2*day), archivetest.DefaultCrawl, w.g2.names()...)
	})
	a := both.status(t, true, "").Assessment
	if a == nil || len(a.PerArchive) != 2 || len(a.TwoArchives) == 0 {
		t.Fatalf("assessment %+v", a)
	}
	for _, p := range a.TwoArchives {
		if p.P != 1 {
			t.Fatalf("both archives hold it: two archives %+v", a.TwoArchives)
		}
	}
	one := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		w.cc = w.g2.plant(statusT2.Add(2*day), archivetest.DefaultCrawl, "p1.html")
	})
	a = one.status(t, true, "").Assessment
	by := map[string][]status.Probability{}
	for _, o := range a.PerArchive {
		by[o.Archive] = o.At
	}
	last := len(a.TwoArchives) - 1
	if by["wayback"][0].P != 1 || by["commoncrawl"][last].P >= 1 || a.TwoArchives[last].P > by["commoncrawl"][last].P+1e-12 {
		t.Fatalf("wayback %+v, commoncrawl %+v, two %+v", by["wayback"], by["commoncrawl"], a.TwoArchives)
	}
	t.Logf("within %v: commoncrawl alone %.3f, two archives %.3f", a.TwoArchives[last].After, by["commoncrawl"][last].P, a.TwoArchives[last].P)
	for i := 1; i <= last; i++ {
		if a.TwoArchives[i].P < a.TwoArchives[i-1].P {
			t.Fatalf("two archives falls with the horizon: %+v", a.TwoArchives)
		}
	}
}
