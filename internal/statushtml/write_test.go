package statushtml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"golang.org/x/net/html"
)

// TestSelfContained: the page loads nothing: no script, no element or
// attribute that fetches, no URL in any attribute or in the style sheet.
func TestSelfContained(t *testing.T) {
	_, doc := render(t, sampleReport())
	checkSelfContained(t, doc)
}

// checkSelfContained fails the test if the page could fetch or run
// anything.
func checkSelfContained(t testing.TB, doc *html.Node) {
	t.Helper()
	fetchers := []string{"script", "link", "img", "iframe", "object", "embed", "base", "audio", "video", "source", "image", "use", "foreignobject", "form"}
	walk(doc, func(n *html.Node) {
		if slices.Contains(fetchers, strings.ToLower(n.Data)) {
			t.Errorf("the page has a <%s> element", n.Data)
		}
		for _, a := range n.Attr {
			k := strings.ToLower(a.Key)
			if strings.HasPrefix(k, "on") || slices.Contains([]string{"src", "href", "srcset", "action", "formaction", "poster", "background"}, k) || a.Namespace != "" {
				t.Errorf("<%s> has the attribute %s=%q", n.Data, a.Key, a.Val)
			}
			if v := strings.ToLower(a.Val); !strings.HasPrefix(k, "data-") && (strings.Contains(v, "http://") || strings.Contains(v, "https://") || strings.Contains(v, "url(")) {
				t.Errorf("<%s %s=%q> refers to a URL", n.Data, a.Key, a.Val)
			}
		}
		if n.Data == "style" {
			if css := strings.ToLower(text(n)); strings.Contains(css, "url(") || strings.Contains(css, "@import") || strings.Contains(css, "@font-face") {
				t.Errorf("the style sheet refers to a resource: %s", css)
			}
		}
	})
	if styles := find(doc, func(n *html.Node) bool { return n.Data == "style" }); len(styles) != 1 {
		t.Errorf("%d style elements, want the page's one", len(styles))
	}
}

// TestHostileStringsEscaped: names and URLs from archives and manifests
// come out as text, whole, never as markup.
func TestHostileStringsEscaped(t *testing.T) {
	raw, doc := render(t, sampleReport())
	all := text(doc)
	for _, s := range []string{hostileSite, hostileSegment, hostileSource, hostileProblem} {
		if !strings.Contains(all, s) {
			t.Errorf("the page's text lacks %q", s)
		}
	}
	// the capture timeline shows the URL shortened, its tooltip in full
	if !strings.Contains(all, hostileURL) || !strings.Contains(all, shorten(hostileURL, urlShown)) {
		t.Errorf("the page's text lacks the hostile page URL %q", hostileURL)
	}
	for _, s := range []string{"<script", "<img", "<svg onload", "<link", "</title><script"} {
		if strings.Contains(raw, s) {
			t.Errorf("the page contains %q unescaped", s)
		}
	}
	// the only SVG elements are the charts: recoverability, one per
	// segment chart, the capture timeline
	svgs := find(doc, func(n *html.Node) bool { return n.Data == "svg" })
	charts := find(doc, func(n *html.Node) bool { return hasClass(n, "chart-blocks") })
	if len(svgs) != len(charts)+2 {
		t.Errorf("%d svg elements, want %d charts + 2", len(svgs), len(charts))
	}
}

// roundTrip is r as a consumer of `lazarus status --json` reads it.
func roundTrip(t *testing.T, r *status.Report) *status.Report {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var out status.Report
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// byID returns the element with the given id.
func byID(t *testing.T, doc *html.Node, id string) *html.Node {
	t.Helper()
	got := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == id })
	if len(got) != 1 {
		t.Fatalf("%d elements with id %q, want 1", len(got), id)
	}
	return got[0]
}

// mustAttr returns an attribute that must be there.
func mustAttr(t *testing.T, n *html.Node, key string) string {
	t.Helper()
	v, ok := attr(n, key)
	if !ok {
		t.Fatalf("<%s> lacks %s", n.Data, key)
	}
	return v
}

