package verify

import (
	"context"
	"net/url"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
)

// LivePage is one live page carrying blocks or the manifest of the newest
// generation where the Internet Archive would keep them.
type LivePage struct {
	URL      string
	Depth    int // link hops from the root page; -1 if no link reaches it
	Manifest bool
	Blocks   []manifest.BlockKey
}

// LiveGeneration is what a crawl of the live site found of its newest
// generation.
type LiveGeneration struct {
	ID       manifest.ID
	Time     time.Time
	Segments []block.Layout
	Pages    []LivePage
	Report   *Report // Verify's report, without signal checks or trial restore
}

// Live crawls the live site as Run does (robots.txt, noarchive, the
// truncation point, links only) and returns the newest generation's
// segments and the pages that carry its blocks or manifest where the
// Internet Archive would keep them (a page read under several URLs once,
// under its own URL): what capture requests ask the archive for. Signal
// checks, unlinked pages and trial restores are Run's, not done here.
func Live(ctx context.Context, o Options) (*LiveGeneration, error) {
	v, _, err := newVerification(o)
	if err != nil {
		return nil, err
	}
	defer v.a.Close()
	if err := v.crawl(ctx); err != nil {
		return nil, err
	}
	v.a.Settle()
	if v.target = v.t.newest(v.rep); v.target == nil {
		return nil, v.nothing()
	}
	v.conclude()
	return v.liveGeneration(), nil
}

// liveGeneration extracts the generation's segments and carrier pages.
func (v *verification) liveGeneration() *LiveGeneration {
	g, t := v.target, v.t
	lg := &LiveGeneration{ID: g.id, Time: g.time, Report: v.rep}
	for _, s := range g.segs {
		lg.Segments = append(lg.Segments, s.layout)
	}
	idx := t.segmentIndexes(g)
	const internetArchive = 0 // archiveCrawlers[0]: Save Page Now is its
	for _, grp := range t.pageGroups() {
		if u, err := url.Parse(grp[0].url); err != nil || u.Host != v.root.Host || u.Scheme != v.root.Scheme {
			continue // only the site's own URLs are ever asked for
		}
		p := LivePage{URL: grp[0].url, Depth: t.groupDepth(grp)}
		seen := map[manifest.BlockKey]bool{}
		for _, ps := range grp {
			if !ps.archives.has(internetArchive) {
				continue
			}
			for _, m := range ps.manifests {
				p.Manifest = p.Manifest || m.key == g.id && m.w == kept
			}
			for _, b := range ps.blocks {
				i, ok := idx[b.key.seg]
				if !ok || b.w != kept {
					continue
				}
				k := manifest.BlockKey{Segment: manifest.SegmentKeyOf(g.segs[i].layout), Stripe: b.key.stripe, Shard: b.key.shard}
				if !seen[k] {
					seen[k] = true
					p.Blocks = append(p.Blocks, k)
				}
			}
		}
		if p.Manifest || len(p.Blocks) > 0 {
			lg.Pages = append(lg.Pages, p)
		}
	}
	return lg
}
