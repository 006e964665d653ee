package verify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/codec"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// generation is the newest generation found and the segment versions it
// is made of.
type generation struct {
	id   manifest.ID
	time time.Time
	m    *manifest.Signed // nil when known from blocks alone
	segs []targetSegment
}

// targetSegment is one segment version of the generation.
type targetSegment struct {
	layout  block.Layout
	tarSize int64 // from the manifest; 0 without one
}

// newest picks the generation to check: the newest verified manifest's,
// unless blocks of a newer generation were seen, whose manifest then
// could not be found: the newest version of each segment name is taken.
// It returns nil if nothing signed by the key was found.
func (t *tally) newest(rep *Report) *generation {
	var best *manifest.Signed
	for _, m := range t.manifests {
		if best == nil || m.Manifest.Time.After(best.Manifest.Time) ||
			m.Manifest.Time.Equal(best.Manifest.Time) && m.Manifest.Generation.String() > best.Manifest.Generation.String() {
			best = m
		}
	}
	var newest *block.Layout
	for i := range t.layouts {
		if l := &t.layouts[i]; newest == nil || l.Time > newest.Time {
			newest = l
		}
	}
	switch {
	case best != nil && (newest == nil || best.Manifest.Time.Unix() >= newest.Time):
		return fromManifest(best, rep)
	case newest == nil:
		return nil
	case best != nil:
		rep.problem("blocks of generation %x (made %s) were found, but no verified manifest of it: the newest manifest found is of generation %s (made %s)",
			newest.Generation, time.Unix(newest.Time, 0).UTC().Format(time.RFC3339), best.Manifest.Generation, best.Manifest.Time.UTC().Format(time.RFC3339))
	default:
		rep.problem("no verified manifest was found: the generation is known from its blocks alone")
	}
	return t.fromBlocks(*newest)
}

// fromManifest lists the segments of a verified manifest.
func fromManifest(m *manifest.Signed, rep *Report) *generation {
	g := &generation{id: m.Manifest.Generation, time: m.Manifest.Time, m: m}
	for i := range m.Manifest.Segments {
		seg := &m.Manifest.Segments[i]
		l, err := codec.SegmentLayout(m, seg)
		if err != nil {
			rep.problem("manifest of generation %s: segment %q: %v", g.id, seg.Name, err)
			continue
		}
		g.segs = append(g.segs, targetSegment{layout: l, tarSize: seg.TarSize})
	}
	return g
}

// fromBlocks takes, per segment name, the newest version whose blocks were
// seen (the listing segment only of the newest generation itself).
func (t *tally) fromBlocks(newest block.Layout) *generation {
	g := &generation{id: newest.Generation, time: time.Unix(newest.Time, 0).UTC()}
	best := map[string]block.Layout{}
	for _, l := range t.layouts {
		if l.Kind == block.KindListing && l.Generation != newest.Generation {
			continue
		}
		if b, ok := best[l.Name]; !ok || l.Time > b.Time {
			best[l.Name] = l
		}
	}
	for _, l := range best {
		g.segs = append(g.segs, targetSegment{layout: l})
	}
	slices.SortFunc(g.segs, func(a, b targetSegment) int { return strings.Compare(a.layout.Name, b.layout.Name) })
	return g
}

// stripeCount is what was seen of one stripe.
type stripeCount struct {
	kept      int // distinct shards archives would keep
	elsewhere int // distinct shards seen only where they would not
}

// conclude fills the report for the chosen generation: each segment's
// stripes, the manifest's placement, the excluded pages.
func (v *verification) conclude() {
	g, rep, t := v.target, v.rep, v.t
	rep.Generation, rep.Time, rep.FromManifest = g.id.String(), g.time.UTC(), g.m != nil
	counts := t.stripeCounts(g)
	status := codec.ByLayout(v.a.Status())
	rep.Rebuildable = len(g.segs) > 0
	for i, ts := range g.segs {
		s := segmentResult(ts.layout, counts[i], status[ts.layout])
		rep.Segments = append(rep.Segments, s)
		rep.Rebuildable = rep.Rebuildable && s.Rebuildable
	}
	rep.Manifest = t.placement(g)
	if g.m == nil || rep.Manifest.Kept == 0 {
		rep.Rebuildable = false // recovery would not know the generation's segments
	}
	var perArchive []int
	rep.Excluded, rep.Crawl.Carriers, perArchive = t.excluded(g)
	rep.Archives = t.archiveReach(perArchive)
	rep.Warnings = append(rep.Warnings, reachWarnings(rep.Archives, rep.Crawl.Carriers)...)
	if g.m != nil && !siteurl.SameSite(g.m.Manifest.Site, v.root) {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the newest generation was made for %s, not %s: give inject or the Caddy module this site's URL; recover and status count it as this site's only while no generation names %s",
			g.m.Manifest.Site, v.root, v.root))
	}
	rep.Rejected, rep.Foreign, rep.Unsigned = t.rejected, t.foreign, t.unsigned
	for _, p := range t.problems {
		rep.problem("%s", p)
	}
	rep.ProblemsOmitted += t.omitted
}

