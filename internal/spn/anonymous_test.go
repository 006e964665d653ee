package spn_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// anonClient is a fast client of the world's SPN server without keys.
func (w *world) anonClient(t *testing.T, rate spn.Limit) *spn.Client {
	t.Helper()
	c, err := spn.New(spn.Options{Base: w.spn.URL, Rate: rate, PollStart: 2 * time.Millisecond, PollMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !c.Anonymous() || c.Keyed() {
		t.Fatal("a client without credentials is not anonymous")
	}
	return c
}

// TestAnonymousDefaults: without keys the client keeps to the 4 captures
// a minute the SPN2 changelog allows anonymous users, one at a time.
func TestAnonymousDefaults(t *testing.T) {
	c, err := spn.New(spn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Rate() != (spn.Limit{N: 4, Per: time.Minute}) || c.Archive() != "wayback" {
		t.Fatalf("rate %v, archive %s", c.Rate(), c.Archive())
	}
	if _, err := spn.New(spn.Options{Credentials: spn.Credentials{Access: "AKEY"}}); !errors.Is(err, spn.ErrBadKeys) {
		t.Fatalf("half a key pair: %v", err)
	}
}

// TestAnonymousCaptures: without keys every page is one GET /save/{url}
// sent without an Authorization header, the capture read from the
// answer's Content-Location, never more than the rate in any window.
func TestAnonymousCaptures(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousCapture})
	urls := w.urls(6)
	limit := spn.Limit{N: 2, Per: 400 * time.Millisecond}
	got, err := saveAll(t, w.anonClient(t, limit), urls)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range urls {
		if r := got[u]; r.State != spn.StateSuccess || r.OriginalURL != u || r.Time.IsZero() {
			t.Errorf("%s: %+v", u, r)
		}
	}
	subs := w.spn.Submissions()
	if len(subs) != len(urls) || archivetest.MaxInWindow(subs, limit.Per) > limit.N {
		t.Fatalf("%d submissions, %d within %v (limit %d)", len(subs), archivetest.MaxInWindow(subs, limit.Per), limit.Per, limit.N)
	}
	for _, r := range w.spn.Requests() {
		if r.Status == http.StatusUnauthorized || !strings.HasPrefix(r.URI, "/save/http") {
			t.Errorf("request %+v", r)
		}
	}
}

// TestAnonymousJobAndAccepted: an answer page watching a job is polled
// (without keys) to its outcome; an answer naming nothing is "accepted",
// for the listing to confirm.
func TestAnonymousJobAndAccepted(t *testing.T) {
	w := newWorld(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousJob})
	u := w.urls(1)[0]
	got, err := saveAll(t, w.anonClient(t, spn.Limit{N: 100, Per: time.Second}), []string{u})
	if r := got[u]; err != nil || r.State != spn.StateSuccess || !strings.HasPrefix(r.JobID, "spn2-") {
		t.Fatalf("job: %v %+v", err, r)
	}
	a := newWorld(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousAccepted})
	u = a.urls(1)[0]
	got, err = saveAll(t, a.anonClient(t, spn.Limit{N: 100, Per: time.Second}), []string{u})
	if r := got[u]; err != nil || r.State != spn.StateAccepted || !r.Taken() {
		t.Fatalf("accepted: %v %+v", err, r)
	}
}

// TestAnonymousRefused: the archive's "You need to be logged in" (401)
// ends the run at once with ErrKeysRequired: one request, the rest not
// sent. 429s without end (no Retry-After) end it after three answers;
// the daily limit for requests without keys is ErrDailyLimit.
func TestAnonymousRefused(t *testing.T) {
	for mode, want := range map[string]int{archivetest.AnonymousRefused: 1, archivetest.AnonymousThrottled: 3} {
		w := newWorld(t, archivetest.SPNConfig{Anonymous: mode})
		urls := w.urls(3)
		got, err := saveAll(t, w.anonClient(t, spn.Limit{N: 100, Per: time.Second}), urls)
		if !errors.Is(err, spn.ErrKeysRequired) || !spn.Fatal(err) {
			t.Fatalf("%q: err %v, want ErrKeysRequired", mode, err)
		}
		if n := len(w.spn.Requests()); n != want || got[urls[2]].State != spn.StateNotSent {
			t.Fatalf("%q: %d requests (want %d), results %v", mode, n, want, got)
		}
	}
	d := newWorld(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousCapture, Daily: 1})
	got, err := saveAll(t, d.anonClient(t, spn.Limit{N: 100, Per: time.Second}), d.urls(3))
	if !errors.Is(err, spn.ErrDailyLimit) || got[d.urls(3)[0]].State != spn.StateSuccess {
		t.Fatalf("daily: %v %v", err, got)
	}
}
