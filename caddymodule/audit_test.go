package caddymodule

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/status"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/keys"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestAuditFromHistory: the scheduled audit lists a local Wayback-style
// archive holding captures of the pages the module served; every
// capture's digest is in the module's serve history, so nothing is
// fetched but one spot check, and the metrics say the generation is recoverable with every
// block archived. A second audit within the period reuses the stored
// result; an archive missing most pages shows blocks short.
func TestAuditFromHistory(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the audit's capture cache
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	h := newHandlerOn(t, f.bundle, st)
	now := genTime.Add(10 * 24 * time.Hour)
	h.now = func() time.Time { return now }
	caps := serveCaptures(t, h, "/", "/a", "/b", "/c")

	full := auditAgainst(t, h, f.opts.ServerKey, caps)
	if full.sum.RestorePoint != h.gen.Load().id || full.sum.Needed == 0 || full.sum.Archived != full.sum.Needed {
		t.Fatalf("summary %+v; want generation %s restorable with every block archived", full.sum, h.gen.Load().id)
	}
	// Known captures are not fetched, beyond recover.DefaultSpotChecks per
	// source per generation the verdict rests on (here one generation).
	fetched := 0
	for _, r := range full.requests {
		if strings.Contains(r.URI, "id_/") {
			fetched++
		}
	}
	if fetched > status.DefaultSpotChecks {
		t.Errorf("%d captures known from the history were fetched, want at most %d spot checks", fetched, status.DefaultSpotChecks)
	}
	if got, want := metricValue(t, h.metrics.auditAge.WithLabelValues(h.Name)), now.Sub(genTime).Seconds(); got != want {
		t.Errorf("age gauge %v, want %v", got, want)
	}
	if got := metricValue(t, h.metrics.auditBlocks.WithLabelValues(h.Name, "archived")); got != float64(full.sum.Needed) {
		t.Errorf("archived gauge %v, want %d", got, full.sum.Needed)
	}
	if got := metricValue(t, h.metrics.auditProb.WithLabelValues(h.Name, status.ModelViewName)); got != full.sum.Probability[status.ModelViewName] || got <= 0 {
		t.Errorf("probability gauge %v, summary %v", got, full.sum.Probability)
	}
	again, err := full.a.runShared(context.Background())
	if err != nil || !again.Time.Equal(full.sum.Time) {
		t.Fatalf("second audit in the period: %+v, %v; want the stored result", again, err)
	}

	// Expected: only the root page archived: the generation is short.
	short := auditAgainst(t, newHandlerOn(t, f.bundle, st), f.opts.ServerKey, caps[:1])
	if short.sum.RestorePoint != "" || short.sum.Archived >= short.sum.Needed || short.sum.Archived == 0 {
		t.Fatalf("summary %+v; want blocks short and no restore point", short.sum)
	}
	if got := metricValue(t, short.a.h.metrics.auditAge.WithLabelValues(h.Name)); got != -1 {
		t.Errorf("age gauge %v with nothing recoverable, want -1", got)
	}
}

type audited struct {
	a        *auditor
	sum      *auditSummary
	requests []archivetest.Request
}

// serveCaptures serves the pages at paths, waits until their versions
// are in the serve history, and returns them as an archive captured them
// a day after genTime.
func serveCaptures(t *testing.T, h *Handler, paths ...string) []archivetest.Capture {
	t.Helper()
	var caps []archivetest.Capture
	for _, p := range paths {
		w := serve(t, h, &page{body: "<html><body><p>" + p + "</p></body></html>"}, "GET", p, nil)
		caps = append(caps, archivetest.Capture{URL: "https://example.org" + p, Time: genTime.Add(24 * time.Hour), Body: w.Body.Bytes()})
	}
	h.history.wait()
	return caps
}

// auditAgainst runs h's audit once against a local archive of caps, with
// serverKey, its stored summary cleared first.
func auditAgainst(t *testing.T, h *Handler, serverKey []byte, caps []archivetest.Capture) audited {
	t.Helper()
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key := writeKey(t, serverKey)
	if h.gen.Load() == nil { // the site URL comes from the generation
		serve(t, h, &page{body: html}, "GET", "/", nil)
	}
	h.Audit = &Audit{Sources: []string{"cdx=" + srv.URL}, Key: key}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	a := newAuditor(h)
	a.client = srv.Client()
	h.storage.Delete(context.Background(), a.lastKey())
	sum, err := a.runShared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	a.export(sum)
	return audited{a, sum, srv.Requests()}
}

