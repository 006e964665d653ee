package recover

import (
	"context"
	"net/url"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// capStripe names one stripe of a segment version.
type capStripe struct {
	seg    status.SegKey
	stripe uint32
}

// livePage is one live page carrying blocks or the manifest of the newest
// generation where the Internet Archive would keep them.
type livePage struct {
	url      string
	depth    int // link hops from the root page; -1 if no link reaches it
	manifest bool
	blocks   []status.ShardKey
}

// liveGeneration is what the crawl of the live site found of its newest
// generation.
type liveGeneration struct {
	id       manifest.ID
	time     time.Time
	segments []block.Layout
	pages    []livePage
	report   *VerifyReport // Verify's report without hygiene and restore
}

// segKeyOf is Status's key of a segment version.
func segKeyOf(l block.Layout) status.SegKey {
	return status.SegKey{ID: manifest.Digest(l.SegmentID), Name: l.Name}
}

// crawlLive crawls the live site as Verify does (robots.txt, noarchive,
// the truncation point, links only) and returns the newest generation's
// segments and the pages that carry its blocks or manifest where the
// Internet Archive would keep them (a page read under several URLs once,
// under its own URL). Hygiene checks, unlinked pages and trial restores
// are Verify's, not done here.
func crawlLive(ctx context.Context, o VerifyOptions) (*liveGeneration, error) {
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
func (v *verification) liveGeneration() *liveGeneration {
	g, t := v.target, v.t
	lg := &liveGeneration{id: g.id, time: g.time, report: v.rep}
	for _, s := range g.segs {
		lg.segments = append(lg.segments, s.layout)
	}
	idx := t.segmentIndexes(g)
	const internetArchive = 0 // archiveCrawlers[0]: Save Page Now is its
	for _, grp := range t.pageGroups() {
		if u, err := url.Parse(grp[0].url); err != nil || u.Host != v.root.Host || u.Scheme != v.root.Scheme {
			continue // only the site's own URLs are ever asked for
		}
		p := livePage{url: grp[0].url, depth: t.groupDepth(grp)}
		seen := map[status.ShardKey]bool{}
		for _, ps := range grp {
			if !ps.archives.has(internetArchive) {
				continue
			}
			for _, m := range ps.manifests {
				p.manifest = p.manifest || m.key == g.id && m.w == kept
			}
			for _, b := range ps.blocks {
				i, ok := idx[b.key.seg]
				if !ok || b.w != kept {
					continue
				}
				k := status.ShardKey{Segment: segKeyOf(g.segs[i].layout), Stripe: b.key.stripe, Shard: b.key.shard}
				if !seen[k] {
					seen[k] = true
					p.blocks = append(p.blocks, k)
				}
			}
		}
		if p.manifest || len(p.blocks) > 0 {
			lg.pages = append(lg.pages, p)
		}
	}
	return lg
}
