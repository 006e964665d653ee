package statushtml

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// FuzzWrite: whatever names, URLs and figures a report holds, Write makes
// a page that parses, fetches and runs nothing, and shows every planted
// string as text, never as markup.
func FuzzWrite(f *testing.F) {
	f.Add(hostileSite, hostileSegment, hostileSource, hostileURL, hostileProblem, 4, 4, 3, 0.5, 0.01, int64(40*day), int64(7*day), int64(3600))
	f.Add("", "", "", "", "", 0, 0, 0, 0.0, 0.0, int64(0), int64(0), int64(0))
	f.Add("\x00\r\n", "]]><!--", "combined", "\xff\xfe", "<!-- -->", -1, 1<<40, 1<<30, -1.0, 2.0, int64(-1<<63), int64(1<<62), int64(-1<<40))
	f.Fuzz(func(t *testing.T, site, segment, source, url, problem string, k, m, weakest int, p, se float64, age, after, secs int64) {
		doc := fuzzPage(t, site, segment, source, url, problem, k, m, weakest, p, se, age, after, secs)
		checkSelfContained(t, doc)
		// the same report with every string replaced by a plain token
		// (equal strings by equal tokens) has the same elements and
		// attributes: no string changed the page's structure
		tokens := map[string]string{"": "", status.Combined: status.Combined}
		tok := func(s string) string {
			if _, ok := tokens[s]; !ok {
				tokens[s] = fmt.Sprintf("token%d", len(tokens))
			}
			return tokens[s]
		}
		plain := fuzzPage(t, tok(site), tok(segment), tok(source), tok(url), tok(problem), k, m, weakest, p, se, age, after, secs)
		if got, want := shape(doc), shape(plain); got != want {
			t.Errorf("the strings changed the page's structure:\n%s\nwant\n%s", got, want)
		}
	})
}

// fuzzPage renders a small report holding the given strings and figures.
func fuzzPage(t *testing.T, site, segment, source, url, problem string, k, m, weakest int, p, se float64, age, after, secs int64) *html.Node {
	at := sampleNow.Add(time.Duration(secs) * time.Second)
	r := &status.Report{Site: site, Now: sampleNow, Newest: segment, Problems: []string{problem}, Notes: []string{url},
		Sources:      []status.SourceReport{{Name: source, Error: problem}},
		Captures:     []status.Capture{{Source: source, URL: url, Time: at}},
		RestorePoint: &status.RestorePoint{Generation: segment, Time: at, Age: time.Duration(age)},
		Generations: []status.Generation{{ID: segment, Time: at, Short: []string{problem}, Segments: []status.Segment{{
			Name: segment, Version: site, K: k, M: m, Stripes: 1,
			PerStripe: []status.Stripe{{Need: k, Have: map[string]int{source: weakest}, Combined: weakest}}}}}},
		Timelines: []status.Timeline{{Generation: segment, Segment: segment, Source: source, K: k, Stripes: m,
			Points: []status.TimelinePoint{{Time: at, Weakest: weakest, Blocks: m}}}},
		Assessment: &status.Assessment{Generation: segment, Target: p, Error: problem, Views: []status.ModelView{{
			Name: source, Reached: true, ReachIn: time.Duration(after),
			At:       []status.Probability{{After: time.Duration(after), P: p, StdErr: se}},
			Segments: []status.SegmentOutlook{{Name: segment, At: []status.Probability{{P: se}}}}}}},
		Pages: []status.Page{{URL: url, Depth: k, Carrier: true, Captures: map[string][]time.Time{source: {at, sampleNow}}}},
	}
	_, doc := render(t, r)
	return doc
}

// shape lists the page's elements and their attribute names, one a line.
func shape(doc *html.Node) string {
	var b strings.Builder
	walk(doc, func(n *html.Node) {
		b.WriteString(n.Data)
		for _, a := range n.Attr {
			b.WriteString(" " + a.Namespace + a.Key)
		}
		b.WriteString("\n")
	})
	return b.String()
}
