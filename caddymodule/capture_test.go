package caddymodule

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/capture"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

const captureSecret = "Sup3rS3cretValue"

// captureFixture is a self-building site served by the module on
// loopback, an empty archive the audit reads, and a Save Page Now
// server that really fetches the site's pages into that archive.
type captureFixture struct {
	bf         *buildFixture
	site       string // the site's URL, the module's own address
	arch       *archivetest.Server
	spn        *archivetest.SPN
	good, bad  string // key pair files: the accepted one and a refused one
	serving    *Handler
	sitePages  []string
	upstream   *page
	siteServer *httptest.Server
}

func newCaptureFixture(t *testing.T) *captureFixture {
	t.Helper()
	return newCaptureFixtureWith(t, archivetest.SPNConfig{})
}

// newCaptureFixtureWith is newCaptureFixture with the SPN server's limits
// in cfg.
func newCaptureFixtureWith(t *testing.T, cfg archivetest.SPNConfig) *captureFixture {
	t.Helper()
	f := &captureFixture{bf: newBuildFixture(t), sitePages: []string{"a", "b", "c", "d", "e"}}
	links := ""
	for _, p := range f.sitePages {
		links += `<a href="/` + p + `">` + p + "</a>\n"
	}
	f.upstream = &page{body: "<html><body>" + links + "</body></html>"}
	f.siteServer = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		if err := f.serving.ServeHTTP(w, r, &page{body: f.upstream.body}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	f.site = "http://" + f.siteServer.Listener.Addr().String() + "/"
	f.siteServer.Start()
	t.Cleanup(f.siteServer.Close)
	f.bf.build.SiteURL = f.site
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	u, _ := url.Parse(f.site)
	cfg.Access, cfg.Secret, cfg.Allow = "AKEY", captureSecret, []string{u.Host}
	s, err := archivetest.NewSPN(arch, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	f.arch, f.spn = arch, s
	dir := t.TempDir()
	f.good, f.bad = filepath.Join(dir, "ia.keys"), filepath.Join(dir, "wrong.keys")
	writeFile(t, f.good, []byte("AKEY:"+captureSecret+"\n"))
	writeFile(t, f.bad, []byte("AKEY:wrongsecret\n"))
	return f
}

// handler is an instance on the fixture's storage with capture requests
// using keyFile, on the real clock, switching at once.
func (f *captureFixture) handler(t *testing.T, keyFile string) (*Handler, *observer.ObservedLogs) {
	t.Helper()
	b := f.bf.build
	core, logs := observer.New(zap.InfoLevel)
	// Light pages (the default): each carries few blocks, so several
	// pages are worth asking for.
	h := &Handler{Build: &b, Name: "site", storage: &certmagic.FileStorage{Path: f.bf.storage}, now: time.Now,
		ReloadInterval: caddy.Duration(time.Nanosecond), logger: zap.New(core)}
	h.Audit = &Audit{Sources: []string{"cdx=" + f.arch.URL}, CaptureRequests: &CaptureRequests{AccessKeyFile: keyFile, SPN: f.spn.URL, Rate: "100/s"}}
	if err := h.setup(); err != nil {
		t.Fatal(err)
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	a := newAuditor(h)
	a.client = f.arch.Client()
	c := a.capturer
	c.delay, c.retry, c.siteRate, c.pollStart, c.pollMax = 0, time.Millisecond, 600000, time.Millisecond, 5*time.Millisecond
	h.auditor = a
	return h, logs
}

// submissions counts the POST /save requests the SPN server got, and
// those it refused as unauthorized.
func (f *captureFixture) submissions() (all, refused int) {
	for _, r := range f.spn.Requests() {
		if r.Method == http.MethodPost {
			all++
			if r.Answer == "unauthorized" {
				refused++
			}
		}
	}
	return all, refused
}

// TestCaptureRequests: after a new generation, one instance asks Save
// Page Now for the site's pages (never more than carry blocks, never
// another host), the archive then holds the generation, and the outcome
// is stored and counted; a second instance (or a restart) does not ask
// again for that generation.
func TestCaptureRequests(t *testing.T) {
	f := newCaptureFixture(t)
	a, logs := f.handler(t, f.good)
	f.serving = a
	mustBuild(t, a, "new")
	g := a.current()
	if g == nil {
		t.Fatal("no generation loaded")
	}
	rec, err := a.auditor.capturer.request(context.Background(), g, true)
	if err != nil || rec.Result != "safe" {
		t.Fatalf("capture requests: %+v, %v; want safe", rec, err)
	}
	sent, _ := f.submissions()
	if sent == 0 || rec.Sent != sent || sent > rec.Carriers {
		t.Fatalf("%d submissions, record %+v: want some, all recorded, no more than the carriers", sent, rec)
	}
	for _, r := range f.spn.Requests() {
		if r.Method == http.MethodPost && !strings.HasPrefix(r.URL, f.site) {
			t.Errorf("asked for %s, not a page of %s", r.URL, f.site)
		}
	}
	// Expected: the archive holds the generation (an audit shows it).
	sum, err := a.auditor.runShared(context.Background())
	if err != nil || sum.RestorePoint != g.id {
		t.Fatalf("audit after the captures: %+v, %v; want generation %s recoverable", sum, err, g.id)
	}
	if got := metricValue(t, a.metrics.captures.WithLabelValues(a.Name, "safe")); got != 1 {
		t.Errorf("capture_requests_total{safe} %v, want 1", got)
	}
	if got := metricValue(t, a.metrics.capturePages.WithLabelValues(a.Name, "success")); int(got) != sent {
		t.Errorf("capture_pages_total{success} %v, want %d", got, sent)
	}
	if n := logs.FilterMessageSnippet("capture requests").Len(); n != 1 {
		t.Errorf("%d capture log lines, want 1: %v", n, logs.All())
	}

	// Expected: another instance on the same storage, or a restart,
	// finds the outcome and asks nothing.
	b, _ := f.handler(t, f.good)
	if r, err := b.auditor.capturer.request(context.Background(), b.current(), true); !errors.Is(err, errAlreadyAsked) || r.Result != "safe" {
		t.Fatalf("second instance: %+v, %v; want the stored outcome", r, err)
	}
	if again, _ := f.submissions(); again != sent {
		t.Fatalf("the second instance sent %d more requests", again-sent)
	}
}

// TestCaptureRefused: a refused key, on the loop a new generation
// wakes: one refused submission, an error logged, the outcome stored and
// counted, and no retry for that generation.
func TestCaptureRefused(t *testing.T) {
	f := newCaptureFixture(t)
	a, logs := f.handler(t, f.bad)
	f.serving = a
	mustBuild(t, a, "new")
	c := a.auditor.capturer
	c.start(context.Background())
	defer c.stop()
	g := a.current() // loads the generation: wakes the capture loop
	deadline := time.Now().Add(20 * time.Second)
	for metricValue(t, a.metrics.captures.WithLabelValues(a.Name, "refused")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no refused run counted; logs %v", logs.All())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if rec, err := c.loadRecord(context.Background(), g.id); err != nil || rec.Result != "refused" {
		t.Fatalf("stored outcome %+v, %v; want refused", rec, err)
	}
	refusedLogs := logs.FilterMessageSnippet("access key was refused").All()
	if len(refusedLogs) != 1 || refusedLogs[0].Level != zap.ErrorLevel {
		t.Errorf("logged %v; want one error saying the key was refused", logs.All())
	}
	if strings.Contains(logsText(logs), "wrongsecret") {
		t.Error("the secret was logged")
	}
	c.wakeUp() // as a config reload or another switch would
	a.auditor.loaded()
	time.Sleep(100 * time.Millisecond)
	if all, refused := f.submissions(); all != 1 || refused != 1 {
		t.Fatalf("%d submissions (%d refused); want one, refused, and no retry", all, refused)
	}
}

func logsText(logs *observer.ObservedLogs) string {
	var b strings.Builder
	for _, e := range logs.All() {
		b.WriteString(e.Message)
		for k, v := range e.ContextMap() {
			b.WriteString(" " + k + "=" + strings.ReplaceAll(strings.TrimSpace(strings.ReplaceAll(toString(v), "\n", " ")), "  ", " "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// TestCaptureCaddyfile: the capture request options turn the audit on,
// and bad values are refused.
func TestCaptureCaddyfile(t *testing.T) {
	tests := []struct {
		name, input string
		want        *CaptureRequests
		wantErr     string // from parsing or Validate
	}{
		{"defaults", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n}", &CaptureRequests{AccessKeyFile: "/ia.keys"}, ""},
		{"all", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_spn http://127.0.0.1:9\n capture_rate 6/min\n capture_margin 0\n}",
			&CaptureRequests{AccessKeyFile: "/ia.keys", SPN: "http://127.0.0.1:9", Rate: "6/min", Margin: capture.NoMargin}, ""},
		{"margin", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_margin 3\n}", &CaptureRequests{AccessKeyFile: "/ia.keys", Margin: 3}, ""},
		{"no key file", "lazarus /b {\n audit_key /k\n capture_rate 6/min\n}", nil, "capture_requests <access-key-file>"},
		{"bad rate", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_rate fast\n}", nil, "bad capture_rate"},
		{"bad margin", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_margin -1\n}", nil, "bad capture_margin"},
		{"wait", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_wait 1h\n}", &CaptureRequests{AccessKeyFile: "/ia.keys", Wait: caddy.Duration(time.Hour)}, ""},
		{"wait over a day", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_wait 25h\n}", nil, "bad capture_wait"},
		{"bad wait", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_wait soon\n}", nil, "bad capture_wait"},
		{"bad spn", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_spn web.archive.org\n}", nil, "must be an https URL"},
		{"spn in clear", "lazarus /b {\n audit_key /k\n capture_requests /ia.keys\n capture_spn http://web.archive.org\n}", nil, "must be an https URL"},
		{"two key files", "lazarus /b {\n audit_key /k\n capture_requests /a /b\n}", nil, "wrong argument count"},
		{"max_overlap without audit", "lazarus /b {\n max_overlap 30d\n}", nil, "needs audit"},
		{"max_overlap below overlap", "lazarus /b {\n audit_key /k\n overlap 30d\n max_overlap 20d\n}", nil, "shorter than overlap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := parseValidated(t, tt.input, tt.wantErr)
			if h == nil {
				return
			}
			if h.Audit == nil || h.Audit.CaptureRequests == nil || *h.Audit.CaptureRequests != *tt.want {
				t.Fatalf("got audit %+v, want capture requests %+v", h.Audit, tt.want)
			}
		})
	}
	h := new(Handler)
	if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("lazarus /b {\n audit_key /k\n max_overlap 60d\n}")); err != nil || h.MaxOverlap != caddy.Duration(60*24*time.Hour) {
		t.Fatalf("max_overlap 60d: %v, %v", h.MaxOverlap, err)
	}
}

// TestCaptureOtherGeneration: when the live site still serves another
// generation (an instance not switched yet), nothing is asked for and
// nothing recorded, so a later run asks; the last try records the run as
// failed, saying why.
func TestCaptureOtherGeneration(t *testing.T) {
	f := newCaptureFixture(t)
	a, _ := f.handler(t, f.good)
	mustBuild(t, a, "new")
	old, _ := f.handler(t, f.good)
	old.ReloadInterval = caddy.Duration(time.Hour) // it keeps the first generation
	f.serving = old
	if old.current() == nil {
		t.Fatal("no generation loaded")
	}
	writeFile(t, filepath.Join(f.bf.src, "db.sql"), []byte("CREATE TABLE t (x);\nINSERT INTO t VALUES (1);\n"))
	a.builder.every = time.Nanosecond // build again at once
	mustBuild(t, a, "new")
	g := a.current()
	if g == nil || g.id == old.gen.Load().id {
		t.Fatal("no second generation")
	}
	c := a.auditor.capturer
	if r, err := c.request(context.Background(), g, false); !errors.Is(err, errOtherGeneration) || r != nil {
		t.Fatalf("first try: %+v, %v; want errOtherGeneration and no record", r, err)
	}
	if _, err := c.loadRecord(context.Background(), g.id); err == nil {
		t.Fatal("recorded although nothing was asked for")
	}
	r, err := c.request(context.Background(), g, true)
	if !errors.Is(err, errOtherGeneration) || r == nil || r.Result != "failed" || !strings.Contains(r.Error, "another generation") {
		t.Fatalf("last try: %+v, %v; want recorded as failed", r, err)
	}
	if all, _ := f.submissions(); all != 0 {
		t.Fatalf("%d requests for another generation's pages", all)
	}
}

// FuzzCaptureRecord: whatever shared storage holds as a generation's
// capture outcome, parseCaptureRecord returns a sane record of that
// generation or an error, never panics.
func FuzzCaptureRecord(f *testing.F) {
	f.Add([]byte(`{"generation":"` + testGen + `","time":"2026-11-25T00:00:00Z","result":"safe","carriers":6,"planned":3,"sent":3}`))
	f.Add([]byte(`{"generation":"` + testGen + `","result":"refused","error":"spn: POST /save: HTTP 401"}`))
	f.Add([]byte(`{"generation":"other","result":"safe"}`))
	f.Add([]byte(`{"generation":"` + testGen + `","result":"safe","sent":5,"planned":1}`))
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := parseCaptureRecord(v, testGen)
		if err != nil {
			return
		}
		if r.Generation != testGen || !slices.Contains(captureResults, r.Result) || r.Sent < 0 || r.Sent > r.Planned || r.Planned > r.Carriers {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// TestCaptureStop: stopping the handler (a config reload) while jobs are
// pending cancels the run at once and records nothing, so the next
// start asks again.
func TestCaptureStop(t *testing.T) {
	f := newCaptureFixtureWith(t, archivetest.SPNConfig{PendingPolls: 1 << 30}) // jobs never finish
	a, _ := f.handler(t, f.good)
	f.serving = a
	mustBuild(t, a, "new")
	c := a.auditor.capturer
	c.start(context.Background())
	g := a.current()
	deadline := time.Now().Add(20 * time.Second)
	for n, _ := f.submissions(); n == 0; n, _ = f.submissions() {
		if time.Now().After(deadline) {
			c.stop()
			t.Fatal("no submission")
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	c.stop()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stop took %s", d)
	}
	if _, err := c.loadRecord(context.Background(), g.id); err == nil {
		t.Error("a cancelled run was recorded")
	}
	for _, result := range captureResults {
		if n := metricValue(t, a.metrics.captures.WithLabelValues(a.Name, result)); n != 0 {
			t.Errorf("a cancelled run counted as %s", result)
		}
	}
}
