package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/verify"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/lazarus-preserve/lazarus/injector"
	"github.com/lazarus-preserve/lazarus/internal/history"
	"github.com/lazarus-preserve/lazarus/internal/htmlblock"
	"github.com/lazarus-preserve/lazarus/internal/keys"
)

// TestVerifyScripts runs lazarus verify end to end against sites served
// on loopback: testdata/verify/*.txt.
func TestVerifyScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/verify",
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"serve":          cmdServe,
			"strip":          cmdStrip,
			"stripmanifests": cmdStripManifests,
			"caddyhistory":   cmdCaddyHistory,
		},
	})
}

// serve DIR: serve DIR on loopback (files are read at every request) and
// set $URL to its address, without a trailing slash. Like Python's
// http.server (and unlike http.FileServer), it serves "/index.html"
// itself rather than redirecting it to "/".
func cmdServe(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: serve DIR")
	}
	dir := ts.MkAbs(args[0])
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/index.html") && !strings.Contains(r.URL.Path, "..") {
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
			if err == nil {
				defer f.Close()
				if info, err := f.Stat(); err == nil {
					http.ServeContent(w, r, "index.html", info.ModTime(), f)
					return
				}
			}
		}
		files.ServeHTTP(w, r)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("URL", srv.URL)
}

// strip FILE...: remove every Lazarus comment from the pages.
func cmdStrip(ts *testscript.TestScript, neg bool, args []string) {
	for _, name := range args {
		p := ts.MkAbs(name)
		page, err := os.ReadFile(p)
		ts.Check(err)
		ts.Check(os.WriteFile(p, htmlblock.Strip(page), 0o644))
	}
}

// stripmanifests FILE...: remove the Lazarus manifests from the pages,
// leaving their blocks.
func cmdStripManifests(ts *testscript.TestScript, neg bool, args []string) {
	for _, name := range args {
		p := ts.MkAbs(name)
		page, err := os.ReadFile(p)
		ts.Check(err)
		var out []byte
		last := 0
		for f := range htmlblock.All(page) {
			if f.Err == nil && f.Kind == htmlblock.KindManifest {
				out = append(out, page[last:f.Offset]...)
				last = f.End
			}
		}
		ts.Check(os.WriteFile(p, append(out, page[last:]...), 0o644))
	}
}

// caddyhistory STATE DIR: write the serve history of inject's STATE as
// the Caddy module keeps it in a file_system storage at DIR: one value
// per page version (history.Add, what the module calls) under
// DIR/lazarus/NAME/history/, with the manifests.
func cmdCaddyHistory(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: caddyhistory STATE DIR")
	}
	ctx := context.Background()
	ix, err := history.Load(ctx, history.Dir(ts.MkAbs(filepath.Join(args[0], injector.HistoryDir))))
	ts.Check(err)
	if len(ix.Records) == 0 {
		ts.Fatalf("no records in %s", args[0])
	}
	st := history.Dir(ts.MkAbs(filepath.Join(args[1], "lazarus", "NAME", "history")))
	for _, rec := range ix.Records {
		ts.Check(history.Add(ctx, st, rec))
	}
	for gen, env := range ix.Manifests {
		ts.Check(history.AddManifest(ctx, st, gen, env))
	}
}

