package status_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/source"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/history"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
)

// Regression tests for the review of lazarus status (issue 10), one per
// finding.

// statusOpts are the options w.status uses, for tests that tune them.
func (w *statusWorld) statusOpts(hist bool, state string) status.Options {
	o := status.Options{SiteURL: "https://example.org/", Sources: w.sources, ServerKey: w.site.server.Marshal(),
		StateDir: state, Now: statusNow, NoLive: true}
	if hist {
		o.History = []history.Store{w.site.hist}
	}
	return o
}

func runStatus(t *testing.T, o status.Options) *status.Report {
	t.Helper()
	rep, err := status.Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestStatusF1ListedDigestSpotChecked: every generation 2 page the
// Wayback lists carries no block, but is listed under the digest of the
// real page (or the history forges records for its digest). With the
// default spot check, status fetches one, sees the lie, distrusts the
// source's digests and reports generation 1 as the restore point, as
// recover would find it.
func TestStatusF1ListedDigestSpotChecked(t *testing.T) {
	for _, forge := range []string{"listed digest", "forged record"} {
		t.Run(forge, func(t *testing.T) {
			w := newStatusWorld(t, func(w *statusWorld) {
				w.wayback = w.g1.plant(statusT1.Add(day), "", w.g1.names()...)
				for _, c := range w.g2.plant(statusT2.Add(day), "", w.g2.names()...) {
					real := c.Body
					// As long as the real page, so that the listed length
					// does not give the lie away: the spot check must.
					c.Body = []byte("<html>nothing here " + c.URL + "</html>")
					c.Body = append(c.Body, strings.Repeat(" ", len(real)-len(c.Body))...)
					if forge == "listed digest" {
						c.Digest = archivetest.Digest(real)
					} else {
						rec := w.site.record(t, strings.TrimPrefix(c.URL, "https://example.org"), statusT2, real)
						sums := history.SumsOf(c.Body)
						rec.Digest, rec.SHA256 = sums.SHA1, sums.SHA256
						if _, err := history.AddBatch(context.Background(), w.site.hist, w.g2.id, rec); err != nil {
							t.Fatal(err)
						}
					}
					w.wayback = append(w.wayback, c)
				}
			})
			rep := runStatus(t, w.statusOpts(true, ""))
			if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g1.id || rp.Newest || rep.Outcome() != status.OlderRecoverable {
				t.Fatalf("restore point %+v, want generation 1 (exit 3)", rp)
			}
			if !strings.Contains(strings.Join(rep.Problems, "\n"), "spot check") || !rep.Sources[0].Distrusted {
				t.Fatalf("problems do not report the failed spot check: %q", rep.Problems)
			}
			// Trusting the listing (--spot-checks 0) takes the archive's
			// word: the minimum of requests, and the report says so.
			o := w.statusOpts(true, "")
			o.SpotChecks = status.NoSpotChecks
			if rep := runStatus(t, o); !strings.Contains(strings.Join(rep.Notes, " "), "on the archive's word") {
				t.Fatalf("notes do not say the history-known captures are counted on the archive's word: %q", rep.Notes)
			}
		})
	}
}

// TestStatusF1TruncatedLength: a copy cut to a third, listed under the
// full page's digest with its real (short) length, is not credited by
// the history: it is fetched.
func TestStatusF1TruncatedLength(t *testing.T) {
	var cutURL string
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = w.g2.plant(statusT2.Add(day), "", w.g2.names()...)
		c := &w.wayback[len(w.wayback)-1]
		c.Digest = archivetest.Digest(c.Body)
		c.Body = c.Body[:len(c.Body)/3]
		cutURL = c.URL
	})
	rep := runStatus(t, w.statusOpts(true, ""))
	for _, c := range rep.Captures {
		if c.URL == cutURL && c.How == status.HowHistory {
			t.Fatalf("truncated copy %s credited by the history: %+v", cutURL, c)
		}
	}
}

// flakySource lists every capture of an archivetest world twice, "old"
// and "new", with the same digest; fetching a "new" one fails with HTTP
// 503, as flaky Wayback replays do.
type flakySource struct {
	caps []archivetest.Capture
}

func (flakySource) Name() string { return "flaky" }

