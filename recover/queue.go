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

// sort orders the queue by priority, newest first within each. Each
// capture's priority is worked out once.
func (s *session) sort() {
	type ranked struct {
		q queued
		p int
		t time.Time
	}
	r := make([]ranked, len(s.queue))
	for i, q := range s.queue {
		r[i] = ranked{q, s.priority(q.c), captured(q.c)}
	}
	sort.SliceStable(r, func(i, j int) bool {
		if r[i].p != r[j].p {
			return r[i].p < r[j].p
		}
		return r[i].t.After(r[j].t)
	})
	for i := range r {
		s.queue[i] = r[i].q
	}
}

// enqueue adds a listed capture to the queue (unsorted).
func (s *session) enqueue(c source.Capture, src source.Source) {
	s.queue = append(s.queue, queued{c, src})
	s.mpages.listed(c)
}

// captured is a capture's time; an unknown one (the live site) is now.
func captured(c source.Capture) time.Time {
	if c.Time.IsZero() {
		return time.Now()
	}
	return c.Time
}

// priority ranks a capture: 0 for one that could hold a manifest newer
// than the newest one found (a capture of the root page: any, before one
// is found, else one captured after that generation was made; and the
// newest capture of each page that may carry a manifest, when it is newer
// than that generation and than the root captures that showed it: see
// manifestPages.watched), 1 for a carrier of the target generation
// captured after it was made, 2 for the rest.
func (s *session) priority(c source.Capture) int {
	p := pagePath(c.URL)
	switch {
	case isRoot(p, s.site == nil) && (s.carriers == nil || captured(c).After(s.genTime)):
		return 0
	case s.carriers != nil && s.mpages.watched(p, c, s.genTime):
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

// manifestPending reports whether a capture of priority 0 waits in the
// queue: one that could reveal a newer manifest.
func (s *session) manifestPending() bool {
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
