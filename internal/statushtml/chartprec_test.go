package statushtml

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// denseTimes are the times the status command asks the model for.
var denseTimes = []time.Duration{0, time.Hour, 6 * time.Hour, day, 2 * day, 3 * day, 5 * day, 7 * day, 10 * day, 14 * day, 21 * day, 30 * day}

// curve is P_rec at the given times: 0 now, 1 from an hour on.
func curve(times []time.Duration) []status.Probability {
	var out []status.Probability
	for _, t := range times {
		p := 0.0
		if t >= time.Hour {
			p = 1
		}
		out = append(out, status.Probability{After: t, P: p})
	}
	return out
}

// withViews is the sample report whose views both follow curve(times)
// and reach the target in reach.
func withViews(times []time.Duration, reach time.Duration) *status.Report {
	r := sampleReport()
	r.Assessment.Views = []status.ModelView{
		{Name: "independent", Reached: true, ReachIn: reach, At: curve(times), Exact: true},
		{Name: "sweep", Reached: true, ReachIn: reach, At: curve(times), Exact: true},
	}
	return r
}

// precViews returns the recoverability chart's view groups.
func precViews(t *testing.T, doc *html.Node) []*html.Node {
	t.Helper()
	return find(byID(t, doc, "chart-prec"), func(n *html.Node) bool { return hasClass(n, "view") })
}

// floatAttr reads a numeric attribute.
func floatAttr(t *testing.T, n *html.Node, key string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(mustAttr(t, n, key), 64)
	if err != nil {
		t.Fatalf("<%s %s>: %v", n.Data, key, err)
	}
	return v
}

// TestPrecChartDense: the chart draws a dot at every time the model
// computed, joined by steps only (horizontal, then vertical: never a
// slope between two computed values), while the table shows now, +7 d
// and +30 d only.
func TestPrecChartDense(t *testing.T) {
	_, doc := render(t, withViews(denseTimes, 74*time.Minute))
	steps := regexp.MustCompile(`^M[0-9.]+,[0-9.]+(H[0-9.]+V[0-9.]+)*$`)
	for _, g := range precViews(t, doc) {
		dots := find(g, func(n *html.Node) bool { return n.Data == "circle" })
		if len(dots) != len(denseTimes) {
			t.Errorf("view %s: %d dots, want one per computed time (%d)", mustAttr(t, g, "data-view"), len(dots), len(denseTimes))
		}
		last := -1.0
		for i, d := range dots {
			x := floatAttr(t, d, "cx")
			if mustAttr(t, d, "data-after-ns") != strconv.FormatInt(int64(denseTimes[i]), 10) || x <= last+2 {
				t.Errorf("dot %d at x %v (after %v): the computed times are not each drawn apart", i, x, last)
			}
			last = x
		}
		path := find(g, func(n *html.Node) bool { return n.Data == "path" })[0]
		if d := mustAttr(t, path, "d"); !steps.MatchString(d) {
			t.Errorf("view %s is drawn %q, not as steps", mustAttr(t, g, "data-view"), d)
		}
	}
	var heads []string
	for _, th := range find(byID(t, doc, "outlook"), func(n *html.Node) bool { return n.Data == "th" }) {
		heads = append(heads, text(th))
	}
	if got := strings.Join(heads, "|"); got != "View|now|+7 d|+30 d|Reaches 99.00 %" {
		t.Errorf("the table's columns are %s, want now, +7 d, +30 d and the reach", got)
	}
	for _, tb := range find(doc, func(n *html.Node) bool { return hasClass(n, "segment-outlook") }) {
		if n := len(find(tb, func(n *html.Node) bool { return n.Data == "th" })); n != 4 {
			t.Errorf("a per-segment table has %d columns, want 4", n)
		}
	}
}

// TestOutlookTableFallsBack: without all of now, +7 d and +30 d the table
// shows every time computed.
func TestOutlookTableFallsBack(t *testing.T) {
	times := []time.Duration{0, time.Hour, day, 14 * day}
	_, doc := render(t, withViews(times, 74*time.Minute))
	row := find(byID(t, doc, "outlook"), func(n *html.Node) bool { return hasClass(n, "view") })[0]
	if n := len(find(row, func(n *html.Node) bool { return hasClass(n, "p") })); n != len(times) {
		t.Errorf("%d cells, want all %d times", n, len(times))
	}
}

