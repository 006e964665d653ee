package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock makes time pass only when the client sleeps, so limits can be
// checked exactly and tests do not wait.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	starts []time.Time // request starts, in clock time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)} }

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	if d > 0 {
		c.t = c.t.Add(d)
	}
	c.mu.Unlock()
	return ctx.Err()
}

// RoundTrip records when (in clock time) each request starts.
func (c *fakeClock) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.starts = append(c.starts, c.t)
	c.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func testClient(c *fakeClock, o Options) *Client {
	o.now, o.sleep, o.jit, o.Transport = c.now, c.sleep, func() float64 { return 0.5 }, c
	return New(o)
}

func get(t *testing.T, c *Client, url string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	return c.Do(req)
}

// TestRateNeverExceeded: sequential requests, retries included, start at
// least 60/rate seconds apart.
func TestRateNeverExceeded(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%3 == 0 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	clock := newFakeClock()
	c := testClient(clock, Options{Rate: 24})
	for i := 0; i < 12; i++ {
		resp, err := get(t, c, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	minGap := time.Minute / 24
	for i := 1; i < len(clock.starts); i++ {
		if gap := clock.starts[i].Sub(clock.starts[i-1]); gap < minGap {
			t.Fatalf("requests %d and %d only %v apart, limit %v", i-1, i, gap, minGap)
		}
	}
	if len(clock.starts) < 17 {
		t.Fatalf("%d requests: the 503s were not retried", len(clock.starts))
	}
}

// TestRetryAfter: a 429's Retry-After is waited out before the retry.
func TestRetryAfter(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	clock := newFakeClock()
	resp, err := get(t, testClient(clock, Options{Rate: 600}), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if gap := clock.starts[1].Sub(clock.starts[0]); gap < 120*time.Second {
		t.Fatalf("retried after %v, Retry-After said 120s", gap)
	}
}

// TestGiveUpAndRest: a host that keeps failing is given up on, then rests.
func TestGiveUpAndRest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	clock := newFakeClock()
	c := testClient(clock, Options{Rate: 600, Retries: 2, Failures: 3, Dormancy: time.Hour})
	if _, err := get(t, c, srv.URL); err == nil || !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("got %v", err)
	}
	if _, err := get(t, c, srv.URL); !errors.Is(err, ErrDormant) {
		t.Fatalf("got %v, want ErrDormant", err)
	}
	clock.sleep(context.Background(), 2*time.Hour)
	if _, err := get(t, c, srv.URL); errors.Is(err, ErrDormant) {
		t.Fatal("host still resting after its dormancy")
	}
}

// TestUnreachableNotRetried: a name that does not resolve and a port
// where nothing listens fail at once, without retries, and the host
// rests: a machine without network does not wait out backoffs.
func TestUnreachableNotRetried(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	refused := closed.URL
	closed.Close()
	for _, u := range []string{refused, "http://lazarus-test.invalid/"} {
		clock := newFakeClock()
		c := testClient(clock, Options{Rate: 600, Retries: 5})
		_, err := get(t, c, u)
		if !errors.Is(err, ErrUnreachable) || len(clock.starts) != 1 {
			t.Fatalf("%s: %v after %d attempts; want ErrUnreachable after 1", u, err, len(clock.starts))
		}
		if _, err := get(t, c, u); !errors.Is(err, ErrDormant) || len(clock.starts) != 1 {
			t.Fatalf("%s: second request %v after %d attempts; want the host resting", u, err, len(clock.starts))
		}
	}
}

// TestRedirectsStayOnHost: a redirect to the same host is followed, one
// to another host (an internal address, say) is not.
func TestRedirectsStayOnHost(t *testing.T) {
	var inside atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inside.Add(1) }))
	defer internal.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, internal.URL+"/meta-data", http.StatusFound) // same IP, another port
		case "/far":
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/there", http.StatusFound)
		default:
			io.WriteString(w, "ok")
		}
	}))
	defer srv.Close()
	c := testClient(newFakeClock(), Options{Rate: 600})
	if resp, err := get(t, c, srv.URL+"/here"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if _, err := get(t, c, srv.URL+"/away"); !errors.Is(err, ErrForeignRedirect) || inside.Load() != 0 {
		t.Fatalf("got %v, %d requests to the other port", err, inside.Load())
	}
	if _, err := get(t, c, srv.URL+"/far"); !errors.Is(err, ErrForeignRedirect) || inside.Load() != 0 {
		t.Fatalf("got %v, %d requests to the other host", err, inside.Load())
	}
}

// TestHugeRetryAfter: a Retry-After longer than a rest is not obeyed: the
// host rests and the request fails at once.
func TestHugeRetryAfter(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "2147483647")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	clock := newFakeClock()
	start := clock.now()
	c := testClient(clock, Options{Rate: 600})
	if _, err := get(t, c, srv.URL); !errors.Is(err, ErrDormant) || clock.now().Sub(start) > time.Minute {
		t.Fatalf("got %v after %v", err, clock.now().Sub(start))
	}
}

// TestConnectionReset: a dropped connection is retried.
func TestConnectionReset(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	resp, err := get(t, testClient(newFakeClock(), Options{Rate: 600}), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" {
		t.Fatalf("body %q", b)
	}
}

// TestSizeCapAndUserAgent: bodies past the cap fail to read; the
// User-Agent is honest and carries the contact.
func TestSizeCapAndUserAgent(t *testing.T) {
	var ua atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ua.Store(r.UserAgent())
		io.WriteString(w, strings.Repeat("x", 1000))
	}))
	defer srv.Close()
	resp, err := get(t, testClient(newFakeClock(), Options{Rate: 600, MaxBody: 999, Contact: "ops@example.org"}), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if got := ua.Load().(string); !strings.HasPrefix(got, "lazarus") || !strings.Contains(got, "ops@example.org") {
		t.Fatalf("User-Agent %q", got)
	}
}

// TestConcurrencyPerHost: no more than Concurrency requests in flight.
func TestConcurrencyPerHost(t *testing.T) {
	var cur, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		cur.Add(-1)
	}))
	defer srv.Close()
	c := testClient(newFakeClock(), Options{Rate: 6000, Concurrency: 2})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if resp, err := get(t, c, srv.URL); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	if peak.Load() > 2 {
		t.Fatalf("%d requests in flight, limit 2", peak.Load())
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"": 0, "5": 5 * time.Second, " 7 ": 7 * time.Second, "-1": 0, "soon": 0,
		"Sat, 21 Nov 2026 00:01:00 GMT": time.Minute, "Fri, 20 Nov 2026 00:00:00 GMT": 0,
		"0": 0, "99999999999": MaxRetryAfter, "2147483649": MaxRetryAfter, "999999999999999999999999": MaxRetryAfter, "00": 0,
		"Fri, 31 Dec 9999 23:59:59 GMT": MaxRetryAfter,
	} {
		if got := RetryAfter(v, now); got != want {
			t.Errorf("RetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}
