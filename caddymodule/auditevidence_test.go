package caddymodule

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
)

// rideFixture is a bundle with two generations (the second made a day
// after the first), a local archive the audit reads, and handlers on one
// storage whose clock is *now.
type rideFixture struct {
	f              *fixture
	st             certmagic.Storage
	arch           *archivetest.Server
	key            string
	now            *time.Time
	oldID, newTime string
	newAt          time.Time
}

var ridePaths = []string{"/", "/a", "/b", "/c"}

// rideOverlap is the overlap of the ride tests: short, as the archive
// client refuses captures dated more than a day after the real clock.
const rideOverlap = 2 * time.Hour

func newRideFixture(t *testing.T) *rideFixture {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir()) // the audit's capture cache
	arch, err := archivetest.New(nil, archivetest.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(arch.Close)
	now := genTime.Add(time.Minute)
	r := &rideFixture{f: newFixture(t), st: &certmagic.FileStorage{Path: t.TempDir()}, arch: arch, now: &now}
	r.key = writeKey(t, r.f.opts.ServerKey)
	first := r.handler(t)
	r.archive(t, first, genTime.Add(2*time.Hour)) // the archives hold the first generation
	r.oldID = first.gen.Load().id
	writeFile(t, filepath.Join(r.f.src, "app/new.txt"), []byte("new file\n"))
	r.newAt = genTime.Add(24 * time.Hour)
	r.f.opts.Now = func() time.Time { return r.newAt }
	r.f.inject(t)
	return r
}

// handler is an instance with the audit on, reading r's archive.
func (r *rideFixture) handler(t *testing.T) *Handler {
	t.Helper()
	h := newHandlerOn(t, r.f.bundle, r.st)
	h.now = func() time.Time { return *r.now }
	h.Overlap = caddy.Duration(rideOverlap)
	h.Audit = &Audit{Sources: []string{"cdx=" + r.arch.URL}, Key: r.key}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	h.auditor = newAuditor(h)
	h.auditor.client = r.arch.Client()
	return h
}

// archive serves the pages on h and adds them to the archive as captured
// at at.
func (r *rideFixture) archive(t *testing.T, h *Handler, at time.Time) {
	t.Helper()
	for _, c := range serveCaptures(t, h, ridePaths...) {
		c.Time = at
		if err := r.arch.AddCapture(c); err != nil {
			t.Fatal(err)
		}
	}
}

// pages serves every page on h.
func pages(t *testing.T, h *Handler) map[string]*http.Response {
	t.Helper()
	out := map[string]*http.Response{}
	for _, p := range ridePaths {
		w := serve(t, h, staticPage(), "GET", p, nil)
		res := w.Result()
		res.Header.Set("X-Body", w.Body.String())
		out[p] = res
	}
	return out
}

// riders counts the pages carrying blocks of generation id.
func riders(t *testing.T, got map[string]*http.Response, id string) int {
	t.Helper()
	n := 0
	for _, res := range got {
		if generations(t, []byte(res.Header.Get("X-Body")))[id] > 0 {
			n++
		}
	}
	return n
}

