package recover

import (
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"
)

// queued is a listed capture waiting to be fetched.
type queued struct {
	c   source.Capture
	src source.Source
}

// local reports whether a source's captures are files on this machine:
// reading one costs no request, so they are read ahead of the session
// (see ahead) and never journaled (reading one again costs what reading
// its copy would).
func local(src source.Source) bool {
	_, ok := src.(source.DirSource)
	return ok
}

// sort orders the queue by priority, newest first within each.
func (s *session) sort() {
	sort.SliceStable(s.queue, func(i, j int) bool {
		pi, pj := s.priority(s.queue[i].c), s.priority(s.queue[j].c)
		if pi != pj {
			return pi < pj
		}
		return captured(s.queue[i].c).After(captured(s.queue[j].c))
	})
}

// captured is a capture's time; an unknown one (the live site) is now.
func captured(c source.Capture) time.Time {
	if c.Time.IsZero() {
		return time.Now()
	}
	return c.Time
}

// priority ranks a capture: 0 for a capture of the root page that could
// hold a manifest newer than the newest one found (any, before one is
// found; else one captured after that generation was made), 1 for a
// carrier of the target generation captured after it was made, 2 for the
// rest.
func (s *session) priority(c source.Capture) int {
	p := pagePath(c.URL)
	switch {
	case isRoot(p, s.site == nil) && (s.carriers == nil || captured(c).After(s.genTime)):
		return 0
	case s.carriers[p] && !captured(c).Before(s.genTime):
		return 1
	}
	return 2
}

// isRoot reports whether a page path is the site's root page (in a
// mirror, also a host directory's index).
func isRoot(p string, mirror bool) bool {
	return p == "/" || p == "/index.html" || p == "/index.htm" || mirror && strings.Count(p, "/") == 2 && strings.HasSuffix(p, "/index.html")
}

// rootPending reports whether a capture of priority 0 waits in the queue.
func (s *session) rootPending() bool {
	for _, q := range s.queue {
		if s.priority(q.c) != 0 {
			return false // the queue is sorted by priority
		}
		if !s.seen[source.Key(q.c)] {
			return true
		}
	}
	return false
}

// pagePath returns a capture's or carrier's path: "/about/index.html" for
// "https://example.org/about/"; mirror paths keep their host directory.
func pagePath(u string) string {
	p := u
	if pu, err := url.Parse(u); err == nil && pu.Host != "" {
		p = pu.EscapedPath()
	}
	if p == "" || strings.HasSuffix(p, "/") {
		p += "index.html"
	}
	return path.Clean("/" + p)
}
