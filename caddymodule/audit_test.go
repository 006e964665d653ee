package caddymodule

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	lzrecover "github.com/lazarus-preserve/lazarus/recover"
	dto "github.com/prometheus/client_model/go"
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
	var caps []archivetest.Capture
	for _, p := range []string{"/", "/a", "/b", "/c"} {
		w := serve(t, h, &page{body: "<html><body><p>" + p + "</p></body></html>"}, "GET", p, nil)
		caps = append(caps, archivetest.Capture{URL: "https://example.org" + p, Time: genTime.Add(24 * time.Hour), Body: w.Body.Bytes()})
	}
	h.history.wait()

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
	if fetched > lzrecover.DefaultSpotChecks {
		t.Errorf("%d captures known from the history were fetched, want at most %d spot checks", fetched, lzrecover.DefaultSpotChecks)
	}
	if got, want := gauge(t, h.metrics.auditAge.WithLabelValues(h.Name)), now.Sub(genTime).Seconds(); got != want {
		t.Errorf("age gauge %v, want %v", got, want)
	}
	if got := gauge(t, h.metrics.auditBlocks.WithLabelValues(h.Name, "archived")); got != float64(full.sum.Needed) {
		t.Errorf("archived gauge %v, want %d", got, full.sum.Needed)
	}
	if got := gauge(t, h.metrics.auditProb.WithLabelValues(h.Name, "sweep")); got != full.sum.Probability["sweep"] || got <= 0 {
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
	if got := gauge(t, short.a.h.metrics.auditAge.WithLabelValues(h.Name)); got != -1 {
		t.Errorf("age gauge %v with nothing recoverable, want -1", got)
	}
}

type audited struct {
	a        *auditor
	sum      *auditSummary
	requests []archivetest.Request
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
	key := filepath.Join(t.TempDir(), "server.key")
	if err := os.WriteFile(key, serverKey, 0o600); err != nil {
		t.Fatal(err)
	}
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

func gauge(t *testing.T, g interface{ Write(*dto.Metric) error }) float64 {
	t.Helper()
	var m dto.Metric
	if err := g.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetGauge().GetValue()
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
		{"two keys", "lazarus /b {\n audit\n audit_key /k\n audit_passphrase_file /p\n}", nil, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := new(Handler)
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tt.input))
			if err == nil {
				h.Name = "n"
				err = h.Validate()
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
	f.Fuzz(func(t *testing.T, v []byte) {
		s, err := parseSummary(v)
		if err != nil {
			return
		}
		if s.Time.IsZero() || s.Archived < 0 || s.Archived > s.Needed {
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
// the last audit (by any instance) at once, and runs no audit before a
// period has passed since it; stop ends it.
func TestAuditScheduleResumes(t *testing.T) {
	f := newFixture(t)
	h := newHandlerOn(t, f.bundle, newMemStorage())
	now := genTime.Add(48 * time.Hour)
	h.now = func() time.Time { return now }
	h.Audit = &Audit{Key: "/nonexistent"}
	a := newAuditor(h)
	stored := `{"time":"` + now.Add(-time.Hour).Format(time.RFC3339) + `","newest":"g","restore_point":"g","restore_time":"` +
		genTime.Format(time.RFC3339) + `","probability":{"independent":0.99,"sweep":0.9},"archived":7,"needed":8}`
	if err := h.storage.Store(context.Background(), a.lastKey(), []byte(stored)); err != nil {
		t.Fatal(err)
	}
	a.start(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for gauge(t, h.metrics.auditBlocks.WithLabelValues(h.Name, "needed")) != 8 {
		if time.Now().After(deadline) {
			t.Fatal("the stored result was not exported")
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.stop()
	if got := gauge(t, h.metrics.auditAge.WithLabelValues(h.Name)); got != (48 * time.Hour).Seconds() {
		t.Errorf("age %v, want 48h (now − the restore point's time)", got)
	}
	if got := gauge(t, h.metrics.auditProb.WithLabelValues(h.Name, "independent")); got != 0.99 {
		t.Errorf("probability %v, want 0.99", got)
	}
	var m dto.Metric
	h.metrics.audits.WithLabelValues(h.Name, "failed").Write(&m)
	if m.GetCounter().GetValue() != 0 {
		t.Error("an audit ran (and failed on its missing key) within the period")
	}
}