// TestRideByEvidence: with the audit on, the previous generation rides
// along past overlap while the audit finds the new one not archived;
// once the archive holds the new generation and the audit ran again, it
// stops riding at the audit's time on every instance sharing storage
// (identical bytes and validators, Last-Modified at the audit), an
// instance started later included.
func TestRideByEvidence(t *testing.T) {
	r := newRideFixture(t)
	a, b := r.handler(t), r.handler(t)
	*r.now = r.newAt.Add(time.Minute)
	if got := pages(t, a); riders(t, got, r.oldID) == 0 {
		t.Fatal("no page carries the previous generation after the switch: nothing to test")
	}
	pages(t, b)

	// Expected: past overlap, the audit finds the new generation not
	// archived (the archive holds the old one): the ride goes on.
	*r.now = r.newAt.Add(rideOverlap + time.Hour)
	sum, err := a.auditor.runShared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	newID := a.gen.Load().id
	if sum.Newest != newID || sum.proves(newID) {
		t.Fatalf("audit %+v; want the new generation %s judged and not safe", sum, newID)
	}
	for name, h := range map[string]*Handler{"a": a, "b": b} {
		if got := pages(t, h); riders(t, got, r.oldID) == 0 {
			t.Fatalf("instance %s: the previous generation stopped riding at overlap with no evidence", name)
		}
	}

	// Expected: the archive holds the new generation; the next audit
	// shows it safe and every instance drops the old blocks at its time.
	r.archive(t, a, r.now.Add(-30*time.Minute))
	*r.now = r.now.Add(DefaultAuditEvery + time.Hour)
	sum, err = a.auditor.runShared(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !sum.proves(newID) {
		t.Fatalf("audit %+v; want generation %s safe (restore point, P_independent ≥ %v)", sum, newID, SafeProbability)
	}
	auditAt := sum.Time
	*r.now = r.now.Add(DefaultReloadInterval)
	ga, gb := pages(t, a), pages(t, b)
	c := r.handler(t) // started after the ride ended
	gc := pages(t, c)
	for _, p := range ridePaths {
		ra, rb, rc := ga[p], gb[p], gc[p]
		if generations(t, []byte(ra.Header.Get("X-Body")))[r.oldID] != 0 {
			t.Fatalf("%s still carries the previous generation after the evidence", p)
		}
		if ra.Header.Get("X-Body") != rb.Header.Get("X-Body") || ra.Header.Get("ETag") != rb.Header.Get("ETag") ||
			ra.Header.Get("X-Body") != rc.Header.Get("X-Body") || ra.Header.Get("Last-Modified") != rc.Header.Get("Last-Modified") {
			t.Fatalf("%s: instances serve other bytes or validators after the ride ended", p)
		}
	}
	if lm := ga["/"].Header.Get("Last-Modified"); lm != auditAt.UTC().Format(http.TimeFormat) {
		t.Errorf("Last-Modified %s, want the audit's time %s", lm, auditAt.UTC().Format(http.TimeFormat))
	}

	// Expected: a later audit finding less does not resume the ride.
	a.safe.Store(nil)
	a.storage.Delete(context.Background(), a.auditor.lastKey())
	a.refreshSafe(a.gen.Load())
	if got := pages(t, a); riders(t, got, r.oldID) != 0 || !bytes.Equal([]byte(got["/"].Header.Get("X-Body")), []byte(ga["/"].Header.Get("X-Body"))) {
		t.Fatal("the ride came back once the stored summary changed")
	}
}

// TestRideMaxOverlap: with the audit on and no evidence, the previous
// generation rides past overlap, and stops at max_overlap after the new
// generation's time, which becomes the pages' Last-Modified.
func TestRideMaxOverlap(t *testing.T) {
	r := newRideFixture(t)
	h := r.handler(t)
	h.MaxOverlap = caddy.Duration(30 * 24 * time.Hour)
	*r.now = r.newAt.Add(time.Minute)
	pages(t, h)
	*r.now = r.newAt.Add(29 * 24 * time.Hour)
	if got := pages(t, h); riders(t, got, r.oldID) == 0 {
		t.Fatal("the previous generation stopped riding before max_overlap with no evidence")
	}
	*r.now = r.newAt.Add(30 * 24 * time.Hour)
	got := pages(t, h)
	if riders(t, got, r.oldID) != 0 {
		t.Fatal("the previous generation still rides at max_overlap")
	}
	if lm := got["/"].Header.Get("Last-Modified"); lm != r.now.UTC().Format(http.TimeFormat) {
		t.Errorf("Last-Modified %s, want max_overlap's end %s", lm, r.now.UTC().Format(http.TimeFormat))
	}
	// Expected: max_overlap shorter than overlap is refused.
	h.MaxOverlap = caddy.Duration(time.Hour)
	if err := h.Validate(); err == nil {
		t.Error("max_overlap shorter than overlap accepted")
	}
}

// FuzzSafeTime: whatever shared storage holds as the time a generation
// was first shown safe, parseSafeTime returns a time not in the future
// (but for the clock skew allowed) or an error, never panics.
func FuzzSafeTime(f *testing.F) {
	f.Add([]byte("2026-11-23T14:00:00Z\n"))
	f.Add([]byte("9999-01-01T00:00:00Z"))
	f.Add([]byte("0001-01-01T00:00:00Z"))
	f.Add([]byte("yesterday"))
	now := genTime.Add(48 * time.Hour)
	f.Fuzz(func(t *testing.T, v []byte) {
		at, err := parseSafeTime(v, now)
		if err != nil {
			return
		}
		if at.IsZero() || at.After(now.Add(maxSummarySkew)) || at.Location() != time.UTC {
			t.Fatalf("accepted %v", at)
		}
	})
}
