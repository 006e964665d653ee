package status

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/odds"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// statusPageInfo is one page path while Status models the site.
type statusPageInfo struct {
	path string
	// captures are the captures the model counts, per source: aliases
	// captured in one visit are one (foldAliases).
	captures map[string][]pageCapture
	// times are every capture's time, per source (the report's timeline).
	times   map[string][]time.Time
	aliases map[string][]aliasCapture
	blocks  map[manifest.BlockRef]bool // blocks of the newest generation it carries
}

// statusPath is the page path a capture URL or history record names:
// "/about/" for "https://example.org/about/", with "?query" kept.
func statusPath(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	p := pu.EscapedPath()
	if p == "" {
		p = "/"
	}
	if pu.RawQuery != "" {
		p += "?" + pu.RawQuery
	}
	return p
}

// pages gathers every page from the listings and the history (one per
// canonicalPage: "/" and "/index.html" are one page, and their captures
// in one visit one capture), with its captures per source and the newest generation's blocks it carries, and fills the
// report's page timeline.
func (r *statusRun) pages(depths map[string]int) map[string]*statusPageInfo {
	out := map[string]*statusPageInfo{}
	get := func(p string) *statusPageInfo {
		pi := out[p]
		if pi == nil {
			pi = &statusPageInfo{path: p, captures: map[string][]pageCapture{}, times: map[string][]time.Time{},
				aliases: map[string][]aliasCapture{}, blocks: map[manifest.BlockRef]bool{}}
			out[p] = pi
		}
		return pi
	}
	newest := r.sortedManifests()
	var segs map[manifest.SegmentKey]string
	var gen string
	if len(newest) > 0 {
		gen = newest[0].m.Manifest.Generation.String()
		segs = map[manifest.SegmentKey]string{}
		for _, s := range newest[0].m.Manifest.Segments {
			segs[manifest.SegmentKey{ID: s.ID, Name: s.Name}] = s.Name
		}
	}
	for _, c := range r.caps {
		raw := statusPath(c.c.URL)
		pi := get(siteurl.CanonicalPage(raw))
		name := r.srcs[c.src].Name()
		pi.aliases[name] = append(pi.aliases[name], aliasCapture{c: pageCapture{Time: c.c.Time, Digest: c.c.Digest}, path: raw})
		pi.times[name] = append(pi.times[name], c.c.Time)
		if c.held == nil {
			continue
		}
		for _, h := range c.held.shards {
			if n, ok := segs[h.seg]; ok {
				pi.blocks[manifest.BlockRef{Segment: n, Stripe: h.stripe, Shard: h.shard}] = true
			}
		}
	}
	for _, p := range r.hist.paths() {
		pi := get(siteurl.CanonicalPage(p))
		for _, rec := range r.hist.urls[p] {
			for _, s := range rec.Blocks[gen] {
				var ref manifest.BlockRef
				if ref.UnmarshalText([]byte(s)) == nil {
					pi.blocks[ref] = true
				}
			}
		}
	}
	paths := make([]string, 0, len(out))
	for p, pi := range out {
		paths = append(paths, p)
		for name, cs := range pi.aliases {
			pi.captures[name] = foldAliases(cs, aliasGap)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		pi := out[p]
		d, ok := depths[p]
		if !ok {
			d = DepthUnknown
		}
		r.rep.Pages = append(r.rep.Pages, Page{URL: p, Depth: d, Carrier: len(pi.blocks) > 0, Captures: pi.times})
	}
	return out
}

// assess runs the recoverability model for the newest generation,
// unless it is known only from the live site (Report.Live): then
// which pages carry it is unknown, and the assessment says so
// (AssessCarriersUnknown) instead.
//
// A page whose depth is unknown (depths leaves it out) is modelled at the
// deepest level, where archives reach least: a lower bound.
func (r *statusRun) assess(newest *statusManifest, pages map[string]*statusPageInfo, depths map[string]int, t *statusTally) *Assessment {
	m := newest.m.Manifest
	out := &Assessment{Generation: m.Generation.String()}
	if r.rep.Live == out.Generation {
		// Learned from the live root page alone: no history records
		// which pages carry it, and modelling none would forecast 0%.
		out.Reason = AssessCarriersUnknown
		out.Error = fmt.Sprintf("which pages carry generation %s is unknown without the serve history", out.Generation)
		return out
	}
	in := modelInput{manifestHad: newest.archived > 0, had: map[manifest.BlockRef]bool{}, k: map[string]int{},
		stripes: map[string]int{}, captures: map[string][]odds.Capture{}, per: r.perArchive(newest)}
	for _, s := range m.Segments {
		in.k[s.Name], in.stripes[s.Name] = s.K, s.Stripes
		if s.Kind == "listing" {
			in.listing = append(in.listing, s.Name)
		}
		st := t.segs[manifest.SegmentKey{ID: s.ID, Name: s.Name}]
		if st == nil {
			continue
		}
		for stripe, shards := range st.shards {
			for shard, bits := range shards {
				ref := manifest.BlockRef{Segment: s.Name, Stripe: stripe, Shard: shard}
				if bits != 0 {
					in.had[ref] = true
				}
				for i, src := range r.srcs {
					if bits&(1<<i) != 0 {
						in.per.had[src.Name()][ref] = true
					}
				}
			}
		}
	}
	again := map[string]bool{}
	for _, src := range r.srcs {
		if capturesAgain(src) {
			in.archives = append(in.archives, src.Name())
			again[src.Name()] = true
		} else {
			out.Fixed = append(out.Fixed, src.Name())
			in.per.fixed[src.Name()] = true
		}
	}
	paths := make([]string, 0, len(pages))
	for p := range pages {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	in.blocks = map[string][]manifest.BlockRef{}
	withManifest := r.manifestPages(out.Generation)
	for _, p := range paths {
		pi := pages[p]
		d, ok := depths[p]
		if ok {
			out.DepthKnown++
		} else {
			d = -1 // the deepest level: a lower bound
		}
		in.pages = append(in.pages, odds.Page{Key: p, Depth: d})
		if since := r.since(p, pi); !since.IsZero() && (in.since.IsZero() || since.Before(in.since)) {
			in.since = since
		}
		for name, cs := range pi.captures {
			if !again[name] {
				continue
			}
			for _, c := range cs {
				in.captures[name] = append(in.captures[name], odds.Capture{Page: p, Time: c.Time})
			}
		}
		for ref := range pi.blocks {
			in.blocks[p] = append(in.blocks[p], ref)
		}
		if len(pi.blocks) > 0 {
			out.Carriers++
		}
		if withManifest[p] {
			in.manifest = append(in.manifest, p)
		}
	}
	if len(in.manifest) == 0 {
		// No history says which pages carry the manifest: the planner puts
		// it on the root and one-hop pages that carry blocks.
		for _, pg := range in.pages {
			if pg.Depth <= 1 && len(in.blocks[pg.Key]) > 0 {
				in.manifest = append(in.manifest, pg.Key)
			}
		}
	}
	if in.since.IsZero() {
		// No history says when the pages were first served: the site has
		// been observed since its oldest generation known, or its first
		// capture if earlier, not for a whole window.
		for _, sm := range r.manifests {
			if t := sm.m.Manifest.Time; in.since.IsZero() || t.Before(in.since) {
				in.since = t
			}
		}
		for _, c := range r.caps {
			if again[r.srcs[c.src].Name()] && (in.since.IsZero() || c.c.Time.Before(in.since)) {
				in.since = c.c.Time
			}
		}
	}
	out.Pages = len(in.pages)
	out.Archives = in.archives
	r.model(in, out)
	return out
}

// perArchive starts what each source alone holds of generation newest:
// the manifest (from the captures) and, for the fixed sources, whether
// they hold it whole (the verdict's HeldBy); the blocks are filled in by
// assess from the tally.
func (r *statusRun) perArchive(newest *statusManifest) perArchive {
	p := perArchive{had: map[string]map[manifest.BlockRef]bool{}, manifest: map[string]bool{}, fixed: map[string]bool{}, held: map[string]bool{}}
	for _, src := range r.srcs {
		p.had[src.Name()] = map[manifest.BlockRef]bool{}
	}
	gen := newest.m.Manifest.Generation
	for _, c := range r.caps {
		if c.held != nil && slices.Contains(c.held.manifests, gen) {
			p.manifest[r.srcs[c.src].Name()] = true
		}
	}
	for _, g := range r.rep.Generations {
		if g.ID == gen.String() {
			for _, h := range g.HeldBy {
				p.held[h.Source] = true
			}
		}
	}
	return p
}

// manifestPages returns the pages (canonical) the serve history records
// carrying generation gen's manifest.
func (r *statusRun) manifestPages(gen string) map[string]bool {
	out := map[string]bool{}
	for u, recs := range r.hist.urls {
		for _, rec := range recs {
			if rec.Manifest == gen {
				out[siteurl.CanonicalPage(u)] = true
				break
			}
		}
	}
	return out
}

// since is when a page started being served, as far as the history says:
// its first recorded version (under any path naming the page), or an
// archive's first capture of it if earlier (a page served before the
// history began: a capture the history records never is, clampTimes;
// nor is a dir= source's, whose times are file times). Zero when no
// history names the page.
func (r *statusRun) since(p string, pi *statusPageInfo) time.Time {
	if r.firstServed == nil { // indexed once: a page per history URL
		r.firstServed = map[string]time.Time{}
		for u, recs := range r.hist.urls {
			c := siteurl.CanonicalPage(u)
			if f, ok := r.firstServed[c]; len(recs) > 0 && (!ok || recs[0].Time.Before(f)) {
				r.firstServed[c] = recs[0].Time
			}
		}
	}
	first := r.firstServed[p]
	if first.IsZero() {
		return time.Time{}
	}
	for _, src := range r.srcs {
		if fileTimes(src) {
			continue // a file's time is not when it was captured
		}
		for _, c := range pi.captures[src.Name()] {
			if c.Time.Before(first) {
				first = c.Time
			}
		}
	}
	return first
}

// finite keeps a NaN or an infinity out of the JSON report (which cannot
// hold one): it becomes 0.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}
