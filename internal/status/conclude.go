package status

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// conclude tallies what the captures hold and fills the report.
func (r *statusRun) conclude() {
	r.otherSites()
	r.clampTimes()
	t, gens, verdicts := r.judge()
	r.rep.Captures = make([]Capture, 0, len(r.caps))
	for _, c := range r.caps {
		r.rep.Captures = append(r.rep.Captures, r.describe(c))
	}
	r.rep.Generations = verdicts
	if len(gens) > 0 {
		r.rep.Newest = gens[0].m.Manifest.Generation.String()
	}
	for i, g := range r.rep.Generations {
		if g.Recoverable {
			r.rep.RestorePoint = &RestorePoint{Generation: g.ID, Time: g.Time, Age: r.o.Now.Sub(g.Time), Newest: i == 0}
			break
		}
	}
	r.rep.Timelines = r.timelines(gens, t)
	r.orphans(t)
	depths := r.depths()
	pages := r.pages(depths)
	if len(gens) > 0 {
		r.rep.Assessment = r.assess(gens[0], pages, depths, t)
	}
	r.rep.Cause = r.cause()
	r.rep.Notes = append(r.rep.Notes, r.notes()...)
}

// cause says why nothing is recoverable when the archives are not to
// blame: no generation had been made yet at Now (an audit as of a past
// time; known when a later one was seen), every source failed to list the site (the archives were not
// read), or Lazarus data was found but none of it verifies with the key
// (another site's data, or the wrong key). nil otherwise, and whenever
// a generation is recoverable.
func (r *statusRun) cause() *Cause {
	if r.rep.RestorePoint != nil {
		return nil
	}
	if len(r.manifests) == 0 && !r.firstLater.IsZero() {
		return &Cause{Kind: CauseNoneYet, Message: fmt.Sprintf("no generation had been made yet as of %s (the first seen was made at %s)",
			r.o.Now.UTC().Format(time.RFC3339), r.firstLater.UTC().Format(time.RFC3339))}
	}
	failed := 0
	var why []string
	for _, s := range r.rep.Sources {
		if s.Error != "" && s.Captures == 0 {
			failed++
			why = append(why, fmt.Sprintf("source %s: cannot be read: %s", s.Name, s.Error))
		}
	}
	if failed > 0 && failed == len(r.rep.Sources) {
		msg := why[0]
		if failed > 1 {
			msg = "every source failed: " + strings.Join(why, "; ")
		}
		return &Cause{Kind: CauseSourcesFailed, Message: msg}
	}
	foreign := r.foreign
	for _, c := range r.caps {
		if c.held == nil {
			continue
		}
		if len(c.held.manifests) > 0 || len(c.held.shards) > 0 {
			return nil // something verified: the key is right
		}
		foreign += c.held.foreign
	}
	if len(r.manifests) > 0 || foreign == 0 {
		return nil
	}
	return &Cause{Kind: CauseWrongKey, Message: fmt.Sprintf("found %s, but none signed by this key: another site's data, or the wrong key",
		humane.Count(foreign, "Lazarus block or manifest", "Lazarus blocks or manifests"))}
}

// judge tallies what the captures hold as far as it is known now, and
// returns the tally, the verified manifests newest first and each one's
// verdict. Spot checks call it to learn which generations the verdict
// depends on; conclude calls it once everything is resolved.
func (r *statusRun) judge() (*statusTally, []*statusManifest, []Generation) {
	t := newStatusTally(len(r.srcs))
	for _, sm := range r.manifests {
		sm.archived = 0
	}
	for _, c := range r.caps {
		if c.held == nil {
			continue
		}
		for _, g := range c.held.manifests {
			if sm := r.manifests[g]; sm != nil {
				sm.archived++
			}
		}
		t.add(c.src, c.c.Time, c.held.shards, r.layouts)
	}
	gens := r.sortedManifests()
	verdicts := make([]Generation, 0, len(gens))
	for _, sm := range gens {
		verdicts = append(verdicts, r.generation(sm, t))
	}
	return t, gens, verdicts
}

// verdictGenerations are the generations the verdict depends on as
// things stand: the newest and the newest recoverable one.
func (r *statusRun) verdictGenerations() []manifest.ID {
	_, gens, verdicts := r.judge()
	var out []manifest.ID
	for i, g := range verdicts {
		if i == 0 || g.Recoverable {
			out = append(out, gens[i].m.Manifest.Generation)
		}
		if g.Recoverable {
			break
		}
	}
	return out
}

// sortedManifests returns the verified manifests, newest first.
func (r *statusRun) sortedManifests() []*statusManifest {
	out := make([]*statusManifest, 0, len(r.manifests))
	for _, sm := range r.manifests {
		out = append(out, sm)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].m.Manifest, out[j].m.Manifest
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		return a.Generation.String() > b.Generation.String()
	})
	return out
}

