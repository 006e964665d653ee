package status_test

import (
	"bytes"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// TestDigestListedByOtherArchiveNotCreditedToIt: the Wayback holds all
// of generation 1 but only the root and one page of generation 2. A
// hostile archive (here the Common Crawl source) lists, a few days
// later, captures of the same URLs under the Wayback's digests, and
// serves every page of generation 2 in one body. The hostile archive's
// bytes must not be credited to the Wayback's captures, neither in the
// run that reads both archives nor, through the state directory's cache,
// in a later run that reads the Wayback alone: that run must find
// generation 1 the restore point, as recover from the Wayback would.
func TestDigestListedByOtherArchiveNotCreditedToIt(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", "", "p0.html")...)
		var all [][]byte
		for _, n := range w.g2.names() {
			all = append(all, w.g2.pages["https://example.org/"+n])
		}
		everything := bytes.Join(all, nil)
		for _, c := range w.g2.plant(statusT2.Add(5*day), archivetest.DefaultCrawl, "", "p0.html") {
			c.Digest = archivetest.Digest(c.Body) // the Wayback's capture of this URL
			c.Body = everything
			w.cc = append(w.cc, c)
		}
	})
	state := t.TempDir()
	first := w.status(t, false, state)
	// Expected: the Wayback's column counts what the Wayback holds only.
	wrong := 0
	for _, g := range first.Generations {
		for _, s := range g.Segments {
			for _, st := range s.PerStripe {
				if want := len(w.expectW[s.ID+"/"+s.Name][uint32(st.Index)]); st.Have["wayback"] != want && wrong == 0 {
					wrong++
					t.Errorf("both archives: generation %s segment %s stripe %d: wayback has %d, want %d (the hostile archive's bytes credited to it)",
						g.ID[:8], s.Name, st.Index, st.Have["wayback"], want)
				}
			}
		}
	}
	// Expected: without the hostile archive, the cache does not bring
	// its bytes back: generation 2 is not recoverable from the Wayback.
	o := w.statusOpts(false, state)
	o.SpotChecks, o.Sources = status.NoSpotChecks, []source.Source{w.sources[0]}
	again := runStatus(t, o)
	if rp := again.RestorePoint; rp == nil || rp.Generation != w.g1.id || rp.Newest {
		t.Fatalf("Wayback alone, with the cache of the run that read both: restore point %+v, want generation 1", rp)
	}
}
