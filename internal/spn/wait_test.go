package spn_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazarus-preserve/lazarus/internal/spn"
)

// stubSPN is an SPN server whose answers the test writes: submissions
// get post's answer, status polls poll's (n counts the polls so far).
type stubSPN struct {
	posts, polls atomic.Int32
	post         func(w http.ResponseWriter)
	poll         func(w http.ResponseWriter, n int32)
}

func newStub(t *testing.T, s *stubSPN) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/save":
			s.posts.Add(1)
			s.post(w)
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/save/status/"):
			s.poll(w, s.polls.Add(1))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func accept(w http.ResponseWriter) {
	fmt.Fprint(w, `{"url":"http://127.0.0.1/","job_id":"spn2-0123456789abcdef"}`)
}

func captured(w http.ResponseWriter) {
	fmt.Fprintf(w, `{"status":"success","job_id":"spn2-0123456789abcdef","original_url":"http://127.0.0.1/p0","timestamp":"%s"}`,
		time.Now().UTC().Format("20060102150405"))
}

// throttle answers status with Retry-After: after.
func throttle(status int, after string) func(http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", after)
		w.WriteHeader(status)
		fmt.Fprint(w, `{"status":"error","message":"slow down"}`)
	}
}

// run calls SaveAll with a bound and returns the results by URL, the
// error and how long it took.
func run(t *testing.T, o spn.Options, urls []string) (map[string]spn.Result, error, time.Duration) {
	t.Helper()
	o.Credentials = creds
	c, err := spn.New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var mu sync.Mutex
	got := map[string]spn.Result{}
	start := time.Now()
	err = c.SaveAll(ctx, urls, func(r spn.Result) {
		mu.Lock()
		defer mu.Unlock()
		got[r.URL] = r
	})
	if ctx.Err() != nil {
		t.Fatalf("still waiting after %v: %v", time.Since(start), err)
	}
	return got, err, time.Since(start)
}

// TestSubmitWaitCapped: a server asking, on a submission, to wait longer
// than MaxWait (a Retry-After of years, in seconds or as a far HTTP
// date) stops the run at once with ErrWaitTooLong, saying the wait; the
// other URLs are not sent.
func TestSubmitWaitCapped(t *testing.T) {
	for _, after := range []string{"99999999", "Fri, 31 Dec 9999 23:59:59 GMT"} {
		s := &stubSPN{post: throttle(http.StatusTooManyRequests, after)}
		base := newStub(t, s)
		urls := []string{"http://127.0.0.1/p0", "http://127.0.0.1/p1"}
		got, err, took := run(t, spn.Options{Base: base, MaxWait: time.Minute}, urls)
		if !errors.Is(err, spn.ErrWaitTooLong) || !spn.Fatal(err) || !strings.Contains(err.Error(), "the archive asked to wait") ||
			!strings.Contains(err.Error(), "try later") {
			t.Fatalf("Retry-After %s: err %v, want ErrWaitTooLong", after, err)
		}
		if got[urls[0]].State != spn.StateError || got[urls[1]].State != spn.StateNotSent || s.posts.Load() != 1 || took > time.Second {
			t.Fatalf("Retry-After %s: %d posts in %v, results %+v", after, s.posts.Load(), took, got)
		}
	}
}

// TestPollWaitCapped: status answers asking to wait years are waited
// out for PollMax at most: the job is captured after them.
func TestPollWaitCapped(t *testing.T) {
	s := &stubSPN{post: accept, poll: func(w http.ResponseWriter, n int32) {
		if n <= 2 {
			throttle(http.StatusTooManyRequests, "99999999")(w)
			return
		}
		captured(w)
	}}
	base := newStub(t, s)
	got, err, took := run(t, spn.Options{Base: base, PollStart: time.Millisecond, PollMax: 20 * time.Millisecond}, []string{"http://127.0.0.1/p0"})
	if err != nil || got["http://127.0.0.1/p0"].State != spn.StateSuccess || took > time.Second {
		t.Fatalf("%v after %v: %+v", err, took, got)
	}
}

// TestJobTimeoutBounds: a job whose status polls keep being throttled
// (Retry-After: 1, within PollMax) is abandoned once JobTimeout passes,
// not after every retry's wait.
func TestJobTimeoutBounds(t *testing.T) {
	s := &stubSPN{post: accept, poll: func(w http.ResponseWriter, _ int32) { throttle(http.StatusServiceUnavailable, "1")(w) }}
	base := newStub(t, s)
	o := spn.Options{Base: base, PollStart: time.Millisecond, PollMax: 2 * time.Second, JobTimeout: 300 * time.Millisecond}
	got, err, took := run(t, o, []string{"http://127.0.0.1/p0"})
	r := got["http://127.0.0.1/p0"]
	if err != nil || r.State != spn.StateAbandoned || r.Err == nil || !strings.Contains(r.Err.Error(), "still pending after") || took > 1500*time.Millisecond {
		t.Fatalf("%v after %v: %+v", err, took, r)
	}
}

