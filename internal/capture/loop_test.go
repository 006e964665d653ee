package capture_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/archive/archivetest"
	"github.com/lazarus-preserve/lazarus/internal/capture"
	"github.com/lazarus-preserve/lazarus/internal/ondemand"
	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// loopOptions are a fast loop's: audits every 40 ms for up to 20 s, a
// failed page asked again after 60 ms, a taken capture given grace
// before the page is asked for again, and c (with keys unless anonymous)
// as the one requester, at rate.
func (w *captureWorld) loopOptions(t *testing.T, anonymous bool, rate spn.Limit, grace time.Duration) capture.Options {
	t.Helper()
	o := w.options(t, true, "")
	so := spn.Options{Base: w.spn.URL, Rate: rate, PollStart: time.Millisecond, PollMax: 5 * time.Millisecond}
	if !anonymous {
		so.Credentials = spn.Credentials{Access: "AKEY", Secret: "s3cret"}
	}
	c, err := spn.New(so)
	if err != nil {
		t.Fatal(err)
	}
	o.Requesters = []ondemand.Requester{c}
	o.Wait, o.WaitEvery, o.Retry, o.Grace = 20*time.Second, 40*time.Millisecond, 60*time.Millisecond, grace
	return o
}

// submissionsOf counts the capture requests per URL.
func submissionsOf(s *archivetest.SPN) map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		if r.URL != "" {
			out[r.URL]++
		}
	}
	return out
}

// TestLoopRetriesFailedJobs: the first five capture jobs fail on the
// archive's side (error:job-failed), too many for the first round's
// plan to make the generation whole: after Retry the loop asks again
// (failed pages as attempt 2, or other pages carrying what is missing)
// and the run ends with the generation confirmed.
func TestLoopRetriesFailedJobs(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{JobErrors: 5}, nil)
	rep, err := requestCaptures(t, w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, 5*time.Second))
	if err != nil || !rep.Safe || rep.Confirmed.IsZero() {
		t.Fatalf("%v: safe %v after %d rounds, jobs %+v", err, rep.Safe, rep.Rounds, rep.Jobs)
	}
	if rep.Rounds < 2 || len(rep.Jobs) <= len(rep.Plan) || rep.Failed != 5 {
		t.Fatalf("%d rounds, %d requests for a plan of %d, %d failed", rep.Rounds, len(rep.Jobs), len(rep.Plan), rep.Failed)
	}
	if r := rep.Requests[0]; r.Archive != "wayback" || !r.Keyed || r.Sent != len(rep.Jobs) || r.Failed != 5 || r.Taken != r.Sent-5 {
		t.Fatalf("requests %+v", r)
	}
	for u, n := range submissionsOf(w.spn) {
		if n > capture.DefaultAttempts {
			t.Errorf("%s asked for %d times", u, n)
		}
	}
}

// TestLoopAsksAgainForUnlistedCaptures: the archive says it captured the
// first three pages, but its listing never shows them. Once Grace has
// passed the loop asks again (or for other pages carrying what is
// missing) until the listing shows enough.
func TestLoopAsksAgainForUnlistedCaptures(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{Unindexed: 3}, nil)
	rep, err := requestCaptures(t, w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, 150*time.Millisecond))
	if err != nil || !rep.Safe {
		t.Fatalf("%v: safe %v after %d rounds", err, rep.Safe, rep.Rounds)
	}
	if rep.Rounds < 2 || len(rep.Jobs) <= len(rep.Plan) {
		t.Fatalf("%d rounds, %d requests for a plan of %d: nothing was asked again", rep.Rounds, len(rep.Jobs), len(rep.Plan))
	}
}

// TestLoopWaitsForSlowIngest: captures show in the listing 400 ms after
// their jobs succeed, well within Grace: the loop audits until they
// show and asks for no page twice.
func TestLoopWaitsForSlowIngest(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{IndexDelay: 400 * time.Millisecond}, nil)
	start := time.Now()
	rep, err := requestCaptures(t, w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, 10*time.Second))
	if err != nil || !rep.Safe || rep.Audits < 3 {
		t.Fatalf("%v: safe %v after %d audits", err, rep.Safe, rep.Audits)
	}
	for u, n := range submissionsOf(w.spn) {
		if n != 1 {
			t.Errorf("%s asked for %d times while its capture was being listed", u, n)
		}
	}
	t.Logf("confirmed %v after the run started, %d audits, %d requests", rep.Confirmed.Sub(start).Round(time.Millisecond), rep.Audits, len(rep.Jobs))
}