// TestFiguresMatchJSON: every figure the page shows, read back from its
// data- attributes, equals the JSON report's.
func TestFiguresMatchJSON(t *testing.T) {
	want := roundTrip(t, sampleReport())
	_, doc := render(t, sampleReport())

	v := byID(t, doc, "verdict")
	if got := mustAttr(t, v, "data-exit"); got != "3" { // g2 is the restore point, g3 is newest
		t.Errorf("exit %s, want 3", got)
	}
	rp := byID(t, doc, "restore-point")
	if g := mustAttr(t, rp, "data-generation"); g != want.RestorePoint.Generation {
		t.Errorf("restore point %s, want %s", g, want.RestorePoint.Generation)
	}
	if a := mustAttr(t, rp, "data-age-ns"); a != strconv.FormatInt(int64(want.RestorePoint.Age), 10) {
		t.Errorf("restore point age %s ns, want %d", a, want.RestorePoint.Age)
	}
	if tm := mustAttr(t, rp, "data-time"); tm != want.RestorePoint.Time.Format(time.RFC3339Nano) {
		t.Errorf("restore point time %s, want %v", tm, want.RestorePoint.Time)
	}
	if !strings.Contains(text(v), "40 days old") {
		t.Errorf("the verdict does not give the age in words: %q", text(v))
	}

	t.Run("outlook", func(t *testing.T) { checkOutlook(t, doc, want.Assessment) })
	t.Run("segments", func(t *testing.T) { checkSegments(t, doc, want) })
	t.Run("timelines", func(t *testing.T) { checkTimelines(t, doc, want) })
	t.Run("prec chart", func(t *testing.T) { checkPrecChart(t, doc, want.Assessment) })
}

// checkOutlook compares the P_rec table with the assessment.
func checkOutlook(t *testing.T, doc *html.Node, a *status.Assessment) {
	table := byID(t, doc, "outlook")
	if got := mustAttr(t, table, "data-target"); got != strconv.FormatFloat(a.Target, 'g', -1, 64) {
		t.Errorf("target %s, want %v", got, a.Target)
	}
	rows := find(table, func(n *html.Node) bool { return n.Data == "tr" && hasClass(n, "view") })
	if len(rows) != len(a.Views) {
		t.Fatalf("%d view rows, want %d", len(rows), len(a.Views))
	}
	for i, view := range a.Views {
		row := rows[i]
		if got := mustAttr(t, row, "data-view"); got != view.Name {
			t.Errorf("row %d is view %s, want %s", i, got, view.Name)
		}
		cells := find(row, func(n *html.Node) bool { return hasClass(n, "p") })
		var shown []status.Probability // the table's times: now, +7 d, +30 d when computed
		for _, p := range view.At {
			if len(view.At) == len(tableMarks) || slices.Contains(tableMarks, p.After) {
				shown = append(shown, p)
			}
		}
		if len(cells) != len(shown) {
			t.Fatalf("view %s: %d cells, want %d", view.Name, len(cells), len(shown))
		}
		for j, p := range shown {
			got, _ := strconv.ParseFloat(mustAttr(t, cells[j], "data-p"), 64)
			after := mustAttr(t, cells[j], "data-after-ns")
			se, _ := strconv.ParseFloat(mustAttr(t, cells[j], "data-stderr"), 64)
			if got != p.P || se != p.StdErr || after != strconv.FormatInt(int64(p.After), 10) {
				t.Errorf("view %s cell %d: P %v ± %v at %s ns, want %v ± %v at %d", view.Name, j, got, se, after, p.P, p.StdErr, p.After)
			}
			if !strings.HasPrefix(text(cells[j]), fmtPercent(p.P)) {
				t.Errorf("view %s cell %d shows %q, want %s", view.Name, j, text(cells[j]), fmtPercent(p.P))
			}
		}
		reach := find(row, func(n *html.Node) bool { return hasClass(n, "reach") })[0]
		if mustAttr(t, reach, "data-reach-ns") != strconv.FormatInt(int64(view.ReachIn), 10) ||
			mustAttr(t, reach, "data-reached") != strconv.FormatBool(view.Reached) {
			t.Errorf("view %s reaches the target %v in %v; the page says %v", view.Name, view.Reached, view.ReachIn, reach.Attr)
		}
	}
	if !strings.Contains(text(doc), correlationNote) {
		t.Error("the page does not say that correlated sweeps make independence optimistic")
	}
}