// TestNewPlainHTTP: a plain-http base URL is refused unless it is a
// loopback address (the secret would go in clear).
func TestNewPlainHTTP(t *testing.T) {
	for base, ok := range map[string]bool{
		"https://web.archive.org":      true,
		"https://example.org:8443/api": true,
		"http://127.0.0.1:9":           true,
		"http://127.5.6.7":             true,
		"http://[::1]:9":               true,
		"http://localhost:9":           true,
		"http://web.archive.org":       false,
		"http://192.168.1.2":           false,
		"http://localhost.example.org": false,
		"http://[::ffff:10.0.0.1]":     false,
	} {
		_, err := spn.New(spn.Options{Base: base, Credentials: creds})
		if ok != (err == nil) || !ok && !strings.Contains(err.Error(), "https") {
			t.Errorf("%s: %v", base, err)
		}
	}
}

// TestEndlessThrottlingEndsRun: a server that answers every submission
// 429 (each Retry-After within MaxWait) ends the run once one URL was
// throttled through every answer it waits out, as a Retry-After beyond
// MaxWait does: the other URLs are not sent, each of which would
// otherwise wait out as many answers again. Without keys the same, after
// three throttled answers to a request once one was taken.
func TestEndlessThrottlingEndsRun(t *testing.T) {
	s := &stubSPN{post: throttle(http.StatusTooManyRequests, "0")}
	base := newStub(t, s)
	urls := []string{"http://127.0.0.1/p0", "http://127.0.0.1/p1", "http://127.0.0.1/p2"}
	got, err, _ := run(t, spn.Options{Base: base, PollStart: time.Millisecond, PollMax: time.Millisecond, Rate: spn.Limit{N: 1000, Per: time.Second}}, urls)
	if !errors.Is(err, spn.ErrWaitTooLong) || !spn.Fatal(err) {
		t.Fatalf("err %v, want the run ended (ErrWaitTooLong)", err)
	}
	if got[urls[0]].State != spn.StateError || got[urls[1]].State != spn.StateNotSent || got[urls[2]].State != spn.StateNotSent {
		t.Fatalf("results %+v: want the first failed, the others not sent", got)
	}
	if n := s.posts.Load(); n > 31 {
		t.Fatalf("%d submissions, want those of the first URL only", n)
	}

	// Without keys: once a request was taken, three 429s in a row.
	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			w.Header().Set("Content-Location", "/web/20261128100000/"+strings.TrimPrefix(r.URL.Path, "/save/"))
			return
		}
		throttle(http.StatusTooManyRequests, "0")(w)
	}))
	defer srv.Close()
	c, err := spn.New(spn.Options{Base: srv.URL, PollStart: time.Millisecond, PollMax: time.Millisecond, Rate: spn.Limit{N: 1000, Per: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	urls = append(urls, "http://127.0.0.1/p3")
	got = map[string]spn.Result{}
	err = c.SaveAll(context.Background(), urls, func(r spn.Result) { got[r.URL] = r })
	if !errors.Is(err, spn.ErrWaitTooLong) || got[urls[0]].State != spn.StateSuccess || got[urls[2]].State != spn.StateNotSent || gets.Load() != 4 {
		t.Fatalf("without keys: err %v after %d requests, results %+v", err, gets.Load(), got)
	}
}

// TestThrottlingWaitsAddUp: a server answering every submission 429
// with a Retry-After within MaxWait (1 s, MaxWait 2.5 s) stops the run
// once the waits asked for one request would add up to more than
// MaxWait (after the second answer), not after every answer it would
// wait out one by one; with keys and without.
func TestThrottlingWaitsAddUp(t *testing.T) {
	s := &stubSPN{post: throttle(http.StatusTooManyRequests, "1")}
	base := newStub(t, s)
	urls := []string{"http://127.0.0.1/p0", "http://127.0.0.1/p1"}
	got, err, _ := run(t, spn.Options{Base: base, MaxWait: 2500 * time.Millisecond, Rate: spn.Limit{N: 1000, Per: time.Second}}, urls)
	if !errors.Is(err, spn.ErrWaitTooLong) || !strings.Contains(err.Error(), "in all") {
		t.Fatalf("err %v, want ErrWaitTooLong for the waits in all", err)
	}
	if n := s.posts.Load(); n != 3 || got[urls[1]].State != spn.StateNotSent {
		t.Fatalf("%d submissions, results %+v: want 3, the second URL not sent", n, got)
	}

	var gets atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if gets.Add(1) == 1 {
			w.Header().Set("Content-Location", "/web/20261128100000/"+strings.TrimPrefix(r.URL.Path, "/save/"))
			return
		}
		throttle(http.StatusTooManyRequests, "2")(w)
	}))
	defer srv.Close()
	c, err := spn.New(spn.Options{Base: srv.URL, MaxWait: 3 * time.Second, Rate: spn.Limit{N: 1000, Per: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	err = c.SaveAll(context.Background(), urls, func(spn.Result) {})
	if !errors.Is(err, spn.ErrWaitTooLong) || !strings.Contains(err.Error(), "in all") || gets.Load() != 3 {
		t.Fatalf("without keys: err %v after %d requests", err, gets.Load())
	}
}
