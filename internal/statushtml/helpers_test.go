package statushtml

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// Hostile strings planted in the sample report where archives, sites or
// manifests put names and URLs.
const (
	hostileSite    = `https://evil.example/"><script>alert(1)</script>`
	hostileSegment = `<img src=x onerror=alert(2)>`
	hostileSource  = `"><svg onload=alert(3)>`
	hostileURL     = `javascript:alert(4)//</title><script>alert(5)</script>`
	hostileProblem = `</style><link rel=stylesheet href="https://evil.example/x.css">`
)

// sampleNow is the sample report's audit time.
var sampleNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// samplePages is how many pages the sample site has: more than the
// capture timeline shows.
const samplePages = MaxPagesShown + 37

// sampleReport is a report like the one Status gives for a site whose
// newest generation g3 is short of one segment while g2 is recoverable
// (exit 3), audited in three archives, one with a hostile name.
func sampleReport() *status.Report {
	ago := func(days float64) time.Time { return sampleNow.Add(-time.Duration(days * float64(day))) }
	sources := []string{"wayback", "commoncrawl", hostileSource}
	r := &status.Report{Site: hostileSite, Now: sampleNow, Newest: "g3",
		History:  status.History{Stores: 1, Records: 812, Manifests: 3},
		Notes:    []string{"Captures after the audit time are not counted."},
		Problems: []string{hostileProblem, "wayback: 2 captures could not be fetched"}}
	for i, s := range sources {
		r.Sources = append(r.Sources, status.SourceReport{Name: s, Captures: 100 - 30*i, Known: 80 - 30*i, Fetched: 18, Failed: 2})
	}
	segs := []struct {
		name        string
		k, m, strip int
	}{{"app", 1, 7, 1}, {hostileSegment, 4, 4, 3}, {"db", 10, 6, 5}}
	for gi, g := range []struct {
		id   string
		made float64
	}{{"g3", 10}, {"g2", 40}, {"g1", 80}} {
		gen := status.Generation{ID: g.id, Time: ago(g.made), Recoverable: gi > 0}
		for si, s := range segs {
			seg := status.Segment{Name: s.name, Version: g.id, K: s.k, M: s.m, Stripes: s.strip, Recoverable: true}
			if gi == 0 && si == 0 {
				seg.Version = "g2" // unchanged since g2
			}
			for st := range s.strip {
				have := map[string]int{"wayback": min(s.k+s.m, s.k+st), "commoncrawl": s.k / 2}
				if gi == 0 && s.name == "db" {
					have = map[string]int{"wayback": 6 + st%3, hostileSource: 1}
				}
				comb := min(s.k+s.m, have["wayback"]+have["commoncrawl"]+have[hostileSource])
				seg.PerStripe = append(seg.PerStripe, status.Stripe{Index: st, Need: s.k, Have: have, Combined: comb})
				if comb >= s.k {
					seg.Complete++
				} else {
					seg.Recoverable = false
				}
			}
			gen.Segments = append(gen.Segments, seg)
			if seg.Version == g.id { // Status gives each segment version's timelines once
				r.Timelines = append(r.Timelines, sampleTimelines(g.id, seg, ago(g.made-0.5), append(sources[:2:2], status.Combined))...)
			}
		}
		if !gen.Recoverable {
			gen.Short = []string{"db: stripe 0 has 7 of 10 blocks (3 short)"}
		}
		r.Generations = append(r.Generations, gen)
	}
	r.RestorePoint = &status.RestorePoint{Generation: "g2", Time: ago(40), Age: 40 * day}
	r.Assessment = &status.Assessment{Generation: "g3", Target: 0.99, Pages: 24, Carriers: 8,
		Views: []status.ModelView{
			{Name: "independent", Reached: true, ReachIn: 12*day + 5*time.Hour, At: probs(0.62, 0.954, 0.9987, 0)},
			{Name: "sweep", Reached: true, ReachIn: 41 * day, At: probs(0.55, 0.83, 0.97, 0.0031)},
		}}
	for i := range r.Assessment.Views {
		v := &r.Assessment.Views[i]
		v.Segments = []status.SegmentOutlook{{Name: "db", At: v.At}, {Name: hostileSegment, At: probs(1, 1, 1, 0)}}
	}
	for i := range samplePages {
		p := status.Page{URL: fmt.Sprintf("https://example.org/p/%03d.html", i), Depth: 1 + i%4, Carrier: i%3 == 0,
			Captures: map[string][]time.Time{}}
		if i == 0 {
			p.URL, p.Depth = hostileURL, 0
		}
		for c := range i % 7 {
			p.Captures["wayback"] = append(p.Captures["wayback"], ago(float64(2+c*11+i%5)))
			r.Captures = append(r.Captures, status.Capture{Source: "wayback", URL: p.URL, Time: ago(float64(2 + c*11 + i%5)), How: status.HowHistory})
		}
		if i%5 == 0 {
			p.Captures["commoncrawl"] = []time.Time{ago(20), ago(50)}
		}
		r.Pages = append(r.Pages, p)
	}
	return r
}

// sampleTimelines are the segment's timelines per source, rising in four
// captures two days apart from start to the weakest stripe's final count.
func sampleTimelines(gen string, seg status.Segment, start time.Time, sources []string) []status.Timeline {
	var out []status.Timeline
	for j, src := range sources {
		final := -1
		for _, st := range seg.PerStripe {
			n := st.Have[src]
			if src == status.Combined {
				n = st.Combined
			}
			if final < 0 || n < final {
				final = n
			}
		}
		tl := status.Timeline{Generation: gen, Segment: seg.Name, Source: src, K: seg.K, Stripes: seg.Stripes}
		for step := 1; step <= 4; step++ {
			w := final * step / 4
			tl.Points = append(tl.Points, status.TimelinePoint{Time: start.Add(time.Duration(2*step+j) * day),
				Weakest: w, Blocks: w*seg.Stripes + step%2})
		}
		out = append(out, tl)
	}
	return out
}

// probs are P_rec at the times the status command asks for (denseTimes):
// now, in 7 and in 30 days as given, rising between them.
func probs(now, week, month, se float64) []status.Probability {
	rise := func(from, to float64, d, span time.Duration) float64 {
		return from + (to-from)*math.Log1p(d.Hours())/math.Log1p(span.Hours())
	}
	var out []status.Probability
	for _, t := range denseTimes {
		p := rise(week, month, t-7*day, 23*day)
		if t <= 7*day {
			p = rise(now, week, t, 7*day)
		}
		out = append(out, status.Probability{After: t, P: p, StdErr: se})
	}
	return out
}

// render writes r and parses the page.
func render(t testing.TB, r *status.Report) (string, *html.Node) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, r, exitFor(r.Outcome())); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("the page does not parse: %v", err)
	}
	return buf.String(), doc
}

// walk calls f on every element of n's tree.
func walk(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// attr returns n's attribute key, and whether it has one.
func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// find returns the elements for which match is true, in document order.
func find(doc *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(doc, func(n *html.Node) {
		if match(n) {
			out = append(out, n)
		}
	})
	return out
}

// hasClass reports whether n has the CSS class c.
func hasClass(n *html.Node, c string) bool {
	v, _ := attr(n, "class")
	return strings.Contains(" "+v+" ", " "+c+" ")
}

// text is the text content of n.
func text(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// exitFor is the exit status lazarus status gives for an outcome (its
// mapping is the command's; the page only says it).
func exitFor(o status.Outcome) int {
	switch o {
	case status.NewestRecoverable:
		return 0
	case status.OlderRecoverable:
		return 3
	}
	return 1
}
