package status_test

import (
	"strings"
	"testing"

	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
)

// withoutManifest returns page with its manifest comments removed.
func withoutManifest(page []byte) []byte {
	var out []byte
	last := 0
	for f := range htmlblock.All(page) {
		if f.Kind == htmlblock.KindManifest && f.Err == nil {
			out = append(out, page[last:f.Offset]...)
			last = f.End
		}
	}
	return append(out, page[last:]...)
}

// TestMissingManifestLeavesSegmentsRebuildable: every block of
// generation 2 archived but its manifest in no capture: the segments are
// rebuildable, and the report says what recover does, not "NOT
// recoverable".
func TestMissingManifestLeavesSegmentsRebuildable(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		for i := range w.wayback {
			w.wayback[i].Body = withoutManifest(w.wayback[i].Body)
		}
	})
	rep := w.status(t, true, "")
	g := rep.Generations[0]
	if g.ID != w.g2.id || g.Recoverable || !g.SegmentsRebuildable || g.ManifestArchived {
		t.Fatalf("generation %+v; want segments rebuildable, manifest not archived", g)
	}
	if len(g.Short) != 1 || !strings.HasPrefix(g.Short[0], "segments rebuildable, but its manifest is in no archived capture") {
		t.Fatalf("short %q", g.Short)
	}
}
