package statushtml

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// Limits of the blocks-over-time charts.
const (
	blocksWidth       = 470 // one chart: two side by side
	blocksHeight      = 160
	blocksTop         = 24 // room for the title above the plot
	maxBlockCharts    = 12 // charts (segment versions) drawn
	maxGenerationsRun = 3  // newest generations charted (and the restore point's)
)

// blocksChart is one segment version's distinct archived blocks over time,
// one step line per source and one for the archives combined, against k.
type blocksChart struct {
	Generation, Segment string
	Title               string // segment and generation, shortened
	K, Stripes          int
	Width, Height       int
	Left, Right         string // plot box
	Top, Bottom         string
	KY                  string // the y of the k line
	XTicks, YTicks      []tick
	Series              []blockSeries
	Weakest             bool // the y axis is the weakest stripe's count
}

// blockSeries is one source's step line and its points.
type blockSeries struct {
	Source, Colour string
	Combined       bool
	Path           string
	Points         []blockPoint
}

// blockPoint is the state after a capture that added blocks.
type blockPoint struct {
	X, Y            string
	Time            string // RFC 3339
	Blocks, Weakest int
}

// span is the time axis shared by the time charts: From and To are its
// edges, End the audit time, where the data ends.
type span struct{ From, To, End time.Time }

// makeBlockCharts draws the timelines of the data segment versions of the
// newest generation, the restore point's and the next newest ones, at
// most maxBlockCharts, and returns how many timelines' segment versions
// were left out.
func makeBlockCharts(r *status.Report, pal palette, sp span) ([]blocksChart, int) {
	type key struct{ gen, seg string }
	groups := map[key][]status.Timeline{}
	for _, t := range r.Timelines {
		k := key{t.Generation, t.Segment}
		groups[k] = append(groups[k], t)
	}
	var keys []key
	add := func(g status.Generation) {
		for _, s := range g.Segments {
			k := key{cmp.Or(s.Version, g.ID), s.Name}
			if !s.Listing && groups[k] != nil && !slices.Contains(keys, k) && len(keys) < maxBlockCharts {
				keys = append(keys, k)
			}
		}
	}
	for _, g := range chartedGenerations(r) {
		add(g)
	}
	var out []blocksChart
	for _, k := range keys {
		out = append(out, makeBlocksChart(r, k.gen, k.seg, groups[k], pal, sp))
	}
	return out, len(groups) - len(keys)
}

// chartedGenerations are the generations whose segment versions the
// blocks charts draw, in order: the newest, the restore point, the first
// maxGenerationsRun (repeats allowed).
func chartedGenerations(r *status.Report) []status.Generation {
	var out []status.Generation
	if g := findGeneration(r, r.Newest); g != nil {
		out = append(out, *g)
	}
	if rp := r.RestorePoint; rp != nil {
		if g := findGeneration(r, rp.Generation); g != nil {
			out = append(out, *g)
		}
	}
	return append(out, r.Generations[:min(len(r.Generations), maxGenerationsRun)]...)
}

// makeBlocksChart draws one (generation, segment) pair's timelines.
func makeBlocksChart(r *status.Report, gen, seg string, ts []status.Timeline, pal palette, sp span) blocksChart {
	c := blocksChart{Generation: gen, Segment: seg, K: ts[0].K, Stripes: ts[0].Stripes, Width: blocksWidth, Height: blocksHeight}
	c.Title = fmt.Sprintf("%s · generation %s · k = %d", shorten(seg, 22), shorten(gen, 12), c.K)
	top := max(c.K+segmentM(r, gen, seg), 1)
	for _, t := range ts {
		c.Weakest = c.Weakest || t.Stripes > 1
		for _, p := range t.Points {
			top = max(top, p.Weakest)
		}
	}
	x := timeScale(sp.From, sp.To, marginLeft, blocksWidth-marginRight)
	y := scale{0, float64(top), blocksHeight - marginBelow, blocksTop}
	c.Left, c.Right, c.Top, c.Bottom = num(x.r0), num(x.r1), num(y.r1), num(y.r0)
	c.KY = num(y.at(float64(c.K)))
	c.XTicks, c.YTicks = timeTicks(sp.From, sp.To, x, 5), intTicks(top, y)
	slices.SortStableFunc(ts, func(a, b status.Timeline) int {
		return cmp.Compare(seriesRank(a.Source, pal), seriesRank(b.Source, pal))
	})
	for _, t := range ts {
		c.Series = append(c.Series, makeBlockSeries(t, pal, sp, x, y, top))
	}
	return c
}

// seriesRank draws the archives combined first, under the sources.
func seriesRank(source string, pal palette) int {
	if source == status.Combined {
		return -1
	}
	if i, ok := pal.index[source]; ok {
		return i
	}
	return len(pal.items)
}

// makeBlockSeries draws one timeline as a step line from zero at the
// axis's start to its last value at the audit time. Points that fall in one
// pixel column are drawn once, as the last of them: a chart of a large
// segment stays as small as the chart, however many captures added blocks.
func makeBlockSeries(t status.Timeline, pal palette, sp span, x, y scale, top int) blockSeries {
	s := blockSeries{Source: t.Source, Colour: pal.colour(t.Source), Combined: t.Source == status.Combined}
	pts := slices.Clone(t.Points)
	slices.SortStableFunc(pts, func(a, b status.TimelinePoint) int { return a.Time.Compare(b.Time) })
	var path strings.Builder
	fmt.Fprintf(&path, "M%s,%s", num(x.r0), num(y.at(0)))
	column := math.NaN()
	for _, p := range pts {
		px := x.atTime(sp.From, clampTime(p.Time, span{From: sp.From, To: sp.End}))
		py := y.at(float64(min(max(p.Weakest, 0), top)))
		bp := blockPoint{X: num(px), Y: num(py), Time: rfc3339(p.Time), Blocks: p.Blocks, Weakest: p.Weakest}
		if math.Round(px) == column {
			s.Points[len(s.Points)-1] = bp
			continue
		}
		column = math.Round(px)
		s.Points = append(s.Points, bp)
	}
	for _, p := range s.Points {
		fmt.Fprintf(&path, "H%sV%s", p.X, p.Y)
	}
	fmt.Fprintf(&path, "H%s", num(x.atTime(sp.From, clampTime(sp.End, sp))))
	s.Path = path.String()
	return s
}

// segmentM is the parity count of a segment of a generation (or a
// generation whose segment version it is), 0 if unknown.
func segmentM(r *status.Report, gen, seg string) int {
	for _, g := range r.Generations {
		for _, s := range g.Segments {
			if s.Name == seg && (g.ID == gen || s.Version == gen) {
				return max(s.M, 0)
			}
		}
	}
	return 0
}

// clampTime keeps t within the span.
func clampTime(t time.Time, sp span) time.Time {
	if t.Before(sp.From) {
		return sp.From
	}
	if t.After(sp.To) {
		return sp.To
	}
	return t
}
