package assure

import (
	"cmp"
	"slices"
	"time"
)

// PageCapture is one capture of page Page (an index chosen by the caller)
// by one archive.
type PageCapture struct {
	Page int
	Time time.Time
}

// Sweep is one visit of an archive to the site: captures of distinct pages
// close together in time.
type Sweep struct {
	Start, End time.Time
	Pages      []int // the pages captured, ascending, each once
}

// FindSweeps clusters one archive's captures of a site into sweeps. The
// captures are taken in time order (ties by page); a capture joins the
// current sweep unless it comes more than gap after the sweep's latest
// capture, or its page is already in the sweep — a crawl visits each page
// once per sweep, so a repeat means a new visit. This is single-linkage
// clustering on time (a slow, polite crawl of a large site stays one sweep
// however long it takes, as long as it never pauses for more than gap),
// with the repeat rule keeping an archive that captures some page every
// few hours from chaining its whole history into one sweep. Captures with
// a negative page index are ignored.
func FindSweeps(caps []PageCapture, gap time.Duration) []Sweep {
	sorted := slices.Clone(caps)
	slices.SortFunc(sorted, func(a, b PageCapture) int {
		return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(a.Page, b.Page))
	})
	var out []Sweep
	in := map[int]bool{}
	for _, c := range sorted {
		if c.Page < 0 {
			continue
		}
		n := len(out)
		if n == 0 || c.Time.Sub(out[n-1].End) > gap || in[c.Page] {
			out = append(out, Sweep{Start: c.Time})
			clear(in)
			n++
		}
		s := &out[n-1]
		s.End = c.Time
		s.Pages = append(s.Pages, c.Page)
		in[c.Page] = true
	}
	for i := range out {
		slices.Sort(out[i].Pages)
	}
	return out
}
