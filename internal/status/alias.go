package status

import (
	"time"
)

// pageCapture is one capture of a page by one archive: its time and, when
// the listing gives it, the payload digest.
type pageCapture struct {
	Time   time.Time
	Digest string
}

// aliasCapture is one capture of a page under one of its paths ("/" or
// "/index.html").
type aliasCapture struct {
	c    pageCapture
	path string // the path the capture URL names, not canonical
}

// foldAliases makes one capture of the captures of one page, by one
// archive, that name it by different paths in the same visit: a crawl
// that fetches "/" and "/index.html" visits the page once, and counting
// both would make one crawl two sweeps (odds.FindSweeps starts a new
// cluster at a page seen twice) and double the page's capture rate. The
// captures are taken in time order; one joins the visit of the capture
// before it when it comes at most gap after the visit's latest capture
// and its path is not in the visit yet (the same path again is a new
// visit, as FindSweeps has it). The first capture of each visit is kept.
func foldAliases(caps []aliasCapture, gap time.Duration) []pageCapture {
	var out []pageCapture
	var last time.Time
	in := map[string]bool{}
	for i, c := range caps {
		if i > 0 && !in[c.path] && c.c.Time.Sub(last) <= gap && !c.c.Time.Before(last) {
			in[c.path] = true
			last = c.c.Time
			continue
		}
		out = append(out, c.c)
		clear(in)
		in[c.path] = true
		last = c.c.Time
	}
	return out
}

// aliasGap is the longest pause between captures of a page's aliases
// that are one visit.
const aliasGap = 6 * time.Hour