// noManifest says, when the generation's manifest is on no page archives
// would keep, what was seen instead; "" when it is on one.
func (v *verification) noManifest() string {
	g, t := v.target, v.t
	if g.m != nil && v.rep.Manifest.Kept > 0 {
		return ""
	}
	const head = "no manifest on any page archives would keep, and recovery needs it to know the generation's segments: "
	if g.m != nil {
		var where []string
		for _, e := range v.rep.Excluded {
			if e.Manifest {
				where = append(where, fmt.Sprintf("%s (%s)", e.URL, e.Reason))
			}
		}
		return head + fmt.Sprintf("the manifest of generation %s was found only on pages archives would not keep: %s", g.id, strings.Join(where[:min(3, len(where))], ", "))
	}
	names := make([]string, 0, len(g.segs))
	for _, s := range g.segs {
		names = append(names, s.layout.Name)
	}
	saw := fmt.Sprintf("blocks of generation %s were seen, of segments %s, but no manifest of it", g.id, strings.Join(names, ", "))
	if len(t.manifests) > 0 {
		saw += fmt.Sprintf(" (%s found)", humane.Count(len(t.manifests), "manifest of an older generation was", "manifests of older generations were"))
	}
	return head + saw + "; a segment whose blocks are all gone would not show"
}

// segmentIndexes maps the tally's layout indexes to the generation's
// segments.
func (t *tally) segmentIndexes(g *generation) map[int32]int {
	idx := map[int32]int{}
	for i, s := range g.segs {
		if j, ok := t.layoutIdx[s.layout]; ok {
			idx[j] = i
		}
	}
	return idx
}

// stripeCounts counts, per segment of g and stripe, the distinct shards
// archives would keep and those seen only elsewhere.
func (t *tally) stripeCounts(g *generation) []map[uint32]*stripeCount {
	out := make([]map[uint32]*stripeCount, len(g.segs))
	for i := range out {
		out[i] = map[uint32]*stripeCount{}
	}
	idx := t.segmentIndexes(g)
	for k, mask := range t.shards {
		i, ok := idx[k.seg]
		if !ok {
			continue
		}
		c := out[i][k.stripe]
		if c == nil {
			c = &stripeCount{}
			out[i][k.stripe] = c
		}
		if mask&(1<<kept) != 0 {
			c.kept++
		} else {
			c.elsewhere++
		}
	}
	return out
}

// segmentResult judges one segment from its stripe counts and the
// assembler's status of the blocks archives would keep.
func segmentResult(l block.Layout, counts map[uint32]*stripeCount, st codec.SegmentStatus) Segment {
	n := l.Stripes()
	s := Segment{Name: l.Name, Kind: l.Kind.String(), Generation: manifest.ID(l.Generation).String(),
		K: int(l.K), M: int(l.M), Stripes: int(n), MinReachable: int(l.K) + int(l.M)}
	for j := uint64(0); j < n; j++ {
		c := counts[uint32(j)]
		if c == nil {
			c = &stripeCount{}
		}
		s.MinReachable = min(s.MinReachable, c.kept)
		if c.kept < int(l.K) {
			s.ShortStripes++
			if len(s.Short) < maxShortStripes {
				s.Short = append(s.Short, ShortStripe{Stripe: int(j), Reachable: c.kept, Need: int(l.K), Elsewhere: c.elsewhere})
			}
		}
	}
	switch {
	case s.ShortStripes > 0:
	case !st.Done():
		s.Detail = st.Err().Error()
	default:
		s.Rebuildable = true
	}
	return s
}

// pageGroups gathers the pages seen by pageKey, each group's page under
// its own name first (then by URL).
func (t *tally) pageGroups() [][]*pageSeen {
	by := map[string][]*pageSeen{}
	for _, ps := range t.pages {
		by[ps.key] = append(by[ps.key], ps)
	}
	out := make([][]*pageSeen, 0, len(by))
	for _, key := range slices.Sorted(maps.Keys(by)) {
		g := by[key]
		own := func(ps *pageSeen) int { // 0 for the page's own URL
			if siteurl.PathKeyOf(ps.url) == key {
				return 0
			}
			return 1
		}
		slices.SortFunc(g, func(a, b *pageSeen) int {
			return cmp.Or(cmp.Compare(own(a), own(b)), cmp.Compare(a.url, b.url))
		})
		out = append(out, g)
	}
	return out
}

// groupDepth is the fewest link hops to a page under any of its URLs.
func (t *tally) groupDepth(g []*pageSeen) int {
	if vi := t.visited[g[0].key]; vi != nil {
		return vi.depth
	}
	d := g[0].depth
	for _, ps := range g[1:] {
		if ps.depth >= 0 && (d < 0 || ps.depth < d) {
			d = ps.depth
		}
	}
	return d
}

