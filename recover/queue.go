package recover

import (
	"net/url"
	"path"
	"sort"
	"strings"
)

// queued is a listed capture waiting to be fetched.
type queued struct {
	c   Capture
	src Source
}

// sort orders the queue: root page, then the target generation's carriers
// captured after it, then the rest; newest first within each.
func (s *session) sort() {
	sort.SliceStable(s.queue, func(i, j int) bool {
		pi, pj := s.priority(s.queue[i].c), s.priority(s.queue[j].c)
		if pi != pj {
			return pi < pj
		}
		return s.queue[i].c.Time.After(s.queue[j].c.Time)
	})
}

func (s *session) priority(c Capture) int {
	p := pagePath(c.URL)
	switch {
	case p == "/" || p == "/index.html" || p == "/index.htm" || strings.Count(p, "/") == 2 && strings.HasSuffix(p, "/index.html") && s.site == nil:
		return 0
	case s.carriers[p] && !c.Time.Before(s.genTime):
		return 1
	}
	return 2
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

func captureKey(c Capture) string {
	if c.Digest != "" {
		return c.Source + "\x00digest\x00" + c.Digest
	}
	return c.Source + "\x00" + c.Locator
}

// byCost orders sources by what asking them costs, keeping the given
// order within a rank: local files first, then the live site, then
// archives (whose rate limits make every request count).
func byCost(srcs []Source) []Source {
	rank := func(s Source) int {
		switch s.(type) {
		case DirSource, WARCSource:
			return 0
		case LiveSource:
			return 1
		}
		return 2
	}
	out := append([]Source(nil), srcs...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}