// TestLoopBoundsAttempts: the site answers the archive 503 for every
// page, so every capture fails: each page is asked for Attempts times,
// no more, and the run ends short once Wait has passed.
func TestLoopBoundsAttempts(t *testing.T) {
	failAll := func(dir string, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.Contains(r.UserAgent(), "lazarus") {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	w := newCaptureWorld(t, archivetest.SPNConfig{}, failAll)
	o := w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, 5*time.Second)
	o.Attempts, o.Wait = 2, time.Second
	rep, err := requestCaptures(t, o)
	if !errors.Is(err, capture.ErrShort) || rep.Safe {
		t.Fatalf("%v: safe %v", err, rep.Safe)
	}
	subs := submissionsOf(w.spn)
	if len(subs) != rep.Carriers {
		t.Fatalf("%d pages asked for, %d carriers", len(subs), rep.Carriers)
	}
	for u, n := range subs {
		if n != o.Attempts {
			t.Errorf("%s asked for %d times, Attempts %d", u, n, o.Attempts)
		}
	}
}

// TestLoopKeepsToTheLimits: under a fault mix (a 3-per-300-ms cap
// answered 429, two failing jobs, a capture never listed, a slow index)
// the client at the archive's rate never has more than 3 requests in
// any 300 ms window, is never answered 429, and the loop confirms the
// generation. It logs what it measured.
func TestLoopKeepsToTheLimits(t *testing.T) {
	limit := spn.Limit{N: 3, Per: 300 * time.Millisecond}
	w := newCaptureWorld(t, archivetest.SPNConfig{PerWindow: limit.N, Window: limit.Per, JobErrors: 2, Unindexed: 1,
		IndexDelay: 100 * time.Millisecond}, nil)
	start := time.Now()
	rep, err := requestCaptures(t, w.loopOptions(t, false, limit, 500*time.Millisecond))
	if err != nil || !rep.Safe {
		t.Fatalf("%v: safe %v", err, rep.Safe)
	}
	subs := w.spn.Submissions()
	most := archivetest.MaxInWindow(subs, limit.Per)
	throttled := 0
	for _, r := range subs {
		if r.Status == http.StatusTooManyRequests {
			throttled++
		}
	}
	if most > limit.N || throttled > 0 {
		t.Fatalf("%d requests in a %v window (limit %d), %d answered 429", most, limit.Per, limit.N, throttled)
	}
	t.Logf("%d requests, rounds: %d, at most %d per %v window, 0 throttled; confirmed %v after the start",
		len(subs), rep.Rounds, most, limit.Per, rep.Confirmed.Sub(start).Round(time.Millisecond))
}

// TestLoopHonoursThrottling: the archive takes 2 requests per 300 ms
// and answers more 429 with Retry-After: 1; a client set to 5 per
// 300 ms is throttled, waits each Retry-After out, and the loop still
// confirms the generation, with no more than 2 requests taken in any
// 300 ms. It logs what it measured.
func TestLoopHonoursThrottling(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{PerWindow: 2, Window: 300 * time.Millisecond, RetryAfter: time.Second,
		JobErrors: 1}, nil)
	start := time.Now()
	rep, err := requestCaptures(t, w.loopOptions(t, false, spn.Limit{N: 5, Per: 300 * time.Millisecond}, time.Second))
	if err != nil || !rep.Safe {
		t.Fatalf("%v: safe %v", err, rep.Safe)
	}
	var taken []archivetest.Request
	throttled := 0
	subs := w.spn.Submissions()
	for i, r := range subs {
		if r.Status != http.StatusTooManyRequests {
			taken = append(taken, r)
			continue
		}
		throttled++
		if i+1 < len(subs) && subs[i+1].Time.Sub(r.Time) < time.Second-50*time.Millisecond {
			t.Errorf("asked again %v after a 429 asking for 1 s", subs[i+1].Time.Sub(r.Time))
		}
	}
	if throttled == 0 || archivetest.MaxInWindow(taken, 300*time.Millisecond) > 2 {
		t.Fatalf("%d throttled, %d taken within 300 ms", throttled, archivetest.MaxInWindow(taken, 300*time.Millisecond))
	}
	t.Logf("%d requests (%d answered 429), rounds: %d; confirmed %v after the start",
		len(subs), throttled, rep.Rounds, rep.Confirmed.Sub(start).Round(time.Millisecond))
}

// TestLoopWithoutKeys: requests without keys whose answers name no
// capture are confirmed by the archive's listing alone.
func TestLoopWithoutKeys(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{Anonymous: archivetest.AnonymousAccepted}, nil)
	rep, err := requestCaptures(t, w.loopOptions(t, true, spn.Limit{N: 100, Per: time.Second}, 5*time.Second))
	if err != nil || !rep.Safe || rep.Requests[0].Keyed || rep.Requests[0].Taken == 0 || rep.Captured != 0 {
		t.Fatalf("%v: safe %v, requests %+v", err, rep.Safe, rep.Requests)
	}
	for _, r := range w.spn.Requests() {
		if !strings.HasPrefix(r.URI, "/save/http") {
			t.Fatalf("request %+v: want GET /save/{url} only", r)
		}
	}
}

