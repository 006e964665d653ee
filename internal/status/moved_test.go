package status_test

import (
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/sitetest"
)

// TestStatusMovedSiteCountsItsGenerations: status of a site audited at
// its new address reads the archive's captures there like any others:
// the history knows them by digest, the generations made for
// https://example.org/ count, and a problem line says for which site
// they were made. (Status never fetches the carriers a manifest names by
// URL, so there is nothing to rebase.)
func TestStatusMovedSiteCountsItsGenerations(t *testing.T) {
	const moved = "http://127.0.0.1:18931/"
	w := newStatusWorld(t, func(w *statusWorld) {
		for _, c := range w.g2.plant(statusT2.Add(day), "", w.g2.names()...) {
			c.URL = strings.Replace(c.URL, "https://example.org/", moved, 1)
			w.wayback = append(w.wayback, c)
		}
	})
	o := w.statusOpts(true, "")
	o.SiteURL = moved
	rep := runStatus(t, o)
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
		t.Fatalf("restore point %+v, want generation 2; problems %q", rp, rep.Problems)
	}
	if n := w.srvW.RequestsTo("/web/"); n > rep.Sources[0].SpotChecked {
		t.Fatalf("%d captures fetched beyond the %d spot checks: the history did not know them", n, rep.Sources[0].SpotChecked)
	}
	if !sitetest.HasLine(rep.Problems, "made for https://example.org/, not "+moved) {
		t.Errorf("no problem line says for which site the generations were made: %q", rep.Problems)
	}
}