// checkSegments compares the per-segment tables with the generations.
func checkSegments(t *testing.T, doc *html.Node, r *status.Report) {
	tables := find(doc, func(n *html.Node) bool { return n.Data == "table" && hasClass(n, "segments") })
	if len(tables) != len(r.Generations) {
		t.Fatalf("%d generation tables, want %d", len(tables), len(r.Generations))
	}
	for i, g := range r.Generations {
		if got := mustAttr(t, tables[i], "data-generation"); got != g.ID {
			t.Errorf("table %d is generation %s, want %s", i, got, g.ID)
		}
		rows := find(tables[i], func(n *html.Node) bool { return hasClass(n, "segment") })
		if len(rows) != len(g.Segments) {
			t.Fatalf("generation %s: %d segment rows, want %d", g.ID, len(rows), len(g.Segments))
		}
		for j, s := range g.Segments {
			weakest := s.PerStripe[0].Combined
			for _, st := range s.PerStripe {
				weakest = min(weakest, st.Combined)
			}
			row := rows[j]
			if mustAttr(t, row, "data-segment") != s.Name || mustAttr(t, row, "data-k") != strconv.Itoa(s.K) ||
				mustAttr(t, row, "data-have") != strconv.Itoa(weakest) || mustAttr(t, row, "data-complete") != strconv.Itoa(s.Complete) {
				t.Errorf("generation %s segment %q: the row says %v, want have %d need %d complete %d", g.ID, s.Name, row.Attr, weakest, s.K, s.Complete)
			}
		}
	}
}

// checkTimelines compares the points of the blocks charts with the
// timelines of the segment versions charted: all eight of the sample (g3
// keeps g2's app segment).
func checkTimelines(t *testing.T, doc *html.Node, r *status.Report) {
	charts := find(doc, func(n *html.Node) bool { return hasClass(n, "chart-blocks") })
	if len(charts) != 8 {
		t.Fatalf("%d blocks charts, want 8 (3 generations × 3 segments, one unchanged)", len(charts))
	}
	type key struct{ gen, seg, src string }
	drawn := map[key][]string{}
	for _, c := range charts {
		for _, g := range find(c, func(n *html.Node) bool { return hasClass(n, "series") }) {
			k := key{mustAttr(t, c, "data-generation"), mustAttr(t, c, "data-segment"), mustAttr(t, g, "data-source")}
			for _, p := range find(g, func(n *html.Node) bool { return n.Data == "circle" }) {
				drawn[k] = append(drawn[k], mustAttr(t, p, "data-time")+" "+mustAttr(t, p, "data-weakest")+" "+mustAttr(t, p, "data-blocks"))
			}
		}
	}
	if len(drawn) != len(r.Timelines) {
		t.Errorf("%d series drawn, want %d timelines", len(drawn), len(r.Timelines))
	}
	for _, tl := range r.Timelines {
		var want []string
		for _, p := range tl.Points {
			want = append(want, p.Time.UTC().Format(time.RFC3339Nano)+" "+strconv.Itoa(p.Weakest)+" "+strconv.Itoa(p.Blocks))
		}
		if got := drawn[key{tl.Generation, tl.Segment, tl.Source}]; !slices.Equal(got, want) {
			t.Errorf("timeline %s/%s/%s: drawn %v, want %v", tl.Generation, tl.Segment, tl.Source, got, want)
		}
	}
}

// checkPrecChart compares the recoverability chart's dots with the views.
func checkPrecChart(t *testing.T, doc *html.Node, a *status.Assessment) {
	chart := byID(t, doc, "chart-prec")
	views := find(chart, func(n *html.Node) bool { return hasClass(n, "view") })
	if len(views) != len(a.Views) {
		t.Fatalf("%d views drawn, want %d", len(views), len(a.Views))
	}
	for i, v := range a.Views {
		dots := find(views[i], func(n *html.Node) bool { return n.Data == "circle" })
		if len(dots) != len(v.At) {
			t.Fatalf("view %s: %d dots, want %d", v.Name, len(dots), len(v.At))
		}
		for j, p := range v.At {
			got, _ := strconv.ParseFloat(mustAttr(t, dots[j], "data-p"), 64)
			if got != p.P || mustAttr(t, dots[j], "data-after-ns") != strconv.FormatInt(int64(p.After), 10) {
				t.Errorf("view %s dot %d: %v, want P %v after %v", v.Name, j, dots[j].Attr, p.P, p.After)
			}
		}
	}
}