// placement says where the generation's manifest is kept, counting a
// page once whatever URLs it was read under.
func (t *tally) placement(g *generation) ManifestPlacement {
	p := ManifestPlacement{OneHopPages: t.oneHop()}
	for _, grp := range t.pageGroups() {
		has := false
		for _, ps := range grp {
			has = has || slices.ContainsFunc(ps.manifests, func(m pageItem[manifest.ID]) bool { return m.key == g.id && m.w == kept })
		}
		if !has {
			continue
		}
		p.Kept++
		switch t.groupDepth(grp) {
		case 0:
			p.Root = true
		case 1:
			p.OneHop++
		}
	}
	return p
}

// excluded lists the pages holding the generation's blocks or manifest
// where archives would not keep them, and counts the carriers they would
// keep, in all and per archive crawler. A page read under several URLs
// (see pageKey) counts once: what one of them keeps is kept.
func (t *tally) excluded(g *generation) (out []ExcludedPage, carriers int, perArchive []int) {
	idx := t.segmentIndexes(g)
	out = []ExcludedPage{} // [] in JSON, not null
	perArchive = make([]int, len(archiveCrawlers))
	for _, grp := range t.pageGroups() {
		keptShards := map[shardKey]bool{}
		var reach archiveSet
		manifestKept := false
		for _, ps := range grp {
			for _, b := range ps.blocks {
				if _, ok := idx[b.key.seg]; ok && b.w == kept {
					keptShards[b.key] = true
					reach |= ps.archives
				}
			}
			for _, m := range ps.manifests {
				manifestKept = manifestKept || m.key == g.id && m.w == kept
			}
		}
		if len(keptShards) > 0 {
			carriers++
			for i := range archiveCrawlers {
				if reach.has(i) {
					perArchive[i]++
				}
			}
		}
		if e, ok := t.excludedGroup(grp, idx, keptShards, manifestKept, g.id); ok {
			out = append(out, e)
		}
	}
	if len(out) > MaxExcludedPages {
		out = out[:MaxExcludedPages]
	}
	return out, carriers, perArchive
}

// excludedGroup says what archives would not keep of one page (a group of
// its URLs): the generation's blocks not kept under another of its URLs,
// and its manifest if no URL keeps it; ok is false when nothing is lost.
func (t *tally) excludedGroup(grp []*pageSeen, idx map[int32]int, keptShards map[shardKey]bool, manifestKept bool, gen manifest.ID) (e ExcludedPage, ok bool) {
	e.URL = grp[0].url
	lost := map[shardKey]bool{}
	for _, ps := range grp {
		if ps.url != e.URL {
			e.Aliases = append(e.Aliases, ps.url)
		}
		for _, b := range ps.blocks {
			if _, in := idx[b.key.seg]; !in || b.w == kept || keptShards[b.key] {
				continue
			}
			lost[b.key] = true
			if e.Reason == "" {
				e.Reason = ps.reason
			}
			if b.w == byTruncation && e.Reason == "" {
				e.Reason = "truncated: blocks end past where archives cut the page"
			}
		}
		for _, m := range ps.manifests {
			if m.key != gen || m.w == kept || manifestKept {
				continue
			}
			e.Manifest = true
			if e.Reason == "" {
				e.Reason = ps.reason
			}
			if m.w == byTruncation && e.Reason == "" {
				e.Reason = "truncated: the manifest ends past where archives cut the page"
			}
		}
	}
	e.Blocks = len(lost)
	for k := range lost {
		if t.shards[k]&(1<<kept) == 0 {
			e.Only++
		}
	}
	return e, e.Blocks > 0 || e.Manifest
}

// nothing explains why no generation was found.
func (v *verification) nothing() error {
	t := v.t
	var why string
	switch {
	case t.foreign > 0:
		why = fmt.Sprintf("found %s, but none signed by this key: another site's data, or the wrong key",
			humane.Count(t.foreign, "Lazarus block or manifest", "Lazarus blocks or manifests"))
	case t.unsigned > 0:
		why = fmt.Sprintf("found %s, which recovery refuses", humane.Count(t.unsigned, "unsigned Lazarus block"))
	case t.rejected > 0:
		why = fmt.Sprintf("found %s, all damaged", humane.Count(t.rejected, "Lazarus comment"))
	default:
		why = "crawled " + humane.Count(v.rep.Crawl.Pages, "HTML page")
		if n := v.rep.Crawl.NotHTML; n > 0 {
			why += fmt.Sprintf(" (and %s of another type)", humane.Count(n, "page"))
		}
		why += "; none holds a Lazarus block or manifest"
	}
	return fmt.Errorf("%w: %s", ErrNoGeneration, why)
}
