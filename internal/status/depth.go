package status

import (
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/siteurl"
)

// maxLinkBytes bounds what Status keeps of the archived pages' links, in
// bytes: 4 per link kept, plus, while a local source is read, the bytes
// of the link targets not yet known (they may be listed later in the
// file). A site (or a hostile archive) with endless links must not make
// it hold them all: links past the bound are not kept, and the pages only
// they reach have no known depth.
const maxLinkBytes = 32 << 20

// statusLinks is the link graph of the archived pages Status read, over
// the pages it knows: the history's, the listings' and the root page,
// each interned as an index. Links to other pages are not kept: no depth
// is reported for them, and the walk could not go on from them (nothing
// of theirs was read).
type statusLinks struct {
	ids   map[string]int32 // canonical page path → index
	names []string         // by index; "" once a pending name is dropped
	known []bool           // by index: a page the history or a listing knows
	out   [][]int32        // by index: the pages it links to, each once
	bytes int              // counted against maxLinkBytes
	// open is set while the sources are listed: a link to a page not yet
	// known is kept, pending, until seal.
	open bool
}

func newStatusLinks() *statusLinks {
	return &statusLinks{ids: map[string]int32{}, open: true}
}

// intern returns a page's index, adding it (pending) if need be; ok is
// false if it is not known and cannot be kept.
func (g *statusLinks) intern(p string, know bool) (int32, bool) {
	if id, ok := g.ids[p]; ok {
		if know && !g.known[id] {
			g.known[id] = true
			g.bytes -= len(p)
		}
		return id, true
	}
	if !know && (!g.open || g.bytes+len(p) > maxLinkBytes) {
		return 0, false
	}
	id := int32(len(g.names))
	g.ids[p] = id
	g.names = append(g.names, p)
	g.known = append(g.known, know)
	g.out = append(g.out, nil)
	if !know {
		g.bytes += len(p)
	}
	return id, true
}

// know records a page the history or a listing knows (canonicalPage).
func (g *statusLinks) know(p string) {
	g.intern(p, true)
}

// note records the links (site paths) of the known page p
// (canonicalPage) and returns the ones kept, canonical, each once: the
// links to pages known, and while the sources are listed, to pages that
// may yet be. A page keeps at most maxScanLinks links.
func (g *statusLinks) note(p string, links []string) []string {
	from, ok := g.ids[p]
	if !ok || !g.known[from] || len(links) == 0 {
		return nil
	}
	has := make(map[int32]bool, len(g.out[from]))
	for _, to := range g.out[from] {
		has[to] = true
	}
	seen := map[int32]bool{}
	var kept []string
	for _, l := range links {
		c := siteurl.CanonicalPage(l)
		to, ok := g.ids[c]
		if !ok {
			if !g.open || len(g.out[from]) >= maxScanLinks || g.bytes+len(c)+4 > maxLinkBytes {
				continue
			}
			to, _ = g.intern(c, false)
		}
		if seen[to] {
			continue
		}
		seen[to] = true
		if !has[to] {
			if len(g.out[from]) >= maxScanLinks || g.bytes+4 > maxLinkBytes {
				continue
			}
			has[to] = true
			g.out[from] = append(g.out[from], to)
			g.bytes += 4
		}
		kept = append(kept, g.names[to])
	}
	return kept
}

// keep returns the links (canonical, from note) to pages known.
func (g *statusLinks) keep(links []string) []string {
	var out []string
	for _, l := range links {
		if id, ok := g.ids[l]; ok && g.known[id] {
			out = append(out, g.names[id])
		}
	}
	return out
}

// seal ends the listing: every page is now known or never will be, so
// the links to pages not known, and their names, are dropped.
func (g *statusLinks) seal() {
	if !g.open {
		return
	}
	g.open = false
	for i, out := range g.out {
		kept := out[:0]
		for _, to := range out {
			if g.known[to] {
				kept = append(kept, to)
			} else {
				g.bytes -= 4
			}
		}
		g.out[i] = kept
		if len(kept) == 0 {
			g.out[i] = nil
		}
	}
	for i, n := range g.names {
		if !g.known[i] && n != "" {
			delete(g.ids, n)
			g.bytes -= len(n)
			g.names[i] = ""
		}
	}
}

// depths walks the links breadth first from root and returns each
// known page's link depth: root is 0, a page it links to 1, and so on.
// Pages the walk does not reach are left out: their depth is unknown.
func (g *statusLinks) depths(root string) map[string]int {
	out := map[string]int{root: 0}
	start, ok := g.ids[root]
	if !ok {
		return out
	}
	depth := make([]int32, len(g.names))
	for i := range depth {
		depth[i] = -1
	}
	depth[start] = 0
	queue := []int32{start}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, l := range g.out[p] {
			if depth[l] < 0 && g.known[l] {
				depth[l] = depth[p] + 1
				out[g.names[l]] = int(depth[l])
				queue = append(queue, l)
			}
		}
	}
	return out
}

// rootPage is the site's root page path, canonical ("/" or "/blog/").
func (r *statusRun) rootPage() string {
	root := r.site.EscapedPath()
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	return siteurl.CanonicalPage(root)
}

// isRoot reports whether a page path is the site's root page.
func (r *statusRun) isRoot(p string) bool {
	root := r.rootPage()
	p = siteurl.CanonicalPage(p)
	return p == root || p+"/" == root
}

// capturePage is the page a capture URL names (canonicalPage).
func capturePage(u string) string {
	return siteurl.CanonicalPage(statusPath(u))
}

// noteLinks records the site paths the archived page at u links to and
// returns the ones kept (see statusLinks.note).
func (r *statusRun) noteLinks(u string, links []string) []string {
	return r.links.note(capturePage(u), links)
}

// depths is each known page's link depth from the site's root page,
// from the links of the archived pages Status read (see
// statusLinks.depths), and for the pages those links do not reach, the
// depth the serve history records (inject writes it; the least of a
// page's records). Pages neither gives have no known depth.
func (r *statusRun) depths() map[string]int {
	out := r.links.depths(r.rootPage())
	for u, recs := range r.hist.urls {
		p := siteurl.CanonicalPage(u)
		if _, ok := out[p]; ok {
			continue
		}
		best := -1
		for _, rec := range recs {
			if rec.Depth != nil && (best < 0 || *rec.Depth < best) {
				best = *rec.Depth
			}
		}
		if best >= 0 {
			out[p] = best
		}
	}
	return out
}