// TestChartGeometry: a point with k blocks sits on the k line, a P_rec
// equal to the target on the target line, and a higher P_rec above a lower.
func TestChartGeometry(t *testing.T) {
	r := sampleReport()
	r.Assessment.Views[0].At[1].P = r.Assessment.Target
	_, doc := render(t, r)
	onK := 0
	for _, c := range find(doc, func(n *html.Node) bool { return hasClass(n, "chart-blocks") }) {
		k := mustAttr(t, c, "data-k")
		kline := find(c, func(n *html.Node) bool { return hasClass(n, "kline") })[0]
		for _, p := range find(c, func(n *html.Node) bool { return n.Data == "circle" }) {
			if mustAttr(t, p, "data-weakest") == k {
				onK++
				if cy := mustAttr(t, p, "cy"); cy != mustAttr(t, kline, "y1") {
					t.Errorf("a point with k = %s blocks is at y %s, the k line at %s", k, cy, mustAttr(t, kline, "y1"))
				}
			}
		}
	}
	if onK == 0 {
		t.Fatal("no point has exactly k blocks; the test would prove nothing")
	}
	chart := byID(t, doc, "chart-prec")
	target := find(chart, func(n *html.Node) bool { return hasClass(n, "target") })[0]
	dots := find(chart, func(n *html.Node) bool { return n.Data == "circle" })
	if got := mustAttr(t, dots[1], "cy"); got != mustAttr(t, target, "y1") {
		t.Errorf("P_rec = target drawn at y %s, the target line at %s", got, mustAttr(t, target, "y1"))
	}
	y0, _ := strconv.ParseFloat(mustAttr(t, dots[0], "cy"), 64)
	y2, _ := strconv.ParseFloat(mustAttr(t, dots[2], "cy"), 64)
	if !(y2 < y0) { // SVG y grows downwards
		t.Errorf("P_rec %v drawn at y %v, not above %v drawn at %v", r.Assessment.Views[0].At[2].P, y2, r.Assessment.Views[0].At[0].P, y0)
	}
}

// TestPagesTimeline: the timeline shows the first MaxPagesShown pages,
// carriers first, says how many are left out, and counts every capture.
func TestPagesTimeline(t *testing.T) {
	r := sampleReport()
	_, doc := render(t, r)
	chart := byID(t, doc, "chart-pages")
	if mustAttr(t, chart, "data-pages") != strconv.Itoa(samplePages) || mustAttr(t, chart, "data-omitted") != strconv.Itoa(samplePages-MaxPagesShown) {
		t.Errorf("the timeline says %v, want %d pages, %d left out", chart.Attr, samplePages, samplePages-MaxPagesShown)
	}
	rows := find(chart, func(n *html.Node) bool { return hasClass(n, "page") })
	if len(rows) != MaxPagesShown {
		t.Fatalf("%d rows, want %d", len(rows), MaxPagesShown)
	}
	if !strings.Contains(text(doc), strconv.Itoa(samplePages-MaxPagesShown)+" pages left out") {
		t.Error("the page does not say how many pages are left out")
	}
	carriers := 0
	for _, p := range r.Pages {
		if p.Carrier {
			carriers++
		}
	}
	captures := map[string]int{}
	for _, p := range r.Pages {
		for _, ts := range p.Captures {
			captures[p.URL] += len(ts)
		}
	}
	for i, row := range rows {
		title := text(find(row, func(n *html.Node) bool { return n.Data == "title" })[0])
		url, _, _ := strings.Cut(title, "\n")
		if (i < carriers) != strings.Contains(title, "carries blocks") {
			t.Errorf("row %d (%s) is out of order: carriers come first", i, url)
		}
		if got := mustAttr(t, row, "data-captures"); got != strconv.Itoa(captures[url]) {
			t.Errorf("row %d (%s): %s captures, want %d", i, url, got, captures[url])
		}
	}
}

