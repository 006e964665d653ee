package statushtml

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/humane"
)

// Layout and limits of the per-page capture timeline.
const (
	// MaxPagesShown bounds the pages drawn in the capture timeline;
	// the page says how many were left out.
	MaxPagesShown = 200
	pagesWidth    = 820
	labelWidth    = 270 // room for the page URLs
	rowHeight     = 11
	urlShown      = 44  // runes of a URL shown beside its row
	urlTitle      = 300 // runes of a URL in its row's tooltip
	pagesTop      = 22  // room for the time labels above the rows
)

// pagesChart is one row per page, a dot per capture per source.
type pagesChart struct {
	Width, Height int
	Left, Right   string
	Top, Bottom   string
	XTicks        []tick
	Rows          []pageRow
	Total         int
	Omitted       int
	Legend        []legendItem
}

// pageRow is one page.
type pageRow struct {
	Y, TextY   string
	URL, Title string // shortened for the label; longer, with counts, for the tooltip
	Carrier    bool
	Depth      int
	Captures   int // captures within the chart's span
	Dots       []pageDot
}

// pageDot is one or more captures by one source that fall on one pixel.
type pageDot struct {
	X, Colour string
}

// makePagesChart draws the first MaxPagesShown pages (carriers first, then
// by depth and URL), nil if there are none.
func makePagesChart(r *status.Report, pal palette, sp span) *pagesChart {
	if len(r.Pages) == 0 {
		return nil
	}
	pages := slices.Clone(r.Pages)
	slices.SortStableFunc(pages, func(a, b status.Page) int {
		if a.Carrier != b.Carrier {
			if a.Carrier {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(depthOrder(a.Depth), depthOrder(b.Depth)), cmp.Compare(a.URL, b.URL))
	})
	shown := pages[:min(len(pages), MaxPagesShown)]
	height := pagesTop + len(shown)*rowHeight + marginBelow
	c := &pagesChart{Width: pagesWidth, Height: height, Total: len(pages), Omitted: len(pages) - len(shown)}
	x := timeScale(sp.From, sp.To, labelWidth, pagesWidth-marginRight)
	c.Left, c.Right = num(x.r0), num(x.r1)
	c.Top, c.Bottom = num(pagesTop), num(float64(height-marginBelow))
	c.XTicks = timeTicks(sp.From, sp.To, x, maxTicks)
	c.Legend = pal.used(func(yield func(string) bool) {
		for _, p := range shown {
			for n := range p.Captures {
				if !yield(n) {
					return
				}
			}
		}
	})
	for i, p := range shown {
		c.Rows = append(c.Rows, makePageRow(p, i, pal, sp, x))
	}
	return c
}

// makePageRow draws one page's captures within the span.
func makePageRow(p status.Page, i int, pal palette, sp span, x scale) pageRow {
	y := float64(pagesTop + i*rowHeight + rowHeight/2)
	row := pageRow{Y: num(y), TextY: num(y + 3.5), URL: shorten(p.URL, urlShown), Carrier: p.Carrier, Depth: p.Depth}
	type px struct {
		source string
		x      float64
	}
	seen := map[px]bool{}
	var counts []string
	for _, item := range pal.used(func(yield func(string) bool) {
		for n := range p.Captures {
			if !yield(n) {
				return
			}
		}
	}) {
		n := 0
		for _, t := range p.Captures[item.Name] {
			if t.Before(sp.From) || t.After(sp.To) {
				continue
			}
			n++
			k := px{item.Name, math.Round(x.atTime(sp.From, t))}
			if !seen[k] {
				seen[k] = true
				row.Dots = append(row.Dots, pageDot{num(k.x), item.Colour})
			}
		}
		row.Captures += n
		counts = append(counts, fmt.Sprintf("%s %d", shorten(item.Name, 40), n))
	}
	kind := "no blocks of the newest generation"
	if p.Carrier {
		kind = "carries blocks of the newest generation"
	}
	depth := "depth unknown"
	if p.Depth != status.DepthUnknown {
		depth = fmt.Sprintf("depth %d", p.Depth)
	}
	row.Title = fmt.Sprintf("%s\n%s, %s\n%s: %s", shorten(p.URL, urlTitle), depth, kind,
		humane.Count(row.Captures, "capture"), strings.Join(counts, ", "))
	return row
}

// depthOrder sorts pages of unknown depth (recover.DepthUnknown) after
// those of known depth.
func depthOrder(d int) int {
	if d == status.DepthUnknown {
		return math.MaxInt
	}
	return d
}
