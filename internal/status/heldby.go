package status

import (
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// SourceHold is one source that holds a generation recoverably on its
// own: its captures hold the manifest and k distinct blocks of every
// stripe of every data segment, without the other sources' help.
// "Confirmed in A and B" is two of them.
type SourceHold struct {
	Source string `json:"source"`
	// Since is the capture time from which the source held it: the later
	// of its first capture holding the manifest and the first capture
	// that completed each data segment.
	Since time.Time `json:"since"`
}

// heldBy lists the sources that hold generation sm on their own (see
// SourceHold), in source order. The tally's timelines say when each
// source's weakest stripe of a segment reached k.
func (r *statusRun) heldBy(sm *statusManifest, t *statusTally) []SourceHold {
	gen := sm.m.Manifest.Generation
	firstManifest := make([]time.Time, len(r.srcs))
	for _, c := range r.caps {
		if c.held == nil || !firstManifest[c.src].IsZero() {
			continue
		}
		for _, id := range c.held.manifests {
			if id == gen {
				firstManifest[c.src] = c.c.Time
				break
			}
		}
	}
	var out []SourceHold
	for i := range r.srcs {
		since, ok := firstManifest[i], !firstManifest[i].IsZero()
		for _, seg := range sm.m.Manifest.Segments {
			if !ok || seg.Kind == "listing" {
				continue
			}
			at, full := completedAt(t.segs[manifest.SegmentKey{ID: seg.ID, Name: seg.Name}], i, seg.K)
			ok = full
			if at.After(since) {
				since = at
			}
		}
		if ok {
			out = append(out, SourceHold{Source: r.srcs[i].Name(), Since: since.UTC()})
		}
	}
	return out
}

// completedAt is the time of the first point of source src's timeline at
// which every stripe of the segment had k distinct blocks; full is false
// when none has.
func completedAt(st *segTally, src, k int) (time.Time, bool) {
	if st == nil {
		return time.Time{}, false
	}
	for _, p := range st.points[src] {
		if p.Weakest >= k {
			return p.Time, true
		}
	}
	return time.Time{}, false
}
