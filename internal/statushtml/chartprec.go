package statushtml

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"
)

// precHeight is the height of the recoverability chart.
const precHeight = 220

// viewColours draw the model's views; other view names take the sources'
// colours.
var viewColours = map[string]string{status.ModelViewName: "#0072B2"}

// precChart is the projected P_rec of the newest generation over time, one
// step series per view, against the target.
type precChart struct {
	Width, Height  int
	Left, Right    string
	Top, Bottom    string
	TargetY        string
	Target         string
	XTicks, YTicks []tick
	Lines          []precLine
}

// precLine is one view: its computed points, the steps between them, and
// when it reaches the target. Views drawn under others are wider and
// dashed (Under), so a view that coincides with the one above stays
// visible.
type precLine struct {
	View, Label, Colour string
	Path                string // steps through the computed points
	Width               string // stroke width
	Dash                string // stroke-dasharray, "" for solid
	Radius              string // of the dots
	Under               bool
	Dots                []precDot
	Reached             bool
	ReachNS             int64
	ReachX, ReachY      string
	ReachText           string
}

// precDot is one computed P_rec with a bar of ± one standard error.
type precDot struct {
	X, Y         string
	AfterNS      int64
	P, SE        string // machine form
	ErrHi, ErrLo string
	HasErr       bool
}

// makePrecChart draws the assessment's views at every time the model
// computed, nil if there is nothing to draw.
func makePrecChart(a *status.Assessment) *precChart {
	if a == nil || len(a.Views) == 0 {
		return nil
	}
	var end time.Duration
	for _, v := range a.Views {
		for _, p := range v.At {
			end = max(end, p.After)
		}
		if v.Reached {
			end = max(end, v.ReachIn)
		}
	}
	if end <= 0 {
		end = day
	}
	c := &precChart{Width: chartWidth, Height: precHeight, Target: fmtPercent(a.Target)}
	x := newAfterScale(end, marginLeft, chartWidth-marginRight)
	y := scale{0, 1, precHeight - marginBelow, marginTop}
	c.Left, c.Right, c.Top, c.Bottom = num(x.r0), num(x.r1), num(y.r1), num(y.r0)
	c.TargetY = num(y.at(clamp01(a.Target)))
	c.XTicks = afterTicks(x)
	for _, v := range []float64{0, .25, .5, .75, 1} {
		c.YTicks = append(c.YTicks, tick{num(y.at(v)), fmtPercentShort(v)})
	}
	for i, v := range a.Views {
		c.Lines = append(c.Lines, makePrecLine(v, i, len(a.Views), a.Target, x, y))
	}
	return c
}

// makePrecLine draws view i of n. The points are joined by steps, not
// slopes: between two computed times the model computed nothing, so a
// step holds the last value known until the next, and the series ends at
// the last. The values known are the computed points (drawn as dots) and
// the view's reach time, where P_rec reaches the target: the model's
// P_rec only grows with time (each is the share of simulated histories
// that rebuilt the generation by then), so the steps are a lower bound
// and never show a value the model did not give. The reach marker is the
// view's own reach time, on the target line.
func makePrecLine(v status.ModelView, i, n int, target float64, x afterScale, y scale) precLine {
	l := precLine{View: v.Name, Label: v.Name, Colour: viewColours[v.Name], Reached: v.Reached, ReachNS: int64(v.ReachIn),
		ReachText: reachText(v)}
	if l.Colour == "" {
		l.Colour = colours[i%len(colours)]
	}
	if s, ok := viewLabels[v.Name]; ok {
		l.Label = s
	}
	under := n - 1 - i // views drawn above this one
	l.Under = under > 0
	l.Width, l.Radius = num(2+4*float64(under)), num(3+2*float64(under))
	if l.Under {
		l.Dash = "7 4"
	}
	type known struct {
		status.Probability
		reach bool // the reach time: a vertex, not a dot
	}
	var at []known
	for _, p := range v.At {
		if !math.IsNaN(p.P) && p.After >= 0 {
			at = append(at, known{p, false})
		}
	}
	if v.Reached && v.ReachIn > 0 && !math.IsNaN(target) &&
		!slices.ContainsFunc(at, func(p known) bool { return p.After == v.ReachIn }) {
		at = append(at, known{status.Probability{After: v.ReachIn, P: target}, true})
	}
	slices.SortStableFunc(at, func(a, b known) int { return cmp.Compare(a.After, b.After) })
	var path strings.Builder
	for _, p := range at {
		px, py := num(x.at(p.After)), num(y.at(clamp01(p.P)))
		path.WriteString(vertex(path.Len() == 0, px, py))
		if p.reach {
			continue
		}
		d := precDot{X: px, Y: py, AfterNS: int64(p.After), P: machine(p.P), SE: machine(p.StdErr)}
		if p.StdErr > 0 && !math.IsInf(p.StdErr, 0) {
			d.HasErr = true
			d.ErrHi, d.ErrLo = num(y.at(clamp01(p.P+p.StdErr))), num(y.at(clamp01(p.P-p.StdErr)))
		}
		l.Dots = append(l.Dots, d)
	}
	l.Path = path.String()
	if v.Reached {
		l.ReachX, l.ReachY = num(x.at(max(v.ReachIn, 0))), num(y.at(clamp01(target)))
	}
	return l
}

// vertex continues a step path to (x, y): along, then up or down; the
// first vertex starts it.
func vertex(first bool, x, y string) string {
	if first {
		return "M" + x + "," + y
	}
	return "H" + x + "V" + y
}

// clamp01 keeps p within [0, 1] (NaN becomes 0).
func clamp01(p float64) float64 {
	if !(p > 0) {
		return 0
	}
	return min(p, 1)
}

// fmtPercentShort formats a tick's percentage without decimals.
func fmtPercentShort(p float64) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmtPercent(p), " %"), ".00") + " %"
}
