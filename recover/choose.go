package recover

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// plan is what restore extracts.
type plan struct {
	targets []target
	// coherent is the generation whose verified manifest's data segments
	// are all complete (seed 000's coherent restore point), nil if none:
	// then targets are the newest version of each segment name, maybe
	// from different generations.
	coherent *manifest.Signed
}

// choose picks the restore point: the newest verified manifest whose data
// segments are all complete; else, per segment name, the newest complete
// version known from manifests or block headers, and for names with none,
// the newest incomplete version with why.
func choose(manifests []*manifest.Signed, status []codec.SegmentStatus, o *Options) plan {
	done := codec.ByLayout(status)
	sort.SliceStable(manifests, func(i, j int) bool { return manifests[i].Manifest.Time.After(manifests[j].Manifest.Time) })
	other := o.otherSites(manifests)
	for _, m := range manifests {
		if !o.wants(m) || other[m.Manifest.Generation] {
			continue
		}
		if ts, ok := complete(m, done); ok {
			return plan{targets: ts, coherent: m}
		}
	}
	return plan{targets: perSegment(manifests, status, o)}
}

// complete returns the targets of m if all its data segments are rebuilt.
func complete(m *manifest.Signed, done map[block.Layout]codec.SegmentStatus) ([]target, bool) {
	ts := dataTargets(m, done)
	for _, t := range ts {
		if t.err != nil {
			return nil, false
		}
	}
	return ts, len(ts) > 0
}

// dataTargets returns a target per data segment of m, with why it cannot
// be restored yet, if so.
func dataTargets(m *manifest.Signed, done map[block.Layout]codec.SegmentStatus) []target {
	var ts []target
	for i := range m.Manifest.Segments {
		seg := &m.Manifest.Segments[i]
		if seg.Kind != "data" {
			continue
		}
		l, err := codec.SegmentLayout(m, seg)
		t := target{layout: l, tarSize: seg.TarSize}
		st, ok := done[l]
		switch {
		case err != nil:
			t.err = fmt.Errorf("segment %q: %w", seg.Name, err)
		case !ok:
			t.err = fmt.Errorf("segment %q: no block found", seg.Name)
		case !st.Done():
			t.err = st.Err()
		}
		ts = append(ts, t)
	}
	return ts
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
	other := o.otherSites(manifests)
	best := map[string]*target{}
	var names []string
	for _, st := range status {
		l := st.Layout
		if l.Kind != block.KindData || !o.wantsLayout(l) || other[manifest.ID(l.Generation)] {
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

// GenerationSeen is a generation recovery saw evidence of (a verified
// manifest or signed blocks) but did not restore, though it is newer than
// what was restored.
type GenerationSeen struct {
	Generation string    `json:"generation"`
	Time       time.Time `json:"time"`
	Detail     string    `json:"detail"` // why it was not rebuilt
}

// newerSeen lists the wanted generations newer than the restore point
// that were seen but not restored, newest first: what a rollback or a
// mixed restore point gave up. The restore point is the coherent
// generation, or else the oldest generation a rebuilt segment comes from.
func newerSeen(manifests []*manifest.Signed, status []codec.SegmentStatus, o *Options, p plan, rebuilt []target) []GenerationSeen {
	var floor int64
	switch {
	case p.coherent != nil:
		floor = p.coherent.Manifest.Time.Unix()
	case len(rebuilt) > 0:
		floor = rebuilt[0].layout.Time
		for _, t := range rebuilt {
			floor = min(floor, t.layout.Time)
		}
	default:
		return nil
	}
	seen := map[manifest.ID]bool{}
	var out []GenerationSeen
	note := func(id manifest.ID, at int64, detail func() string) {
		if at <= floor || seen[id] {
			return
		}
		seen[id] = true
		out = append(out, GenerationSeen{Generation: id.String(), Time: time.Unix(at, 0).UTC(), Detail: detail()})
	}
	done := codec.ByLayout(status)
	other := o.otherSites(manifests)
	for _, m := range manifests {
		if o.wants(m) && !other[m.Manifest.Generation] {
			note(m.Manifest.Generation, m.Manifest.Time.Unix(), func() string { return shortOf(m, done) })
		}
	}
	for _, st := range status {
		if l := st.Layout; o.wantsLayout(l) && !other[manifest.ID(l.Generation)] {
			note(l.Generation, l.Time, func() string { return blocksOnly(l.Generation, status) })
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.After(out[j].Time) })
	return out
}

// shortOf says which data segments of m are not complete, and why.
func shortOf(m *manifest.Signed, done map[block.Layout]codec.SegmentStatus) string {
	var why []string
	for _, t := range dataTargets(m, done) {
		if t.err != nil {
			why = append(why, t.err.Error())
		}
	}
	if len(why) == 0 {
		return "every segment complete, but not restored"
	}
	return strings.Join(why, "; ")
}

// blocksOnly describes a generation known only from its blocks.
func blocksOnly(gen [16]byte, status []codec.SegmentStatus) string {
	var names []string
	for _, st := range status {
		if st.Layout.Generation == gen {
			names = append(names, fmt.Sprintf("%q (%d of %d stripes)", st.Layout.Name, st.Complete, st.Stripes))
		}
	}
	return "no verified manifest found; blocks of segments " + strings.Join(names, ", ")
}
