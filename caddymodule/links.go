package caddymodule

import (
	"net/url"
	"path"
	"strings"
	"sync"
)

// canonicalPath is the URL path p as a browser would resolve it (RFC 3986
// §5.2.4, path.Clean semantics): "//" collapsed, "." and ".." segments
// removed, ".." never climbing above the root, and a trailing "/" kept
// when p names a directory ("/a/", "/a/.", "/a/b/.."). Requests for
// "//post.html", "/./post.html" or "/x/../post.html", which a file server
// answers with /post.html, are placed as /post.html: spellings of one page
// cannot take placement records of their own.
func canonicalPath(p string) string {
	if p == "" {
		return "/"
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	c := path.Clean("/" + p)
	if (last == "" || last == "." || last == "..") && c != "/" {
		c += "/"
	}
	return c
}

// linkKey is the placement key of a link site.Inspect found (an escaped,
// site-relative path): unescaped like a request's URL.Path, then made
// canonical. It is false for a link that does not unescape.
func linkKey(link string) (string, bool) {
	p, err := url.PathUnescape(link)
	if err != nil || len(p) > maxKeyLen {
		return "", false
	}
	return canonicalPath(p), true
}

// defaultLinkEntries bounds the paths a linkSet remembers, twice the
// verified pages a generation gives records.
const defaultLinkEntries = 2 * maxRecords

// linkSet remembers the paths that verified pages link to. A page is
// verified when it is "/", a page the plan names, or a path in the set:
// reachable by links from the root, as an archive crawler finds pages.
// Only verified pages count toward a generation's coverage (see placer),
// so requests for URLs nothing links to (a catch-all route answers any
// path) cannot use it up. Paths are kept as hashes; when full the set
// starts over, and verified pages, re-served, fill it again.
type linkSet struct {
	mu    sync.Mutex
	limit int
	m     map[[16]byte]struct{}
}

func newLinkSet(limit int) *linkSet {
	return &linkSet{limit: limit, m: map[[16]byte]struct{}{}}
}

// has reports whether a verified page links to key.
func (s *linkSet) has(key string) bool {
	k := keyHash(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[k]
	return ok
}

// add remembers the links of a verified page, by hash.
func (s *linkSet) add(links [][16]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range links {
		if _, ok := s.m[k]; ok {
			continue
		}
		if len(s.m) >= s.limit {
			clear(s.m)
		}
		s.m[k] = struct{}{}
	}
}

// verified reports whether the page at key counts toward coverage: "/",
// a page the generation's plan names, or one a verified page links to. A
// key with a query string is never verified (links are kept without
// their queries).
func (h *Handler) verified(g *generation, key string) bool {
	switch {
	case key == "/":
		return true
	case strings.Contains(key, "?"):
		return false
	case g.pages[key] != nil || g.manifestOn[key]:
		return true
	}
	return h.linked.has(key)
}
