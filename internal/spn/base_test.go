package spn

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// TestCheckBaseRefuses: base URLs that would send requests to another
// path, or nowhere sensible, are refused.
func TestCheckBaseRefuses(t *testing.T) {
	for _, bad := range []string{"https://web.archive.org#frag", "https://web.archive.org?", "https://web.archive.org:99999",
		"https://user:pw@web.archive.org", "http://evil.com@127.0.0.1", "https://web.archive.org?x=1"} {
		if _, err := CheckBase(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	for _, good := range []string{"https://web.archive.org", "https://web.archive.org/", "http://127.0.0.1:8080", "http://[::1]:9"} {
		if _, err := CheckBase(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}

// TestRetryAfterAbsurd: a Retry-After in seconds past 2^31 is a wait too
// long, not none (it was once retried at once).
func TestRetryAfterAbsurd(t *testing.T) {
	for v, want := range map[string]bool{"2147483649": true, "99999999999999999999": true, "0": false, "": false, "soon": false, "00": false} {
		resp := &http.Response{Header: http.Header{"Retry-After": {v}}}
		if got := retryAfterOf(resp) > DefaultMaxWait; got != want {
			t.Errorf("Retry-After %q: beyond the cap %v, want %v", v, got, want)
		}
	}
}

// TestUnreachableEndsRun: when the first submission fails for good (no
// connection, or HTTP errors through its retries) before the API ever
// answered, the run ends with ErrUnreachable instead of trying every URL
// (it once took 188 s for 6 pages against a dead endpoint, then said
// "not yet safe").
func TestUnreachableEndsRun(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		w.WriteHeader(http.StatusNotImplemented)
	}))
	defer srv.Close()
	for _, base := range []string{srv.URL, "http://127.0.0.1:1"} {
		posts.Store(0)
		c, err := New(Options{Base: base, Credentials: Credentials{Access: "ak", Secret: "sk"}, Retries: 1,
			PollStart: time.Millisecond, PollMax: time.Millisecond, Rate: Limit{N: 1000, Per: time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		urls := []string{"http://example.org/a", "http://example.org/b", "http://example.org/c"}
		err = c.SaveAll(context.Background(), urls, func(Result) {})
		if !errors.Is(err, ErrUnreachable) || !Fatal(err) {
			t.Errorf("%s: %v, want ErrUnreachable", base, err)
		}
		if n := posts.Load(); base == srv.URL && n > 2 {
			t.Errorf("%s: %d submissions, want the first URL's tries only", base, n)
		}
	}
}