// TestVerifyProgress: progress says it is progress, pluralises, rewrites
// one terminal line and clears it before the report; in a log a short
// crawl prints nothing, a long one a line every logEvery.
func TestVerifyProgress(t *testing.T) {
	var tty bytes.Buffer
	show, done := verifyProgressOn(&progressLine{w: &tty, tty: true, start: time.Now()})
	show(verify.Progress{Phase: "crawl", Fetched: 1, Queued: 0})
	time.Sleep(ttyEvery + 10*time.Millisecond)
	show(verify.Progress{Phase: "crawl", Fetched: 12, Queued: 40})
	done()
	out := tty.String()
	if !strings.Contains(out, "\rlazarus: crawling: 1 page, 0 queued…") || !strings.Contains(out, "\rlazarus: crawling: 12 pages, 40 queued…") {
		t.Errorf("terminal progress %q", out)
	}
	if !strings.HasSuffix(out, "\r"+strings.Repeat(" ", 79)+"\r") || strings.Contains(out, "\n") {
		t.Errorf("terminal progress %q: not cleared before the report", out)
	}

	var log bytes.Buffer
	show, done = verifyProgressOn(&progressLine{w: &log, start: time.Now()})
	show(verify.Progress{Phase: "crawl", Fetched: 1})
	done()
	if log.Len() != 0 {
		t.Errorf("a short crawl logged %q", log.String())
	}
	show, done = verifyProgressOn(&progressLine{w: &log, start: time.Now().Add(-logEvery)})
	show(verify.Progress{Phase: "crawl", Fetched: 300, Queued: 2})
	show(verify.Progress{Phase: "crawl", Fetched: 301, Queued: 2}) // too soon after
	done()
	if log.String() != "lazarus: crawling: 300 pages, 2 queued…\n" {
		t.Errorf("a long crawl logged %q", log.String())
	}
}

// TestShortHints: the hint points at "not kept by archives" only when
// such pages are listed, at "missing blocks" when a plan named the
// pages, and otherwise says what would name them and fix them.
func TestShortHints(t *testing.T) {
	short := func(reachable, elsewhere int) []verify.Segment {
		return []verify.Segment{{Name: "app", K: 4, ShortStripes: 1,
			Short: []verify.ShortStripe{{Stripe: 0, Reachable: reachable, Need: 4, Elsewhere: elsewhere}}}}
	}
	excluded := []verify.ExcludedPage{{URL: "http://h/a.html", Reason: "noarchive", Blocks: 2}}
	cases := []struct {
		name      string
		rep       verify.Report
		want, not []string
	}{
		{"blocks deleted, no plan", verify.Report{Segments: short(2, 0)},
			[]string{"without a placement plan", "--state DIR"}, []string{"not kept by archives", "missing blocks"}},
		{"blocks deleted, manifest's plan only", verify.Report{Segments: short(2, 0), Plan: "manifest"},
			[]string{"without a placement plan"}, []string{"not kept by archives"}},
		{"blocks deleted, named", verify.Report{Segments: short(2, 0), Plan: "serve history", MissingPages: 3},
			[]string{`pages listed under "missing blocks"`, "run lazarus inject again"}, []string{"not kept by archives", "without a placement plan"}},
		{"blocks on a noarchive page", verify.Report{Segments: short(2, 2), Excluded: excluded},
			[]string{`"not kept by archives"`}, []string{"without a placement plan", "run lazarus inject"}},
		{"both", verify.Report{Segments: short(1, 2), Excluded: excluded},
			[]string{`"not kept by archives"`, "without a placement plan"}, nil},
		{"manifest gone", verify.Report{},
			[]string{"run lazarus inject again"}, []string{"not kept by archives", "without a placement plan"}},
		{"planned for more pages than the site links", verify.Report{Segments: short(2, 0), Crawl: verify.CrawlReport{Pages: 29, Carriers: 29}},
			[]string{"too few pages archives would keep", "reinstalled", "sitemap", "permalinks", "noindex"}, []string{"run lazarus inject", "without a placement plan"}},
		{"k beyond the pages", verify.Report{Segments: []verify.Segment{{Name: "app", K: 30, ShortStripes: 1,
			Short: []verify.ShortStripe{{Stripe: 0, Reachable: 3, Need: 30}}}}, Crawl: verify.CrawlReport{Pages: 5, Carriers: 3, Queries: 40}},
			[]string{"too few pages archives would keep for this backup (5 read): use pretty permalinks"}, []string{"run lazarus inject"}},
		{"a crawl cut short says nothing of the site's size", verify.Report{Segments: short(2, 0), Crawl: verify.CrawlReport{Pages: 29, Carriers: 29, Limit: "2000 pages"}},
			[]string{"run lazarus inject again"}, []string{"too few pages"}},
	}
	for _, c := range cases {
		got := strings.Join(shortHints(&c.rep), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: hints %q lack %q", c.name, got, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(got, n) {
				t.Errorf("%s: hints %q say %q", c.name, got, n)
			}
		}
	}
}

