package status_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/block"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/manifest"
	"github.com/lazarus-preserve/lazarus/internal/sitetest"
	"github.com/lazarus-preserve/lazarus/internal/source"
	"github.com/lazarus-preserve/lazarus/internal/status"
)

// statusSite is a small injected site whose generations are kept page by
// page, with the serve history of every version in hist.
type statusSite struct {
	*sitetest.Site
	// siteURL is the site URL inject records; "" means
	// https://example.org/ (pages are keyed by that URL either way).
	siteURL string
	hist    history.Dir
	gens    []statusGen
}

// statusGen is one generation: its id, time and every page's bytes by
// URL (https://example.org/…).
type statusGen struct {
	id    string
	time  time.Time
	pages map[string][]byte
}

// newStatusSite writes a site of n linked pages and makes keys.
func newStatusSite(tb testing.TB, n int) *statusSite {
	tb.Helper()
	s := sitetest.NewSite(tb)
	sitetest.Linked(tb, s.Dir, n)
	return &statusSite{Site: s, hist: history.Dir(s.Path("history"))}
}

// inject makes the next generation at time at (the "app" segment
// changes every time), keeps its pages and records them in the history.
func (s *statusSite) inject(tb testing.TB, at time.Time) statusGen {
	tb.Helper()
	noise := make([]byte, 6000)
	rand.Read(noise)
	sitetest.WriteFile(tb, s.Dir, "src/app/version.txt", []byte(fmt.Sprintf("version %d\n", len(s.gens)+1)))
	sitetest.WriteFile(tb, s.Dir, "src/app/blob.bin", noise)
	o := s.Options("https://example.org/")
	if s.siteURL != "" {
		o.SiteURL = s.siteURL
	}
	o.Includes = s.Include("app")
	o.Now = func() time.Time { return at }
	res := sitetest.Inject(tb, o)
	g := statusGen{id: res.Generation, time: at, pages: map[string][]byte{}}
	files, _ := filepath.Glob(filepath.Join(s.Pages(), "*.html"))
	var recs []history.Record
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), "index.html")
		g.pages["https://example.org/"+name] = body
		recs = append(recs, s.record(tb, "/"+name, at, body))
	}
	if _, err := history.AddBatch(context.Background(), s.hist, g.id, recs...); err != nil {
		tb.Fatal(err)
	}
	s.gens = append(s.gens, g)
	return g
}

// record is the history record of one page version, and adds the
// manifests it carries to the history.
func (s *statusSite) record(tb testing.TB, path string, at time.Time, body []byte) history.Record {
	tb.Helper()
	sums := history.SumsOf(body)
	rec := history.Record{Digest: sums.SHA1, SHA256: sums.SHA256, URL: path, Time: at, Blocks: map[string][]string{}}
	for f := range htmlblock.All(body) {
		switch f.Kind {
		case htmlblock.KindManifest:
			m, err := manifest.Parse(f.Payload)
			if err != nil {
				tb.Fatal(err)
			}
			rec.Manifest = m.Manifest.Generation.String()
			if err := history.AddManifest(context.Background(), s.hist, rec.Manifest, f.Payload); err != nil {
				tb.Fatal(err)
			}
		case htmlblock.KindBlock:
			b, err := block.Parse(f.Payload)
			if err != nil {
				tb.Fatal(err)
			}
			gen := manifest.ID(b.Generation).String()
			rec.Blocks[gen] = append(rec.Blocks[gen], fmt.Sprintf("%s/%d/%d", b.Name, b.Stripe, b.Shard))
		}
	}
	return rec
}

// plant returns captures of the named pages (URL suffixes, "" the root)
// of a generation at time at.
func (g statusGen) plant(at time.Time, crawl string, names ...string) []archivetest.Capture {
	var out []archivetest.Capture
	for _, n := range names {
		out = append(out, archivetest.Capture{URL: "https://example.org/" + n, Time: at, Body: g.pages["https://example.org/"+n], Crawl: crawl})
	}
	return out
}

// names returns the page names of a generation (URL suffixes), sorted.
func (g statusGen) names() []string {
	var out []string
	for u := range g.pages {
		out = append(out, strings.TrimPrefix(u, "https://example.org/"))
	}
	sort.Strings(out)
	return out
}