// TestVerdicts: the headline and the exit code for each kind of report.
func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rp    *status.RestorePoint
		gens  bool
		exit  string
		class string
		title string
	}{
		{"newest recoverable", &status.RestorePoint{Generation: "g3", Newest: true}, true, "0", "ok", "The newest generation is recoverable"},
		{"only older", &status.RestorePoint{Generation: "g2", Age: 40 * day}, true, "3", "warn", "Only an older generation"},
		{"nothing", nil, true, "1", "bad", "Nothing is recoverable"},
		{"no generation", nil, false, "1", "bad", "No generation of this site was found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sampleReport()
			r.RestorePoint = tc.rp
			if !tc.gens {
				r.Generations, r.Newest, r.Assessment, r.Timelines = nil, "", nil, nil
			}
			_, doc := render(t, r)
			v := byID(t, doc, "verdict")
			if got := mustAttr(t, v, "data-exit"); got != tc.exit {
				t.Errorf("exit %s, want %s", got, tc.exit)
			}
			if !hasClass(v, tc.class) || !strings.Contains(text(v), tc.title) {
				t.Errorf("the verdict is %v %q, want class %s and %q", v.Attr, text(v), tc.class, tc.title)
			}
			if !strings.Contains(text(v), "for this report it exits "+tc.exit) {
				t.Errorf("the verdict does not explain exit %s: %q", tc.exit, text(v))
			}
		})
	}
}

// TestSparseReports: reports with little or odd content still make a
// valid page.
func TestSparseReports(t *testing.T) {
	nan := sampleReport()
	nan.Assessment.Views[1].At[0].P = nanValue()
	for name, r := range map[string]*status.Report{
		"empty":       {},
		"model error": {Newest: "g1", Assessment: &status.Assessment{Generation: "g1", Error: "no carrier page has captures"}},
		"NaN":         nan,
		"no pages":    func() *status.Report { r := sampleReport(); r.Pages = nil; return r }(),
		"one instant": {Now: sampleNow, Captures: []status.Capture{{Time: sampleNow}},
			Timelines: []status.Timeline{{Generation: "g", Segment: "s", Source: "combined", K: 0, Points: []status.TimelinePoint{{Time: sampleNow.Add(time.Hour), Weakest: -1}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			raw, doc := render(t, r)
			if len(find(doc, func(n *html.Node) bool { return n.Data == "body" })) != 1 || !strings.HasSuffix(strings.TrimSpace(raw), "</html>") {
				t.Errorf("incomplete page:\n%s", raw)
			}
			if strings.Contains(text(doc), "NaN") || strings.Contains(raw, "ZgotmplZ") {
				t.Errorf("the page shows NaN or a template filter's ZgotmplZ")
			}
			for _, p := range find(doc, func(n *html.Node) bool { return n.Data == "polyline" || n.Data == "path" || n.Data == "circle" }) {
				for _, a := range p.Attr {
					if (a.Key == "points" || a.Key == "d" || a.Key == "cx" || a.Key == "cy") && strings.Contains(a.Val, "NaN") {
						t.Errorf("<%s %s=%q> has a NaN coordinate", p.Data, a.Key, a.Val)
					}
				}
			}
		})
	}
}

// nanValue is a NaN the compiler does not fold.
func nanValue() float64 { z := 0.0; return z / z }

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteErrors: a nil report and a failing writer are errors.
func TestWriteErrors(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, nil, 1); err == nil || buf.Len() != 0 {
		t.Errorf("nil report: err %v, %d bytes written", err, buf.Len())
	}
	if err := Write(errWriter{}, sampleReport(), 0); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing writer: err %v", err)
	}
}

