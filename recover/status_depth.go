package recover

import (
	"strings"
)

// maxLinkedPages bounds the pages whose links Status keeps: a site (or a
// hostile archive) with endless distinct pages must not make it hold
// them all. Pages past it are not walked: their links are unknown.
const maxLinkedPages = 100_000

// canonicalPage is the page a path names: "/a/index.html" (and
// "index.htm") is "/a/", as a server serves it, so that archives that
// captured both count one page.
func canonicalPage(p string) string {
	path, query, hasQuery := strings.Cut(p, "?")
	for _, index := range []string{"index.html", "index.htm"} {
		if strings.HasSuffix(path, "/"+index) {
			path = strings.TrimSuffix(path, index)
			break
		}
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// rootPage is the site's root page path, canonical ("/" or "/blog/").
func (r *statusRun) rootPage() string {
	root := r.site.EscapedPath()
	if !strings.HasSuffix(root, "/") {
		root += "/"
	}
	return canonicalPage(root)
}

// isRoot reports whether a page path is the site's root page.
func (r *statusRun) isRoot(p string) bool {
	root := r.rootPage()
	p = canonicalPage(p)
	return p == root || p+"/" == root
}

// noteLinks records the site paths the archived page at u links to.
func (r *statusRun) noteLinks(u string, links []string) {
	if len(links) == 0 {
		return
	}
	p := canonicalPage(statusPath(u))
	set := r.links[p]
	if set == nil {
		if len(r.links) >= maxLinkedPages {
			return
		}
		set = map[string]bool{}
		r.links[p] = set
	}
	for _, l := range links {
		if len(set) >= maxScanLinks {
			return
		}
		set[canonicalPage(l)] = true
	}
}

// depths walks the links of the archived pages Status read, breadth
// first from the root page, and returns each page's link depth: the root
// is 0, a page it links to 1, and so on. Pages the walk does not reach
// (their links were not read: known from the history, not fetched) are
// left out: their depth is unknown.
func (r *statusRun) depths() map[string]int {
	root := r.rootPage()
	out := map[string]int{root: 0}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for l := range r.links[p] {
			if _, ok := out[l]; !ok {
				out[l] = out[p] + 1
				queue = append(queue, l)
			}
		}
	}
	return out
}
