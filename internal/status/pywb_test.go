package status_test

import (
	"slices"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
)

// checkStripes applies.
func pywbStatusWorld(t *testing.T) (*statusWorld, *archivetest.Server) {
	t.Helper()
	w := newStatusWorld(t, plantNewest)
	caps := slices.Clone(w.wayback)
	for _, c := range w.wayback {
		c.Time, c.Revisit = c.Time.Add(day), true
		caps = append(caps, c)
	}
	srv, err := archivetest.New(caps, archivetest.Config{Pywb: &archivetest.PywbConfig{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	src, err := source.ParseArchive("cdx="+srv.CDXEndpoint(), source.NewClient(source.ClientOptions{Rate: 600000}))
	if err != nil {
		t.Fatal(err)
	}
	cdx := src.(source.CDXSource)
	cdx.Label = "wayback"
	w.sources = []source.Source{cdx, w.sources[1]}
	return w, srv
}

// TestStatusFromPywbCollection: status reads a pywb collection as it
// reads the Wayback: the same stripes and restore point, every capture
// and revisit listed. With the serve history only the truncated capture
// is fetched (revisits are known by their digest, their record length
// is not taken for a cut page); without it each distinct digest once.
// The request counts are logged (see the closing note of the change).
func TestStatusFromPywbCollection(t *testing.T) {
	for _, hist := range []bool{true, false} {
		t.Run(map[bool]string{true: "history", false: "no history"}[hist], func(t *testing.T) {
			w, srv := pywbStatusWorld(t)
			rep := w.status(t, hist, "")
			w.checkStripes(t, rep)
			if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
				t.Fatalf("restore point %+v, want %s (newest)", rp, w.g2.id)
			}
			if got := rep.Sources[0].Captures; got != 2*len(w.wayback) {
				t.Fatalf("listed %d captures, want %d (each revisited)", got, 2*len(w.wayback))
			}
			distinct := map[string]bool{}
			for _, c := range w.wayback {
				distinct[archivetest.Digest(c.Body)] = true
			}
			listing, replays := srv.RequestsTo("/coll/cdx"), srv.RequestsTo("/coll/")-srv.RequestsTo("/coll/cdx")
			want := 1 // the truncated capture
			if !hist {
				want = len(distinct)
			}
			if listing != 1 || replays != want {
				t.Errorf("%d listing requests and %d replays, want 1 and %d", listing, replays, want)
			}
			t.Logf("status against a pywb collection (%d captures, %d distinct digests; history %v): %d requests: %d listing, %d replays",
				2*len(w.wayback), len(distinct), hist, listing+replays, listing, replays)
		})
	}
}
