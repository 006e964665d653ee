package status_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"github.com/lazarus-preserve/lazarus/internal/warc"
)

var (
	statusT1  = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	statusT2  = time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	statusNow = time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)
	day       = 24 * time.Hour
)

// statusWorld is a planted capture history: a Wayback-style server and a
// Common Crawl-style server holding captures of two generations.
type statusWorld struct {
	site             *statusSite
	g1, g2           statusGen
	wayback, cc      []archivetest.Capture
	srvW, srvC       *archivetest.Server
	sources          []source.Source
	expectW, expectC map[string]map[uint32]map[uint16]bool
}

// newStatusWorld injects two generations of a 9-page site and plants
// what the two archives hold (wayback and cc build the captures).
func newStatusWorld(t *testing.T, plant func(w *statusWorld)) *statusWorld {
	t.Helper()
	w := &statusWorld{site: newStatusSite(t, 8)}
	w.g1 = w.site.inject(t, statusT1)
	w.g2 = w.site.inject(t, statusT2)
	plant(w)
	var err error
	if w.srvW, err = archivetest.New(w.wayback, archivetest.Config{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.srvW.Close)
	if w.srvC, err = archivetest.New(w.cc, archivetest.Config{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.srvC.Close)
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	w.sources = []source.Source{
		source.CDXSource{Base: w.srvW.URL, Label: "wayback", Client: client},
		source.CommonCrawlSource{IndexBase: w.srvC.URL, DataBase: w.srvC.URL, Client: client},
	}
	w.expectW, w.expectC = expectShards(t, w.wayback), expectShards(t, w.cc)
	return w
}

// status runs Status with server.key and the given history and state,
// trusting the listings (no spot check) and without the live site.
func (w *statusWorld) status(t *testing.T, hist bool, state string) *status.Report {
	t.Helper()
	o := w.statusOpts(hist, state)
	o.SpotChecks = status.NoSpotChecks
	return runStatus(t, o)
}

// checkStripes compares every stripe's have/need with the test's own
// count of the planted captures.
func (w *statusWorld) checkStripes(t *testing.T, rep *status.Report) {
	t.Helper()
	if len(rep.Generations) != 2 || rep.Generations[0].ID != w.g2.id || rep.Generations[1].ID != w.g1.id {
		t.Fatalf("generations %v, want %s then %s", genIDs(rep), w.g2.id, w.g1.id)
	}
	for _, g := range rep.Generations {
		for _, s := range g.Segments {
			k := s.ID + "/" + s.Name
			if len(s.PerStripe) != s.Stripes {
				t.Fatalf("%s/%s: %d stripes reported, %d in the manifest", g.ID, s.Name, len(s.PerStripe), s.Stripes)
			}
			for _, st := range s.PerStripe {
				i := uint32(st.Index)
				hw, hc := len(w.expectW[k][i]), len(w.expectC[k][i])
				union := map[uint16]bool{}
				for sh := range w.expectW[k][i] {
					union[sh] = true
				}
				for sh := range w.expectC[k][i] {
					union[sh] = true
				}
				if st.Have["wayback"] != hw || st.Have["commoncrawl"] != hc || st.Combined != len(union) || st.Need != s.K {
					t.Errorf("generation %s segment %s stripe %d: have %v combined %d need %d; want wayback %d, commoncrawl %d, combined %d, need %d",
						g.ID[:8], s.Name, st.Index, st.Have, st.Combined, st.Need, hw, hc, len(union), s.K)
				}
			}
		}
	}
}

func genIDs(rep *status.Report) []string {
	var out []string
	for _, g := range rep.Generations {
		out = append(out, g.ID)
	}
	return out
}

// plantNewest: the Wayback holds all of generation 1 (its root twice,
// same bytes: the listing must not collapse them) and the root and two
// pages of generation 2, one of them truncated; Common Crawl holds three
// other pages of generation 2; pages p1, p6 and p7 of generation 2 were
// never captured. Generation 2 is recoverable only with both archives
// combined.
func plantNewest(w *statusWorld) {
	w.wayback = append(w.wayback, w.g1.plant(statusT1.Add(day), "", w.g1.names()...)...)
	w.wayback = append(w.wayback, w.g1.plant(statusT1.Add(2*day), "", "")...)
	w.wayback = append(w.wayback, w.g2.plant(statusT2.Add(day), "", "", "p0.html")...)
	cut := w.g2.plant(statusT2.Add(2*day), "", "p2.html")
	cut[0].Body = cut[0].Body[:len(cut[0].Body)*2/3]
	w.wayback = append(w.wayback, cut...)
	w.cc = w.g2.plant(statusT2.Add(3*day), archivetest.DefaultCrawl, "p3.html", "p4.html", "p5.html")
}

// TestStatusNewestCombined: exact have/need per stripe and source, the
// newest generation as restore point (only the archives combined have
// it), truncation seen, listings not collapsed, and with a complete
// history the minimum of requests: listings only, no capture fetched.
func TestStatusNewestCombined(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	rep := w.status(t, true, "")
	w.checkStripes(t, rep)
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest || rp.Age != statusNow.Sub(statusT2) {
		t.Fatalf("restore point %+v, want %s (newest), age %v", rp, w.g2.id, statusNow.Sub(statusT2))
	}
	if rep.Sources[0].Captures != len(w.wayback) || rep.Sources[1].Captures != len(w.cc) {
		t.Fatalf("listed %d and %d captures, planted %d and %d", rep.Sources[0].Captures, rep.Sources[1].Captures, len(w.wayback), len(w.cc))
	}
	// Alone, neither archive has generation 2.
	for _, src := range []string{"wayback", "commoncrawl"} {
		short := false
		for _, s := range rep.Generations[0].Segments[0].PerStripe {
			short = short || s.Have[src] < s.Need
		}
		if !short {
			t.Errorf("%s alone holds generation 2: the planted history does not test combining", src)
		}
	}
	how := map[string]int{}
	for _, c := range rep.Captures {
		how[c.How]++
	}
	// The truncated capture's digest is not in the history: it alone is
	// fetched.
	if how[status.HowHistory] != len(w.wayback)+len(w.cc)-1 || how[status.HowTruncated] != 1 {
		t.Fatalf("captures by how: %v", how)
	}
	if n := w.srvW.RequestsTo("/cdx/search"); n != 1 {
		t.Errorf("%d CDX listing requests, want 1", n)
	}
	if n := w.srvW.RequestsTo("/web/"); n != 1 {
		t.Errorf("%d Wayback replay requests, want 1 (the truncated capture)", n)
	}
	if n := w.srvC.RequestsTo("/crawl-data/"); n != 0 {
		t.Errorf("%d Common Crawl record fetches, want 0", n)
	}
	a := rep.Assessment
	if a == nil || a.Error != "" || a.Generation != w.g2.id || len(a.Views) != 1 || len(a.Views[0].At) != len(status.ModelTimes()) {
		t.Fatalf("assessment %+v", a)
	}
	// Generation 2 is already recoverable from what is archived.
	for _, v := range a.Views {
		if v.At[0].P != 1 {
			t.Errorf("%s view: P_rec now = %v, want 1", v.Name, v.At[0].P)
		}
	}
	if !strings.Contains(strings.Join(rep.Notes, " "), "lower bounds within each horizon") {
		t.Errorf("notes do not say what the outlook's figures are: %q", rep.Notes)
	}
}

// TestStatusMinimumRequests: when every capture's digest is in the
// history, Status sends the listings and nothing else.
func TestStatusMinimumRequests(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g1.plant(statusT1.Add(day), "", w.g1.names()...)
		w.cc = w.g2.plant(statusT2.Add(day), archivetest.DefaultCrawl, w.g2.names()...)
	})
	rep := w.status(t, true, "")
	w.checkStripes(t, rep)
	if n := w.srvW.RequestsTo("/web/") + w.srvC.RequestsTo("/crawl-data/"); n != 0 {
		t.Fatalf("%d captures fetched, want 0", n)
	}
	listing := len(w.srvW.Requests()) + len(w.srvC.Requests())
	if listing != 1+w.srvC.RequestsTo("/collinfo.json")+w.srvC.RequestsTo("/"+archivetest.DefaultCrawl) {
		t.Fatalf("requests beyond the listings: %v %v", w.srvW.Requests(), w.srvC.Requests())
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
		t.Fatalf("restore point %+v", rp)
	}
	t.Logf("requests: %d (all listings)", listing)
}

