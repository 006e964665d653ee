package status_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// revisitAt is when a second crawl found every page unchanged.
var revisitAt = sitetest.CapturedAt.Add(7 * 24 * time.Hour)

// TestStatusCountsRevisits: status over a WARC of two crawls, the second
// all revisits. Expected: 24 captures, not the 12 responses alone.
func TestStatusCountsRevisits(t *testing.T) {
	site, owner := sitetest.Injected(t)
	caps := sitetest.CapturesOf(t, site, sitetest.CapturedAt)
	dir := t.TempDir()
	ids := sitetest.ResponseWARC(t, filepath.Join(dir, "a.warc.gz"), caps)
	sitetest.RevisitWARC(t, filepath.Join(dir, "b.warc.gz"), caps, ids, "id", revisitAt, func(c archivetest.Capture) string { return c.URL })
	rep, err := status.Run(context.Background(), status.Options{OwnerKey: owner, SiteURL: "https://example.org/",
		Sources: []source.Source{source.WARCSource{Path: dir}}, Now: revisitAt.Add(time.Hour), NoLive: true}) // the WARCs only: no request leaves the machine
	if err != nil && rep == nil {
		t.Fatal(err)
	}
	if got := rep.Sources[0].Captures; got != 2*len(caps) {
		t.Fatalf("%d captures counted, want %d", got, 2*len(caps))
	}
}