func (s flakySource) List(_ context.Context, _ *url.URL, fn func(source.Capture) error) error {
	for _, c := range s.caps {
		for i, which := range []string{"old", "new"} {
			if err := fn(source.Capture{Source: "flaky", URL: c.URL, Time: c.Time.Add(time.Duration(i) * time.Hour),
				Digest: archivetest.Digest(c.Body), Locator: which + " " + c.URL}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s flakySource) Fetch(_ context.Context, c source.Capture) (io.ReadCloser, error) {
	which, u, _ := strings.Cut(c.Locator, " ")
	if which == "new" {
		return nil, errors.New("GET " + u + ": HTTP 503")
	}
	for _, p := range s.caps {
		if p.URL == u {
			return io.NopCloser(strings.NewReader(string(p.Body))), nil
		}
	}
	return nil, fmt.Errorf("no capture %s", u)
}

// TestStatusF2FailedFetchRetried: when one capture of a digest cannot be
// fetched, status and recover both try another capture with the same
// digest: both find generation 2.
func TestStatusF2FailedFetchRetried(t *testing.T) {
	site := newStatusSite(t, 8)
	site.inject(t, statusT1)
	g2 := site.inject(t, statusT2)
	src := flakySource{caps: g2.plant(statusT2.Add(day), "", g2.names()...)}
	rep, err := status.Run(context.Background(), status.Options{SiteURL: "https://example.org/",
		Sources: []source.Source{src}, ServerKey: site.server.Marshal(), Now: statusNow, NoLive: true})
	if err != nil || rep.RestorePoint == nil || rep.RestorePoint.Generation != g2.id {
		t.Fatalf("status: %v, restore point %+v", err, rep.RestorePoint)
	}
	rrep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: site.owner.Marshal(), Out: t.TempDir(),
		SiteURL: "https://example.org/", Sources: []source.Source{src}})
	if err != nil || rrep.Generation != g2.id {
		t.Fatalf("recover: %v, generation %q, want %s; problems %q", err, rrep.Generation, g2.id, rrep.Problems)
	}
}

// TestStatusF3CacheForgery: rewriting the state directory's cache so
// that one verified block stands for every position does not make a
// generation recoverable: every counted field is covered by the
// signature checked on reload, so a rewritten entry either fails its
// check (and the capture is fetched again) or holds no more than it did.
func TestStatusF3CacheForgery(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", "", "p0.html")...)
	})
	state := t.TempDir()
	first := w.status(t, false, state)
	if rp := first.RestorePoint; rp == nil || rp.Generation != w.g1.id {
		t.Fatalf("first run: restore point %+v", rp)
	}
	files, _ := filepath.Glob(filepath.Join(state, "status", "*.json"))
	if len(files) == 0 {
		t.Fatal("no cache entries")
	}
	for _, f := range files {
		forgeCacheEntry(t, f)
	}
	// What a forger without the key can do to the new format (repeat a
	// verified block) loses blocks at most: it must never make the newest
	// generation recoverable.
	again := w.status(t, false, state)
	if rp := again.RestorePoint; rp != nil && (rp.Newest || rp.Generation == w.g2.id) {
		t.Fatalf("forged cache: restore point %+v, want generation 1 (older) or none", rp)
	}
}

// forgeCacheEntry duplicates an entry's first block under every segment,
// stripe and shard its layouts allow (or, for raw blocks, many times).
func forgeCacheEntry(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	blocks, _ := e["blocks"].([]any)
	if len(blocks) == 0 {
		return
	}
	var out []any
	first, isObj := blocks[0].(map[string]any)
	layouts, _ := e["layouts"].([]any)
	if !isObj || len(layouts) == 0 {
		for range 64 {
			out = append(out, blocks[0])
		}
	}
	for li, l := range layouts {
		lm := l.(map[string]any)
		k, m, stripes := int(lm["k"].(float64)), int(lm["m"].(float64)), int(lm["stripes"].(float64))
		for s := 0; s < stripes; s++ {
			for sh := 0; sh < k+m; sh++ {
				b := map[string]any{}
				for kk, v := range first {
					b[kk] = v
				}
				b["seg"], b["stripe"], b["shard"] = li, s, sh
				out = append(out, b)
			}
		}
	}
	e["blocks"] = out
	raw, _ = json.Marshal(e)
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestStatusF5XHTML: captures served as application/xhtml+xml (inject
// puts carriers in .xhtml files) are listed by both archives' listings,
// and recover finds them too.
func TestStatusF5XHTML(t *testing.T) {
	xhtml := func(cs []archivetest.Capture) []archivetest.Capture {
		for i := range cs {
			cs[i].MIME = "application/xhtml+xml"
		}
		return cs
	}
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), xhtml(w.g2.plant(statusT2.Add(day), "", w.g2.names()...))...)
		w.cc = xhtml(w.g2.plant(statusT2.Add(day), archivetest.DefaultCrawl, "p1.html"))
	})
	rep := w.status(t, true, "")
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || !rp.Newest {
		t.Fatalf("status: restore point %+v, want generation 2", rp)
	}
	if rep.Sources[0].Captures != len(w.wayback) || rep.Sources[1].Captures != len(w.cc) {
		t.Fatalf("listed %d and %d captures, planted %d and %d", rep.Sources[0].Captures, rep.Sources[1].Captures, len(w.wayback), len(w.cc))
	}
	rrep, err := lzrecover.Run(context.Background(), lzrecover.Options{OwnerKey: w.site.owner.Marshal(), Out: t.TempDir(),
		SiteURL: "https://example.org/", Sources: w.sources[:1]})
	if err != nil || rrep.Generation != w.g2.id {
		t.Fatalf("recover: %v, generation %q, want %s", err, rrep.Generation, w.g2.id)
	}
}