// TestStatusOlderOnly: generation 2 was captured only on its root page,
// so the restore point is generation 1, named with its age.
func TestStatusOlderOnly(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", "")...)
	})
	rep := w.status(t, true, "")
	w.checkStripes(t, rep)
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || rp.Newest || rp.Age != statusNow.Sub(statusT1) {
		t.Fatalf("restore point %+v, want %s (older), age %v", rp, w.g1.id, statusNow.Sub(statusT1))
	}
	if g := rep.Generations[0]; g.Recoverable || len(g.Short) == 0 || !strings.Contains(g.Short[0], "blocks short") {
		t.Fatalf("generation 2: %+v", g.Short)
	}
}

// TestStatusNothing: only generation 2's root page is archived: nothing
// is recoverable.
func TestStatusNothing(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", "")
	})
	rep := w.status(t, true, "")
	if rep.RestorePoint != nil {
		t.Fatalf("restore point %+v, want none", rep.RestorePoint)
	}
	if len(rep.Generations) != 2 || rep.Generations[1].Recoverable || !strings.Contains(strings.Join(rep.Generations[1].Short, " "), "no archived capture") {
		t.Fatalf("generation 1 (manifest only in the history) must not be recoverable: %+v", rep.Generations)
	}
}

// TestStatusWithoutHistory: without a history every distinct digest is
// fetched exactly once; a second run with the state directory fetches
// nothing and reports the same.
func TestStatusWithoutHistory(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	state := t.TempDir()
	rep := w.status(t, false, state)
	w.checkStripes(t, rep)
	distinct := map[string]bool{}
	for _, c := range append(append([]archivetest.Capture{}, w.wayback...), w.cc...) {
		distinct[archivetest.Digest(c.Body)] = true
	}
	fetched := w.srvW.RequestsTo("/web/") + w.srvC.RequestsTo("/crawl-data/")
	if fetched != len(distinct) {
		t.Fatalf("%d fetches for %d distinct digests", fetched, len(distinct))
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id {
		t.Fatalf("restore point %+v", rp)
	}
	again := w.status(t, false, state)
	if n := w.srvW.RequestsTo("/web/") + w.srvC.RequestsTo("/crawl-data/"); n != fetched {
		t.Fatalf("second run fetched %d captures, want 0", n-fetched)
	}
	if !reflect.DeepEqual(again.Generations, rep.Generations) || !reflect.DeepEqual(again.RestorePoint, rep.RestorePoint) {
		t.Fatalf("second run differs:\n%+v\n%+v", again.Generations, rep.Generations)
	}
	for _, c := range again.Captures {
		if c.How != status.HowCache {
			t.Fatalf("second run: capture %s %s is %q, want %q", c.Source, c.URL, c.How, status.HowCache)
		}
	}
	// The cache lists what verified with this key: another key's run
	// fetches again (and finds nothing of its own).
	_, other, _ := keys.Generate(true)
	third, err := status.Run(context.Background(), status.Options{SiteURL: "https://example.org/", Sources: w.sources,
		ServerKey: other.Marshal(), StateDir: state, Now: statusNow, NoLive: true})
	if err != nil || third.RestorePoint != nil || len(third.Generations) != 0 {
		t.Fatalf("another key: %v, %+v", err, third.RestorePoint)
	}
	if n := w.srvW.RequestsTo("/web/") + w.srvC.RequestsTo("/crawl-data/"); n != 2*fetched {
		t.Fatalf("another key's run fetched %d captures, want %d", n-fetched, fetched)
	}
}

// TestStatusForged: a capture of the root page holding a generation made
// with another key (blocks and manifest) is not counted: it is rejected,
// the restore point stays, and its generation is not reported.
func TestStatusForged(t *testing.T) {
	var forged statusGen
	w := newStatusWorld(t, func(w *statusWorld) {
		forger := newStatusSite(t, 8)
		forged = forger.inject(t, statusT2.Add(5*day))
		plantNewest(w)
		w.wayback = append(w.wayback, forged.plant(statusT2.Add(6*day), "", "", "p7.html")...)
	})
	w.expectW = expectShards(t, w.wayback[:len(w.wayback)-2]) // forged blocks do not count
	for _, hist := range []bool{true, false} {
		rep := w.status(t, hist, "")
		w.checkStripes(t, rep)
		if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
			t.Fatalf("history %v: restore point %+v", hist, rp)
		}
		rejected := 0
		for _, c := range rep.Captures {
			if c.Time.Equal(statusT2.Add(6 * day)) {
				if c.Blocks != 0 || c.Manifest != "" || c.How != status.HowFetched {
					t.Fatalf("forged capture counted: %+v", c)
				}
				rejected += c.Rejected
			}
		}
		if rejected == 0 || len(rep.Problems) == 0 {
			t.Fatalf("history %v: forged comments not rejected (%d), problems %q", hist, rejected, rep.Problems)
		}
	}
}