// TestPrecReachMark: the reach marker sits at the view's reach time, not
// at a computed point: 74 minutes lies strictly between now and +7 d, the
// only computed times before it, and after an hour's mark.
func TestPrecReachMark(t *testing.T) {
	_, doc := render(t, withViews([]time.Duration{0, 7 * day, 30 * day}, 74*time.Minute))
	g := precViews(t, doc)[1]
	dots := find(g, func(n *html.Node) bool { return n.Data == "circle" })
	line := find(g, func(n *html.Node) bool { return hasClass(n, "reach") })[0]
	mark := find(g, func(n *html.Node) bool { return hasClass(n, "reach-mark") })[0]
	x, x0, x7 := floatAttr(t, line, "x1"), floatAttr(t, dots[0], "cx"), floatAttr(t, dots[1], "cx")
	if !(x > x0+20 && x < x7-20) {
		t.Errorf("the reach line is at x %v; now is at %v, +7 d at %v: it should lie clearly between", x, x0, x7)
	}
	if floatAttr(t, mark, "x") != x || mustAttr(t, mark, "data-reach-ns") != strconv.FormatInt(int64(74*time.Minute), 10) {
		t.Errorf("the reach mark %v is not at the reach line's x %v", mark.Attr, x)
	}
	target := find(byID(t, doc, "chart-prec"), func(n *html.Node) bool { return hasClass(n, "target") })[0]
	if mustAttr(t, mark, "y") != mustAttr(t, target, "y1") {
		t.Errorf("the reach mark is at y %s, the target line at %s", mustAttr(t, mark, "y"), mustAttr(t, target, "y1"))
	}
	// the steps rise to the target at the reach time: the chart does not
	// show 0 % until the next computed time when the model says 99 % sooner
	path := mustAttr(t, find(g, func(n *html.Node) bool { return n.Data == "path" })[0], "d")
	if want := "H" + mustAttr(t, line, "x1") + "V" + mustAttr(t, target, "y1") + "H"; !strings.Contains(path, want) {
		t.Errorf("the steps %q do not reach the target at the reach time (%s…)", path, want)
	}
	var labels []string
	for _, tx := range find(byID(t, doc, "chart-prec"), func(n *html.Node) bool { return n.Data == "text" }) {
		labels = append(labels, text(tx))
	}
	if all := strings.Join(labels, "|"); !strings.Contains(all, "now|") || !strings.Contains(all, "+1 h") || !strings.Contains(all, "+30 d") {
		t.Errorf("the time axis is labelled %s, want now, +1 h … +30 d", all)
	}
}

// TestCoincidingViewsVisible: two views with the same values are drawn
// so both show: the one underneath wider and dashed, its dots larger.
func TestCoincidingViewsVisible(t *testing.T) {
	_, doc := render(t, withViews(denseTimes, 74*time.Minute))
	views := precViews(t, doc)
	under, over := views[0], views[1]
	pu := find(under, func(n *html.Node) bool { return n.Data == "path" })[0]
	po := find(over, func(n *html.Node) bool { return n.Data == "path" })[0]
	if mustAttr(t, pu, "d") != mustAttr(t, po, "d") {
		t.Fatal("the views differ; the test would prove nothing")
	}
	if _, ok := attr(pu, "stroke-dasharray"); !ok || floatAttr(t, pu, "stroke-width") <= floatAttr(t, po, "stroke-width")+1 {
		t.Errorf("the view underneath is drawn %v, the one above %v: it would be hidden", pu.Attr, po.Attr)
	}
	if _, ok := attr(po, "stroke-dasharray"); ok {
		t.Error("the top view is dashed too")
	}
	du := find(under, func(n *html.Node) bool { return n.Data == "circle" })[0]
	do := find(over, func(n *html.Node) bool { return n.Data == "circle" })[0]
	if floatAttr(t, du, "r") <= floatAttr(t, do, "r") {
		t.Errorf("the dots underneath (r %s) are no larger than those above (r %s)", mustAttr(t, du, "r"), mustAttr(t, do, "r"))
	}
	// a CSS rule would override the stroke attributes (SVG presentation
	// attributes yield to the style sheet)
	css := text(find(doc, func(n *html.Node) bool { return n.Data == "style" })[0])
	for _, rule := range regexp.MustCompile(`[^{}]*\.curve[^{}]*\{[^}]*\}`).FindAllString(css, -1) {
		if strings.Contains(rule, "stroke-width") || strings.Contains(rule, "stroke-dasharray") {
			t.Errorf("the style sheet's %q overrides the views' strokes", rule)
		}
	}
	legend := find(doc, func(n *html.Node) bool { return hasClass(n, "key") && hasClass(n, "line") })
	if len(legend) != 1 || !strings.Contains(mustAttr(t, legend[0], "style"), "dashed") {
		t.Errorf("the legend does not show the view underneath as dashed: %d dashed keys", len(legend))
	}
}

// TestAfterTicks: the duration axis labels fall inside it, in order, at
// least minTickGap apart, and a month's axis shows now, an hour and a month.
func TestAfterTicks(t *testing.T) {
	for _, end := range []time.Duration{0, time.Minute, 74 * time.Minute, day, 30 * day, 365 * day, 1 << 62} {
		s := newAfterScale(end, 44, 626)
		ticks := afterTicks(s)
		if len(ticks) == 0 || ticks[0].Label != "now" {
			t.Errorf("end %v: ticks %v, want now first", end, ticks)
		}
		last := -1e9
		for _, tk := range ticks {
			x, _ := strconv.ParseFloat(tk.Pos, 64)
			if x < 44 || x > 626 || x-last < minTickGap-0.1 {
				t.Errorf("end %v: tick %+v out of place (previous at %v)", end, tk, last)
			}
			last = x
		}
	}
	var got []string
	for _, tk := range afterTicks(newAfterScale(30*day, 44, 626)) {
		got = append(got, tk.Label)
	}
	if s := strings.Join(got, " "); !strings.HasPrefix(s, "now") || !strings.Contains(s, "+1 h") || !strings.HasSuffix(s, "+30 d") {
		t.Errorf("a month's axis is labelled %s", s)
	}
}