// TestStatusF8AsOf: audited as of a time between the generations, the
// history's later manifest and records do not count: generation 1 is
// the newest, and recoverable.
func TestStatusF8AsOf(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", w.g2.names()...)...)
	})
	o := w.statusOpts(true, "")
	o.Now = statusT1.Add(10 * day)
	rep := runStatus(t, o)
	if rep.Newest != w.g1.id || rep.Outcome() != status.NewestRecoverable {
		t.Fatalf("as of %v: newest %s, restore point %+v; want generation 1 (exit 0)", o.Now, rep.Newest, rep.RestorePoint)
	}
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

// TestStatusF6LiveNewer: without a history, only generation 1 is
// archived while the live site serves generation 2: status reads the
// live root page once, takes generation 2 as the newest and exits 3.
// When the live root cannot be read, or without the live check
// (--no-live), generation 1 is the newest only as far as status can see:
// the report says so (NewestUnconfirmed) and a note says a newer
// generation may exist.
func TestStatusF6LiveNewer(t *testing.T) {
	w, o, n := liveNewerWorld(t)
	rep := runStatus(t, o)
	if rep.Newest != w.g2.id || rep.Live != w.g2.id || rep.Outcome() != status.OlderRecoverable || *n != 1 || rep.NewestUnconfirmed {
		t.Fatalf("live serves %s: newest %s, live %q, restore point %+v, %d live requests; want generation 2 newest, exit 3, 1 request",
			w.g2.id, rep.Newest, rep.Live, rep.RestorePoint, *n)
	}
	if rep.RestorePoint.Generation != w.g1.id {
		t.Fatalf("restore point %+v, want generation 1", rep.RestorePoint)
	}
	// A live site that cannot be read is a note, not an error.
	o.Client = liveDoer{pages: map[string][]byte{}, n: n}
	rep = runStatus(t, o)
	if rep.Newest != w.g1.id || !rep.NewestUnconfirmed || !strings.Contains(strings.Join(rep.Notes, " "), "a newer generation may exist") {
		t.Fatalf("unreadable live site: newest %s, notes %q", rep.Newest, rep.Notes)
	}
	o.NoLive = true
	rep = runStatus(t, o)
	if *n != 2 || !rep.NewestUnconfirmed || !strings.Contains(strings.Join(rep.Notes, " "), "a newer generation may exist") {
		t.Fatalf("--no-live: %d live requests, notes %q", *n-2, rep.Notes)
	}
}

// TestStatusMaxFetches: without a history, at most MaxFetches captures
// are fetched, the root page's first; the rest are reported unfetched,
// and a rerun with the state directory goes on where the first stopped.
func TestStatusMaxFetches(t *testing.T) {
	w := newStatusWorld(t, func(w *statusWorld) {
		w.wayback = append(w.g1.plant(statusT1.Add(day), "", w.g1.names()...), w.g2.plant(statusT2.Add(day), "", w.g2.names()...)...)
	})
	state := t.TempDir()
	o := w.statusOpts(false, state)
	o.MaxFetches = 3
	rep := runStatus(t, o)
	if n := w.srvW.RequestsTo("/web/"); n != 3 {
		t.Fatalf("%d fetches, want 3", n)
	}
	if s := rep.Sources[0]; s.Fetched != 3 || s.Unfetched != len(w.wayback)-3 {
		t.Fatalf("source %+v, want 3 fetched and %d unfetched", s, len(w.wayback)-3)
	}
	if rep.Newest != w.g2.id || !strings.Contains(strings.Join(rep.Notes, " "), "left unfetched") {
		t.Fatalf("the newest root page was not fetched first (newest %s), or notes %q", rep.Newest, rep.Notes)
	}
	for range 6 {
		rep = runStatus(t, o)
	}
	if rp := rep.RestorePoint; rp == nil || rp.Generation != w.g2.id || rep.Sources[0].Unfetched != 0 {
		t.Fatalf("after reruns: restore point %+v, source %+v", rp, rep.Sources[0])
	}
	if n := w.srvW.RequestsTo("/web/"); n != len(w.wayback) {
		t.Fatalf("%d fetches over the reruns, want each of the %d captures once", n, len(w.wayback))
	}
}