// generation reports one generation: recoverable, as recover decides a
// coherent restore point, when its manifest is archived and every data
// segment has every stripe with K distinct blocks in the sources
// combined.
func (r *statusRun) generation(sm *statusManifest, t *statusTally) Generation {
	m := sm.m.Manifest
	g := Generation{ID: m.Generation.String(), Time: m.Time.UTC()}
	data := 0
	ok := true
	for _, seg := range m.Segments {
		ss := r.segment(seg, t)
		g.Segments = append(g.Segments, ss)
		if ss.Listing {
			continue
		}
		data++
		if !ss.Recoverable {
			ok = false
			g.Short = append(g.Short, shortBy(ss))
		}
	}
	g.SegmentsRebuildable = ok && data > 0
	g.ManifestArchived = sm.archived > 0
	switch {
	case !g.ManifestArchived && g.SegmentsRebuildable:
		g.Short = append(g.Short, manifestMissingRebuildable)
	case !g.ManifestArchived:
		g.Short = append(g.Short, "its manifest is in no archived capture: even with every segment's blocks, recovery could not make it "+
			"a coherent restore point (it would restore the segments without the generation's listing check, a partial restore)")
	}
	g.Recoverable = g.SegmentsRebuildable && g.ManifestArchived
	if g.Recoverable {
		g.HeldBy = r.heldBy(sm, t)
	}
	return g
}

// manifestMissingRebuildable is Generation.Short's entry for a
// generation whose data segments are rebuildable but whose manifest no
// archived capture holds (SegmentsRebuildable without ManifestArchived):
// what recovery then does (its per-segment fallback).
const manifestMissingRebuildable = "segments rebuildable, but its manifest is in no archived capture: " +
	"recovery restores the segments, without the generation's listing check, as a partial restore"

// segment reports one segment of a generation, stripe by stripe.
func (r *statusRun) segment(seg manifest.Segment, t *statusTally) Segment {
	st := t.segs[manifest.SegmentKey{ID: seg.ID, Name: seg.Name}]
	ss := Segment{Name: seg.Name, Listing: seg.Kind == "listing", Version: seg.Generation.String(), ID: seg.ID.String(),
		K: seg.K, M: seg.M, Stripes: seg.Stripes, PerStripe: make([]Stripe, 0, seg.Stripes)}
	for i := 0; i < seg.Stripes; i++ {
		s := Stripe{Index: i, Need: seg.K, Have: map[string]int{}}
		if h := st.have(uint32(i)); h != nil {
			for src, n := range h[:len(r.srcs)] {
				if n > 0 {
					s.Have[r.srcs[src].Name()] = n
				}
			}
			s.Combined = h[len(r.srcs)]
		}
		if s.Combined >= s.Need {
			ss.Complete++
		}
		ss.PerStripe = append(ss.PerStripe, s)
	}
	ss.Recoverable = ss.Complete == ss.Stripes
	return ss
}

// shortBy says which stripes of a segment are short, and by how much.
func shortBy(ss Segment) string {
	var parts []string
	missing := 0
	for _, s := range ss.PerStripe {
		if s.Combined < s.Need {
			missing += s.Need - s.Combined
			if len(parts) < 5 {
				parts = append(parts, fmt.Sprintf("stripe %d has %d of %d", s.Index, s.Combined, s.Need))
			}
		}
	}
	more := ""
	if n := ss.Stripes - ss.Complete; n > len(parts) {
		more = ", and " + humane.Count(n-len(parts), "more stripe", "more stripes")
	}
	return fmt.Sprintf("segment %q is %s short (%s%s)", ss.Name, humane.Count(missing, "block"), strings.Join(parts, ", "), more)
}

// timelines returns the block timelines of every data segment version
// the generations name, each once.
func (r *statusRun) timelines(gens []*statusManifest, t *statusTally) []Timeline {
	var out []Timeline
	done := map[manifest.SegmentKey]bool{}
	for _, sm := range gens {
		for _, seg := range sm.m.Manifest.Segments {
			k := manifest.SegmentKey{ID: seg.ID, Name: seg.Name}
			if seg.Kind != "data" || done[k] {
				continue
			}
			done[k] = true
			st := t.segs[k]
			for i := 0; i <= len(r.srcs); i++ {
				name := Combined
				if i < len(r.srcs) {
					name = r.srcs[i].Name()
				}
				tl := Timeline{Generation: seg.Generation.String(), Segment: seg.Name, Source: name, K: seg.K, Stripes: seg.Stripes,
					Points: []TimelinePoint{}}
				if st != nil {
					tl.Points = st.points[i]
				}
				out = append(out, tl)
			}
		}
	}
	return out
}

