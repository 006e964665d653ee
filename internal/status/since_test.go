package status_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestFitWindowReachesCapturesBeforeTheHistory: a site the archive
// captured long before its first inject is fitted from its first capture,
// not from the first version the serve history records, even when other
// pages were first captured after it.
func TestFitWindowReachesCapturesBeforeTheHistory(t *testing.T) {
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 6)
	sitetest.ServerSide(t, s.Dir, 4000)
	o := s.Options("https://example.org/")
	o.Includes = s.Include("app")
	o.Now = func() time.Time { return statusT1 }
	sitetest.Inject(t, o)
	early := statusT1.Add(-300 * day)
	caps := append(sitetest.CapturesOf(t, s.Pages(), statusT1.Add(time.Hour)),
		archivetest.Capture{URL: "https://example.org/", Time: early, Body: []byte("<html><body>the site before Lazarus</body></html>")})
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	client := source.NewClient(source.ClientOptions{Rate: 60000})
	rep := runStatus(t, status.Options{SiteURL: "https://example.org/", ServerKey: s.Server.Marshal(), Now: statusNow, NoLive: true,
		SpotChecks: status.NoSpotChecks, History: []history.Store{history.Dir(filepath.Join(o.StateDir, injector.HistoryDir))},
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Label: "wayback", Dialect: source.DialectWayback, Client: client}}})
	e := rep.Assessment.Evidence
	if e == nil || e.MedianExposure < statusNow.Sub(early)-7*day { // less the ingest lag
		t.Fatalf("evidence %+v: want the history fitted since %v (%v before now)", e, early, statusNow.Sub(early))
	}
}