// BenchmarkWrite_237Pages measures the page of the sample report.
func BenchmarkWrite_237Pages(b *testing.B) {
	r := sampleReport()
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := Write(&buf, r, exitFor(r.Outcome())); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// TestBlockChartsChosen: with more generations than are charted, the
// newest generation's segment versions, the restore point's and the next
// newest are drawn, and the page says how many were left out.
func TestBlockChartsChosen(t *testing.T) {
	r := sampleReport()
	for _, id := range []string{"old4", "old5", "old6"} {
		g := r.Generations[2]
		g.ID, g.Segments = id, slices.Clone(g.Segments)
		for i := range g.Segments {
			g.Segments[i].Version = id
			r.Timelines = append(r.Timelines, sampleTimelines(id, g.Segments[i], sampleNow.Add(-100*day), []string{"wayback", status.Combined})...)
		}
		r.Generations = append(r.Generations, g)
	}
	r.RestorePoint = &status.RestorePoint{Generation: "old6", Age: 100 * day}
	_, doc := render(t, r)
	drawn := map[string]int{}
	for _, c := range find(doc, func(n *html.Node) bool { return hasClass(n, "chart-blocks") }) {
		drawn[mustAttr(t, c, "data-generation")]++
	}
	// g3's app segment is g2's version; old4 and old5 are neither newest
	// nor the restore point
	want := map[string]int{"g3": 2, "g2": 3, "g1": 3, "old6": 3}
	if fmt.Sprint(drawn) != fmt.Sprint(want) {
		t.Errorf("charts per generation %v, want %v", drawn, want)
	}
	if !strings.Contains(text(doc), "6 more segment charts") {
		t.Error("the page does not say that 6 segment charts were left out")
	}
}

// TestBlockSeriesThinned: a timeline with a point per capture of a large
// segment draws at most one point per pixel column, each the column's
// last, and the final value survives.
func TestBlockSeriesThinned(t *testing.T) {
	r := sampleReport()
	tl := &r.Timelines[len(r.Timelines)-1] // g1's db, combined
	tl.Points = nil
	for i := range 20000 {
		tl.Points = append(tl.Points, status.TimelinePoint{Time: sampleNow.Add(-time.Duration(20000-i) * time.Minute), Weakest: i / 1000, Blocks: i})
	}
	raw, doc := render(t, r)
	var series *html.Node
	for _, c := range find(doc, func(n *html.Node) bool { return hasClass(n, "chart-blocks") }) {
		if mustAttr(t, c, "data-generation") == tl.Generation && mustAttr(t, c, "data-segment") == tl.Segment {
			series = find(c, func(n *html.Node) bool { v, _ := attr(n, "data-source"); return v == tl.Source })[0]
		}
	}
	if series == nil {
		t.Fatal("the timeline is not charted")
	}
	dots := find(series, func(n *html.Node) bool { return n.Data == "circle" })
	if len(dots) == 0 || len(dots) > blocksWidth {
		t.Fatalf("%d points drawn for a %d-pixel chart", len(dots), blocksWidth)
	}
	last := dots[len(dots)-1]
	if mustAttr(t, last, "data-blocks") != "19999" || mustAttr(t, last, "data-weakest") != "19" {
		t.Errorf("the last point drawn is %v, want the timeline's last", last.Attr)
	}
	if len(raw) > 400<<10 {
		t.Errorf("the page is %d KiB", len(raw)>>10)
	}
}

// TestFormatCharactersReplaced: a bidi override in a problem, a note or a
// page URL from an archive never reaches the page, where it would show
// the text reversed; the rest of the text stays.
func TestFormatCharactersReplaced(t *testing.T) {
	r := sampleReport()
	r.Problems = append(r.Problems, "fetching https://example.org/\u202egpj.exe: 404")
	r.Notes = append(r.Notes, "note \u2067isolated\u2069")
	r.Sources[0].Error = "fetching https://example.org/\u202emth.x: timeout"
	r.Pages = append(r.Pages, status.Page{URL: "https://example.org/\u202ecod.exe", Carrier: true})
	raw, doc := render(t, r)
	for _, c := range []string{"\u202e", "\u2067", "\u2069"} {
		if strings.Contains(raw, c) {
			t.Errorf("the page holds the format character %U", []rune(c)[0])
		}
	}
	all := text(doc)
	for _, want := range []string{"https://example.org/\uFFFDgpj.exe: 404", "note \uFFFDisolated\uFFFD", "https://example.org/\uFFFDcod.exe", "https://example.org/\uFFFDmth.x: timeout"} {
		if !strings.Contains(all, want) {
			t.Errorf("the page's text lacks %q", want)
		}
	}
}
