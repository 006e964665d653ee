package statushtml

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// recentReport is a site first published two minutes before the audit:
// every capture and the generation are from the last two minutes.
func recentReport() *status.Report {
	made := sampleNow.Add(-2 * time.Minute)
	r := &status.Report{Site: "https://example.org/", Now: sampleNow, Newest: "g1",
		RestorePoint: &status.RestorePoint{Generation: "g1", Time: made, Age: 2 * time.Minute, Newest: true},
		Generations: []status.Generation{{ID: "g1", Time: made, Recoverable: true, Segments: []status.Segment{{
			Name: "app", Version: "g1", K: 1, M: 7, Stripes: 1, Complete: 1, Recoverable: true,
			PerStripe: []status.Stripe{{Need: 1, Have: map[string]int{"wayback": 8}, Combined: 8}}}}}}}
	for i := range 9 {
		at := made.Add(time.Duration(i) * 15 * time.Second)
		url := "https://example.org/p" + strconv.Itoa(i)
		r.Captures = append(r.Captures, status.Capture{Source: "wayback", URL: url, Time: at})
		r.Pages = append(r.Pages, status.Page{URL: url, Captures: map[string][]time.Time{"wayback": {at}}})
	}
	for _, src := range []string{"wayback", status.Combined} {
		r.Timelines = append(r.Timelines, status.Timeline{Generation: "g1", Segment: "app", Source: src, K: 1, Stripes: 1,
			Points: []status.TimelinePoint{{Time: made.Add(10 * time.Second), Blocks: 3, Weakest: 3}, {Time: made.Add(80 * time.Second), Blocks: 8, Weakest: 8}}})
	}
	return r
}

// TestTimeAxisSpansData: the time charts' axis spans the data (the
// generation's time to the audit) with a small margin: the first point
// is near the left edge, not squeezed against the right, and the axis is
// labelled in minutes.
func TestTimeAxisSpansData(t *testing.T) {
	r := recentReport()
	sp := timeSpan(r)
	if sp.To.Before(sampleNow) || sp.To.Sub(sampleNow) > 30*time.Second {
		t.Errorf("the axis ends at %v, want the audit time %v and a small margin", sp.To, sampleNow)
	}
	if made := r.Generations[0].Time; sp.From.After(made) || made.Sub(sp.From) > 30*time.Second {
		t.Errorf("the axis starts at %v, want the generation's time %v less a small margin", sp.From, made)
	}
	_, doc := render(t, r)
	chart := byID(t, doc, "chart-pages")
	left, right := floatAttr(t, chart, "width"), 0.0
	for _, ln := range find(chart, func(n *html.Node) bool { return hasClass(n, "axis") }) {
		left, right = floatAttr(t, ln, "x1"), floatAttr(t, ln, "x2")
	}
	dots := find(chart, func(n *html.Node) bool { return n.Data == "circle" })
	first, last := right, left
	for _, d := range dots {
		x := floatAttr(t, d, "cx")
		first, last = min(first, x), max(last, x)
	}
	if w := right - left; first-left > w/10 || right-last > w/10 || last-first < w/2 {
		t.Errorf("captures drawn from x %v to %v on an axis %v..%v: they do not span it", first, last, left, right)
	}
	c := find(doc, func(n *html.Node) bool { return hasClass(n, "chart-blocks") })[0]
	var labels []string
	for _, tx := range find(c, func(n *html.Node) bool { return n.Data == "text" && !hasClass(n, "title") }) {
		if l := text(tx); strings.Contains(l, ":") {
			labels = append(labels, l)
		}
	}
	if len(labels) < 2 || !strings.HasSuffix(labels[0], ":58") {
		t.Errorf("a two-minute axis is labelled %v, want minutes from 11:58", labels)
	}
}

// TestTimeSpanOneInstant: data at a single instant still gives an axis
// some minutes wide, the instant inside it.
func TestTimeSpanOneInstant(t *testing.T) {
	r := &status.Report{Now: sampleNow, Captures: []status.Capture{{Time: sampleNow}}}
	sp := timeSpan(r)
	if !sp.From.Before(sampleNow) || !sp.To.After(sampleNow) || sp.To.Sub(sp.From) > time.Hour || !sp.End.Equal(sampleNow) {
		t.Errorf("span %+v around %v", sp, sampleNow)
	}
}