// TestAuditCaddyfile: the audit options and their checks.
func TestAuditCaddyfile(t *testing.T) {
	tests := []struct {
		name, input string
		want        *Audit
		wantErr     string // from parsing or Validate
	}{
		{"defaults", "lazarus /b {\n audit\n audit_key /k\n}", &Audit{Key: "/k"}, ""},
		{"every and sources", "lazarus /b {\n audit every 48h\n audit_source wayback cdx=http://127.0.0.1:1\n audit_source dir=/m\n audit_passphrase_file /p\n audit_contact me@example.org\n}",
			&Audit{Every: caddy.Duration(48 * time.Hour), Sources: []string{"wayback", "cdx=http://127.0.0.1:1", "dir=/m"}, PassphraseFile: "/p", Contact: "me@example.org"}, ""},
		{"too often", "lazarus /b {\n audit every 10m\n audit_key /k\n}", nil, "at least 1h0m0s"},
		{"bad every", "lazarus /b {\n audit each 24h\n}", nil, "audit every <duration>"},
		{"unknown source", "lazarus /b {\n audit\n audit_source ftp=x\n audit_key /k\n}", nil, `unknown kind "ftp"`},
		{"source without value", "lazarus /b {\n audit\n audit_source cdx=\n audit_key /k\n}", nil, "needs a value"},
		{"bundle without key", "lazarus /b {\n audit every 24h\n}", nil, "audit_key"},
		{"bad site URL", "lazarus /b {\n audit\n audit_key /k\n audit_site_url example.org\n}", nil, "absolute http(s) URL"},
		{"two keys", "lazarus /b {\n audit\n audit_key /k\n audit_passphrase_file /p\n}", nil, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := parseValidated(t, tt.input, tt.wantErr)
			if h == nil {
				return
			}
			if got := *h.Audit; !equalAudit(got, *tt.want) || h.Build != nil {
				t.Fatalf("got %+v (build %v), want %+v", got, h.Build, *tt.want)
			}
		})
	}
}

func equalAudit(a, b Audit) bool {
	return a.Every == b.Every && strings.Join(a.Sources, " ") == strings.Join(b.Sources, " ") && a.Key == b.Key &&
		a.PassphraseFile == b.PassphraseFile && a.SiteURL == b.SiteURL && a.Contact == b.Contact
}

// FuzzAuditSummary: whatever shared storage holds as the last audit's
// summary, parseSummary returns a sane summary or an error, never panics.
func FuzzAuditSummary(f *testing.F) {
	f.Add([]byte(`{"time":"2026-11-25T00:00:00Z","newest":"x","restore_point":"x","restore_time":"2026-11-20T00:00:00Z","probability":{"sweep":0.9},"archived":3,"needed":4}`))
	f.Add([]byte(`{"time":"2026-11-25T00:00:00Z","archived":5,"needed":4}`))
	f.Add([]byte(`{"time":"2026-11-25T00:00:00Z","probability":{"sweep":2}}`))
	f.Add([]byte(`{"time":"9999-01-01T00:00:00Z","restore_point":"00112233445566778899aabbccddeeff","restore_time":"9999-01-01T00:00:00Z","archived":1,"needed":1}`))
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v []byte) {
		s, err := parseSummary(v, now)
		if err != nil {
			return
		}
		if s.Time.IsZero() || s.Time.After(now.Add(maxSummarySkew)) || s.RestoreTime.After(s.Time) ||
			s.Archived < 0 || s.Archived > s.Needed || s.Needed > maxSummaryBlocks || !summaryID(s.Newest) || !summaryID(s.RestorePoint) || len(s.Config) > 128 {
			t.Fatalf("accepted %+v", s)
		}
		for _, p := range s.Probability {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("accepted probability %v", p)
			}
		}
	})
}