// TestPrintVerifyFailuresAndRestore: the report names the first failed
// URLs (made printable) and counts the rest; printing the trial restore's
// first mismatches with the skipped segments leaves the report's
// mismatches as they were.
func TestPrintVerifyFailuresAndRestore(t *testing.T) {
	mism := []string{"m0", "m1", "m2", "m3", "m4", "m5", "m6"}
	rep := verify.Report{
		Crawl: verify.CrawlReport{Failures: 8, Failed: []string{"http://h/a\x1b[2J: HTTP 404", "http://h/b: HTTP 500",
			"http://h/c: HTTP 404", "http://h/d: HTTP 404", "http://h/e: HTTP 404", "http://h/f: HTTP 404"}},
		Restore: &verify.TrialRestore{Mismatches: slices.Clone(mism), Skipped: []string{"s0", "s1"}},
	}
	var out bytes.Buffer
	printVerify(&out, &rep)
	got := out.String()
	for _, w := range []string{"  crawl failed: http://h/a\\x1b[2J: HTTP 404\n", "  crawl failed: http://h/e: HTTP 404\n",
		"  … 3 more failures (see --json)\n", "  trial restore: m4\n", "  trial restore: s1\n"} {
		if !strings.Contains(got, w) {
			t.Errorf("report lacks %q:\n%s", w, got)
		}
	}
	for _, n := range []string{"http://h/f", "\x1b", "trial restore: m5"} {
		if strings.Contains(got, n) {
			t.Errorf("report has %q:\n%s", n, got)
		}
	}
	if !slices.Equal(rep.Restore.Mismatches, mism) {
		t.Errorf("printing changed the report's mismatches: %q", rep.Restore.Mismatches)
	}
}

// TestVerifyKeyFile: --key takes server.key and owner.key, the latter
// also retyped from paper without its comment lines; a damaged owner key
// is reported as one, and a file that is no key file (a device that never
// ends) is refused without reading it whole.
func TestVerifyKeyFile(t *testing.T) {
	dir := t.TempDir()
	ownerPath, serverPath, err := keys.WriteNewPair(dir, true, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(ownerPath)
	if err != nil {
		t.Fatal(err)
	}
	var bare, damaged []string
	for l := range strings.Lines(string(raw)) {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		bare = append(bare, l)
		if strings.HasPrefix(l, "signing-seed:") {
			l = "signing-seed: !!!\n"
		}
		damaged = append(damaged, l)
	}
	barePath, damagedPath := filepath.Join(dir, "bare.key"), filepath.Join(dir, "damaged.key")
	for p, lines := range map[string][]string{barePath: bare, damagedPath: append([]string{"# owner key\n"}, damaged...)} {
		if err := os.WriteFile(p, []byte(strings.Join(lines, "")), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	load := func(key string) (verify.Options, string, error) {
		var stderr bytes.Buffer
		o, err := (&verifyCmd{siteKeyFlags: siteKeyFlags{site: "http://127.0.0.1/", key: key}, maxPages: 1, rate: 1, hygiene: -1}).options(&stderr)
		return o, stderr.String(), err
	}
	if o, warn, err := load(serverPath); err != nil || len(o.ServerKey) == 0 || len(o.OwnerKey) != 0 || warn != "" {
		t.Errorf("server.key: %v %q", err, warn)
	}
	for _, p := range []string{ownerPath, barePath} {
		if o, warn, err := load(p); err != nil || len(o.OwnerKey) == 0 || len(o.ServerKey) != 0 || warn != "" {
			t.Errorf("%s: %v %q", filepath.Base(p), err, warn)
		}
	}
	if _, _, err := load(damagedPath); err == nil || !strings.Contains(err.Error(), "owner key file") || !strings.Contains(err.Error(), "signing-seed") {
		t.Errorf("damaged owner key: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := load("/dev/zero"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "--key") {
			t.Errorf("/dev/zero: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("--key /dev/zero still being read after 10s")
	}
}