// TestLoopKeysRequired: an archive refusing requests without keys is
// asked once; the run goes on auditing (nothing confirmed) and ends
// short, saying why the requests stopped.
func TestLoopKeysRequired(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	o := w.loopOptions(t, true, spn.Limit{N: 100, Per: time.Second}, 5*time.Second)
	o.Wait = 200 * time.Millisecond
	rep, err := requestCaptures(t, o)
	if !errors.Is(err, capture.ErrShort) || !errors.Is(err, spn.ErrKeysRequired) || rep.Audits < 2 {
		t.Fatalf("%v after %d audits", err, rep.Audits)
	}
	if n := len(w.spn.Requests()); n != 1 {
		t.Fatalf("%d requests after the refusal", n)
	}
}

// TestLoopWaitsForTheLiveSite: a generation the live site does not serve
// is waited for WaitLive, then the run fails with ErrNotLive, asking
// nothing.
func TestLoopWaitsForTheLiveSite(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	o := w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, time.Second)
	o.Expect, o.WaitLive, o.LiveEvery = strings.Repeat("ab", 16), 150*time.Millisecond, 40*time.Millisecond
	if _, err := requestCaptures(t, o); !errors.Is(err, capture.ErrNotLive) || !strings.Contains(err.Error(), o.Expect) {
		t.Fatalf("err %v, want ErrNotLive", err)
	}
	if n := len(w.spn.Requests()); n != 0 {
		t.Fatalf("%d requests for a generation not live", n)
	}
}

// TestLoopFetchesEachCaptureOnce: the loop audits the archives again and
// again while captures it asked for are not listed yet; a capture an
// earlier audit fetched is not fetched again (the audits share a cache
// for the run, as no state directory is given).
func TestLoopFetchesEachCaptureOnce(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{Unindexed: 3}, nil)
	rep, err := requestCaptures(t, w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, 150*time.Millisecond))
	if err != nil || !rep.Safe || rep.Audits < 3 {
		t.Fatalf("%v: safe %v after %d audits", err, rep.Safe, rep.Audits)
	}
	fetches := map[string]int{}
	for _, r := range w.archive.Requests() {
		if strings.HasPrefix(r.URI, "/web/") {
			fetches[r.URI]++
		}
	}
	if len(fetches) == 0 {
		t.Fatal("no capture was fetched")
	}
	for uri, n := range fetches {
		if n > 1 {
			t.Errorf("%s fetched %d times in %d audits", uri, n, rep.Audits)
		}
	}
}

// TestLoopNothingTakenAuditsOnce: without Wait, a run whose requests the
// archive all refused (requests without keys) does not audit the
// archives again: nothing it asked for can show. It ends short, saying
// why the requests stopped.
func TestLoopNothingTakenAuditsOnce(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	o := w.loopOptions(t, true, spn.Limit{N: 100, Per: time.Second}, 5*time.Second)
	o.Wait = 0
	rep, err := requestCaptures(t, o)
	if !errors.Is(err, capture.ErrShort) || !errors.Is(err, spn.ErrKeysRequired) || rep.Sent != 0 {
		t.Fatalf("%v, %d sent", err, rep.Sent)
	}
	listings := 0
	for _, r := range w.archive.Requests() {
		if strings.HasPrefix(r.URI, "/cdx/") {
			listings++
		}
	}
	if rep.Audits != 1 || listings != 1 {
		t.Fatalf("%d audits, %d listings of the archive after a run whose requests were all refused", rep.Audits, listings)
	}
}

// TestLoopSaysWhyTheLiveSiteCannotBeRead: a live site that cannot be
// read at all (here, nothing listens) is waited for WaitLive too, and
// the error says what reading it failed with, not only that it serves
// no generation signed by the key.
func TestLoopSaysWhyTheLiveSiteCannotBeRead(t *testing.T) {
	w := newCaptureWorld(t, archivetest.SPNConfig{}, nil)
	o := w.loopOptions(t, false, spn.Limit{N: 100, Per: time.Second}, time.Second)
	o.Verify.SiteURL = "http://127.0.0.1:1/"
	o.Expect, o.WaitLive, o.LiveEvery = strings.Repeat("ab", 16), 100*time.Millisecond, 40*time.Millisecond
	_, err := requestCaptures(t, o)
	if !errors.Is(err, capture.ErrNotLive) || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("err %v, want ErrNotLive naming the connection refused", err)
	}
}
