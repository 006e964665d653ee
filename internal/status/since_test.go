package status_test

import (
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// TestFitWindowReachesCapturesBeforeTheHistory: a site the archive
// captured long before its first inject is fitted from its first capture,
// not from the first version the serve history records, even when other
// pages were first captured after it.
func TestFitWindowReachesCapturesBeforeTheHistory(t *testing.T) {
	early := statusT1.Add(-300 * day)
	rep, _ := injectedSiteStatus(t, archivetest.Capture{URL: "https://example.org/", Time: early, Body: []byte("<html><body>the site before Lazarus</body></html>")})
	e := rep.Assessment.Evidence
	if e == nil || e.MedianExposure < statusNow.Sub(early)-7*day { // less the ingest lag
		t.Fatalf("evidence %+v: want the history fitted since %v (%v before now)", e, early, statusNow.Sub(early))
	}
}
