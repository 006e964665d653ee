package verify

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/humane"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// plannedPage is a page the generation's placement plan puts blocks or
// its manifest on.
type plannedPage struct {
	u        *url.URL // on the site being verified
	blocks   map[manifest.BlockRef]bool
	manifest bool
	err      string // why it could not be fetched, if it was not crawled and could not be
}

// placementPlan is where the generation's blocks and manifest should be,
// by pageKey, and where that was learnt.
type placementPlan struct {
	pages   map[string]*plannedPage
	sources []string
}

// planPage returns the planned page of the carrier URL raw (as the listing or
// the serve history names it), adding it; nil if it is not on the site.
func (v *verification) planPage(p *placementPlan, site *url.URL, raw string) *plannedPage {
	u := siteurl.CarrierOn(v.root, site, raw)
	if u == nil {
		return nil
	}
	k := siteurl.PageKey(u)
	pp := p.pages[k]
	if pp == nil {
		pp = &plannedPage{u: u, blocks: map[manifest.BlockRef]bool{}}
		p.pages[k] = pp
	}
	return pp
}

// plan gathers the generation's placement plan: the carriers of its
// listing segment the manifest names, with the owner key or passphrase
// those the listing names, and the pages the serve histories of
// VerifyOptions.History record with its blocks or manifest (each page's
// newest version). A history that cannot be read is a problem in the
// report, not an error.
func (v *verification) plan(ctx context.Context) *placementPlan {
	p := &placementPlan{pages: map[string]*plannedPage{}}
	g := v.target
	var site *url.URL
	if m := g.m; m != nil {
		site, _ = url.Parse(m.Manifest.Site)
		carriers := m.Manifest.Listing.Carriers
		if len(carriers) > 0 {
			p.sources = append(p.sources, "manifest")
		}
		if list, err := v.a.Listing(m); err == nil {
			carriers = append(carriers, list.Carriers...)
			p.sources = append(p.sources, "listing")
		}
		for _, c := range carriers {
			if pp := v.planPage(p, site, c.URL); pp != nil {
				for _, b := range c.Blocks {
					pp.blocks[b] = true
				}
			}
		}
	}
	if v.planHistory(ctx, p, site) {
		p.sources = append(p.sources, "serve history")
	}
	return p
}

// planHistory adds what the serve histories record of the generation,
// and reports whether any named it.
func (v *verification) planHistory(ctx context.Context, p *placementPlan, site *url.URL) bool {
	gen := v.target.id.String()
	named := false
	for i, st := range v.o.History {
		ix, err := history.Load(ctx, st)
		if err != nil {
			v.rep.problem("serve history %d: %v", i+1, err)
			continue
		}
		urls := map[string]bool{}
		for _, rec := range ix.Records {
			urls[rec.URL] = true
		}
		v.rep.Histories++
		v.rep.HistoryPages += len(urls)
		for _, u := range slices.Sorted(maps.Keys(urls)) {
			versions := ix.Versions(u)
			rec := versions[len(versions)-1] // the page as it is served now
			refs := rec.Blocks[gen]
			if len(refs) == 0 && rec.Manifest != gen {
				continue
			}
			pp := v.planPage(p, site, u)
			if pp == nil {
				continue
			}
			named = true
			pp.manifest = pp.manifest || rec.Manifest == gen
			for _, s := range refs {
				var b manifest.BlockRef
				if b.UnmarshalText([]byte(s)) == nil {
					pp.blocks[b] = true
				}
			}
		}
	}
	return named
}

// missing compares the plan with what the pages carry: a planned page
// that lacks some of its blocks or its manifest is listed, most blocks
// missing first.
func (v *verification) missing(p *placementPlan) {
	g, t := v.target, v.t
	names := map[int32]string{} // the generation's segments by layout index
	for i, s := range g.segs {
		if j, ok := t.layoutIdx[s.layout]; ok {
			names[j] = g.segs[i].layout.Name
		}
	}
	found := map[string]map[manifest.BlockRef]bool{}
	manifests := map[string]bool{}
	for _, ps := range t.pages {
		f := found[ps.key]
		if f == nil {
			f = map[manifest.BlockRef]bool{}
			found[ps.key] = f
		}
		for _, b := range ps.blocks {
			if name, ok := names[b.key.seg]; ok {
				f[manifest.BlockRef{Segment: name, Stripe: b.key.stripe, Shard: b.key.shard}] = true
			}
		}
		for _, m := range ps.manifests {
			manifests[ps.key] = manifests[ps.key] || m.key == g.id
		}
	}
	var out []MissingPage
	for k, pp := range p.pages {
		mp := MissingPage{URL: pp.u.String(), Planned: len(pp.blocks), Fetched: pp.err == "", Error: pp.err}
		for b := range pp.blocks {
			if !found[k][b] {
				mp.Blocks++
			}
		}
		mp.Manifest = pp.manifest && !manifests[k]
		if mp.Blocks > 0 || mp.Manifest {
			out = append(out, mp)
		}
	}
	slices.SortFunc(out, func(a, b MissingPage) int { return cmp.Or(b.Blocks-a.Blocks, strings.Compare(a.URL, b.URL)) })
	v.rep.MissingPages = len(out)
	v.rep.Missing = out[:min(len(out), MaxMissingPages)]
	v.rep.Plan = strings.Join(p.sources, " and ")
}

// unread returns the planned pages the crawl did not read (by pageKey),
// in order.
func (p *placementPlan) unread(crawled map[string]bool) []*plannedPage {
	var out []*plannedPage
	for k, pp := range p.pages {
		if !crawled[k] {
			out = append(out, pp)
		}
	}
	slices.SortFunc(out, func(a, b *plannedPage) int { return strings.Compare(a.u.String(), b.u.String()) })
	return out
}

// missingSummary words the first pages that lost their blocks, for an
// error or hint: "/a.html (3 blocks), /b.html (the manifest), and 4 more".
func missingSummary(r *Report, most int) string {
	var parts []string
	for _, m := range r.Missing[:min(most, len(r.Missing))] {
		what := humane.Count(m.Blocks, "block")
		switch {
		case m.Blocks == 0:
			what = "the manifest"
		case m.Manifest:
			what += " and the manifest"
		}
		if !m.Fetched {
			what += ", page not readable"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", m.URL, what))
	}
	s := strings.Join(parts, ", ")
	if more := r.MissingPages - len(parts); more > 0 {
		s += fmt.Sprintf(", and %d more", more)
	}
	return s
}