// expectShards is the test's own count of what captures hold: per
// segment ID and name, stripe, the distinct shards (signatures are not
// checked: only the site's own key made these pages). Damaged comments
// (truncation) do not count.
func expectShards(tb testing.TB, caps ...[]archivetest.Capture) map[string]map[uint32]map[uint16]bool {
	tb.Helper()
	out := map[string]map[uint32]map[uint16]bool{}
	for _, cs := range caps {
		for _, c := range cs {
			for f := range htmlblock.All(c.Body) {
				if f.Err != nil || f.Kind != htmlblock.KindBlock {
					continue
				}
				b, err := block.Parse(f.Payload)
				if err != nil {
					continue
				}
				k := fmt.Sprintf("%x/%s", b.SegmentID, b.Name)
				if out[k] == nil {
					out[k] = map[uint32]map[uint16]bool{}
				}
				if out[k][b.Stripe] == nil {
					out[k][b.Stripe] = map[uint16]bool{}
				}
				out[k][b.Stripe][b.Shard] = true
			}
		}
	}
	return out
}

// liveNewerWorld is a world without a history in which only generation 1
// is archived (by the Wayback Machine, a day after it was made) while the
// live site serves generation 2. n counts the live requests.
func liveNewerWorld(t *testing.T) (w *statusWorld, o status.Options, n *int) {
	t.Helper()
	w = newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g1.plant(statusT1.Add(day), "", w.g1.names()...)
	})
	n = new(int)
	o = w.statusOpts(false, "")
	o.NoLive, o.Client = false, liveDoer{pages: w.g2.pages, n: n}
	return w, o, n
}

// checkDepths fails unless the report's pages are exactly want's, each
// at its link depth. why explains want, for the failure message.
func checkDepths(t *testing.T, rep *status.Report, want map[string]int, why string) {
	t.Helper()
	got := map[string]int{}
	for _, p := range rep.Pages {
		got[p.URL] = p.Depth
	}
	if len(got) != len(want) {
		t.Fatalf("pages %v, want %v %s", got, want, why)
	}
	for u, d := range want {
		if got[u] != d {
			t.Errorf("%s: depth %d, want %d", u, got[u], d)
		}
	}
}

// statusOpts are the options w.status uses, for tests that tune them.
func (w *statusWorld) statusOpts(hist bool, state string) status.Options {
	o := status.Options{SiteURL: "https://example.org/", Sources: w.sources, ServerKey: w.site.Server.Marshal(),
		StateDir: state, Now: statusNow, NoLive: true}
	if hist {
		o.History = []history.Store{w.site.hist}
	}
	return o
}

// injectedSiteStatus injects a six-page site with a server side at
// statusT1 and runs status at statusNow, with inject's serve history and
// neither spot checks nor live reads, on a Wayback Machine holding every
// page captured an hour later and caps besides; it returns the report
// and the archive.
func injectedSiteStatus(t *testing.T, caps ...archivetest.Capture) (*status.Report, *archivetest.Server) {
	t.Helper()
	s := sitetest.NewSite(t)
	sitetest.Linked(t, s.Dir, 6)
	sitetest.ServerSide(t, s.Dir, 4000)
	o := s.Options("https://example.org/")
	o.Includes = s.Include("app")
	o.Now = func() time.Time { return statusT1 }
	sitetest.Inject(t, o)
	srv, err := archivetest.New(append(sitetest.CapturesOf(t, s.Pages(), statusT1.Add(time.Hour)), caps...), archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	client := source.NewClient(source.ClientOptions{Rate: 60000})
	rep := runStatus(t, status.Options{SiteURL: "https://example.org/", ServerKey: s.Server.Marshal(), Now: statusNow, NoLive: true,
		SpotChecks: status.NoSpotChecks, History: []history.Store{history.Dir(filepath.Join(o.StateDir, injector.HistoryDir))},
		Sources: []source.Source{source.CDXSource{Base: srv.URL, Label: "wayback", Dialect: source.DialectWayback, Client: client}}})
	return rep, srv
}

func runStatus(t *testing.T, o status.Options) *status.Report {
	t.Helper()
	rep, err := status.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// mirror writes pages (URL suffix → bytes) as a wget mirror does, under
// DIR/example.org/, with modification time at, and returns DIR.
func mirror(t *testing.T, pages map[string][]byte, at time.Time) string {
	t.Helper()
	dir := t.TempDir()
	for u, body := range pages {
		name := strings.TrimPrefix(u, "https://example.org/")
		if name == "" || strings.HasSuffix(name, "/") {
			name += "index.html"
		}
		p := filepath.Join(dir, "example.org", filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// liveDoer answers every request with the page at its URL's path, as the
// live site would, without leaving the test; it counts requests.
type liveDoer struct {
	pages map[string][]byte
	n     *int
}

func (d liveDoer) Do(req *http.Request) (*http.Response, error) {
	*d.n++
	body, ok := d.pages[req.URL.String()]
	if !ok {
		return &http.Response{StatusCode: http.StatusNotFound, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
	}
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(string(body))), Request: req,
		Header: http.Header{"Content-Type": {"text/html"}}}, nil
}
