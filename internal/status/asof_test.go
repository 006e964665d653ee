package status_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestAsOfIgnoresLaterHistory: audited as of a time between the
// generations, the history's later manifest and records do not count:
// generation 1 is the newest, and recoverable.
func TestAsOfIgnoresLaterHistory(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", w.g2.names()...)...)
	})
	o := w.statusOpts(true, "")
	o.Now = statusT1.Add(10 * day)
	rep := runStatus(t, o)
	if rep.Newest != w.g1.id || rep.Outcome() != status.NewestRecoverable {
		t.Fatalf("as of %v: newest %s, restore point %+v; want generation 1 (exit 0)", o.Now, rep.Newest, rep.RestorePoint)
	}
}

// TestAsOfBeforeFirstGenerationIsTheCause: an audit as of a time before
// the first generation says none had been made yet (the cause), not that
// the archives hold none.
func TestAsOfBeforeFirstGenerationIsTheCause(t *testing.T) {
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

// TestAsOfIgnoresLocalCopiesOfLaterGenerations: a mirror's files dated
// before --as-of, holding a generation made after it, do not make that
// generation count.
func TestAsOfIgnoresLocalCopiesOfLaterGenerations(t *testing.T) {
	site := newStatusSite(t, 4)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	dir := mirror(t, g2.pages, statusT1.Add(day))
	o := status.Options{SiteURL: "https://example.org/", ServerKey: site.Server.Marshal(), Now: statusT1.Add(10 * day), NoLive: true,
		Sources: []source.Source{source.DirSource{Dir: dir}}, SpotChecks: status.NoSpotChecks}
	rep := runStatus(t, o)
	for _, g := range rep.Generations {
		if g.ID == g2.id {
			t.Fatalf("generation %s, made %v, listed as of %v", g2.id, g2.time, o.Now)
		}
	}
	for _, c := range rep.Captures {
		if c.Manifest == g2.id || slices.Contains(c.Generations, g2.id) {
			t.Fatalf("capture %+v credited with what was made after the audit's time", c)
		}
	}
	if rep.Newest == g2.id {
		t.Fatalf("newest %s, made after the audit's time", g2.id)
	}
}
