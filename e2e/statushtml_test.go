package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/e2e/internal/e2etest"
	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"golang.org/x/net/html"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/statushtml"
)

// statusKeepEnv names a directory to keep the page (status.html) and its
// screenshot (status.png, the first 2000 pixels of its height) in.
const statusKeepEnv = "LAZARUS_STATUS_KEEP"

// TestStatusReportInChromium: the manual with WordPress behind it, two
// generations 30 days apart, archived by a local Wayback (every page of
// the first, a third of the second's) and a local Common Crawl (another
// third of the second's). Status audits it with server.key and the serve
// history; the HTML page's figures match the JSON report, and Chromium
// draws it.
func TestStatusReportInChromium(t *testing.T) {
	needMaterial(t)
	chromium := needTool(t, "chromium")
	if e2etest.RaceEnabled {
		t.Skip("rendering with Chromium is too slow under the race detector")
	}
	rep := auditedManual(t)
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var want status.Report
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := statushtml.Write(&page, rep, 0); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	checkStatusFigures(t, doc, &want)

	dir := t.TempDir()
	file := filepath.Join(dir, "status.html")
	if err := os.WriteFile(file, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	img := screenshot(t, chromium, "file://"+file)
	if uniform(img) {
		t.Fatal("the status page's screenshot is blank")
	}
	if n := colours(img); n < 20 {
		t.Errorf("the status page's screenshot has %d colours; its charts were not drawn", n)
	}
	if keep := os.Getenv(statusKeepEnv); keep != "" {
		var shot bytes.Buffer
		if err := png.Encode(&shot, img); err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(os.WriteFile(filepath.Join(keep, "status.html"), page.Bytes(), 0o644),
			os.WriteFile(filepath.Join(keep, "status.png"), shot.Bytes(), 0o644)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("page %d bytes; screenshot %v, %d colours", page.Len(), img.Bounds().Size(), colours(img))
}

// auditedManual builds, archives and audits the site.
func auditedManual(t *testing.T) *status.Report {
	t.Helper()
	site, urls := copyManual(t)
	srv := newServerSide(t, wordpressAssets)
	o, _ := srv.injectOptions(t)
	o.SiteDir = site
	o.MaxBlockBytes, o.PageBudget = 32<<10, 600<<10
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	t1, t2 := now.Add(-40*24*time.Hour), now.Add(-10*24*time.Hour)
	gen := func(at time.Time) map[string][]byte {
		o.Now = func() time.Time { return at }
		res, err := injector.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		logResult(t, res)
		pages := map[string][]byte{}
		for _, u := range urls {
			name := strings.TrimPrefix(u, "/")
			if name == "" {
				name = "index.html"
			}
			b, err := os.ReadFile(filepath.Join(site, name))
			if err != nil {
				t.Fatal(err)
			}
			pages[u] = b
		}
		return pages
	}
	g1 := gen(t1)
	if err := os.WriteFile(filepath.Join(srv.WordPress, "wp-content", "lazarus-e2e.txt"), []byte("a change\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g2 := gen(t2)
	var wayback, cc []archivetest.Capture
	for i, u := range urls {
		at := func(base time.Time) time.Time { return base.Add(time.Duration(24+i) * time.Hour) }
		wayback = append(wayback, archivetest.Capture{URL: "http://127.0.0.1" + u, Time: at(t1), Body: g1[u]})
		switch i % 3 {
		case 0:
			wayback = append(wayback, archivetest.Capture{URL: "http://127.0.0.1" + u, Time: at(t2), Body: g2[u]})
		case 1:
			cc = append(cc, archivetest.Capture{URL: "http://127.0.0.1" + u, Time: at(t2.Add(48 * time.Hour)), Body: g2[u]})
		}
	}
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	var sources []source.Source
	for _, p := range []struct {
		caps []archivetest.Capture
		src  func(base string) source.Source
	}{
		{wayback, func(b string) source.Source { return source.CDXSource{Base: b, Label: "wayback", Client: client} }},
		{cc, func(b string) source.Source {
			return source.CommonCrawlSource{IndexBase: b, DataBase: b, Client: client}
		}},
	} {
		a, err := archivetest.New(p.caps, archivetest.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		sources = append(sources, p.src(a.URL))
	}
	rep, err := status.Run(context.Background(), status.Options{SiteURL: o.SiteURL, Sources: sources,
		ServerKey: o.ServerKey, History: []history.Store{history.Dir(filepath.Join(o.StateDir, injector.HistoryDir))}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Generations) != 2 || rep.Assessment == nil || len(rep.Pages) == 0 {
		t.Fatalf("the audit found %d generations, assessment %v, %d pages; the page would show little", len(rep.Generations), rep.Assessment, len(rep.Pages))
	}
	if v := rep.Assessment.Views; len(v) == 0 || len(v[0].At) != len(status.ModelTimes()) {
		t.Fatalf("the audit's model was not asked for the dense times (%v)", status.ModelTimes())
	}
	return rep
}

// checkStatusFigures compares the page's figures (its data- attributes)
// with the JSON report's.
func checkStatusFigures(t *testing.T, doc *html.Node, r *status.Report) {
	t.Helper()
	exit := 1
	if r.RestorePoint != nil {
		exit = 3
		if r.RestorePoint.Newest {
			exit = 0
		}
	}
	want := map[string]string{"verdict data-exit": strconv.Itoa(exit)}
	if rp := r.RestorePoint; rp != nil {
		want["restore-point data-generation"] = rp.Generation
		want["restore-point data-age-ns"] = strconv.FormatInt(int64(rp.Age), 10)
	}
	// The chart's dots show P_rec at every time the model computed (the
	// dense status.ModelTimes); the outlook table now, 7 and 30 days.
	table := map[time.Duration]bool{0: true, 7 * 24 * time.Hour: true, 30 * 24 * time.Hour: true}
	for _, v := range r.Assessment.Views {
		for _, p := range v.At {
			after, prob := strconv.FormatInt(int64(p.After), 10), strconv.FormatFloat(p.P, 'g', -1, 64)
			want["chart "+v.Name+" "+after] = prob
			if table[p.After] {
				want["outlook "+v.Name+" "+after] = prob
			}
		}
	}
	for _, g := range r.Generations {
		for _, s := range g.Segments {
			weakest := -1
			for _, st := range s.PerStripe {
				if weakest < 0 || st.Combined < weakest {
					weakest = st.Combined
				}
			}
			want["segment "+g.ID+" "+s.Name] = strconv.Itoa(weakest) + "/" + strconv.Itoa(s.K)
		}
	}
	got := map[string]string{}
	var view, gen, chartView string
	inChart := false
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		a := map[string]string{}
		for _, x := range n.Attr {
			a[x.Key] = x.Val
		}
		switch {
		case a["id"] == "verdict":
			got["verdict data-exit"] = a["data-exit"]
		case a["id"] == "restore-point":
			got["restore-point data-generation"], got["restore-point data-age-ns"] = a["data-generation"], a["data-age-ns"]
		case n.Data == "tr" && a["class"] == "view":
			view = a["data-view"]
		case n.Data == "td" && a["class"] == "p":
			got["outlook "+view+" "+a["data-after-ns"]] = a["data-p"]
		case n.Data == "svg" && a["id"] == "chart-prec":
			inChart = true
			defer func() { inChart = false }()
		case inChart && n.Data == "g" && a["class"] == "view":
			chartView = a["data-view"]
		case inChart && n.Data == "circle" && a["data-after-ns"] != "":
			got["chart "+chartView+" "+a["data-after-ns"]] = a["data-p"]
		case n.Data == "table" && a["class"] == "segments":
			gen = a["data-generation"]
		case n.Data == "tr" && a["class"] == "segment":
			got["segment "+gen+" "+a["data-segment"]] = a["data-have"] + "/" + a["data-k"]
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: the page says %q, the JSON %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the page has %d figures, the JSON %d: %v", len(got), len(want), got)
	}
	t.Logf("%d figures match the JSON report (exit %d)", len(want), exit)
}

// colours counts the distinct colours of img, quantized to 5 bits a
// channel.
func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r >> 11, g >> 11, bl >> 11}] = true
		}
	}
	return len(seen)
}