// orphans notes generations whose signed blocks were archived but whose
// manifest was seen nowhere: recover cannot make them a coherent restore
// point.
func (r *statusRun) orphans(t *statusTally) {
	named := map[manifest.SegmentKey]bool{}
	for _, sm := range r.manifests {
		for _, s := range sm.m.Manifest.Segments {
			named[manifest.SegmentKey{ID: s.ID, Name: s.Name}] = true
		}
	}
	gens := map[string]time.Time{}
	for k, st := range t.segs {
		if !named[k] {
			gens[st.layout.Generation.String()] = time.Unix(st.layout.Time, 0).UTC()
		}
	}
	ids := make([]string, 0, len(gens))
	for g := range gens {
		ids = append(ids, g)
	}
	sort.Strings(ids)
	for _, g := range ids {
		r.rep.Notes = append(r.rep.Notes, fmt.Sprintf("blocks of generation %s (%s) are archived, but no verified manifest names them: "+
			"it cannot be a coherent restore point", g, gens[g].Format(time.RFC3339)))
	}
}

// notes are the plain sentences every report carries.
func (r *statusRun) notes() []string {
	var out []string
	if a := r.rep.Assessment; a != nil && len(a.Views) > 0 {
		out = append(out, "The outlook is the capture model fitted to each archive's history: site sweeps by depth (found as bursts "+
			"against the background), one-page captures, an ingest lag and truncation. Its figures are lower bounds within each horizon, "+
			"counting the blocks already archived as certain.")
		if n := thinEvidenceNote(a); n != "" {
			out = append(out, n)
		}
	}
	if len(r.o.History) == 0 {
		out = append(out, "No serve history was given: every capture with a new digest had to be fetched. "+
			"With inject's or the Caddy module's history, status reads the archives' listings only.")
	}
	for _, src := range r.srcs {
		if fileTimes(src) {
			out = append(out, fileTimesNote(src.Name()))
		}
		if _, ok := src.(source.PageLister); ok && len(r.hist.urls) == 0 {
			out = append(out, src.Name()+" lists captures page by page: without a serve history only the root page's were listed.")
		}
	}
	fetched, known, checked, unfetched := 0, 0, 0, 0
	for _, s := range r.rep.Sources {
		fetched += s.Fetched
		known += s.Known
		checked += s.SpotChecked
		unfetched += s.Unfetched
	}
	if why := r.fetchReasons(); fetched > 0 && len(r.o.History) > 0 && why != "" {
		out = append(out, fmt.Sprintf("%s known from the history, %d had to be read: %s.", humane.Count(known, "capture was", "captures were"), fetched, why))
	}
	if known > 0 {
		word := fmt.Sprintf("%d of them %s fetched as spot checks", checked, map[bool]string{true: "was", false: "were"}[checked == 1])
		if r.o.SpotChecks <= 0 {
			word = "none was spot-checked (spot checks were turned off)"
		}
		out = append(out, fmt.Sprintf("Captures known from the serve history are counted on the archive's word: their listed digest "+
			"is taken to name the recorded page version without fetching it; %s.", word))
	}
	if unfetched > 0 {
		out = append(out, fmt.Sprintf("%d captures of unknown contents were left unfetched at the bound of %d fetches: "+
			"what they hold is not counted; a run with a state directory goes on where this one stopped.", unfetched, r.o.MaxFetches))
	}
	return out
}

// otherSites leaves out the generations whose manifests name another site
// (one key may sign several), as recover does (Options.otherSites): when
// some generation names this site, the others are not its; when none
// does (the site URL was recorded otherwise), all count, and the report
// says which site they name.
func (r *statusRun) otherSites() {
	var own, other []manifest.ID
	sites := map[string]bool{}
	for id, sm := range r.manifests {
		if siteurl.SameSite(sm.m.Manifest.Site, r.site) {
			own = append(own, id)
		} else {
			other = append(other, id)
			sites[sm.m.Manifest.Site] = true
		}
	}
	if len(other) == 0 {
		return
	}
	names := slices.Sorted(maps.Keys(sites))
	if len(own) == 0 {
		r.problem("the generations found were made for %s, not %s: counted as this site's (no generation names it)", strings.Join(names, ", "), r.site)
		return
	}
	slices.SortFunc(other, func(a, b manifest.ID) int { return strings.Compare(a.String(), b.String()) })
	for _, id := range other {
		r.problem("generation %s is of the site %s, not %s: ignored", id, r.manifests[id].m.Manifest.Site, r.site)
		delete(r.manifests, id)
	}
}
