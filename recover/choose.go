package recover

import (
	"sort"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// choose picks the restore point (seed 000's coherent restore point): the
// newest verified manifest whose data segments are all complete; else, per
// segment name, the newest complete version known from manifests or block
// headers, and for names with none, the newest incomplete version with why.
func choose(manifests []*manifest.Signed, status []codec.SegmentStatus, o *Options) ([]target, string) {
	done := map[block.Layout]codec.SegmentStatus{}
	for _, st := range status {
		done[st.Layout] = st
	}
	sort.SliceStable(manifests, func(i, j int) bool { return manifests[i].Manifest.Time.After(manifests[j].Manifest.Time) })
	for _, m := range manifests {
		if !o.wants(m) {
			continue
		}
		if ts, ok := complete(m, done); ok {
			return ts, m.Manifest.Generation.String()
		}
	}
	return perSegment(manifests, status, o), ""
}

// complete returns the targets of m if all its data segments are rebuilt.
func complete(m *manifest.Signed, done map[block.Layout]codec.SegmentStatus) ([]target, bool) {
	var ts []target
	for i := range m.Manifest.Segments {
		seg := &m.Manifest.Segments[i]
		if seg.Kind != "data" {
			continue
		}
		l, err := codec.SegmentLayout(m, seg)
		if err != nil {
			return nil, false
		}
		if st, ok := done[l]; !ok || !st.Done() {
			return nil, false
		}
		ts = append(ts, target{layout: l, tarSize: seg.TarSize})
	}
	return ts, len(ts) > 0
}

// perSegment falls back to the newest complete version of each segment
// name (status is sorted newest first).
func perSegment(manifests []*manifest.Signed, status []codec.SegmentStatus, o *Options) []target {
	declared := map[manifest.Digest]int64{}
	for _, m := range manifests {
		for _, s := range m.Manifest.Segments {
			declared[s.ID] = s.TarSize
		}
	}
	best := map[string]*target{}
	var names []string
	for _, st := range status {
		l := st.Layout
		if l.Kind != block.KindData || !o.wantsLayout(l) {
			continue
		}
		t := best[l.Name]
		if t == nil {
			names = append(names, l.Name)
		}
		if t == nil || (t.err != nil && st.Done()) {
			nt := &target{layout: l, tarSize: declared[l.SegmentID]}
			if !st.Done() {
				nt.err = st.Err()
			}
			best[l.Name] = nt
		}
	}
	sort.Strings(names)
	out := make([]target, 0, len(names))
	for _, n := range names {
		out = append(out, *best[n])
	}
	return out
}