// TestAuditScheduleResumes: a started audit shows the stored result of
// the last audit (by any instance, of the same configuration) at once,
// and runs no audit before a period has passed since it; stop ends it.
// A stored result of another configuration (sources, key, site URL) is
// as good as none: fixing the configuration audits anew.
func TestAuditScheduleResumes(t *testing.T) {
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, newMemStorage())
	now := genTime.Add(48 * time.Hour)
	h.now = func() time.Time { return now }
	h.Audit = &Audit{Key: writeKey(t, f.opts.ServerKey), SiteURL: "https://example.org/", Sources: []string{"dir=" + t.TempDir()}}
	a := newAuditor(h)
	_, fp, err := a.options()
	if err != nil {
		t.Fatal(err)
	}
	stored := `{"time":"` + now.Add(-time.Hour).Format(time.RFC3339) + `","config":"` + fp + `","newest":"` + testGen + `","restore_point":"` + testGen + `","restore_time":"` +
		genTime.Format(time.RFC3339) + `","probability":{"independent":0.99,"sweep":0.9},"archived":7,"needed":8}`
	if err := h.storage.Store(context.Background(), a.lastKey(), []byte(stored)); err != nil {
		t.Fatal(err)
	}
	a.start(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for metricValue(t, h.metrics.auditBlocks.WithLabelValues(h.Name, "needed")) != 8 {
		if time.Now().After(deadline) {
			t.Fatal("the stored result was not exported")
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.stop()
	if got := metricValue(t, h.metrics.auditAge.WithLabelValues(h.Name)); got != (48 * time.Hour).Seconds() {
		t.Errorf("age %v, want 48h (now − the restore point's time)", got)
	}
	if got := metricValue(t, h.metrics.auditProb.WithLabelValues(h.Name, "independent")); got != 0.99 {
		t.Errorf("probability %v, want 0.99", got)
	}
	if metricValue(t, h.metrics.audits.WithLabelValues(h.Name, "failed")) != 0 {
		t.Error("an audit ran (and failed on the empty dir source) within the period")
	}

	// Another configuration: the stored result is not this audit's.
	for name, cfg := range map[string]Audit{
		"sources":  {Key: h.Audit.Key, SiteURL: h.Audit.SiteURL, Sources: []string{"dir=" + t.TempDir()}},
		"site URL": {Key: h.Audit.Key, SiteURL: "https://example.net/", Sources: h.Audit.Sources},
		"key":      {Key: writeKey(t, otherServerKey(t)), SiteURL: h.Audit.SiteURL, Sources: h.Audit.Sources},
	} {
		h.Audit = &cfg
		b := newAuditor(h)
		_, fp2, err := b.options()
		if err != nil {
			t.Fatal(err)
		}
		if fp2 == fp {
			t.Errorf("%s changed, the fingerprint did not", name)
		}
		if s, err := b.loadLast(context.Background(), fp2); !errors.Is(err, errOtherConfig) {
			t.Errorf("%s changed: stored result %+v, %v; want errOtherConfig", name, s, err)
		}
	}
}

// writeKey writes a server.key and returns its path.
func writeKey(t *testing.T, serverKey []byte) string {
	t.Helper()
	key := filepath.Join(t.TempDir(), "server.key")
	if err := os.WriteFile(key, serverKey, 0o600); err != nil {
		t.Fatal(err)
	}
	return key
}

// otherServerKey is a server.key of another site.
func otherServerKey(t *testing.T) []byte {
	t.Helper()
	_, srv, err := keys.Generate(false)
	if err != nil {
		t.Fatal(err)
	}
	return srv.Marshal()
}

// TestAuditFailedCause: an audit whose sources all fail (a typo in a
// warc path) or whose key is not the site's says nothing of the backup:
// it counts as failed, not done, is logged at error level with its
// cause, stores nothing, and leaves the gauges at the last successful
// audit's values.
func TestAuditFailedCause(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the audit's capture cache
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, newMemStorage())
	now := genTime.Add(10 * 24 * time.Hour)
	h.now = func() time.Time { return now }
	serve(t, h, &page{body: html}, "GET", "/", nil)
	core, logs := observer.New(zap.InfoLevel)
	h.logger = zap.New(core)
	h.Audit = &Audit{Key: writeKey(t, f.opts.ServerKey), Sources: []string{"warc=" + filepath.Join(t.TempDir(), "typo.warc.gz")}}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	a := newAuditor(h)
	a.firstDelay = 0
	_, fp, err := a.options()
	if err != nil {
		t.Fatal(err)
	}
	// The last successful audit, a period ago: the next one is due.
	stored := `{"time":"` + now.Add(-25*time.Hour).Format(time.RFC3339) + `","config":"` + fp + `","newest":"` + testGen + `","restore_point":"` + testGen + `","restore_time":"` +
		genTime.Format(time.RFC3339) + `","probability":{"sweep":0.9},"archived":7,"needed":8}`
	if err := h.storage.Store(context.Background(), a.lastKey(), []byte(stored)); err != nil {
		t.Fatal(err)
	}
	a.start(context.Background())
	deadline := time.Now().Add(20 * time.Second)
	for metricValue(t, h.metrics.audits.WithLabelValues(h.Name, "failed")) == 0 {
		if time.Now().After(deadline) {
			a.stop()
			t.Fatalf("no failed audit counted; done %v", metricValue(t, h.metrics.audits.WithLabelValues(h.Name, "done")))
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.stop()
	if done := metricValue(t, h.metrics.audits.WithLabelValues(h.Name, "done")); done != 0 {
		t.Errorf("audits done %v, want 0: the audit could not read the archives", done)
	}
	if got := metricValue(t, h.metrics.auditBlocks.WithLabelValues(h.Name, "archived")); got != 7 {
		t.Errorf("archived gauge %v, want the last successful audit's 7", got)
	}
	if got := metricValue(t, h.metrics.auditAge.WithLabelValues(h.Name)); got != now.Sub(genTime).Seconds() {
		t.Errorf("age gauge %v, want the last successful audit's restore point's age", got)
	}
	if got := metricValue(t, h.metrics.auditProb.WithLabelValues(h.Name, "sweep")); got != 0.9 {
		t.Errorf("probability gauge %v, want the last successful audit's 0.9", got)
	}
	if v, err := h.storage.Load(context.Background(), a.lastKey()); err != nil || string(v) != stored {
		t.Errorf("stored summary %s, %v; want the last successful audit's, untouched", v, err)
	}
	failed := logs.FilterMessageSnippet("audit failed").FilterField(zap.String("cause", status.CauseSourcesFailed)).All()
	if len(failed) != 1 || failed[0].Level != zap.ErrorLevel {
		t.Errorf("logged %v; want one error naming the cause %s", logs.All(), status.CauseSourcesFailed)
	}
}

// TestAuditWrongKey: archives holding the site's pages, audited with
// another site's key: a failure with cause wrong_key, not "nothing
// archived".
func TestAuditWrongKey(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, newMemStorage())
	now := genTime.Add(10 * 24 * time.Hour)
	h.now = func() time.Time { return now }
	caps := serveCaptures(t, h, "/", "/a")
	srv, err := archivetest.New(caps, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	h.Audit = &Audit{Sources: []string{"cdx=" + srv.URL}, Key: writeKey(t, otherServerKey(t))}
	a := newAuditor(h)
	a.client = srv.Client()
	sum, err := a.runShared(context.Background())
	var f2 *auditFailure
	if !errors.As(err, &f2) || f2.cause.Kind != status.CauseWrongKey {
		t.Fatalf("audit %+v, %v; want a failure with cause %s", sum, err, status.CauseWrongKey)
	}
	if _, err := h.storage.Load(context.Background(), a.lastKey()); err == nil {
		t.Error("the failed audit's result was stored")
	}
}

// TestAuditConfigReload: after a successful audit, the same
// configuration reuses the stored result within the period, but a
// changed one (a source fixed) audits at once.
func TestAuditConfigReload(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, newMemStorage())
	now := genTime.Add(10 * 24 * time.Hour)
	h.now = func() time.Time { return now }
	caps := serveCaptures(t, h, "/", "/a", "/b", "/c")
	first := auditAgainst(t, h, f.opts.ServerKey, caps)
	now = now.Add(time.Hour)
	same := newAuditor(h) // a reload with the same configuration
	same.client = first.a.client
	if again, err := same.runShared(context.Background()); err != nil || !again.Time.Equal(first.sum.Time) {
		t.Fatalf("same configuration: %+v, %v; want the stored result", again, err)
	}
	cfg := *h.Audit
	cfg.Sources = append(slices.Clone(cfg.Sources), "dir="+t.TempDir())
	h.Audit = &cfg
	fixed := newAuditor(h)
	fixed.client = first.a.client
	sum, err := fixed.runShared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Time.Equal(now) || sum.Config == first.sum.Config {
		t.Fatalf("changed configuration: %+v; want a new audit at %s", sum, now)
	}
}

// testGen is a generation id for stored summaries.
const testGen = "00112233445566778899aabbccddeeff"

// TestAuditSummaryInsane: a stored summary that cannot be an audit's (a
// time in the future, a restore point after the audit, a generation that
// is no id, counts out of range) is as good as none: a planted one in
// shared storage neither stops the audit nor shows a fresh age.
func TestAuditSummaryInsane(t *testing.T) {
	now := genTime.Add(48 * time.Hour)
	at := func(d time.Duration) string { return now.Add(d).UTC().Format(time.RFC3339) }
	sane := `{"time":"` + at(-time.Hour) + `","newest":"` + testGen + `","restore_point":"` + testGen + `","restore_time":"` + at(-2*time.Hour) + `","archived":1,"needed":1}`
	if _, err := parseSummary([]byte(sane), now); err != nil {
		t.Fatalf("sane summary refused: %v", err)
	}
	if _, err := parseSummary([]byte(strings.Replace(sane, at(-time.Hour), at(time.Minute), 1)), now); err != nil {
		t.Fatalf("summary a minute ahead (clock skew) refused: %v", err)
	}
	for name, v := range map[string]string{
		"far future":            `{"time":"9999-01-01T00:00:00Z","restore_point":"` + testGen + `","restore_time":"9999-01-01T00:00:00Z","archived":1,"needed":1}`,
		"past the skew":         strings.Replace(sane, at(-time.Hour), at(maxSummarySkew+time.Minute), 1),
		"restore after audit":   strings.Replace(sane, at(-2*time.Hour), at(-time.Minute), 1),
		"restore point no time": `{"time":"` + at(-time.Hour) + `","restore_point":"` + testGen + `","archived":1,"needed":1}`,
		"restore point not id":  strings.Replace(sane, `"restore_point":"`+testGen, `"restore_point":"x`, 1),
		"newest not id":         strings.Replace(sane, `"newest":"`+testGen, `"newest":"../x`, 1),
		"absurd count":          strings.Replace(sane, `"archived":1,"needed":1`, `"archived":1,"needed":9999999999`, 1),
		"negative count":        strings.Replace(sane, `"archived":1`, `"archived":-1`, 1),
	} {
		if s, err := parseSummary([]byte(v), now); err == nil {
			t.Errorf("%s: accepted %+v", name, s)
		}
	}

	// Planted in shared storage: the audit runs (and fails here on its
	// missing key) instead of returning it, and the age gauge is not 0.
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, newMemStorage())
	h.now = func() time.Time { return now }
	h.Audit = &Audit{Key: "/nonexistent"}
	a := newAuditor(h)
	planted := `{"time":"9999-01-01T00:00:00Z","restore_point":"x","restore_time":"9999-01-01T00:00:00Z","archived":1,"needed":1}`
	if err := h.storage.Store(context.Background(), a.lastKey(), []byte(planted)); err != nil {
		t.Fatal(err)
	}
	if sum, err := a.runShared(context.Background()); err == nil {
		t.Fatalf("planted summary returned as the audit's result: %+v", sum)
	}
	h.metrics.auditAge.WithLabelValues(h.Name).Set(-7) // nothing exported keeps it
	a.start(context.Background())
	time.Sleep(50 * time.Millisecond)
	a.stop()
	if got := metricValue(t, h.metrics.auditAge.WithLabelValues(h.Name)); got != -7 {
		t.Errorf("age gauge %v exported from a planted summary", got)
	}
}

// TestAuditNewGeneration: a new generation the module serves but whose
// manifest no recorded page version brought into the serve history (the
// history full, or no page served since the switch) is still the newest
// the audit judges: the archives hold only the older one, so the newest
// generation is short of blocks and not the restore point.
func TestAuditNewGeneration(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the audit's capture cache
	f := newFixture(t)
	st := &certmagic.FileStorage{Path: t.TempDir()}
	h := newHandlerOn(t, f.bundle, st)
	now := genTime.Add(2 * 24 * time.Hour)
	h.now = func() time.Time { return now }
	caps := serveCaptures(t, h, "/", "/a", "/b", "/c")
	oldID := h.gen.Load().id

	writeFile(t, filepath.Join(f.src, "app/new.txt"), []byte("new file\n"))
	newTime := genTime.Add(3 * 24 * time.Hour)
	f.opts.Now = func() time.Time { return newTime }
	f.inject(t)
	now = genTime.Add(10 * 24 * time.Hour) // no page served since: the history has no manifest of it

	got := auditAgainst(t, h, f.opts.ServerKey, caps)
	newID := h.gen.Load().id
	if newID == oldID {
		t.Fatal("the new generation was not loaded")
	}
	if got.sum.Newest != newID || got.sum.RestorePoint == newID || got.sum.Archived >= got.sum.Needed {
		t.Fatalf("summary %+v; want generation %s newest, short of blocks, not the restore point (the archives hold %s only)", got.sum, newID, oldID)
	}
}