// TestStatusKeys: owner.key works as server.key does; no key, two keys
// or a damaged key are refused.
func TestStatusKeys(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	o := status.Options{SiteURL: "https://example.org/", Sources: w.sources, Now: statusNow,
		OwnerKey: w.site.Owner.Marshal(), History: []history.Store{w.site.hist}}
	rep, err := status.Run(context.Background(), o)
	if err != nil || rep.RestorePoint == nil || rep.RestorePoint.Generation != w.g2.id {
		t.Fatalf("owner key: %v, %+v", err, rep)
	}
	for name, mod := range map[string]func(*status.Options){
		"none":      func(o *status.Options) { o.OwnerKey = nil },
		"two":       func(o *status.Options) { o.ServerKey = w.site.Server.Marshal() },
		"damaged":   func(o *status.Options) { o.OwnerKey = []byte("AGE-SECRET-KEY-1XYZ") },
		"no URL":    func(o *status.Options) { o.SiteURL = "example.org" },
		"no source": func(o *status.Options) { o.Sources = nil },
		"twice":     func(o *status.Options) { o.Sources = append(o.Sources, o.Sources[0]) },
	} {
		bad := o
		mod(&bad)
		if _, err := status.Run(context.Background(), bad); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestStatusTimeline: the combined timeline of generation 2's segment
// ends at the distinct blocks archived, and every point is a capture
// time.
func TestStatusTimeline(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	rep := w.status(t, true, "")
	seg := rep.Generations[0].Segments[0]
	found := false
	for _, tl := range rep.Timelines {
		if tl.Generation != w.g2.id || tl.Segment != seg.Name || tl.Source != status.Combined {
			continue
		}
		found = true
		total := 0
		for _, s := range seg.PerStripe {
			total += s.Combined
		}
		last := tl.Points[len(tl.Points)-1]
		if last.Blocks != total || !last.Time.Equal(statusT2.Add(3*day)) || last.Weakest < seg.K {
			t.Fatalf("last point %+v, want %d blocks at %v, weakest ≥ %d", last, total, statusT2.Add(3*day), seg.K)
		}
	}
	if !found {
		t.Fatalf("no combined timeline for %s/%s", w.g2.id, seg.Name)
	}
	pages := map[string]bool{}
	for _, p := range rep.Pages {
		pages[p.URL] = len(p.Captures) > 0
	}
	if len(pages) != 9 || !pages["/"] || !pages["/p7.html"] {
		t.Fatalf("pages %v", pages)
	}
}

// TestStatusWARC: a local WARC file is read once, in one pass: its
// captures (digest "sha1:…" as WARC headers give it) are known from the
// history, or scanned as the stream goes without the history.
func TestStatusWARC(t *testing.T) {
	site := newStatusSite(t, 8)
	g1 := site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "crawl.warc.gz"))
	if err != nil {
		t.Fatal(err)
	}
	w := warc.NewWriter(f, true)
	for i, g := range []statusGen{g1, g2} {
		for _, n := range g.names() {
			if i == 1 && n != "" {
				continue // generation 2: only its root page
			}
			body := g.pages["https://example.org/"+n]
			resp := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			if err := w.WriteResponse("https://example.org/"+n, g.time.Add(day), []byte(resp)); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.Close()
	for _, hist := range []bool{true, false} {
		o := status.Options{SiteURL: "https://example.org/", Sources: []source.Source{source.WARCSource{Path: dir}},
			ServerKey: site.Server.Marshal(), Now: statusNow, NoLive: true, SpotChecks: status.NoSpotChecks}
		if hist {
			o.History = []history.Store{site.hist}
		}
		rep, err := status.Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if rp := rep.RestorePoint; rp == nil || rp.Generation != g1.id || rp.Newest {
			t.Fatalf("history %v: restore point %+v, want %s (older)", hist, rp, g1.id)
		}
		src := rep.Sources[0]
		if src.Captures != 10 || (hist && src.Known != 10) || (!hist && src.Fetched != 10) {
			t.Fatalf("history %v: %+v", hist, src)
		}
	}
}

// TestStatusMemento: a Memento source lists page by page: the root page,
// then every page the history names. TimeMaps give no digest, so each
// memento is fetched once.
func TestStatusMemento(t *testing.T) {
	w := newStatusWorld(t, plantNewest)
	client := source.NewClient(source.ClientOptions{Rate: 600000})
	rep, err := status.Run(context.Background(), status.Options{SiteURL: "https://example.org/", ServerKey: w.site.Server.Marshal(),
		Sources: []source.Source{source.MementoSource{TimeMapBase: w.srvW.URL + "/timemap/link/", Client: client}},
		History: []history.Store{w.site.hist}, Now: statusNow})
	if err != nil {
		t.Fatal(err)
	}
	if src := rep.Sources[0]; src.Captures != len(w.wayback) || src.Fetched != len(w.wayback) {
		t.Fatalf("memento source: %+v, planted %d", src, len(w.wayback))
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || rp.Newest {
		t.Fatalf("restore point %+v, want %s (the Wayback alone lacks generation 2)", rp, w.g1.id)
	}
}
