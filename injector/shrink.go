package injector

import (
	"fmt"

	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// A segment has shrunk when its tar is less than a tenth of its size in
// the generation it is measured against and at least 64 KiB smaller: a
// database dump of 5 MiB become 2 KiB, a tree whose path was mistyped.
const (
	shrinkRatio   = 10
	minShrinkLoss = 64 << 10
)

// checkShrink finds the data segments that are empty or shrunk (see
// ShrunkSegment), warns about each, and decides which earlier
// generations this run holds on the pages (r.held, saved by commit). A
// segment is measured against the generation held for it by an earlier
// run, if the state still has it, else against the current generation:
// so a shrink stays found, and held, run after run until the segment is
// back to its size or the shrink is accepted. content is each segment's
// bytes of regular files.
func (r *run) checkShrink(segs []segmentInfo, content map[string]int64) {
	r.held = map[string]manifest.ID{}
	if r.o.AcceptShrink {
		return
	}
	for _, s := range segs {
		base, gen := r.shrinkBase(s.Name)
		empty := content[s.Name] == 0
		shrunk := base != nil && base.TarSize >= shrinkRatio*s.TarSize && base.TarSize-s.TarSize >= minShrinkLoss
		if !empty && !shrunk {
			continue
		}
		sh := ShrunkSegment{Name: s.Name, Empty: empty, TarBytes: s.TarSize}
		if base != nil && base.TarSize > s.TarSize {
			sh.Generation, sh.WasTarBytes = gen.ID.String(), base.TarSize
			r.held[s.Name] = gen.ID
		}
		r.res.Shrunk = append(r.res.Shrunk, sh)
		r.res.Warnings = append(r.res.Warnings, shrinkWarning(sh, s.Source))
	}
}

// shrinkBase returns the version of segment name a shrink is measured
// against, and its generation: the one held for it, else the current
// one; nil when neither has it.
func (r *run) shrinkBase(name string) (*segmentInfo, *generationInfo) {
	if id, ok := r.st.Held[name]; ok {
		for i := range r.st.Generations {
			if g := &r.st.Generations[i]; g.ID == id && g.segment(name) != nil {
				return g.segment(name), g
			}
		}
	}
	if g := r.st.current(); g != nil && g.segment(name) != nil {
		return g.segment(name), g
	}
	return nil, nil
}

func shrinkWarning(sh ShrunkSegment, origin string) string {
	what := fmt.Sprintf("segment %q", sh.Name)
	if origin != "" {
		what += " (" + origin + ")"
	}
	var msg string
	switch {
	case sh.Generation == "":
		return what + " is empty: no file with content; preserved as it is (a mistyped path? a dump that printed nothing?)"
	case sh.Empty:
		msg = fmt.Sprintf("%s is empty: no file with content, where generation %s held %s", what, sh.Generation, humane.Bytes(sh.WasTarBytes))
	default:
		msg = fmt.Sprintf("%s shrank from %s in generation %s to %s", what, humane.Bytes(sh.WasTarBytes), sh.Generation, humane.Bytes(sh.TarBytes))
	}
	return msg + fmt.Sprintf(" (a mistyped path? a dump of the wrong database?); generation %s stays on the pages until the segment is back to its size or the shrink is accepted", sh.Generation)
}

// heldGenerations returns the generations this run holds (see
// checkShrink) that the state still has, newest first, leaving out the
// current generation and those in skip.
func (r *run) heldGenerations(skip []generationInfo) []generationInfo {
	var out []generationInfo
	for _, g := range r.st.Generations {
		if g.ID == r.gen.ID || !r.holds(g.ID) {
			continue
		}
		dup := false
		for _, s := range skip {
			dup = dup || s.ID == g.ID
		}
		if !dup {
			out = append(out, g)
		}
	}
	return out
}

// holds reports whether this run holds generation id on the pages.
func (r *run) holds(id manifest.ID) bool {
	for _, h := range r.held {
		if h == id {
			return true
		}
	}
	return false
}
